"""What a real small model found (issue 32, point 9), each replayed against the stub server on 127.0.0.1.

A weak judge that echoes the rubric states it was given, a step cap that must hold, an item nobody judged, a
server that answers a malformed request with a deterministic HTTP 500, every item in error, and a server too
slow for the timeout.
"""

from __future__ import annotations

import json

import pytest
from _engine_helpers import even_odd_answer, write_many
from _stub_llm import StubLLM

LLM = ["-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", "1",
       "--vita-seed", "0"]
RUBRICS = ("The order is for product P2", "The order is paid")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=1, subtasks=1)
    return pytester


@pytest.fixture
def llm():
    stub = StubLLM()
    yield stub
    stub.close()


def echoing_judge(body: dict) -> dict:
    """The agent orders and pays; the judge copies back the state it was given for every rubric."""
    if body.get("tools"):
        return even_odd_answer(body)
    if "rubric_idx" in json.dumps(body["messages"]):
        return {"content": json.dumps([{"rubric_idx": i, "rubric": text, "justification": "Not evaluated yet.",
                                        "met": False} for i, text in enumerate(RUBRICS, 1)])}
    return {"content": "###STOP###"}


def test_a_judge_that_echoes_the_given_states_is_a_judge_failure(project, llm):
    llm.responder = echoing_judge
    args = [*LLM, "--vita-base-url", llm.base_url, "--vita-judge-model", "stub-judge", "-rs"]
    unscored = project.runpytest_subprocess(*args)
    unscored.assert_outcomes(skipped=1)  # unscored by default: out of the metrics, not the agent's failure
    unscored.stdout.fnmatch_lines(["*the judge only echoed the state it was given ('Not evaluated yet.')*"])
    zero = project.runpytest_subprocess(*args, "--vita-deviation", "judge-failures=zero")
    zero.assert_outcomes(failed=1)
    zero.stdout.fnmatch_lines(["reward 0.0: not judged (2 rubric(s))*"])
    assert "because: Not evaluated yet." not in zero.stdout.str()


def test_a_step_cap_is_exact_and_an_item_nobody_judged_says_so(project, llm):
    llm.responder = even_odd_answer
    report = project.path / "r.json"
    # opening (1), the agent's order (2): its results come after the cap
    result = project.runpytest_subprocess(*LLM, "--vita-base-url", llm.base_url, "--vita-max-steps", "2",
                                          "--vita-judge-model", "stub-judge", "--vita-report", str(report))
    result.assert_outcomes(failed=1)
    record = json.loads(report.read_text())["results"][0]
    assert (record["termination"], record["steps"]) == ("max_steps", 2)
    result.stdout.fnmatch_lines(["reward 0.0: not judged (2 rubric(s)) (termination: max_steps, steps: 2)"])
    assert "0 unmet of" not in result.stdout.str()


#: How llama-cpp-python's server answers an assistant message whose content is null: HTTP 500, a validation
#: error listing every member of the message union, the cause last.
VALIDATION = "7 validation errors:\n" + "\n".join(
    f"  {{'type': 'literal_error', 'loc': ('body', 'messages', 2, 'ChatCompletionRequest{kind}Message', 'role'), "
    f"'msg': \"Input should be '{kind.lower()}'\", 'input': 'assistant'}}"
    for kind in ("System", "User", "Tool", "Function", "Developer", "Other")) + (
    "\n  {'type': 'string_type', 'loc': ('body', 'messages', 2, 'ChatCompletionRequestAssistantMessage', "
    "'content'), 'msg': 'Input should be a valid string', 'input': None}")


def refuses_null_content(body: dict):
    if any(m["role"] == "assistant" and m.get("content") is None for m in body["messages"]):
        return 500, {"error": {"message": VALIDATION, "type": "internal_server_error"}}
    return even_odd_answer(body) if body.get("tools") else {"content": "###STOP###"}


@pytest.mark.parametrize("profile", ["default", "official"])
def test_a_validation_error_is_refused_at_once_with_its_whole_cause(project, llm, tmp_path, profile):
    from _fake_official import make_checkout

    llm.responder = refuses_null_content
    official = ["--vita-official-source", str(make_checkout(tmp_path / "harness"))] if profile == "official" else []
    result = project.runpytest_subprocess(*LLM, "--vita-base-url", llm.base_url, "--vita-profile", profile,
                                          *official)
    agent = [r for r in llm.requests if r.get("tools")]
    if profile == "default":  # an empty string, never null: the server takes every request
        result.assert_outcomes(passed=1)
        assert all(m.get("content") is not None for r in agent for m in r["messages"])
        return
    result.assert_outcomes(errors=1)
    # the first request, then the refused one: not retried, and no restart repeats it
    assert len(agent) == 2, len(agent)
    assert agent[1]["messages"][2]["content"] is None  # still sent as the official harness sends it
    text = result.stdout.str()
    assert "HTTP 500 (not retried)" in text and "'ChatCompletionRequestAssistantMessage', 'content')" in text
    assert "carry \"content\": null as VitaBench 2.0's harness sends them" in text


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_episode_errors_are_errors_of_the_call_and_an_all_error_run_measures_nothing(project, llm, workers):
    write_many(project.path / "tasks.json", users=1, subtasks=2)
    llm.responder = lambda body: (400, {"error": {"message": "unsupported parameter"}})
    result = project.runpytest_subprocess(*LLM, "--vita-base-url", llm.base_url, *workers)
    result.assert_outcomes(errors=2)
    text = result.stdout.str()
    assert "ERROR at setup of" not in text  # pytest's label for a fixture that failed
    for line in ("*ERROR at call of U1::s1?none-t0?*", "*ERROR at call of U1::s2?none-t0?*",
                 "infrastructure error: LLMError: *HTTP 400*", "VitaBench metrics: no measurement (*2 error(s)*"):
        result.stdout.fnmatch_lines([line])
    assert "0.000 [0.000, 0.000]" not in text and "Avg@1" not in text


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_retries_and_timeouts_show_while_they_happen(project, llm, workers):
    from _stub_llm import Reply

    # the first answer comes after the 1 s timeout (a one-slot local server busy with other requests)
    llm.replies.append(lambda body: Reply(message=even_odd_answer(body), delay=2.5))
    llm.responder = even_odd_answer
    result = project.runpytest_subprocess(*LLM, "--vita-base-url", llm.base_url, "--vita-limits", "timeout=1",
                                          *workers)
    result.assert_outcomes(passed=1)
    result.stderr.fnmatch_lines([
        "vitabench: agent call to 127.0.0.1:* (model stub-model): timed out (no answer within 1 s); retry 1/6 in *",
        "vitabench: hint: a local server that answers one request at a time queues the run's concurrent requests "
        "past the 1 s timeout; run with --vita-concurrency 1, or raise it with --vita-limits timeout=SECONDS"])
