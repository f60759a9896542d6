"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp, Azure...).

Function calling over the subtask's tool schemas, the system prompt built by the harness, several tool
calls per message. A tool-call argument string that is not valid JSON is passed on as a string, so the
environment returns it to the model as a counted tool error instead of crashing the run.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..messages import Message, ToolCall, Usage
from .base import AgentSetup

#: Placeholder key for local endpoints that need none (the client refuses an empty key).
LOCAL_KEY = "not-needed"


class MissingAPIKey(ValueError):
    """No key in the configured environment variable for an endpoint that needs one."""


def api_key(api_key_env: str, base_url: str | None) -> str:
    """Read the key from the environment; never log or return it anywhere but the client."""
    key = os.environ.get(api_key_env, "")
    if key:
        return key
    if base_url:
        return LOCAL_KEY
    raise MissingAPIKey(
        f"no API key: set ${api_key_env} (or --vita-api-key-env), or point --vita-base-url at a local endpoint"
    )


def to_openai_messages(system_prompt: str, messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation in chat-completions format, from the agent's point of view."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    for message in messages:
        if message.role == "tool":
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text})
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {"id": call.id, "type": "function",
                     "function": {"name": call.name, "arguments": call.arguments if isinstance(call.arguments, str)
                                  else json.dumps(call.arguments, ensure_ascii=False)}}
                    for call in message.tool_calls
                ]
            out.append(entry)
        else:
            out.append({"role": "user", "content": message.text})
    return out


def parse_tool_arguments(raw: str | None) -> dict[str, Any] | str:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return raw or ""
    return value if isinstance(value, dict) else (raw or "")


class OpenAIAgent:
    """The agent under test at an OpenAI-compatible endpoint.

    Args:
        model: The model name sent to the endpoint.
        base_url: The endpoint (``None``: the client's default, i.e. ``$OPENAI_BASE_URL`` or OpenAI).
        api_key_env: The environment variable holding the key.
        temperature: Sampling temperature (the official default is 0.0).
        timeout: Seconds per request.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.0, timeout: float = 120.0, max_retries: int = 3):
        from openai import OpenAI  # imported only when an LLM agent is configured

        self.model = model
        self.temperature = temperature
        self._client = OpenAI(base_url=base_url, api_key=api_key(api_key_env, base_url), timeout=timeout,
                              max_retries=max_retries)

    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(setup.system_prompt, messages),
            "temperature": self.temperature,
            "seed": setup.seed,
        }
        if setup.tools:
            request["tools"] = setup.tools
            request["tool_choice"] = "auto"
        completion = self._client.chat.completions.create(**request)
        choice = completion.choices[0].message
        calls = [
            ToolCall(id=call.id or f"call_{i}", name=call.function.name,
                     arguments=parse_tool_arguments(call.function.arguments))
            for i, call in enumerate(choice.tool_calls or [])
            if getattr(call, "function", None) is not None
        ]
        return Message(role="assistant", content=choice.content, tool_calls=calls or None,
                       usage=_usage(completion))


def _usage(completion: Any) -> Usage:
    usage = getattr(completion, "usage", None)
    if usage is None:
        return Usage(requests=1)
    details = getattr(usage, "completion_tokens_details", None)
    return Usage(prompt_tokens=usage.prompt_tokens or 0, completion_tokens=usage.completion_tokens or 0,
                 reasoning_tokens=getattr(details, "reasoning_tokens", 0) or 0, requests=1)
