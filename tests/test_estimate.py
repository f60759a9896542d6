"""The cost estimate of a planned run with LLM roles."""

from __future__ import annotations

from _suites import tiny_suite, write_suite

from pytest_vitabench.cli import main
from pytest_vitabench.estimate import DEFAULT_PRICES, estimate_cost


def test_offline_roles_cost_nothing_and_trials_scale_linearly(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    one = estimate_cost(path, memory=["none"], trials=1, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    four = estimate_cost(path, memory=["none"], trials=4, agent_model="gpt-4.1", prices=DEFAULT_PRICES)
    assert set(one.ledger.by_role()) == {"agent"} and one.items == 3 and four.items == 12
    assert four.ledger.total().prompt_tokens == 4 * one.ledger.total().prompt_tokens
    assert abs(four.ledger.total().cost - 4 * one.ledger.total().cost) < 1e-9 and one.ledger.total().cost > 0


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
