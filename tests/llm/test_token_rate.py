"""``--vita-limits tpm``: the run-wide token budget, a provider's token-limit 429s honoured, and adaptive
concurrency."""

from __future__ import annotations

import json
import threading
import time

import pytest
from _stub_llm import StubLLM
from _suites import tiny_suite
from _token_limited import TokenLimit

from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings
from pytest_vitabench.llm.adaptive import AdaptiveConcurrency
from pytest_vitabench.llm.ratelimit import LimiterTimeout
from pytest_vitabench.llm.retry import names_token_limit, parse_duration, token_reset_wait
from pytest_vitabench.llm.tokenrate import TokenBudget, estimate_request_tokens
from pytest_vitabench.memory.tokens import count_tokens
from pytest_vitabench.options.values import token_limit

OPENAI_TPM_429 = ("Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM): Limit 30000, "
                  "Used 29000, Requested 2000. Please try again in 2.5s. Visit https://platform.openai.com/...")


# -------------------------------------------------------------------------------------------- reading


@pytest.mark.parametrize(("raw", "tokens"), [("30000", 30_000), ("30k", 30_000), ("2M", 2_000_000),
                                             ("1.5k", 1_500), ("0", 0), ("", 0), ("unlimited", 0)])
def test_token_limit_values(raw, tokens):
    assert token_limit("--vita-limits tpm", raw) == tokens


@pytest.mark.parametrize("raw", ["lots", "-5", "1.5", "3kk", "k"])
def test_bad_token_limits_name_the_option(raw):
    with pytest.raises(ValueError, match="--vita-limits tpm"):
        token_limit("--vita-limits tpm", raw)


def test_a_bad_tpm_is_a_usage_error_naming_the_option(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    result = pytester.runpytest("--vita-limits", "tpm=fast")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-limits tpm must be a number of tokens*'fast'*"])


@pytest.mark.parametrize(("message", "headers", "expected"), [
    (OPENAI_TPM_429, {}, True),
    ("Requests to the ChatCompletions_Create Operation have exceeded token rate limit of your current tier", {}, True),
    ("This request would exceed the rate limit for your organization of 40,000 input tokens per minute", {}, True),
    ("Rate limit reached for gpt-4.1 on requests per min (RPM): Limit 500", {}, False),
    ("Too many requests", {"x-ratelimit-remaining-tokens": "0"}, True),
    ("Too many requests", {"x-ratelimit-remaining-tokens": "120"}, False),
])
def test_which_429s_name_a_token_limit(message, headers, expected):
    assert names_token_limit(message, headers) is expected


def test_the_token_reset_wait_comes_from_headers_then_the_message():
    assert token_reset_wait(OPENAI_TPM_429) == 2.5
    assert token_reset_wait("try again in 20ms") == pytest.approx(0.02)
    assert token_reset_wait(OPENAI_TPM_429, {"x-ratelimit-reset-tokens": "6m0s"}) == 360
    assert token_reset_wait(OPENAI_TPM_429, {"Retry-After": "7", "x-ratelimit-reset-tokens": "6m0s"}) == 7
    assert token_reset_wait("slow down") is None
    assert parse_duration("1h2m3.5s") == pytest.approx(3723.5)
    assert parse_duration("soon") is None and parse_duration("3 parsecs") is None


def test_the_estimate_counts_messages_tools_and_the_completion_allowance():
    text = "Order me the usual noodles, please."
    plain = estimate_request_tokens({"messages": [{"role": "user", "content": text}]}, count_tokens)
    assert plain == count_tokens(text) + 4
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    richer = estimate_request_tokens({"messages": [{"role": "user", "content": text}], "tools": tools,
                                      "max_tokens": 100}, count_tokens)
    assert richer > plain + 100
    parts = estimate_request_tokens({"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]},
                                    count_tokens)
    assert parts == plain
    assert estimate_request_tokens({"input": ["a b c", "d"]}, count_tokens) == count_tokens("a b c") + count_tokens("d")


# -------------------------------------------------------------------------------------------- the budget


def test_the_budget_holds_charges_until_they_leave_the_window(tmp_path):
    budget = TokenBudget(tmp_path, tokens=100, window_s=0.6)
    start = time.monotonic()
    first = budget.charge(60)
    time.sleep(0.2)
    budget.charge(40)  # fits at once
    budget.charge(30)  # waits for the first charge to leave the window (0.6 s and the 50 ms guard)
    assert time.monotonic() - start >= 0.6
    assert first == 0 and budget.used() == pytest.approx(70)  # the second is still in the window


def test_a_correction_replaces_the_estimate(tmp_path):
    budget = TokenBudget(tmp_path, tokens=100, window_s=5)
    ticket = budget.charge(90)
    budget.correct(ticket, 10)  # the response said 10
    start = time.monotonic()
    budget.charge(80)
    assert time.monotonic() - start < 1 and budget.used() == pytest.approx(90)


def test_a_request_larger_than_the_budget_goes_alone(tmp_path):
    budget = TokenBudget(tmp_path, tokens=100, window_s=5)
    assert budget.charge(500) is not None  # into the empty window: refusing it would stall the run
    with pytest.raises(LimiterTimeout, match="did not fit the token budget"):
        TokenBudget(tmp_path, tokens=100, window_s=5, max_wait_s=0.2).charge(1)


def test_the_budget_is_shared_through_the_directory(tmp_path):
    one, other = TokenBudget(tmp_path, tokens=100, window_s=5), TokenBudget(tmp_path, tokens=100, window_s=5)
    one.charge(100)
    with pytest.raises(LimiterTimeout):
        TokenBudget(tmp_path, tokens=100, window_s=5, max_wait_s=0.1).charge(1)
    assert other.used() == 100


def test_a_pause_holds_every_charge_even_without_a_budget(tmp_path):
    budget = TokenBudget(tmp_path, tokens=None, window_s=60)
    assert budget.charge(10) is None  # nothing to charge
    TokenBudget(tmp_path, tokens=None, window_s=60).pause(0.3)
    start = time.monotonic()
    budget.charge(10)
    assert time.monotonic() - start >= 0.25


def test_a_torn_state_file_is_read_without_its_torn_tail(tmp_path):
    budget = TokenBudget(tmp_path, tokens=100, window_s=5)
    budget.charge(50)
    with budget.path.open("ab") as handle:
        handle.write(b"\x01\x02\x03")  # a crash in the middle of a write
    assert budget.used() == 50
    budget.charge(50)
    assert budget.used() == 100


def test_a_budget_without_a_counter_is_refused():
    with pytest.raises(ValueError, match="tpm.*needs count_tokens"):
        LLMClient(LLMSettings(base_url="http://127.0.0.1:9/v1", api_key_env="VITA_NO_KEY", tpm=1000))


# -------------------------------------------------------------------------------------------- AIMD


def test_aimd_halves_on_a_429_once_per_round_trip_and_grows_back():
    gate = AdaptiveConcurrency()
    slots = [gate.slot() for _ in range(8)]
    starts = [slot.__enter__() for slot in slots]
    assert gate.limit is None and gate.in_flight == 8
    slots[0].__exit__(None, None, None)
    assert gate.throttled(starts[0]) is True and gate.limit == 4  # half of the 8 in flight
    for slot in slots[1:]:
        slot.__exit__(None, None, None)
    assert gate.throttled(starts[7]) is False  # in flight at the cut: the same congestion event
    with gate.slot() as later:
        pass
    assert gate.throttled(later) is True and gate.limit == 2  # a request sent after the cut cuts again
    for _ in range(2):
        gate.succeeded()
    assert 2.5 < gate.limit < 3.5  # +1 per limit's worth of successes
    for _ in range(40):
        gate.succeeded()
    assert gate.limit is None  # grown past the most ever in flight: unlimited again


def test_aimd_holds_requests_beyond_the_limit():
    gate = AdaptiveConcurrency(ceiling=3)
    with gate.slot() as alone:
        pass
    gate.throttled(alone)
    assert gate.limit == 1
    peak = 0
    lock = threading.Lock()
    live = 0

    def work():
        nonlocal peak, live
        with gate.slot():
            with lock:
                live += 1
                peak = max(peak, live)
            time.sleep(0.01)
            with lock:
                live -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak == 1
    for _ in range(50):
        gate.succeeded()
    assert gate.limit == 3  # the ceiling (--vita-limits in-flight) caps the growth


# -------------------------------------------------------------------------------------------- the client


def test_a_token_limit_429_pauses_the_budget_for_its_reset(tmp_path):
    stub = StubLLM()
    try:
        stub.replies += [(429, {"error": {"message": OPENAI_TPM_429.replace("2.5s", "0.4s")}}), {"content": "ok"}]
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_KEY", cache="off",
                                       state_dir=tmp_path, backoff_base_s=0))
        start = time.monotonic()
        assert client.complete("agent", model="m", messages=[{"role": "user", "content": "hi"}]).text == "ok"
        assert stub.times[1] - stub.times[0] >= 0.35  # the message's "try again in", not the 0 s backoff
        assert time.monotonic() - start < 5
        other = TokenBudget(tmp_path, tokens=None)  # the pause is in the shared directory: every worker waits
        with other.path.open("rb") as handle:
            assert handle.read(8) != b"\0" * 8
        assert client.limits.adaptive.cuts == 1
    finally:
        stub.close()


def test_a_refused_request_is_corrected_to_no_tokens_and_the_answer_to_its_usage(tmp_path):
    stub = StubLLM()
    try:
        stub.replies += [(429, {"error": {"message": "Too many requests"}}, {"Retry-After": "0"}),
                         {"content": "ok", "usage": {"prompt_tokens": 30, "completion_tokens": 5}}]
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_KEY", cache="off",
                                       state_dir=tmp_path, tpm=10_000, tpm_window_s=30), count_tokens=count_tokens)
        client.complete("agent", model="m", messages=[{"role": "user", "content": "hello " * 200}])
        assert client.limits.token_budget.used() == 35  # the 429 counted nothing, the answer its usage
    finally:
        stub.close()


def _sixteen_at_once(tmp_path, tpm):
    """16 threads ask a provider allowing 400 tokens per 0.5 s (about 4 of these requests) at once."""
    stub = StubLLM()
    limit = TokenLimit(budget=400, window_s=0.5)
    stub.replies = limit
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_KEY", cache="off",
                                       state_dir=tmp_path, tpm=tpm, tpm_window_s=0.5), count_tokens=count_tokens)
        errors: list[BaseException] = []

        def ask(i: int) -> None:
            try:
                client.complete("agent", model="m", messages=[{"role": "user", "content": f"request {i} " * 20}])
            except LLMError as exc:
                errors.append(exc)

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        stub.close()
    assert errors == [] and len(limit.accepted) == 16
    assert limit.window_max() <= 400
    return limit


def test_the_client_keeps_a_token_budget_against_a_token_limited_provider(tmp_path):
    without = _sixteen_at_once(tmp_path / "without", None)
    within = _sixteen_at_once(tmp_path / "within", 400)
    # Without a budget, each reset lets all waiting requests go at once and most meet the wall again. With it,
    # only the first window's estimates (which miss the 24 completion tokens until answers correct them) and
    # requests delayed on a busy machine can run into the provider's limit.
    assert within.refused * 2 <= without.refused, (within.refused, without.refused)


@pytest.mark.slow
def test_tpm_across_xdist_workers_with_no_item_lost(pytester):
    """The whole plugin under -n 2 against a provider that refuses tokens beyond its budget."""
    pytest.importorskip("xdist")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    stub = StubLLM()
    budget, window = 24_000, 1.0  # about 10 of the suite's agent requests (2,300 tokens each) per window
    limit = TokenLimit(budget=budget, window_s=window)
    stub.replies = limit
    try:
        result = pytester.runpytest_subprocess(
            "-n", "2", "-p", "no:cacheprovider", "--vita-trials", "6", "--vita-model", "stub-model",
            "--vita-base-url", stub.base_url, "--vita-limits", f"tpm={budget}", "-o", f"vita_limits=window={window:g}",
            "--vita-report", "run.json", "--vita-preflight", "off")
        report = json.loads((pytester.path / "run.json").read_text())
        assert [r["outcome"] for r in report["results"] if r["outcome"] == "error"] == []
        assert len(report["results"]) == 18 and len(limit.accepted) >= 18
        assert limit.window_max() <= budget
        # Without --vita-limits tpm the 18 requests meet a wall of 429s (most of them refused at least once); with it
        # only a request delayed on its way (a busy machine) can land in the provider's previous window.
        assert limit.refused < 6, result.stdout.str()[-2000:]
    finally:
        stub.close()
