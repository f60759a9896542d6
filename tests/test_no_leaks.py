"""Acceptance: the agent never sees the answer, end to end, over the demo suite and the 1.0 data.

For every subtask and every memory backend but ``groundtruth`` this builds exactly what the harness
gives the agent (system prompt with memory, tool schemas) and probes every tool of the subtask's
environment with arguments drawn from the environment's own ids and words, then scans every
agent-visible string for: ``*_type`` answer markers, ``distraction_reason`` keys or texts,
``target_product_ids``, and the ground-truth preference annotation. The key and marker lists are the one
vocabulary's (:mod:`pytest_vitabench.text.vocabulary`), and every environment is probed a second time with every
hidden key and every marker value planted on each of its entities and products.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO_ROOT, VB1_DIR

from pytest_vitabench.agents.prompts import agent_system_prompt
from pytest_vitabench.domains import build_environment
from pytest_vitabench.memory.base import memory_tools
from pytest_vitabench.memory.render import render_preferences
from pytest_vitabench.official.tool_answers import official_answers
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner, agent_profile
from pytest_vitabench.text.vocabulary import ANSWER_MARKER_VALUES, HIDDEN_KEYS, MARKER_PATTERN

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
#: The value planted under every hidden key (long enough to count as a distraction reason when planted there).
PLANTED = "PLANTED-ANSWER-5c1e: the one the user wants"
SUITES = [DEMO, VB1_DIR / "delivery_tasks_en.json", VB1_DIR / "delivery_tasks_zh.json",
          VB1_DIR / "instore_tasks_en.json"]


def _hidden_texts(environment: dict[str, Any]) -> set[str]:
    """The distraction reasons stated in this environment (each must stay invisible)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "distraction_reason" and isinstance(value, str) and len(value) > 12:
                    found.add(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(environment)
    return found


def _planted(environment: dict[str, Any]) -> dict[str, Any]:
    """A copy of an environment with every hidden key and every marker value on each entity and product."""
    planted = copy.deepcopy(environment)
    answer = {key: PLANTED for key in sorted(HIDDEN_KEYS)}
    answer |= {f"planted{i}_type": value for i, value in enumerate(sorted(ANSWER_MARKER_VALUES))}
    for container in ("stores", "shops", "hotels", "attractions", "flights", "trains", "taxis"):
        for entity in (planted.get(container) or {}).values():
            if isinstance(entity, dict):
                entity.update(answer)
                for product in entity.get("products") or []:
                    if isinstance(product, dict):
                        product.update(answer)
    return planted


def _ids_and_words(environment: dict[str, Any]) -> tuple[list[str], list[str]]:
    ids: list[str] = []
    words: list[str] = []
    for container in ("stores", "shops", "hotels", "attractions", "flights", "trains", "taxis"):
        for key, entity in (environment.get(container) or {}).items():
            ids.append(str(key))
            for name_key in ("name", "shop_name", "hotel_name", "attraction_name", "departure_city", "arrival_city"):
                if isinstance(entity, dict) and entity.get(name_key):
                    words.append(str(entity[name_key]))
            for product in (entity.get("products") or []) if isinstance(entity, dict) else []:
                if isinstance(product, dict) and product.get("product_id"):
                    ids.append(str(product["product_id"]))
    return ids, words


def _probe_arguments(schema: dict[str, Any], ids: list[str], words: list[str], env: Any) -> list[dict[str, Any]]:
    """A few argument sets per tool: every id-like parameter cycles through the environment's ids."""
    properties = schema["function"]["parameters"].get("properties", {})
    date = env.time[:10]
    variants = []
    for i in range(min(len(ids), 6) or 1):
        args: dict[str, Any] = {}
        for name, spec in properties.items():
            kind = spec.get("type")
            if name == "user_id":
                args[name] = env.user_id
            elif name.endswith("_ids"):
                args[name] = [ids[i % len(ids)]] if ids else []
            elif name.endswith("_id"):
                args[name] = ids[i % len(ids)] if ids else "x"
            elif kind == "array":
                args[name] = [words[i % len(words)]] if words else ["food"]
            elif kind in ("number", "integer"):
                args[name] = 1
            elif "date" in name:
                args[name] = date
            elif "time" in name:
                args[name] = env.time
            else:
                args[name] = words[i % len(words)] if words else "city"
        variants.append(args)
    return variants


def _leaks(text: str, hidden: set[str], groundtruth_text: str) -> list[str]:
    found = [key for key in sorted(HIDDEN_KEYS) if key in text]
    found += MARKER_PATTERN.findall(text)
    found += ["a planted hidden value"] if PLANTED in text else []
    found += [h for h in hidden if h in text]
    if groundtruth_text and groundtruth_text in text:
        found.append("ground-truth preference block")
    return found


OFFICIAL_DIR = VB1_DIR.parent.parent / "official" / "VitaBench-2.0"


def _official_source() -> Any:
    """The official harness beside the clone (its tools' answers need its wording), or a skip saying why."""
    if not OFFICIAL_DIR.is_dir():
        pytest.skip(f"{OFFICIAL_DIR} not found: the official tools' answers need the official harness's wording")
    from pytest_vitabench.official.source import locate

    return locate(str(OFFICIAL_DIR))


@pytest.mark.parametrize("tool_results", ["default", "official"])
@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.name)
def test_no_answer_reaches_the_agent(path: Path, tool_results: str):
    if not path.exists():
        pytest.skip(f"{path} not found (the 1.0 data needs ../shared beside the clone)")
    # --vita-deviation tool-results official: the official tools' own string forms of the records, not our JSON views
    source = _official_source() if tool_results == "official" else None
    official_forms = 0
    runner = ItemRunner(RunConfig(memory=["none", "full_context"]))
    suite = runner.suite(path)
    probed = 0
    for user in suite.users:
        assert user.task is not None, user.error
        for index, sub in enumerate(user.task.subtasks):
            hidden = _hidden_texts(sub.environment)
            groundtruth = render_preferences(sub.groundtruth_preferences())
            for memory_name in ("none", "full_context"):
                memory = runner.memory_for(suite, user, index, memory_name, trial=0)
                env = build_environment(sub.domain, _planted(sub.environment), user_id=user.task.user_id,
                                        time=user.times[index], seed=0,
                                        answers=official_answers(source) if source else None)
                env.add_tools(memory_tools(memory))
                visible = [agent_system_prompt(time=user.times[index], profile=agent_profile(user.task),
                                               memory=memory.read(sub.instruction), proactive=sub.is_proactive),
                           json.dumps(env.tool_schemas(), ensure_ascii=False)]
                if memory_name == "full_context":
                    ids, words = _ids_and_words(sub.environment)
                    for schema in env.tool_schemas():
                        for args in _probe_arguments(schema, ids, words, env):
                            visible.append(env.call(schema["function"]["name"], args).content)
                            probed += 1
                            official_forms += not visible[-1].lstrip().startswith(("{", "["))
                for text in visible:
                    assert not _leaks(text, hidden, groundtruth), (user.key, sub.subtask_id, memory_name,
                                                                   _leaks(text, hidden, groundtruth), text[:300])
    assert probed > 100
    if tool_results == "official":  # the probes read the official string forms, not our JSON views
        assert official_forms > probed // 4, (official_forms, probed)


def test_the_scan_would_catch_a_leak():
    environment = {"stores": {"S1": {"name": "A", "products": [
        {"product_id": "P1", "product_type": "distraction",
         "distraction_reason": "contains cilantro, which she hates"}]}}}
    hidden = _hidden_texts(environment)
    raw = json.dumps(environment)
    assert set(_leaks(raw, hidden, "")) >= {"distraction_reason", "contains cilantro, which she hates"}
    assert _leaks('{"product_type": "target"}', set(), "")
    for key in HIDDEN_KEYS:  # every key of the one vocabulary, planted or not
        assert _leaks(json.dumps({key: "x"}), set(), "")
    for value in ANSWER_MARKER_VALUES:
        assert _leaks(json.dumps({"store_type": value}), set(), "")
    assert _leaks(json.dumps(_planted(environment)), set(), "")
    block = render_preferences({"current": {"food": ["no cilantro"]}})
    assert _leaks("memory:\n" + block, set(), block)
