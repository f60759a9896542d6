"""Failure analysis without an LLM: one category per failed item, from what the judge and the data know.

Inputs are plain JSON shapes, so the plugin at the end of a run and the viewer over a saved run classify
the same way. The first of :data:`CATEGORIES` that applies wins (``docs/looking-at-a-run.md``).

"Evidence in the memory text" means every phrase of the preference occurs in it (case-insensitive): exact
for ``groundtruth`` memory, a proxy for raw-history memories, where a phrase can also occur in noise.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..domains.tool_kinds import declared_kinds
from ..llm.ledger import align
from ..result import ItemResult

#: Category id -> one-line explanation, in the order they are tried.
CATEGORIES: dict[str, str] = {
    "infrastructure_error": "the run failed (endpoint, timeout, crashing backend)",
    "step_limit": "hit the step limit",
    "tool_errors": "no order: the agent's tool calls failed",
    "user_stopped_early": "no order: the user stopped while the agent was still asking",
    "no_order": "no order or booking made",
    "no_question": "proactive subtask, the agent did not ask",
    "preference_missing": "a needed preference was absent from the memory text",
    "preference_violated": "a preference in the memory text was violated",
    "wrong_store": "ordered at the wrong store",
    "wrong_product": "wrong product at the right store",
    "order_details": "right product; a detail was wrong (date, quantity, address, payment)",
}

_ENTITY_ARGS = ("store_id", "shop_id", "hotel_id", "attraction_id", "flight_id", "train_id", "taxi_id")
_NOT_PRODUCT_ARGS = {"user_id", "order_id", "book_id", *_ENTITY_ARGS}
_STOPWORDS = set("""the a an is are was be been of in on at to for with and or not no any only from by as it its
this that than then user user's agent order orders ordered booking booked book total least most more less
each per one two three into over under has have which their they them there""".split())


@dataclass
class SubtaskFacts:
    """What the suite knows about one subtask that failure analysis needs."""

    proactive: bool = False
    asking_rubrics: set[str] = field(default_factory=set)
    #: rubric text -> phrases expressing the preference it comes from.
    preference_phrases: dict[str, list[str]] = field(default_factory=dict)
    target_products: set[str] = field(default_factory=set)
    target_entities: set[str] = field(default_factory=set)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9.]+", text.lower()) if len(w) > 2 and w not in _STOPWORDS}


def subtask_facts(subtask: Mapping[str, Any] | None) -> SubtaskFacts:
    """Extract the facts from a subtask's suite data (a VitaBench 2.0-shape dict; ``None`` gives no facts)."""
    facts = SubtaskFacts()
    if not subtask:
        return facts
    facts.proactive = "proactive" in (subtask.get("skill_tested") or [])
    checks = [c for c in subtask.get("rubric_checks") or [] if isinstance(c, Mapping)]
    for item in checks:
        check = item.get("check") or {}
        if isinstance(check, Mapping) and check.get("kind") == "asked":
            facts.asking_rubrics.add(str(item.get("rubric")))
    rubrics = [str(c.get("rubric")) for c in checks]
    criteria = subtask.get("evaluation_criteria") or {}
    if isinstance(criteria, Mapping):
        for state in criteria.get("expected_states") or []:
            rubrics += [str(r) for r in (state or {}).get("state_rubrics") or []]
        rubrics += [str(r) for r in criteria.get("overall_rubrics") or []]
    if not checks:  # no machine checks: recognise asking rubrics by their wording
        facts.asking_rubrics |= {r for r in rubrics if re.search(r"\bask", r, re.IGNORECASE)}
    scenario = subtask.get("user_scenario") or {}
    memory = scenario.get("personalized_preference_memory") if isinstance(scenario, Mapping) else None
    memory = memory if isinstance(memory, Mapping) else {}
    for source in memory.get("rubric_sources") or []:
        if isinstance(source, Mapping) and source.get("rubric"):
            phrases = [str(p) for p in source.get("phrases") or [] if str(p).strip()]
            facts.preference_phrases[str(source["rubric"])] = phrases or sorted(_words(str(source.get("tag", ""))))
    if not memory.get("rubric_sources"):
        tags = [str(t) for values in (memory.get("current") or {}).values() if isinstance(values, list)
                for t in values]
        for rubric in set(rubrics) - facts.asking_rubrics:
            shared = max((_words(rubric) & _words(tag) for tag in tags), key=len, default=set())
            if shared:
                facts.preference_phrases[rubric] = sorted(shared)
    facts.target_products = {str(p) for p in subtask.get("target_product_ids") or []}
    if facts.target_products:
        facts.target_entities = {entity_id for entity_id, entity in iter_entities(subtask.get("environment"))
                                 if any(p["product_id"] in facts.target_products for p in iter_products(entity))}
    return facts


def iter_entities(environment: Any) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """Every ``(id, entity)`` of a subtask's environment (containers of entities by id)."""
    for container in environment.values() if isinstance(environment, Mapping) else ():
        if isinstance(container, Mapping):
            for entity_id, entity in container.items():
                if isinstance(entity, Mapping):
                    yield str(entity_id), entity


def iter_products(entity: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    """Every dict with a ``product_id`` directly inside one of an entity's lists."""
    for value in entity.values():
        if isinstance(value, list):
            for product in value:
                if isinstance(product, Mapping) and product.get("product_id"):
                    yield product


@dataclass
class Creation:
    """One order or booking the agent tried to make."""

    tool: str
    entity: str | None
    products: set[str]
    ok: bool


def creations(messages: Sequence[Mapping[str, Any]]) -> list[Creation]:
    """The order/booking calls in a trajectory, each with whether its tool result was an error."""
    failed_ids = {m.get("tool_call_id") for m in messages if m.get("role") == "tool" and m.get("error")}
    kinds = declared_kinds()
    out = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            name = str(call.get("name", ""))
            if kinds.get(name) != "create":
                continue
            args = call.get("arguments") if isinstance(call.get("arguments"), Mapping) else {}
            entity = next((str(args[k]) for k in _ENTITY_ARGS if args.get(k)), None)
            products: set[str] = set()
            for key, value in args.items():
                if key in _NOT_PRODUCT_ARGS or not (key.endswith("_id") or key.endswith("_ids")):
                    continue
                products |= {str(v) for v in (value if isinstance(value, list) else [value]) if v}
            out.append(Creation(tool=name, entity=entity, products=products, ok=call.get("id") not in failed_ids))
    return out


def _was_asking(messages: Sequence[Mapping[str, Any]]) -> bool:
    for message in reversed(messages):
        if message.get("role") == "assistant" and not message.get("tool_calls"):
            return "?" in str(message.get("content") or "")
    return False


def categorize(item: Mapping[str, Any], messages: Sequence[Mapping[str, Any]], memory_text: str,
               facts: SubtaskFacts) -> str | None:
    """The failure category of one item record (``None`` for a passed or skipped item), from its trajectory,
    the memory text the agent was given and :func:`subtask_facts` of its subtask."""
    outcome = item.get("outcome")
    if outcome == "error":
        return "infrastructure_error"
    if outcome != "failed":
        return None
    termination = item.get("termination")
    if termination == "max_steps":
        return "step_limit"
    made = creations(messages)
    done = [c for c in made if c.ok]
    if termination in ("too_many_errors", "invalid_agent_message"):
        return "tool_errors"
    if not done:
        if made:
            return "tool_errors"
        if termination == "user_stop" and _was_asking(messages):
            return "user_stopped_early"
        return "no_order"
    unmet = [str(r.get("text")) for r in item.get("rubrics") or [] if r.get("met") is False]
    if facts.proactive and any(r in facts.asking_rubrics for r in unmet):
        return "no_question"
    lowered = memory_text.lower()
    linked = [facts.preference_phrases[r] for r in unmet if r in facts.preference_phrases]
    if any(not all(p.lower() in lowered for p in phrases) for phrases in linked):
        return "preference_missing"
    if linked:
        return "preference_violated"
    entities = {c.entity for c in done if c.entity}
    if facts.target_entities and entities and not entities & facts.target_entities:
        return "wrong_store"
    products = set().union(*(c.products for c in done))
    if facts.target_products and not products & facts.target_products:
        return "wrong_product"
    if int(item.get("tool_errors") or 0) > 0:
        return "tool_errors"
    return "order_details"


def failure_table(rows: Iterable[tuple[str, str, str, str]], examples_per_cell: int = 20) -> dict[str, Any]:
    """Counts by category x domain x memory backend of ``(nodeid, category, domain, memory)`` rows, with a
    few node ids per cell so a reader can open the items behind a count.

    Returns:
        ``{"categories": CATEGORIES, "items": {nodeid: category}, "cells": [{"category", "domain",
        "memory", "count", "examples"}]}``; cells in category order, then domain, then backend.
    """
    items: dict[str, str] = {}
    cells: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for nodeid, category, domain, memory in rows:
        items[nodeid] = category
        cells[(category, domain, memory)].append(nodeid)
    order = list(CATEGORIES)
    out = []
    for key in sorted(cells, key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[1], k[2])):
        ids = sorted(cells[key])
        out.append({"category": key[0], "domain": key[1], "memory": key[2], "count": len(ids),
                    "examples": ids[:examples_per_cell]})
    return {"categories": dict(CATEGORIES), "items": dict(sorted(items.items())), "cells": out}


def render_failure_table(table: Mapping[str, Any]) -> list[str]:
    """The terminal form: one row per category, one column per backend and domain, plus a total."""
    cells = table.get("cells") or []
    if not cells:
        return ["Failure categories: no failed items"]
    columns = sorted({(c["memory"], c["domain"]) for c in cells})
    counts: dict[tuple[str, str, str], int] = {(c["category"], c["memory"], c["domain"]): c["count"] for c in cells}
    present = [cat for cat in [*CATEGORIES, *sorted({c["category"] for c in cells} - set(CATEGORIES))]
               if any(c["category"] == cat for c in cells)]
    header = ["category", *(f"{m}:{d}" for m, d in columns), "total"]
    rows = [header]
    for category in present:
        values = [counts.get((category, m, d), 0) for m, d in columns]
        rows.append([category, *(str(v) if v else "." for v in values), str(sum(values))])
    totals = [sum(counts.get((cat, m, d), 0) for cat in present) for m, d in columns]
    rows.append(["total", *map(str, totals), str(sum(totals))])
    return ["Failure categories (failed items by memory:domain; see the README for each category)", *align(rows, 1)]


def analyse_run(run: Any, catalogue: Any) -> dict[str, Any]:
    """:func:`failure_table` of a saved run (a :class:`~pytest_vitabench.runs.Run`)."""
    facts_cache: dict[tuple[str, str], SubtaskFacts] = {}
    rows = []
    for item in run.results:
        if item.get("outcome") not in ("failed", "error"):
            continue
        key = (str(item.get("user_id")), str(item.get("subtask_id")))
        if key not in facts_cache:
            facts_cache[key] = subtask_facts(catalogue.subtask(*key) if catalogue is not None else None)
        nodeid = item["nodeid"]
        category = categorize(item, run.messages(nodeid), run.memory_snapshot(nodeid), facts_cache[key])
        if category:
            rows.append((nodeid, category, str(item.get("domain", "")), str(item.get("memory", ""))))
    return failure_table(rows)


def failure_category(result: ItemResult, subtask: Any) -> str | None:
    """The failure category of a finished item, from its own trajectory and its subtask's suite data."""
    if result.outcome not in ("failed", "error"):
        return None
    return categorize_result(result, subtask_facts(subtask_data_of(subtask)))


def categorize_result(result: ItemResult, facts: SubtaskFacts) -> str | None:
    messages = [m.model_dump(mode="json") for m in result.messages]
    return categorize(result.model_dump(mode="json", exclude={"messages", "memory_snapshot"}), messages,
                      result.memory_snapshot, facts)


def subtask_data_of(subtask: Any) -> dict[str, Any]:
    """The fields of a :class:`~pytest_vitabench.suite.schema.SubTask` that failure analysis reads, as the
    VitaBench 2.0-shape dict :func:`~pytest_vitabench.report.failures.subtask_facts` takes."""
    return {"skill_tested": subtask.skill_tested, "target_product_ids": subtask.target_product_ids,
            "environment": subtask.environment,
            "rubric_checks": [c.model_dump(mode="json") for c in subtask.rubric_checks or []],
            "evaluation_criteria": (subtask.evaluation_criteria.model_dump(mode="json")
                                    if subtask.evaluation_criteria else None),
            "user_scenario": ({"personalized_preference_memory": subtask.groundtruth_preferences()}
                              if subtask.user_scenario else None)}


def suite_subtask_data(load_suite: Callable[[str], Any]) -> Callable[[ItemResult], dict[str, Any] | None]:
    """An item -> its subtask's suite data (the fields failure analysis reads), from the run's loaded suites."""
    index: dict[str, dict[tuple[str, str], Any]] = {}

    def lookup(result: ItemResult) -> dict[str, Any] | None:
        if result.suite not in index:
            try:
                suite = load_suite(result.suite)
            except Exception:  # the suite is gone or broken: classify without its facts
                index[result.suite] = {}
            else:
                index[result.suite] = {(u.task.user_id, s.subtask_id): s for u in suite.users if u.task
                                       for s in u.task.subtasks}
        subtask = index[result.suite].get((result.user_id, result.subtask_id))
        return None if subtask is None else subtask_data_of(subtask)

    return lookup
