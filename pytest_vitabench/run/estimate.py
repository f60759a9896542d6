"""Estimate what a run with LLM roles will cost, before paying for it (``vitabench estimate``, and the spend
cap's expected cost of an item before any finished).

The offline built-ins play every subtask once (``reference`` agent, ``scripted`` user) for a realistic
trajectory length; the tokens each LLM role would be sent and would produce along it are counted, priced and
scaled by the number of trials. The memory backends differ by what their specs declare: what the agent's
prompt carries at most, rewrites, embeddings. Real LLM trajectories are usually longer: treat it as a floor.

Provider prompt caching is modeled as OpenAI documents it (docs/cost.md): within one conversation each
request extends the role's previous one; across trials, trial 0's first agent request and the shared head
of the memory rewrites are answered before the other trials send theirs (:mod:`~pytest_vitabench.llm.prefix_order`).
Nothing else is assumed cached, so the cached figure is a floor of what a cache earns.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..agents import make_builtin_agent
from ..agents.prompts import agent_system_prompt
from ..domains import build_environment
from ..judges.render import windows as judge_windows
from ..judges.rules import RulesJudge
from ..llm import Ledger, ModelPrice, load_prices, price_for
from ..llm.prices import batch_rate
from ..memory.agentic import rewrite_messages
from ..memory.chunking import DEFAULT_CHUNK_TOKENS
from ..memory.full_context import FullContextMemory
from ..memory.registry import WHOLE_HISTORY, memory_spec
from ..memory.spec import MemoryOptions
from ..memory.tokens import count_tokens
from ..messages import Message, Usage
from ..options.config import RunConfig
from ..users import make_user_simulator
from .heap import FrozenValidation, freeze_long_lived
from .runner import ItemRunner, RunState, agent_profile

#: Rough size of a judge's verdict per rubric, and of an instruction-style system prompt.
VERDICT_TOKENS = 45
SIMULATOR_PROMPT_TOKENS = 450
#: The provider's prompt cache as OpenAI documents it: prefixes of 1,024 tokens or more, hits in 128-token
#: steps, kept for 5 to 10 minutes without use (the shorter figure is the one a plan can count on).
CACHE_MIN_PREFIX, CACHE_STEP, CACHE_TTL_S = 1_024, 128, 300


def cacheable(prefix_tokens: int) -> int:
    """The tokens a provider serves from its cache when ``prefix_tokens`` of a prompt were seen before."""
    return prefix_tokens // CACHE_STEP * CACHE_STEP if prefix_tokens >= CACHE_MIN_PREFIX else 0


@dataclass
class Estimate:
    """The estimated usage: the ledger holds the tokens (cached ones counted) and the cost with caching;
    ``list_cost``, USD per role at list prices without caching; ``judge_batch_rate``, with
    ``--vita-judge-args batch``, the share of the judge's price its Batch API requests cost (else ``None``)."""

    ledger: Ledger
    items: int
    subtasks: int
    list_cost: dict[str, float] = field(default_factory=dict)
    judge_batch_rate: float | None = None

    def batch_judged_cost(self) -> float:
        """The total with prompt caching, the judge's part billed at its batch price."""
        total = self.ledger.total().cost
        if self.judge_batch_rate is None:
            return total
        judge = self.ledger.by_role().get("judge")
        return total - (judge.cost * (1 - self.judge_batch_rate) if judge else 0.0)

    def lines(self) -> list[str]:
        total = self.ledger.total()
        lines = [f"estimated usage for {self.items} items ({self.subtasks} subtasks x backends x trials):"]
        lines += self.ledger.table_lines()
        if self.items:
            per_item = total.cost / self.items
            lines.append(f"per item: {total.prompt_tokens / self.items:,.0f} prompt + "
                         f"{total.completion_tokens / self.items:,.0f} completion tokens, ${per_item:.4f}")
        list_total = sum(self.list_cost.values())
        if list_total:
            lines.append(f"cost at list prices: ${list_total:,.2f} without prompt caching, ${total.cost:,.2f} with it "
                         f"({total.cached_prompt_tokens / max(total.prompt_tokens, 1):.0%} of prompt tokens cached)")
            lines.append(f"prompt caching modeled: prefixes of {CACHE_MIN_PREFIX:,}+ tokens in {CACHE_STEP}-token "
                         f"steps, kept {CACHE_TTL_S // 60} min; each conversation's previous request, and trial 0's "
                         "first agent request and the memory rewrites' shared head for the other trials "
                         "(see docs/cost.md)")
        if self.judge_batch_rate is not None and "judge" in self.ledger.by_role():
            judge = self.ledger.by_role()["judge"].cost
            lines.append(f"with batch judging (--vita-judge-args batch): ${self.batch_judged_cost():,.2f}, the judge's "
                         f"${judge:,.2f} billed at {self.judge_batch_rate:.0%} of it (the Batch API's price; "
                         "batch_factor in a --vita-prices file)")
        return lines


def _tokens(message: Message) -> int:
    text = message.text
    for call in message.tool_calls or []:
        text += call.name + json.dumps(call.arguments, ensure_ascii=False)
    return count_tokens(text) + 4


class ParagraphCounter:
    """Tokens of texts made of paragraphs that recur, each paragraph counted once.

    A text is cut where a blank line ends and a non-blank character follows. cl100k_base (and the regex
    estimate) never makes a token that runs across such a cut, since a run of newlines ends the piece it
    belongs to, so the counts of the pieces add up to the text's count.
    """

    _CUT = re.compile(r"(?<=\n\n)(?=\S)")

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        total = 0
        for paragraph in self._CUT.split(text):
            counted = self._counts.get(paragraph)
            if counted is None:
                counted = self._counts[paragraph] = count_tokens(paragraph)
            total += counted
        return total


def estimate_cost(suite_path: str | Path, *, memory: list[str], trials: int, agent_model: str,
                  user_model: str = "scripted", judge_model: str = "rules", prices: dict[str, ModelPrice] | None = None,
                  memory_model: str | None = None, embedding_model: str = "text-embedding-3-large",
                  judge_batch: bool = False, progress: Callable[[int, int], None] | None = None,
                  index_dir: Path | None = None) -> Estimate:
    """Count the tokens of each LLM role over offline trajectories of the planned run and price them.

    Args:
        agent_model, user_model, judge_model: The planned roles (``scripted``/``rules`` cost nothing).
        prices: Prices per model (see ``--vita-prices``); unpriced models are listed, not guessed.
        memory_model: The agentic rewrite model (default: the agent's, as VitaBench 2.0 runs it).
        embedding_model: The rag embedding model.
        judge_batch: Judging through the Batch API (``--vita-judge-args batch``): the estimate also prices the
            judge at its batch rate (:func:`~pytest_vitabench.llm.prices.batch_rate`).
        progress: Called with (subtasks played, subtasks in all) after each subtask.
        index_dir: Where the suites' index is cached (the run's, ``.vitabench/cache/suites``): a user the
            index found valid is parsed without its integrity checks again. ``None``: every user is checked.

    Raises:
        ValueError: ``judge_batch`` with the ``rules`` judge, which sends no requests.
    """
    if judge_batch and judge_model == "rules":
        raise ValueError("--vita-judge-args batch needs an LLM judge (--vita-judge-model), not rules")
    prices = prices or {}
    ledger = Ledger()
    # The trajectory, and the history that every backend's prompt holds at most, come from one backend.
    runner = ItemRunner(RunConfig.model_validate({"memory": [WHOLE_HISTORY], "trials": 1}),
                        state=RunState(index_dir=index_dir))
    suite = runner.suite(suite_path, lazy=True)
    agent, user, judge = make_builtin_agent("reference"), make_user_simulator("scripted"), RulesJudge()
    memory_model = memory_model or agent_model
    # The budgets VitaBench 2.0 runs with: what the backends' specs put in the prompt at most
    # (MemorySpec.prompt_budget).
    options = MemoryOptions()
    specs = {name: memory_spec(name) for name in memory}
    items = subtasks = 0
    tool_tokens: dict[str, int] = {}
    list_cost: dict[str, float] = {}

    def charge(role: str, model: str, prompt: int, completion: int, calls: int, *, cached: int = 0,
               cached_across_trials: int = 0) -> None:
        """Record one subtask's calls of ``role`` for every trial: ``cached`` prompt tokens in each trial,
        ``cached_across_trials`` more in each trial after the first."""
        price = price_for(prices, model)
        all_cached = cached * trials + cached_across_trials * (trials - 1)
        usage = Usage(prompt_tokens=prompt * trials, completion_tokens=completion * trials, requests=calls * trials,
                      cached_prompt_tokens=all_cached,
                      cost=price.cost(prompt * trials, completion * trials, all_cached) if price else 0.0)
        ledger.record(role, usage, model=model, priced=price is not None)
        if price:
            list_cost[role] = list_cost.get(role, 0.0) + price.cost(prompt * trials, completion * trials)

    # A user's system prompts differ by their first paragraph (the time) only: each paragraph is counted once.
    paragraph_tokens = ParagraphCounter()
    language = runner.language_for(suite)
    planned = sum(len(u.outline) for u in suite.users if u.error is None)
    # As a run does: what is alive now, and each user once parsed, is never walked by a collection again.
    freeze_long_lived()
    validate = FrozenValidation()
    for user_entry in suite.users:
        validate(suite, user_entry)  # one user at a time, as a run parses them
        if user_entry.task is None:
            continue
        records_before = 0  # the records an agentic memory has been given before this subtask's rewrite
        pieces = 0  # the records' texts the whole-history memory holds
        for index, sub in enumerate(user_entry.task.subtasks):
            subtasks += 1
            result = runner.run(nodeid="estimate", suite=suite, user=user_entry, index=index,
                                memory_name=WHOLE_HISTORY, trial=0, agent=agent, user_simulator=user, judge=judge)
            messages = result.messages
            # Counted once per subtask: every backend and judge window reads the same trajectory.
            sizes = [_tokens(m) for m in messages]
            ends = list(itertools.accumulate(sizes, initial=0))
            # The whole-history memory holds these records' texts joined by newlines, and has counted them piece
            # by piece for its budget: its count, rather than re-tokenising the growing history at every subtask.
            memory_used = runner.memory_for(suite, user_entry, index, WHOLE_HISTORY, 0)
            assert isinstance(memory_used, FullContextMemory)
            new_history = memory_used.tokens() - records_before
            pieces += bool(new_history)
            full_memory = records_before + new_history + pieces - 1 if pieces else count_tokens(result.memory_snapshot)
            if sub.domain not in tool_tokens:  # the schemas depend on the domain only: count them once
                env = build_environment(sub.domain, sub.environment, user_id=user_entry.task.user_id,
                                        time=user_entry.times[0], seed=0)
                tool_tokens[sub.domain] = count_tokens(json.dumps(env.tool_schemas(), ensure_ascii=False))
            tools = tool_tokens[sub.domain]
            base = paragraph_tokens(agent_system_prompt(
                time=user_entry.times[index], profile=agent_profile(user_entry.task), memory="",
                proactive=sub.is_proactive)) + tools
            simulated = _requests(messages, sizes, "user", SIMULATOR_PROMPT_TOKENS,
                                  heard=lambda m: m.role != "tool" and not m.tool_calls)
            for backend in memory:
                items += trials
                spec = specs[backend]
                budget = spec.prompt_budget(options)
                memory_tokens = full_memory if budget is None else min(full_memory, budget)
                if spec.shown is not None:
                    memory_tokens = count_tokens(spec.shown(sub))
                prompt, completion, calls, cached, first = _requests(messages, sizes, "assistant", base + memory_tokens)
                # the first request is the same in every trial
                charge("agent", agent_model, prompt, completion, calls, cached=cached,
                       cached_across_trials=cacheable(first))
                if user_model != "scripted":
                    prompt, completion, calls, cached, _ = simulated
                    charge("user", user_model, prompt, completion, calls, cached=cached)
                if judge_model != "rules":
                    rubric_tokens = sum(count_tokens(r) + 20 for r in sub.rubrics())
                    windows = judge_windows(len(messages))
                    prompt = sum(SIMULATOR_PROMPT_TOKENS * 2 + rubric_tokens
                                 + ends[b] - ends[a] for a, b in windows)
                    charge("judge", judge_model, prompt, VERDICT_TOKENS * len(sub.rubrics()) * len(windows),
                           len(windows))
                if spec.rewrites and budget is not None and new_history:  # no new records: no rewrite
                    rewrite, shared = _rewrite_tokens(new_history, min(records_before, budget), budget=budget,
                                                      language=language)
                    charge("memory", memory_model, rewrite, min(budget, records_before + new_history), 1,
                           cached_across_trials=cacheable(shared))
                if spec.embeds and new_history:
                    chunks = math.ceil(new_history / DEFAULT_CHUNK_TOKENS)
                    charge("embeddings", embedding_model, new_history + count_tokens(sub.instruction), 0, chunks + 1)
            records_before += new_history
            if progress is not None:
                progress(subtasks, planned)
    return Estimate(ledger=ledger, items=items, subtasks=subtasks, list_cost=list_cost,
                    judge_batch_rate=batch_rate(prices, judge_model) if judge_batch else None)


def _requests(messages: list[Message], sizes: list[int], speaker: str, fixed: int,
              heard: Callable[[Message], bool] = lambda message: True) -> tuple[int, int, int, int, int]:
    """Prompt, completion, calls, cached prompt tokens and first prompt of ``speaker``'s requests along
    ``messages`` (``sizes``: their tokens): each sends ``fixed`` tokens and the ``heard`` messages so far, the
    previous request being its cached prefix. ``messages[0]`` is the fixed greeting and ``messages[1]`` the
    verbatim instruction: no LLM calls."""
    prompt = completion = calls = history = cached = first = 0
    previous: int | None = None
    for position, (message, size) in enumerate(zip(messages, sizes, strict=True)):
        if message.role == speaker and position >= 2:
            request = fixed + history
            cached += cacheable(previous) if previous is not None else 0
            first = first or request
            previous = request
            prompt += request
            completion += size
            calls += 1
        if heard(message):
            history += size
    return prompt, completion, calls, cached, first


def _rewrite_tokens(records_tokens: int, memory_tokens: int, *, budget: int, language: str) -> tuple[int, int]:
    """Prompt tokens of one agentic rewrite of ``records_tokens`` of new records whose current memory holds
    ``memory_tokens``, and how many of them every trial of the subtask sends alike: the instructions and the records
    that come before the memory, or the whole prompt while the memory is still empty (a user's first rewrite, the
    same in every trial)."""
    head, tail, empty, records_first = _rewrite_frame(budget, language)
    overhead = 4 * 2  # per message, as _tokens counts it (a system and a user message)
    if not memory_tokens:
        whole = empty + records_tokens + overhead
        return whole, whole
    shared = head + (records_tokens if records_first else 0)
    return shared + memory_tokens + tail + (0 if records_first else records_tokens) + overhead, shared


@functools.cache
def _rewrite_frame(budget: int, language: str) -> tuple[int, int, int, bool]:
    """The wording of a rewrite prompt in tokens: before the memory and after it (the records left out), the
    whole of it with the empty memory's placeholder, and whether the records come before the memory. Counted once:
    the records, already counted, are most of every prompt and re-tokenising them dominated the estimate."""
    def text(current: str) -> str:
        return "\n".join(m["content"] for m in rewrite_messages(current=current, records="\x01", budget=budget,
                                                                language=language))

    head, tail = text("\x00").split("\x00")
    return (count_tokens(head.replace("\x01", "")), count_tokens(tail.replace("\x01", "")),
            count_tokens(text("").replace("\x01", "")), "\x01" in head)


#: List prices in USD per 1M tokens at the models' releases (gpt-4.1: April 2025); --vita-prices overrides.
DEFAULT_PRICES = {
    "gpt-4.1": ModelPrice(prompt_per_1m=2.0, cached_per_1m=0.5, completion_per_1m=8.0),
    "gpt-4.1-mini": ModelPrice(prompt_per_1m=0.4, cached_per_1m=0.1, completion_per_1m=1.6),
    "text-embedding-3-large": ModelPrice(prompt_per_1m=0.13, completion_per_1m=0.0),
}


def prices_from_option(spec: str | None) -> dict[str, ModelPrice]:
    return {**DEFAULT_PRICES, **(load_prices(spec) if spec else {})}
