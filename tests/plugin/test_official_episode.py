"""The official switches through pytest, against a real OpenAI client and a stub endpoint on 127.0.0.1:
``--vita-deviation episode=official`` starts a crashed episode again (up to 3 times), as the official harness reruns a
crashed run; ``--vita-deviation tool-results=official`` sends the model the official tools' text."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from _side_by_side import OFFICIAL_SOURCE as OFFICIAL_DIR
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
        result = _run(project, stub, "--vita-deviation", "episode=official", "--vita-concurrency", concurrency)
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
        result = _run(project, stub, "--vita-deviation", "episode=official")
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
        # the official answers carry the official tools' messages: read from the official source
        source = ["--vita-official-source", str(OFFICIAL_DIR)] if style == "official" else []
        if source and not OFFICIAL_DIR.is_dir():
            pytest.skip(f"the official harness's source is not at {OFFICIAL_DIR} (needs ../shared beside the clone)")
        _run(project, stub, "--vita-deviation", f"tool-results={style}", *source)
        answer = stub.requests[1]["messages"][-1]
        assert answer["role"] == "tool" and answer["content"].startswith(start)
    finally:
        stub.close()


def test_a_bad_style_is_a_usage_error_naming_the_option(project):
    result = project.runpytest("--vita-deviation", "tool-results=repr", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-deviation tool-results must be one of default, official, got 'repr'*"])


def test_official_tool_results_without_the_official_source_is_a_usage_error_naming_it(project):
    result = project.runpytest("--vita-deviation", "tool-results=official", "--vita-official-source", "none",
                               "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-deviation tool-results=official reads the official tools' messages*"
                                 "--vita-official-source DIR*"])


def test_a_copy_of_the_harness_without_a_message_is_a_usage_error_naming_file_and_function(project, tmp_path):
    if not OFFICIAL_DIR.is_dir():
        pytest.skip(f"the official harness's source is not at {OFFICIAL_DIR} (needs ../shared beside the clone)")
    copy = tmp_path / "VitaBench-2.0"
    shutil.copytree(OFFICIAL_DIR / "src" / "vita", copy / "src" / "vita", ignore=shutil.ignore_patterns("*.json"))
    tools = copy / "src" / "vita" / "domains" / "delivery" / "tools.py"
    text = tools.read_text(encoding="utf-8")
    start = text.index("def pay_delivery_order")
    end = text.index("\n    @", start)
    # a copy whose payment tool says nothing any more
    tools.write_text(text[:start] + re.sub(r'return "[^"]*"', "return None", text[start:end]) + text[end:],
                     encoding="utf-8")
    result = project.runpytest("--vita-deviation", "tool-results=official", "--vita-official-source", str(copy),
                               "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{tools}: pay_delivery_order() has 0 message(s) with no placeholder*"])
