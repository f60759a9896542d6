"""The official switches through pytest, against a real OpenAI client and a stub endpoint on 127.0.0.1:
``--vita-episode-style official`` starts a crashed episode again (up to 3 times), as the official harness reruns a
crashed run; ``--vita-tool-results official`` sends the model the official tools' text."""

from __future__ import annotations

import json

import pytest
from _stub_llm import StubLLM, tool_call
from _suites import tiny_suite

ARGS = ["--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", "1", "-p", "no:cacheprovider",
        "-k", "U2"]
MALFORMED = {"content": None, "tool_calls": [tool_call("c1", "get_delivery_store_info", '{"store_id": ')]}
STOP = {"content": "All done. ###STOP###"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    return pytester


def _run(project, stub, *args):
    report = project.path / "run.json"
    project.runpytest_subprocess(*ARGS, "--vita-base-url", stub.base_url, "--vita-report", str(report), *args)
    (result,) = json.loads(report.read_text())["results"]
    return result


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_a_malformed_tool_call_restarts_the_episode_officially(project, concurrency):
    stub = StubLLM()
    try:
        stub.replies += [MALFORMED, STOP]
        result = _run(project, stub, "--vita-episode-style", "official", "--vita-concurrency", concurrency)
        assert result["outcome"] != "error" and result["restarts"] == 1
        assert result["termination"] == "agent_stop"
        assert result["steps"] == 2  # the instruction and the agent's one message
        # the second attempt started from the greeting: the same first request as the first attempt
        assert stub.requests[0]["messages"] == stub.requests[1]["messages"]
    finally:
        stub.close()


@pytest.mark.slow
def test_restarts_run_out_after_three_and_the_item_is_an_error(project):
    stub = StubLLM()
    try:
        stub.replies += [MALFORMED] * 4 + [STOP]
        result = _run(project, stub, "--vita-episode-style", "official")
        assert result["outcome"] == "error" and result["restarts"] == 3
        assert "MalformedToolCall" in result["error"] and len(stub.requests) == 4
    finally:
        stub.close()


@pytest.mark.slow
def test_by_default_malformed_arguments_go_back_to_the_agent(project):
    stub = StubLLM()
    try:
        stub.replies += [MALFORMED, STOP]
        result = _run(project, stub)
        assert result["restarts"] == 0 and result["tool_errors"] == 1
        assert result["steps"] == 4  # instruction, the call, its tool error, the agent's stop
    finally:
        stub.close()


@pytest.mark.slow
@pytest.mark.parametrize(("style", "start"), [("official", "Store(name=Quiet Noodles, store_id=S2, score=4.5, "),
                                              ("default", '{"store_id": "S2", "name": "Quiet Noodles"')])
def test_the_model_reads_the_tool_answers_of_the_style(project, style, start):
    stub = StubLLM()
    try:
        stub.replies += [{"content": None, "tool_calls": [tool_call("c1", "get_delivery_store_info",
                                                                    {"store_id": "S2"})]}, STOP]
        _run(project, stub, "--vita-tool-results", style)
        answer = stub.requests[1]["messages"][-1]
        assert answer["role"] == "tool" and answer["content"].startswith(start)
    finally:
        stub.close()


def test_a_bad_style_is_a_usage_error_naming_the_option(project):
    result = project.runpytest("--vita-tool-results", "repr", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-tool-results must be one of default, official, got 'repr'*"])
