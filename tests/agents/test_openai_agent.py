"""The OpenAI-compatible agent over real HTTP against a stub server on 127.0.0.1."""

from __future__ import annotations

import pytest
from _stub_llm import tool_call

from pytest_vitabench.agents.base import AgentSetup
from pytest_vitabench.agents.openai_agent import OpenAIAgent
from pytest_vitabench.llm.settings import MissingAPIKey
from pytest_vitabench.llm.settings import resolve_api_key as api_key
from pytest_vitabench.messages import Message, ToolCall

KEY = "sk-stub-0123456789abcdefghijklmn"
TOOLS = [{"type": "function", "function": {"name": "weather", "description": "d",
                                            "parameters": {"type": "object", "properties": {}}}}]


def _setup(tools=TOOLS):
    return AgentSetup(system_prompt="SYSTEM", tools=tools, memory="", time="t", seed=42)


def test_sends_the_conversation_and_parses_tool_calls(stub, monkeypatch):
    monkeypatch.setenv("VITA_TEST_KEY", KEY)
    stub.replies.append({"content": "Let me check.", "tool_calls": [
        tool_call("c1", "weather", {"address": "Kunming"}), tool_call("c2", "weather", '{"address": ')]})
    agent = OpenAIAgent("my-model", base_url=stub.base_url, api_key_env="VITA_TEST_KEY", max_retries=0)
    history = [Message(role="assistant", content="Hello"), Message(role="user", content="weather?"),
               Message(role="assistant", tool_calls=[ToolCall(id="old", name="weather", arguments={"a": 1})]),
               Message(role="tool", tool_call_id="old", name="weather", content="sunny")]
    reply = agent.respond(_setup(), history)
    assert reply.content == "Let me check."
    assert [c.arguments for c in reply.tool_calls] == [{"address": "Kunming"}, '{"address": ']
    assert reply.usage.prompt_tokens == 11 and reply.usage.reasoning_tokens == 2 and reply.usage.requests == 1
    body = stub.requests[0]
    assert body["model"] == "my-model" and body["seed"] == 42 and body["tool_choice"] == "auto"
    assert [m["role"] for m in body["messages"]] == ["system", "assistant", "user", "assistant", "tool"]
    assert body["messages"][3]["tool_calls"][0]["function"]["arguments"] == '{"a": 1}'
    assert body["messages"][3]["content"] == ""  # llama.cpp's server rejects "content": null
    assert body["messages"][4] == {"role": "tool", "tool_call_id": "old", "content": "sunny"}
    assert {k.lower(): v for k, v in stub.headers[0].items()}["authorization"] == f"Bearer {KEY}"


def test_no_tools_means_no_tool_choice(stub):
    stub.replies.append({"content": "hi ###STOP###"})
    agent = OpenAIAgent("m", base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", max_retries=0)
    assert agent.respond(_setup(tools=[]), []).content == "hi ###STOP###"
    assert "tools" not in stub.requests[0] and "tool_choice" not in stub.requests[0]


def test_server_errors_raise_for_the_harness_to_report(stub):
    stub.replies.append((500, {"error": {"message": "boom"}}))
    agent = OpenAIAgent("m", base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", max_retries=0)
    with pytest.raises(Exception, match="500|boom"):
        agent.respond(_setup(), [])


def test_api_key_rules(monkeypatch):
    monkeypatch.delenv("VITA_NO_SUCH_VAR", raising=False)
    assert api_key("VITA_NO_SUCH_VAR", "http://127.0.0.1:1/v1") == "not-needed"
    with pytest.raises(MissingAPIKey, match=r"\$VITA_NO_SUCH_VAR"):
        api_key("VITA_NO_SUCH_VAR", None)


def test_model_args_reach_the_endpoint_and_key_the_cache(stub, tmp_path):
    """--vita-model-args: sent with every request (extra_body merged into the body, as the openai client does)
    and part of the cache key, so a thinking and a non-thinking run never share cached answers."""
    from pytest_vitabench.run.wiring import Benchmark

    def agent(args: str) -> OpenAIAgent:
        bench = Benchmark({"vita_model": "m", "vita_base_url": stub.base_url, "vita_api_key_env": "VITA_NO_SUCH_VAR",
                           "vita_cache": "all", "vita_model_args": args}, rootdir=tmp_path,
                          state_dir=str(tmp_path / "llm"))
        return bench.agent()

    thinking = agent('{"reasoning_effort": "high", "extra_body": {"enable_thinking": true}, "temperature": 0.6}')
    plain = agent("extra_body.enable_thinking=false")
    stub.replies += [{"content": "a"}, {"content": "b"}]
    assert thinking.respond(_setup(), []).content == "a"
    assert plain.respond(_setup(), []).content == "b"
    first, second = stub.requests
    assert first["reasoning_effort"] == "high" and first["enable_thinking"] is True and first["temperature"] == 0.6
    assert second["enable_thinking"] is False and second["temperature"] == 0.0 and "reasoning_effort" not in second
    assert thinking.respond(_setup(), []).content == "a"  # a cache hit: no third request
    assert len(stub.requests) == 2
