"""What we keep of an endpoint's answers: the first choice's message, normalised, and its token counts,
whatever the provider's spelling."""

from __future__ import annotations

import json
from typing import Any

#: Where providers put the prompt tokens served from their prompt cache (OpenAI, Azure and vLLM; the Responses
#: API; DeepSeek; Anthropic-compatible layers; Moonshot), in the order we look.
_CACHED_SPELLINGS = (("prompt_tokens_details", "cached_tokens"), ("input_tokens_details", "cached_tokens"),
                     ("prompt_cache_hit_tokens",), ("cache_read_input_tokens",), ("cached_tokens",))


def _count(value: Any) -> int:
    """A token count from a usage field: a non-negative int, or 0 for anything else (``None``, text, junk)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return max(int(value), 0)


def _cached_prompt_tokens(usage: dict[str, Any]) -> int:
    for path in _CACHED_SPELLINGS:
        value: Any = usage
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            return _count(value)
    return 0


def _json_tokens(usage: Any) -> dict[str, int]:
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("completion_tokens_details") if isinstance(usage.get("completion_tokens_details"), dict) \
        else {}
    cached = _cached_prompt_tokens(usage)
    if "prompt_tokens" in usage:
        prompt = _count(usage.get("prompt_tokens"))
    else:  # the Anthropic shape: ``input_tokens`` leaves out what was read from or written to the cache
        prompt = _count(usage.get("input_tokens")) + cached + _count(usage.get("cache_creation_input_tokens"))
    completion = _count(usage.get("completion_tokens", usage.get("output_tokens")))
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "reasoning_tokens": _count(details.get("reasoning_tokens")),
            # never more than the prompt: a provider's count of a cache hit cannot make a prompt cost less than 0
            "cached_prompt_tokens": min(cached, prompt)}


class BadResponse(ValueError):
    """A 200 answer that is not a usable completion (no choices, no message)."""


def chat_payload(response: dict[str, Any]) -> dict[str, Any]:
    """The part of a chat completion's JSON we keep (and cache): the first choice's message, normalised.

    Raises:
        BadResponse: The answer has no choice with a message (retried like a 5xx).
    """
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
            or not isinstance(choices[0].get("message"), dict):
        raise BadResponse(f"the 200 answer has no choices: {json.dumps(response)[:200]}")
    choice = choices[0]
    raw = choice["message"]
    calls = []
    for i, call in enumerate(raw.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):  # custom (non-function) tool calls are not part of this benchmark
            continue
        arguments = function.get("arguments")
        calls.append({"id": call.get("id") or f"call_{i}", "type": "function",
                      "function": {"name": function.get("name"),
                                   "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)}})
    message: dict[str, Any] = {"role": "assistant", "content": raw.get("content"), "tool_calls": calls}
    reasoning = raw.get("reasoning_content") or raw.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        message["reasoning_content"] = reasoning
    return {"message": message, "finish_reason": choice.get("finish_reason"),
            "usage": _json_tokens(response.get("usage")), "model": response.get("model")}


def embeddings_payload(response: Any) -> dict[str, Any]:
    data = sorted(response.data, key=lambda item: item.index)
    usage = getattr(response, "usage", None)
    return {"vectors": [list(item.embedding) for item in data],
            "usage": {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0, "completion_tokens": 0,
                      "reasoning_tokens": 0}}
