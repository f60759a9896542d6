"""The cost estimate of a planned run with LLM roles."""

from __future__ import annotations

import pytest
from _suites import tiny_suite, write_suite

from pytest_vitabench.commands.cli import main
from pytest_vitabench.commands.estimate import DEFAULT_PRICES, estimate_cost


def test_offline_roles_cost_nothing_and_trials_scale_linearly(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    one = estimate_cost(path, memory=["none"], trials=1, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    four = estimate_cost(path, memory=["none"], trials=4, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    assert set(one.ledger.by_role()) == {"agent"} and one.items == 3 and four.items == 12
    assert four.ledger.total().prompt_tokens == 4 * one.ledger.total().prompt_tokens
    # the list price scales with the trials; the bill with caching less (the trials share their first prompt)
    assert abs(four.list_cost["agent"] - 4 * one.list_cost["agent"]) < 1e-9 and one.ledger.total().cost > 0
    assert one.ledger.total().cost < four.ledger.total().cost < 4 * one.ledger.total().cost


def test_memory_backends_and_llm_roles_add_their_costs(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    run = estimate_cost(path, memory=["none", "full_context", "agentic", "rag"], trials=1, agent_model="gpt-4.1",
                        user_model="gpt-4.1", judge_model="gpt-4.1", prices=DEFAULT_PRICES)
    roles = run.ledger.by_role()
    assert {"agent", "user", "judge", "memory", "embeddings"} <= set(roles)
    assert roles["memory"].requests == 3  # one rewrite per subtask for agentic
    none_only = estimate_cost(path, memory=["none"], trials=1, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    assert roles["agent"].prompt_tokens > 4 * none_only.ledger.by_role()["agent"].prompt_tokens


def test_unpriced_models_are_listed_not_guessed(tmp_path, capsys):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    assert main(["estimate", str(path), "--vita-model", "my-local-model", "--vita-memory", "none"]) == 0
    out = capsys.readouterr().out
    assert "my-local-model" in out and "per item:" in out


def test_caching_is_modeled_per_conversation_and_across_trials_and_both_bills_are_printed(tmp_path, capsys):
    from pytest_vitabench.commands.estimate import CACHE_MIN_PREFIX, CACHE_STEP, cacheable

    assert cacheable(CACHE_MIN_PREFIX - 1) == 0 and cacheable(CACHE_MIN_PREFIX) == CACHE_MIN_PREFIX
    assert cacheable(5_000) == 5_000 // CACHE_STEP * CACHE_STEP
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    one = estimate_cost(path, memory=["full_context"], trials=1, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    four = estimate_cost(path, memory=["full_context"], trials=4, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    agent_one, agent_four = one.ledger.by_role()["agent"], four.ledger.by_role()["agent"]
    assert 0 < agent_one.cached_prompt_tokens < agent_one.prompt_tokens  # within each conversation
    assert agent_four.cached_prompt_tokens > 4 * agent_one.cached_prompt_tokens  # and the trials' first requests
    price = DEFAULT_PRICES["gpt-4.1"]
    assert agent_four.cost == pytest.approx(price.cost(agent_four.prompt_tokens, agent_four.completion_tokens,
                                                       agent_four.cached_prompt_tokens))
    assert four.list_cost["agent"] == pytest.approx(price.cost(agent_four.prompt_tokens, agent_four.completion_tokens))
    assert four.list_cost["agent"] > agent_four.cost
    assert main(["estimate", str(path), "--vita-memory", "full_context", "--vita-user-model", "scripted",
                 "--vita-judge-model", "rules"]) == 0
    out = capsys.readouterr().out
    assert f"cost at list prices: ${four.list_cost['agent']:,.2f} without prompt caching, ${agent_four.cost:,.2f} " \
           "with it" in out
    assert "kept 5 min" in out and "prompt cached" in out


def test_without_a_cached_rate_both_bills_are_the_same(tmp_path, capsys):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    assert main(["estimate", str(path), "--vita-memory", "full_context", "--vita-user-model", "scripted",
                 "--vita-judge-model", "rules", "--vita-prices", "gpt-4.1=2/8"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cost at list prices"))
    without, with_cache = line.split("$")[1].split(" ")[0], line.split("$")[2].split(" ")[0]
    assert without == with_cache


def test_bad_prices_for_the_estimate_name_the_entry(tmp_path, capsys):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    assert main(["estimate", str(path), "--vita-prices", "gpt-4.1=2/x/8"]) == 2
    assert "'gpt-4.1=2/x/8': prices must be numbers" in capsys.readouterr().err


def _judged(path, **options):
    return estimate_cost(path, memory=["full_context"], trials=2, agent_model="gpt-4.1", judge_model="gpt-4.1",
                         **options)


def test_batch_judging_bills_the_judge_at_half_and_the_rest_unchanged(tmp_path, capsys):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    synchronous = _judged(path, prices=DEFAULT_PRICES)
    batched = _judged(path, prices=DEFAULT_PRICES, judge_batch=True)
    judge = batched.ledger.by_role()["judge"].cost
    total = batched.ledger.total().cost
    assert judge > 0 and synchronous.judge_batch_rate is None and batched.judge_batch_rate == 0.5
    assert synchronous.batch_judged_cost() == pytest.approx(total)  # without the switch nothing changes
    assert batched.batch_judged_cost() == pytest.approx(total - judge / 2)
    assert not any("batch" in line for line in synchronous.lines())
    assert main(["estimate", str(path), "--vita-memory", "full_context", "--vita-trials", "2",
                 "--vita-user-model", "scripted", "--vita-judge-args", "batch"]) == 0
    out = capsys.readouterr().out
    assert f"with batch judging (--vita-judge-args batch): ${total - judge / 2:,.2f}, the judge's ${judge:,.2f} " \
           "billed at 50%" in out


def test_a_prices_file_sets_the_batch_factor_and_the_live_batch_judge_reads_it(tmp_path, capsys):
    from pytest_vitabench.commands.estimate import prices_from_option
    from pytest_vitabench.llm.prices import BATCH_PRICE_FACTOR, batch_rate

    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    prices_file = tmp_path / "prices.toml"
    prices_file.write_text('[models."gpt-4.1"]\nprompt_per_1m = 2.0\ncached_per_1m = 0.5\ncompletion_per_1m = 8.0\n'
                           'batch_factor = 0.3\n')
    prices = prices_from_option(str(prices_file))
    # the same function prices the batched judge of a run (judges/batched.py)
    assert batch_rate(prices, "gpt-4.1") == 0.3 and batch_rate(prices, "gpt-4.1-2025-04-14") == 0.3
    assert batch_rate(prices, "unpriced-model") == BATCH_PRICE_FACTOR == batch_rate(DEFAULT_PRICES, "gpt-4.1")
    batched = _judged(path, prices=prices, judge_batch=True)
    judge, total = batched.ledger.by_role()["judge"].cost, batched.ledger.total().cost
    assert batched.batch_judged_cost() == pytest.approx(total - judge * 0.7)
    assert main(["estimate", str(path), "--vita-memory", "full_context", "--vita-prices", str(prices_file),
                 "--vita-judge-args", "batch"]) == 0
    assert "billed at 30% of it" in capsys.readouterr().out


@pytest.mark.parametrize(("value", "problem"), [
    ("1.5", "batch_factor: Input should be less than or equal to 1 (got 1.5)"),
    ("-0.1", "batch_factor: Input should be greater than or equal to 0 (got -0.1)"),
    ('"half"', "batch_factor: Input should be a valid number"),
])
def test_a_bad_batch_factor_is_refused_naming_the_model_and_the_key(tmp_path, capsys, value, problem):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    prices_file = tmp_path / "prices.toml"
    prices_file.write_text(f'[models."gpt-4.1"]\nprompt_per_1m = 2.0\ncompletion_per_1m = 8.0\n'
                           f'batch_factor = {value}\n')
    assert main(["estimate", str(path), "--vita-prices", str(prices_file), "--vita-judge-args", "batch"]) == 2
    assert f"vitabench estimate: price of 'gpt-4.1': {problem}" in capsys.readouterr().err


def test_batch_judging_without_an_llm_judge_is_a_usage_error(tmp_path, capsys):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    assert main(["estimate", str(path), "--vita-judge-model", "rules", "--vita-judge-args", "batch"]) == 2
    assert "--vita-judge-args batch needs an LLM judge" in capsys.readouterr().err


def _first_user_of_the_paper(tmp_path, subtasks):
    import gzip
    import json
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "suites" / "paper" / "tasks.vita.json.gz"
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        task = json.load(handle)[0]
    task["subtasks"] = task["subtasks"][:subtasks]
    path = tmp_path / "paper-user.json"
    path.write_text(json.dumps([task], ensure_ascii=False), encoding="utf-8")
    return path


def test_a_rewrite_shares_its_instructions_and_records_across_trials_and_all_of_it_while_the_memory_is_empty():
    from pytest_vitabench.commands.estimate import _rewrite_tokens
    from pytest_vitabench.memory.tokens import count_tokens

    records = "2025-01-02 ordered spicy noodles from Lanzhou Kitchen\n" * 40
    whole, shared_empty = _rewrite_tokens(count_tokens(records), 0, budget=4096, language="en")
    prompt, shared = _rewrite_tokens(count_tokens(records), 1_000, budget=4096, language="en")
    assert whole == shared_empty > count_tokens(records)  # the first rewrite is the same in every trial
    assert count_tokens(records) < shared < prompt - 1_000  # instructions and records first, the memory after
    assert prompt > whole  # a memory of 1,000 tokens is longer than the empty placeholder
    zh_prompt, zh_shared = _rewrite_tokens(count_tokens(records), 1_000, budget=4096, language="zh")
    assert zh_shared != shared and zh_prompt != prompt  # the suite's language is the prompt's


@pytest.mark.slow
def test_the_modeled_memory_cache_is_what_a_caching_provider_serves_the_agentic_memory(tmp_path, monkeypatch):
    """The real agentic memory over 4 trials, each subtask's trial 0 answered first (as the request order sends
    them), against the caching stub over HTTP: the estimate's share of cached rewrite tokens is within 3 points."""
    from _caching_llm import caching_stub

    from pytest_vitabench.llm import LLMClient, LLMSettings
    from pytest_vitabench.memory.agentic import DEFAULT_MAX_TOKENS, AgenticMemory
    from pytest_vitabench.memory.base import MemoryContext
    from pytest_vitabench.memory.tokens import keep_last_tokens
    from pytest_vitabench.suite.loader import load_suite

    def memory_answer(request):  # a memory filling up to the budget, each trial's own from its first line
        prompt = request["messages"][-1]["content"]
        return {"content": f"- trial {request.get('seed')}\n" + keep_last_tokens(prompt, DEFAULT_MAX_TOKENS)}

    monkeypatch.setenv("VITA_ESTIMATE_CACHE_KEY", "sk-test-estimate-cache-0123456789")
    path = _first_user_of_the_paper(tmp_path, subtasks=4)
    modeled = estimate_cost(path, memory=["agentic"], trials=4, agent_model="gpt-4.1",
                            prices=DEFAULT_PRICES).ledger.by_role()["memory"]
    stub, _ = caching_stub(answer=memory_answer)
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_ESTIMATE_CACHE_KEY", cache="off"))
        with client:
            task = load_suite(path).users[0].task
            memories = [AgenticMemory(llm_client=client, memory_model="gpt-4.1") for _ in range(4)]
            for sub in task.subtasks:
                for trial, memory in enumerate(memories):
                    memory.update(list(sub.interactions), MemoryContext(
                        user_id=task.user_id, subtask_id=sub.subtask_id, now="", trial=trial, seed=trial))
            measured = client.ledger.by_role()["memory"]
    finally:
        stub.close()
    assert measured.requests == modeled.requests == 16
    share = measured.cached_prompt_tokens / measured.prompt_tokens
    assert share > 0.2  # the trials' shared records and first rewrite are served from cache
    assert modeled.cached_prompt_tokens / modeled.prompt_tokens == pytest.approx(share, abs=0.03)


def test_progress_goes_to_a_terminal_only():
    """On a terminal (a pty here) stderr counts the subtasks played, then clears its line; through a pipe it says
    nothing, and stdout holds the same figures either way."""
    import os
    import pty
    import subprocess
    import sys

    from _paths import REPO_ROOT

    demo = REPO_ROOT / "suites" / "demo" / "tasks.json"
    args = [sys.executable, "-m", "pytest_vitabench.commands.cli", "estimate", str(demo), "--vita-memory", "none"]
    piped = subprocess.run(args, capture_output=True, text=True, check=True, timeout=300)
    assert piped.stderr == ""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=follower, text=True, check=True, timeout=300)
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
    assert done.stdout == piped.stdout
    text = seen.decode()
    assert "vitabench estimate: played 20/20 subtasks" in text and text.endswith("\r\x1b[K")


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "regex"])
def test_paragraph_counts_add_up_to_the_texts_count(tokenizer, monkeypatch):
    """The estimate counts a system prompt paragraph by paragraph; the sum must be the whole text's count, for
    any text, in either counter (a cut after a blank line never splits a token)."""
    import random

    from pytest_vitabench.memory import tokens
    from pytest_vitabench.run.estimate import ParagraphCounter

    if tokenizer == "regex":
        monkeypatch.setenv("VITA_TOKENIZER", "regex")
    elif tokens.tokenizer_name() != "cl100k_base":
        pytest.skip("the tokens extra (tiktoken) is not installed")
    pieces = [*"ab cD1.!,'\t中文。", "\n", "\n\n", " \n\n", "。\n\n", "'s", "  ", "- key: value"]
    rng = random.Random(7)
    counter = ParagraphCounter()  # one counter throughout: paragraphs seen before are taken from its counts
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert counter(text) == tokens.count_tokens(text), repr(text)
