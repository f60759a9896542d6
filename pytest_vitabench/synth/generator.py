"""Assemble a suite in the VitaBench 2.0 ``tasks.json`` shape, and write it byte-identically.

Extension fields (ignored by VitaBench 2.0's loader, used by our rules judge and validator):

* subtask ``rubric_checks``: a machine check per rubric (``suite/checks.py``);
* inside ``user_scenario.personalized_preference_memory`` (read only by the ground-truth memory, which
  renders ``current`` alone): ``tag_ids`` (tag -> preference id, given in the first subtask where the tag
  is current, so the union over a user's subtasks is the whole mapping), ``rubric_sources`` (the preference each
  rubric relies on) and ``history_noise`` (``[interaction, item, kind]`` of each noise event in this
  subtask's interactions; item ``-1`` is the record's dialogue).

Determinism: ids, texts, numbers and orders all come from named seeded streams; dicts are built in a
fixed order and dumped without ``sort_keys`` surprises; floats are rounded to one decimal or whole yuan;
the gzip header carries no file name and ``mtime=0``.
"""

from __future__ import annotations

import gzip
import io
import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from .catalog import AXIS, CATEGORIES, CONDITION_WORDS, PROACTIVE_CONDITIONAL, PROACTIVE_COUNT
from .config import SynthConfig
from .environment import build as build_environment
from .history import build_history, records
from .plan import Pref, SubPlan, UserPlan, plan_users
from .rng import stream
from .rubrics import rubrics_for

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def generate(config: SynthConfig) -> list[dict[str, Any]]:
    """The suite: a list of users in the VitaBench 2.0 ``tasks.json`` format."""
    return [build_user(config, plan) for plan in plan_users(config.validated())]


def build_user(config: SynthConfig, plan: UserPlan) -> dict[str, Any]:
    events = build_history(config.seed, plan)
    interactions, noise = records(events, plan.shape, stream(config.seed, "shape", plan.person.user_id))
    subtasks = []
    cursor = 0
    previous = plan.start - timedelta(days=1)
    mapped: set[str] = set()
    for sub in plan.subtasks:
        first = cursor
        while cursor < len(interactions) and _day(interactions[cursor]) < sub.day:
            cursor += 1
        window_noise = [[i - first, item, kind] for i, item, kind in noise if first <= i < cursor]
        subtask = _subtask(config, plan, sub, interactions[first:cursor], window_noise, previous)
        # Each tag's preference id is given once, where the tag first appears (the union is the mapping).
        memory = subtask["user_scenario"]["personalized_preference_memory"]
        memory["tag_ids"] = {tag: pid for tag, pid in memory["tag_ids"].items() if tag not in mapped}
        mapped.update(memory["tag_ids"])
        subtasks.append(subtask)
        previous = sub.day
    return user_record(plan.person.user_id, plan.person.profile, subtasks)


def _day(record: dict[str, Any]) -> date:
    return date.fromisoformat(str(record.get("date") or record.get("timestamp"))[:10])


def _subtask(config: SynthConfig, plan: UserPlan, sub: SubPlan, window: list[dict[str, Any]],
             noise: list[list[Any]], previous: date) -> dict[str, Any]:
    built = build_environment(config, plan, sub, sub.day + timedelta(days=sub.when_ahead))
    instruction, intention = _texts(config, plan, sub)
    rubrics, checks, sources = rubrics_for(plan, sub, built)
    skills = ["proactive"] if sub.proactive else ["personalize"]
    if any(len([v for v in p.versions if v.start < sub.day]) > 1 for p in sub.prefs):
        skills.append("update")
    memory = _preference_memory(plan, sub, previous) | {"rubric_sources": sources, "history_noise": noise}
    return subtask_record(
        plan.person.user_id, sub.n, domain=sub.domain, task=f"{sub.domain} - {sub.family.key.replace('_', ' ')}",
        current_time=sub.day.isoformat(), start_date=(previous + timedelta(days=1)).isoformat(),
        end_date=(sub.day - timedelta(days=1)).isoformat(), instruction=instruction, interactions=window,
        environment=built.environment, profile=plan.person.profile, memory=memory, rubrics=rubrics, checks=checks,
        target_ids=[built.target_product if sub.kind != "reservation" else built.target_entity], skills=skills,
        intention=intention)


# ------------------------------------------------------------------------------------ VitaBench 2.0 records
# Shared with curated suites (``curated.py``): the VitaBench 2.0 user and subtask records, keys in its order.


def user_record(user_id: str, profile: dict[str, Any], subtasks: list[dict[str, Any]]) -> dict[str, Any]:
    """One VitaBench 2.0 ``PersonalizationTask`` dict."""
    return {"id": user_id, "user_id": user_id, "user_profile": dict(profile), "subtasks": subtasks}


def subtask_record(user_id: str, n: int, *, domain: str, task: str, current_time: str, start_date: str,
                   end_date: str, instruction: str, interactions: list[dict[str, Any]], environment: dict[str, Any],
                   profile: dict[str, Any], memory: dict[str, Any], rubrics: list[str], checks: list[dict[str, Any]],
                   target_ids: list[Any],
                   skills: list[str], intention: str) -> dict[str, Any]:
    """One VitaBench 2.0 subtask dict (the ``n``-th, 1-based), with our ``rubric_checks`` extension."""
    return {
        "task_turn_num": f"{user_id}_{n:02d}",
        "subtask_id": f"sub_{user_id}_{n}",
        "domain": domain,
        "task": task,
        "current_time": current_time,
        "start_date": start_date,
        "end_date": end_date,
        "instruction": instruction,
        "interactions": interactions,
        "environment": environment,
        "user_scenario": {"user_profile": dict(profile), "personalized_preference_memory": memory},
        "evaluation_criteria": {"expected_states": [{"state_rubrics": list(rubrics)}], "overall_rubrics": rubrics},
        "target_product_ids": target_ids,
        "skill_tested": skills,
        "user_intention": intention,
        "rubric_checks": checks,
    }


# ------------------------------------------------------------------------------------------ texts


def _day_phrase(today: date, ahead: int) -> str:
    return "tomorrow" if ahead == 1 else f"this {_WEEKDAYS[(today + timedelta(days=ahead)).weekday()]}"


def _clock_phrase(clock: str) -> str:
    hour, minute = int(clock[:2]), int(clock[3:5])
    if hour == 12 and minute == 0:
        return "noon"
    suffix = "am" if hour < 12 else "pm"
    hour12 = hour % 12 or 12
    return f"{hour12} {suffix}" if minute == 0 else f"{hour12}:{minute:02d} {suffix}"


def _texts(config: SynthConfig, plan: UserPlan, sub: SubPlan) -> tuple[str, str]:
    """The instruction and the hidden ``user_intention`` (proactive subtasks only)."""
    rng = stream(config.seed, "texts", plan.person.user_id, sub.n)
    family = sub.family
    slots = {
        "addr": "to my home" if sub.address == "home" else "to my office",
        "day": _day_phrase(sub.day, sub.when_ahead) if sub.when_ahead else "",
        "time": _clock_phrase(sub.visit_clock) if sub.visit_clock else "",
        "n": str(sub.count),
        "dest": sub.dest,
        "noun": family.noun,
    }
    if sub.proactive == "conditional":
        axis = next(a for a in family.axes if AXIS[a].kind == "conditional")
        instruction, intention = rng.choice(PROACTIVE_CONDITIONAL[axis])
        words = CONDITION_WORDS[sub.cond]
        when, cond = words if isinstance(words, tuple) else ("", words)
        others = f"{_NUMBER_WORDS[sub.count - 1] if sub.count <= 10 else sub.count - 1} {cond}"
        slots.update(when=when, cond=cond, others=others)
        return instruction.format(**slots), intention.format(**slots)
    if sub.proactive == "count":
        instruction, intention = rng.choice(PROACTIVE_COUNT[family.kind])
        return instruction.format(**slots), intention.format(**slots)
    return rng.choice(family.requests).format(**slots), ""


# ------------------------------------------------------------------------------------------ ground truth


def _preference_memory(plan: UserPlan, sub: SubPlan, previous: date) -> dict[str, Any]:
    """``personalized_preference_memory`` as of the subtask: current tags and the changes since the last one."""
    current: dict[str, list[str]] = {}
    tag_ids: dict[str, str] = {}
    for category in CATEGORIES:
        for pref in plan.prefs:
            if pref.category == category and pref.active(sub.day):
                tag = pref.tag(pref.value_at(sub.day))
                current.setdefault(category, []).append(tag)
                tag_ids[tag] = pref.pid
    changes = sorted((c for pref in plan.prefs for c in _changes(pref, previous, sub.day)),
                     key=lambda c: (c["date"], c["id"], c["type"]))
    return {"current": current, "preference_tag_change_history": changes, "tag_ids": tag_ids}


def _changes(pref: Pref, after: date, before: date) -> list[dict[str, Any]]:
    out = []
    for index, version in enumerate(pref.versions):
        if not after < version.start < before:
            continue
        if index == 0 and not pref.initial:
            out.append({"date": version.start.isoformat(), "type": "add", "category": pref.category,
                        "id": pref.pid, "new": pref.tag(version.value)})
        elif index > 0:
            out.append({"date": version.start.isoformat(), "type": "modify", "category": pref.category,
                        "id": pref.pid, "old": pref.tag(pref.versions[index - 1].value),
                        "new": pref.tag(version.value)})
    if pref.end is not None and after < pref.end < before:
        out.append({"date": pref.end.isoformat(), "type": "delete", "category": pref.category, "id": pref.pid,
                    "old": pref.tag(pref.versions[-1].value)})
    return out


# ------------------------------------------------------------------------------------------ writing


def dumps(suite: list[dict[str, Any]], indent: int | None = None) -> bytes:
    """The suite as UTF-8 JSON bytes: compact (or indented), key order as built, one trailing newline."""
    separators = (",", ":") if indent is None else None
    return (json.dumps(suite, ensure_ascii=False, indent=indent, separators=separators) + "\n").encode("utf-8")


def gzip_bytes(data: bytes) -> bytes:
    """Gzip with a fixed header (no file name, ``mtime=0``), so equal input gives equal bytes."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as handle:
        handle.write(data)
    return buffer.getvalue()


def write(suite: list[dict[str, Any]], path: str | Path, indent: int | None = None) -> Path:
    """Write a suite; a ``.gz`` path is gzip-compressed deterministically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = dumps(suite, indent)
    target.write_bytes(gzip_bytes(data) if target.name.endswith(".gz") else data)
    return target
