"""Estimate what a run with LLM roles will cost, before paying for it (``vitabench estimate``).

The offline built-ins play every subtask once (``reference`` agent, ``scripted`` user), which gives a
realistic trajectory length; the tokens each LLM role would have been sent and would have produced along
that trajectory are counted and recorded in a usage :class:`~pytest_vitabench.llm.Ledger`, priced, and
scaled by the number of trials. The memory backends differ only in what the agent's prompt carries
(none: nothing; full_context: the history up to its budget; agentic and rag: at most their 4,096-token
budget), plus the rewrite calls of ``agentic`` and the embeddings of ``rag``.

Token counts use the harness's estimator (``memory/tokens.py``), within about 15% of cl100k; real
trajectories of an LLM agent are usually longer than the reference agent's, so treat the figure as a floor.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import RunConfig
from .llm import Ledger, ModelPrice, load_prices, price_for
from .memory.render import render_preferences, render_records
from .memory.tokens import count_tokens
from .messages import Message, Usage
from .prompts import agent_system_prompt
from .runner import ItemRunner, agent_profile

#: What the official backends put in the prompt at most (REFERENCE.md §4.1).
BOUNDED_MEMORY = {"agentic": 4_096, "rag": 8 * 512}
#: Window size and step of the sliding-window judge (REFERENCE.md §5.2).
WINDOW, STEP = 10, 8
#: Rough size of a judge's verdict per rubric, and of an instruction-style system prompt.
VERDICT_TOKENS = 45
SIMULATOR_PROMPT_TOKENS = 450


@dataclass
class Estimate:
    ledger: Ledger
    items: int
    subtasks: int

    def lines(self) -> list[str]:
        total = self.ledger.total()
        lines = [f"estimated usage for {self.items} items ({self.subtasks} subtasks x backends x trials):"]
        lines += self.ledger.table_lines()
        if self.items:
            per_item = total.cost / self.items
            lines.append(f"per item: {total.prompt_tokens / self.items:,.0f} prompt + "
                         f"{total.completion_tokens / self.items:,.0f} completion tokens, ${per_item:.4f}")
        return lines


def _tokens(message: Message) -> int:
    text = message.text
    for call in message.tool_calls or []:
        text += call.name + json.dumps(call.arguments, ensure_ascii=False)
    return count_tokens(text) + 4


def _judge_windows(count: int) -> list[tuple[int, int]]:
    if count <= WINDOW:
        return [(0, count)]
    return [(start, min(start + WINDOW, count)) for start in range(0, count - WINDOW + STEP, STEP)]


def estimate_cost(
    suite_path: str | Path,
    *,
    memory: list[str],
    trials: int,
    agent_model: str,
    user_model: str = "scripted",
    judge_model: str = "rules",
    prices: dict[str, ModelPrice] | None = None,
    memory_model: str | None = None,
    embedding_model: str = "text-embedding-3-large",
) -> Estimate:
    """Count the tokens of each LLM role over offline trajectories and price them.

    Args:
        suite_path: The suite to estimate.
        memory: The memory backends of the planned run.
        trials: Trials per subtask.
        agent_model, user_model, judge_model: The planned roles (``scripted``/``rules`` cost nothing).
        prices: Prices per model (see ``--vita-prices``); unpriced models are listed, not guessed.
        memory_model: The agentic rewrite model (default: the agent's, as in the official harness).
        embedding_model: The rag embedding model.
    """
    prices = prices or {}
    ledger = Ledger()
    runner = ItemRunner(RunConfig.model_validate({"memory": ["full_context"], "trials": 1}))
    suite = runner.suite(suite_path)
    from .agents import make_builtin_agent
    from .judges.rules import RulesJudge
    from .users import make_user_simulator

    agent, user, judge = make_builtin_agent("reference"), make_user_simulator("scripted"), RulesJudge()
    memory_model = memory_model or agent_model
    items = subtasks = 0
    tool_tokens: dict[str, int] = {}

    def charge(role: str, model: str, prompt: int, completion: int, calls: int) -> None:
        price = price_for(prices, model)
        scale = trials
        usage = Usage(prompt_tokens=prompt * scale, completion_tokens=completion * scale, requests=calls * scale,
                      cost=(price.cost(prompt, completion) * scale) if price else 0.0)
        ledger.record(role, usage, model=model, priced=price is not None)

    for user_entry in suite.users:
        if user_entry.task is None:
            continue
        for index, sub in enumerate(user_entry.task.subtasks):
            subtasks += 1
            result = runner.run(nodeid="estimate", suite=suite, user=user_entry, index=index,
                                memory_name="full_context", trial=0, agent=agent, user_simulator=user, judge=judge)
            messages = result.messages
            full_memory = count_tokens(result.memory_snapshot)
            new_history = count_tokens(render_records(list(sub.interactions)))
            if sub.domain not in tool_tokens:  # the schemas depend on the domain only: count them once
                schemas = _tool_schemas(sub, user_entry)
                tool_tokens[sub.domain] = count_tokens(json.dumps(schemas, ensure_ascii=False))
            tools = tool_tokens[sub.domain]
            base = count_tokens(agent_system_prompt(
                time=user_entry.times[index], profile=agent_profile(user_entry.task), memory="",
                proactive=sub.is_proactive)) + tools
            for backend in memory:
                items += trials
                memory_tokens = {"none": 0, "full_context": full_memory}.get(
                    backend, min(full_memory, BOUNDED_MEMORY.get(backend, full_memory)))
                if backend == "groundtruth":
                    memory_tokens = count_tokens(render_preferences(sub.groundtruth_preferences()))
                prompt = completion = calls = history = 0
                # messages[0] is the fixed greeting and messages[1] the verbatim instruction: no LLM calls
                for position, message in enumerate(messages):
                    if message.role == "assistant" and position >= 2:
                        prompt += base + memory_tokens + history
                        completion += _tokens(message)
                        calls += 1
                    history += _tokens(message)
                charge("agent", agent_model, prompt, completion, calls)
                if user_model != "scripted":
                    prompt = completion = calls = history = 0
                    for position, message in enumerate(messages):
                        if message.role == "user" and position >= 2:
                            prompt += SIMULATOR_PROMPT_TOKENS + history
                            completion += _tokens(message)
                            calls += 1
                        if message.role != "tool" and not message.tool_calls:
                            history += _tokens(message)
                    charge("user", user_model, prompt, completion, calls)
                if judge_model != "rules":
                    rubric_tokens = sum(count_tokens(r) + 20 for r in sub.rubrics())
                    windows = _judge_windows(len(messages))
                    prompt = sum(SIMULATOR_PROMPT_TOKENS * 2 + rubric_tokens
                                 + sum(_tokens(m) for m in messages[a:b]) for a, b in windows)
                    charge("judge", judge_model, prompt, VERDICT_TOKENS * len(sub.rubrics()) * len(windows),
                           len(windows))
                if backend == "agentic":
                    budget = BOUNDED_MEMORY["agentic"]
                    charge("memory", memory_model, SIMULATOR_PROMPT_TOKENS + min(full_memory, budget) + new_history,
                           min(budget, full_memory), 1)
                if backend == "rag" and new_history:
                    chunks = math.ceil(new_history / 512)
                    charge("embeddings", embedding_model, new_history + count_tokens(sub.instruction), 0, chunks + 1)
    return Estimate(ledger=ledger, items=items, subtasks=subtasks)


def _tool_schemas(sub: Any, user_entry: Any) -> list[dict[str, Any]]:
    from .domains import build_environment

    env = build_environment(sub.domain, sub.environment, user_id=user_entry.task.user_id,
                            time=user_entry.times[0], seed=0)
    return env.tool_schemas()


#: List prices in USD per 1M tokens at the models' releases (gpt-4.1: April 2025); --vita-prices overrides.
DEFAULT_PRICES = {
    "gpt-4.1": ModelPrice(prompt_per_1m=2.0, completion_per_1m=8.0),
    "gpt-4.1-mini": ModelPrice(prompt_per_1m=0.4, completion_per_1m=1.6),
    "text-embedding-3-large": ModelPrice(prompt_per_1m=0.13, completion_per_1m=0.0),
}


def prices_from_option(spec: str | None) -> dict[str, ModelPrice]:
    return {**DEFAULT_PRICES, **(load_prices(spec) if spec else {})}
