"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp, Azure...).

Function calling over the subtask's tool schemas, the system prompt built by the harness, several tool
calls per message. A tool-call argument string that is not valid JSON is passed on as a string, so the
environment returns it to the model as a counted tool error instead of crashing the run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..llm.errors import LLMError
from ..llm.settings import LLMSettings
from ..messages import Message, ToolCall
from .base import AgentSetup

if TYPE_CHECKING:
    from ..llm.client import LLMClient

__all__ = ["OpenAIAgent", "parse_tool_arguments", "to_openai_messages"]


def to_openai_messages(system_prompt: str, messages: list[Message], *,
                       harness_form: bool = False) -> list[dict[str, Any]]:
    """The conversation in chat-completions format, from the agent's point of view.

    Args:
        harness_form: In VitaBench 2.0's form: an assistant's missing content stays null, tool call
            arguments are ASCII JSON, a tool result carries the tool's name.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    for message in messages:
        if message.role == "tool":
            result = {"role": "tool", "content": message.text, "tool_call_id": message.tool_call_id}
            out.append({**result, "name": message.name} if harness_form else result)
        elif message.role == "assistant":
            # The harness form keeps null next to tool calls, as VitaBench 2.0's harness sends it. Ours sends an
            # empty string, which every server we met accepts: llama-cpp-python's server answers null with a
            # validation error (HTTP 500), and chat templates read the field of every message.
            content = message.content if harness_form else message.content or ""
            entry: dict[str, Any] = {"role": "assistant", "content": content}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {"id": call.id, "type": "function",
                     "function": {"name": call.name, "arguments": call.arguments if isinstance(call.arguments, str)
                                  else json.dumps(call.arguments, ensure_ascii=harness_form)}}
                    for call in message.tool_calls
                ]
            out.append(entry)
        else:
            out.append({"role": "user", "content": message.text})
    return out


def _explained(error: LLMError, sent: list[dict[str, Any]]) -> LLMError:
    """``error``, saying why when a server refused the ``"content": null`` of the harness form's messages."""
    nulls = any(m["role"] == "assistant" and m.get("content") is None for m in sent)
    text = str(error)
    if error.retryable or not nulls or "content" not in text or ("None" not in text and "null" not in text):
        return error
    explained = LLMError(
        f"{text}\n  The server refused the request's assistant messages with tool calls, which carry "
        "\"content\": null as VitaBench 2.0's harness sends them (this profile keeps its requests identical to the "
        "harness's). Run this model behind a server that accepts null there (llama.cpp's llama-server does), or "
        "run the default profile, which sends an empty string.",
        role=error.role, model=error.model, host=error.host, status=error.status, reason=error.reason,
        attempts=error.attempts, retryable=error.retryable)
    return explained


def parse_tool_arguments(raw: str | None) -> dict[str, Any] | str:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return raw or ""
    return value if isinstance(value, dict) else (raw or "")


class OpenAIAgent:
    """The agent under test at an OpenAI-compatible endpoint.

    Calls go through the shared :class:`~pytest_vitabench.llm.client.LLMClient` under the role ``agent``
    (retries, run-wide limits, ledger; cached only in cache mode ``all``, keyed by the trial seed).

    Args:
        model: The model name sent to the endpoint.
        base_url: The endpoint (``None``: ``$OPENAI_BASE_URL`` or OpenAI's default).
        api_key_env: The environment variable holding the key.
        temperature: Sampling temperature (VitaBench 2.0's default is 0.0).
        timeout: Seconds per request.
        max_retries: Retries of a failed request (429, 5xx, timeouts) after the first attempt.
        client: A configured client (the plugin's, with its limits, cache and ledger); when given,
            ``base_url``, ``api_key_env``, ``timeout`` and ``max_retries`` are taken from it instead.
        params: Further request parameters (``max_completion_tokens``, ``reasoning_effort``, ``top_p``,
            ``extra_body``...), sent with every request.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.0, timeout: float = 120.0, max_retries: int = 3,
                 client: LLMClient | None = None, params: dict[str, Any] | None = None):
        if client is None:
            from ..llm.client import LLMClient

            client = LLMClient(LLMSettings(base_url=base_url, api_key_env=api_key_env, timeout_s=timeout,
                                           max_retries=max_retries))
        self.model = model
        self.temperature = temperature
        self.params = dict(params or {})
        self.client = client

    def __repr__(self) -> str:
        return f"OpenAIAgent(model={self.model!r}, client={self.client!r})"

    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message:
        sent = to_openai_messages(setup.system_prompt, messages[1:] if setup.hides_greeting else messages,
                                  harness_form=setup.official_format)
        try:
            completion = self.client.complete("agent", model=self.model, messages=sent, tools=setup.tools or None,
                                              seed=setup.seed, **{"temperature": self.temperature, **self.params})
        except LLMError as exc:
            raise _explained(exc, sent) from exc
        calls = [
            ToolCall(id=call["id"], name=call["function"]["name"],
                     arguments=parse_tool_arguments(call["function"]["arguments"]))
            for call in completion.tool_calls
        ]
        return Message(role="assistant", content=completion.message.get("content"), tool_calls=calls or None,
                       usage=completion.usage)
