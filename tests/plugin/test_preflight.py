"""Preflight before the first item, and the circuit breaker through the whole plugin, over real HTTP."""

from __future__ import annotations

import socket

import pytest

KEY_ENV = "VITA_PREFLIGHT_KEY"
SECRET = "sk-preflight-SECRET-0123456789"


@pytest.fixture
def llm_project(project, monkeypatch):
    project.makeconftest("")  # the built-in fixtures: the agent is the LLM behind the stub
    monkeypatch.setenv(KEY_ENV, SECRET)
    return project


def run(project, url, *args):
    return project.runpytest("--vita-trials", "1", "--vita-model", "gpt-4o-mini", "--vita-base-url", url,
                             "--vita-api-key-env", KEY_ENV, *args)


def test_a_wrong_key_is_a_usage_error_before_any_item(llm_project, stub):
    stub.preflight_replies += [(401, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})]
    result = run(llm_project, stub.base_url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "*preflight failed, no item was run*",
        f"*agent model 'gpt-4o-mini' at {stub.base_url}: HTTP 401 (not retried): Incorrect API key provided: ***"
        f" - check the key in ${KEY_ENV}*"])
    assert len(stub.preflights) == 1 and stub.requests == []  # a 401 is not retried
    assert SECRET not in result.stdout.str() + result.stderr.str()


def test_a_wrong_model_name_names_the_role_model_and_url(llm_project, stub):
    # (a URL carrying credentials never gets this far: it is refused up front, see tests/llm/test_secrets.py)
    stub.preflight_replies += [(404, {"error": {"message": "The model `gpt-4o-mini` does not exist"}})]
    result = run(llm_project, stub.base_url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*agent model 'gpt-4o-mini' at {stub.base_url}: HTTP 404*does not exist*"])


def test_a_misspelled_built_in_gets_a_hint_when_the_endpoint_does_not_know_it(llm_project, stub):
    stub.preflight_replies += [(404, {"error": {"message": "model not found"}})]
    result = llm_project.runpytest("--vita-model", "refrence", "--vita-base-url", stub.base_url,
                                   "--vita-api-key-env", KEY_ENV)
    result.stderr.fnmatch_lines(["*HTTP 404*model not found*did you mean 'reference'?*"])


def test_an_unreachable_url_fails_in_seconds(llm_project):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run(llm_project, f"http://127.0.0.1:{port}/v1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*agent model 'gpt-4o-mini' at http://127.0.0.1:{port}/v1: connection failed*"])


def test_every_role_and_endpoint_is_checked_once(llm_project, stub):
    result = llm_project.runpytest(
        "--vita-trials", "1", "--vita-model", "m-agent", "--vita-user-model", "m-agent",
        "--vita-judge-model", "m-judge",
        "--vita-base-url", stub.base_url, "--vita-api-key-env", KEY_ENV, "--collect-only")
    assert result.ret == pytest.ExitCode.OK and stub.preflights == []  # --collect-only sends nothing
    stub.preflight_replies += [(500, {"error": "down"}), (500, {"error": "still down"}),
                               (400, {"error": {"message": "max_tokens is not supported"}})]
    result = llm_project.runpytest(
        "--vita-trials", "1", "--vita-model", "m-agent", "--vita-user-model", "m-agent",
        "--vita-judge-model", "m-judge",
        "--vita-base-url", stub.base_url, "--vita-api-key-env", KEY_ENV, "-k", "nothing-matches")
    # m-agent (agent and user): a 500 and one retry; m-judge's 400 proves it is there
    assert [p["model"] for p in stub.preflights] == ["m-agent", "m-agent", "m-judge"]
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*agent, user model 'm-agent' at *: HTTP 500*still down*"])
    result.stderr.no_fnmatch_line("*m-judge*")


def test_a_passing_preflight_is_one_request_per_model(llm_project, stub):
    result = llm_project.runpytest(
        "--vita-trials", "1", "--vita-model", "m-agent", "--vita-judge-model", "m-judge",
        "--vita-base-url", stub.base_url, "--vita-api-key-env", KEY_ENV, "-k", "nothing-matches")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert [p["model"] for p in stub.preflights] == ["m-agent", "m-judge"]


def test_preflight_off_and_offline_runs_send_nothing(llm_project, stub):
    stub.preflight_replies.append((401, {"error": {"message": "bad key"}}))
    result = run(llm_project, stub.base_url, "--vita-preflight", "off", "-k", "U1 and s1")
    assert stub.preflights == [] and len(stub.requests) >= 1
    result.assert_outcomes(failed=1)  # the stub's default reply ends the episode without an order
    offline = llm_project.runpytest("--vita-trials", "1", "--vita-base-url", stub.base_url, "-k", "U1 and s1")
    offline.assert_outcomes(failed=1)  # the offline reference agent ran; no ping was sent
    assert stub.preflights == []


def test_the_circuit_breaker_turns_the_rest_of_the_run_into_quick_errors(llm_project, stub):
    stub.replies += [(401, {"error": {"message": "key revoked"}})] * 10
    result = run(llm_project, stub.base_url, "--vita-limits", "circuit-breaker=2", "--vita-fail-under", "avg=0",
                 "--vita-concurrency", "1")
    # the preflight passed; then two failed calls opened the breaker and the third item sent nothing (with
    # more episodes in flight, those already started when it opens finish their one call)
    assert len(stub.requests) == 2
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*circuit breaker open for * after 2 consecutive failed calls*key revoked*"])
    assert result.ret == 6
