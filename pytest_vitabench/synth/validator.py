"""Prove a suite is fair: every subtask solvable, its answer unique, its evidence in place, nothing leaked.

``vitabench validate`` runs these rules over every subtask:

``schema``
    the file loads with the VitaBench 2.0 schema (plus our extensions), every rubric has exactly one
    machine check with the same text;
``chronology``
    subtasks in time order; each subtask's interactions sorted, inside ``[start_date, end_date]`` and
    before the subtask; windows do not overlap; the environment's day is ``current_time``;
``target``
    of all options (a product of a merchant, or a merchant for a table reservation), booked exactly as
    the rubrics ask, exactly one meets every record check, it is the marked target, its merchant comes
    after the first five and is not the best rated;
``distractors``
    10-15 merchants, at least 40 products and 30 distractors, at least five options breaking only one
    check per check that any option breaks, three to five breaking several, and a best-rated merchant
    whose option breaks exactly one remembered preference;
``evidence``
    every preference a rubric relies on (``rubric_sources``) is in the subtask's ground truth and is
    stated or shown by a user-voiced, non-noise interaction dated after its current value began and before
    the subtask;
``leaks``
    no distraction reason, answer marker, hidden key, target id, rubric text or ground-truth block
    reaches agent-visible text (instruction, profile, rendered history, tool views), and a proactive
    subtask's hidden ``user_intention`` is in none of them;
``profile``
    the history never shows the user ordering their own allergen, and the ground truth never likes it (the
    profile read in English or Chinese; an allergy of "none", "无" or "暂无" is no allergen).

A suite in the plain VitaBench 2.0 shape has no ``rubric_checks`` or ``rubric_sources``: the rules that need them
are reported as not checkable, never as passed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..domains import build_environment
from ..domains.environment import NEARBY_CONTAINERS, DomainEnvironment
from ..judges.rules import run_check
from ..memory.render import render_preferences, render_records
from ..suite.checks import RECORD_FIELDS, RecordCheck, RubricCheck
from ..suite.loader import LoadedSuite
from ..suite.schema import DailyRecord, EventRecord, SubTask, UserTask
from ..text.vocabulary import HIDDEN_KEYS, MARKER_PATTERN, SKIP_TYPES
from .profile_fields import allergens, avoids, is_none

RULES = ("schema", "chronology", "target", "distractors", "evidence", "leaks", "profile")


@dataclass(frozen=True)
class Limits:
    """The complexity controls the ``distractors`` rule enforces (paper A.2.3)."""

    merchants_min: int = 10
    merchants_max: int = 15
    products_min: int = 40
    distractors_min: int = 30
    one_off_min: int = 5
    multi_min: int = 3
    multi_max: int = 5
    target_after: int = 5


@dataclass
class Finding:
    rule: str
    where: str
    message: str


@dataclass
class Report:
    """What a validation found, per rule."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)
    unchecked: dict[str, str] = field(default_factory=dict)
    subtasks: int = 0
    users: int = 0

    @property
    def ok(self) -> bool:
        return not self.findings

    def failed(self, strict: bool = False) -> bool:
        """Whether the suite fails validation; the paper's complexity controls (``distractors``), which a small
        hand-made suite need not follow, count only when ``strict``."""
        return any(f.rule != "distractors" or strict for f in self.findings)

    def add(self, rule: str, where: str, message: str) -> None:
        self.findings.append(Finding(rule, where, message))

    def errors(self, rule: str) -> list[Finding]:
        return [f for f in self.findings if f.rule == rule]

    def summary(self, limit: int = 5, strict: bool = False) -> list[str]:
        """Human-readable lines: one per rule, then the first few findings of each failing rule. Without
        ``strict`` the paper's complexity controls read as a scale note, not a failure (see :meth:`failed`)."""
        lines = [f"{self.path}: {self.users} users, {self.subtasks} subtasks"]
        for rule in RULES:
            found = self.errors(rule)
            if rule in self.unchecked and not self.checked[rule]:
                status = f"not checked: {self.unchecked[rule]}"
            elif found and rule == "distractors" and not strict:
                status = (f"below the paper's scale ({len(found)} finding{'s' if len(found) > 1 else ''} in "
                          f"{self.checked[rule]} checked): fine for a small hand-made suite, an error with --strict")
            elif found:
                status = f"FAIL ({len(found)} problem{'s' if len(found) > 1 else ''} in {self.checked[rule]} checked)"
            else:
                status = f"ok ({self.checked[rule]} checked)"
                if rule in self.unchecked:
                    status += f"; partly not checked: {self.unchecked[rule]}"
            lines.append(f"  {rule:12s} {status}")
        for rule in RULES:
            found = self.errors(rule)
            lines += [f"    {rule}: {finding.where}: {finding.message}" for finding in found[:limit]]
            if len(found) > limit:
                lines.append(f"    {rule}: ... and {len(found) - limit} more")
        return lines


def validate_loaded(suite: LoadedSuite, limits: Limits | None = None) -> Report:
    """Run every rule over the valid users of a loaded suite (load errors are reported as ``schema``)."""
    report = Report(path=str(suite.path))
    problems = [problem for user in suite.users if user.error is not None for problem in user.error.problems]
    for where, problem in problems:
        report.add("chronology" if re.search(r"before|after|comes", problem) else "schema", where, problem)
    validate_users([u.task for u in suite.users if u.task is not None], report, limits or Limits())
    return report


def validate_users(users: list[UserTask], report: Report, limits: Limits) -> None:
    """Run every rule over ``users``, adding the findings to ``report``."""
    report.users = len(users)
    for user in users:
        report.subtasks += len(user.subtasks)
        _chronology(user, report)
        # The history so far, digested once: (day, lower-case user-voiced text) per record, rendered text per subtask.
        voiced: list[tuple[str, str]] = []
        rendered: list[str] = []
        for index, sub in enumerate(user.subtasks):
            where = f"{user.id}::{sub.subtask_id}"
            noise = _noise(sub)
            for position, record in enumerate(sub.interactions):
                if text := " ".join(_voiced(record, noise, position)).lower():
                    voiced.append((record.when[:10], text))
            rendered.append(render_records(list(sub.interactions)))
            checks = _checks(sub, where, report)
            if checks is None:
                report.unchecked.setdefault("target", "no rubric_checks (VitaBench 2.0 shape): only the marked target "
                                                      "can be located")
                report.unchecked.setdefault("distractors", "no rubric_checks: distractors cannot be told apart")
                if not sub.target_product_ids and not any(
                        p.get("product_type") == "target" for _, e in environment_entities(sub.environment)
                        for p in e.get("products") or [] if isinstance(p, dict)):
                    report.unchecked["target"] = "no rubric_checks and no target annotation"
            else:
                options = _options(sub, checks)
                _target(sub, where, options, report, limits)
                _distractors(sub, where, options, checks, report, limits)
            _evidence(user, index, sub, where, voiced, report)
            _leaks(user, sub, where, rendered, report)
            _profile(user, sub, where, noise, report)


# ------------------------------------------------------------------------------------------ schema


def _checks(sub: SubTask, where: str, report: Report) -> list[RubricCheck] | None:
    if not sub.rubric_checks:
        report.unchecked.setdefault("schema", "rubrics without machine checks (VitaBench 2.0 shape)")
        return None
    report.checked["schema"] += 1
    rubrics = sub.rubrics()
    texts = [c.rubric for c in sub.rubric_checks]
    problems = [("rubric without a machine check", text) for text in rubrics if text not in texts]
    problems += [("check for a rubric the subtask does not state", text) for text in texts if text not in rubrics]
    problems += [("rubric with several checks", text) for text, n in Counter(texts).items() if n > 1]
    for problem, text in problems:
        report.add("schema", where, f"{problem}: {text!r}")
    return list(sub.rubric_checks)


# ------------------------------------------------------------------------------------------ chronology


def _chronology(user: UserTask, report: Report) -> None:
    previous_time = previous_day = ""
    for sub in user.subtasks:
        where = f"{user.id}::{sub.subtask_id}"
        report.checked["chronology"] += 1
        time = sub.env_time
        day = sub.current_time or time[:10]
        if previous_time and time and time < previous_time:
            report.add("chronology", where, f"subtask at {time} comes before the previous one ({previous_time})")
        if sub.current_time and time and not time.startswith(sub.current_time):
            report.add("chronology", where, f"environment time {time} is not on current_time {sub.current_time}")
        if sub.start_date and previous_day and sub.start_date < previous_day:
            report.add("chronology", where,
                       f"history window starts {sub.start_date}, before the previous subtask ({previous_day})")
        whens = [r.when for r in sub.interactions]
        if whens != sorted(whens):
            report.add("chronology", where, "interactions are not in time order")
        for record in sub.interactions:
            day_of = record.when[:10]
            # A timestamp may share the subtask's day if it is not later; a day's record must come before it.
            late = record.when > time if len(record.when) > 10 and time else bool(day and day_of >= day)
            if late:
                report.add("chronology", where, f"interaction dated {record.when} is not before the subtask ({day})")
                break
            if (sub.start_date and day_of < sub.start_date) or (sub.end_date and day_of > sub.end_date):
                report.add("chronology", where,
                           f"interaction dated {record.when} is outside the window {sub.start_date}..{sub.end_date}")
                break
        previous_time, previous_day = time or previous_time, day or previous_day


# ------------------------------------------------------------------------------------------ options


@dataclass
class Option:
    """One thing an agent could book: a product row of an entity, or an entity (table reservations)."""

    position: int
    entity_id: str
    entity: dict[str, Any]
    product: dict[str, Any] | None
    failed: list[int]

    @property
    def key(self) -> str:
        if self.product is None:
            return self.entity_id
        return f"{self.entity_id}/{self.product.get('product_id')}@{self.product.get('date', '')}"


def environment_entities(environment: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(id, record)`` of every merchant, hotel, attraction, flight, train and taxi of an environment."""
    return [(str(key), entity) for container in (*NEARBY_CONTAINERS, "taxis")
            for key, entity in (environment.get(container) or {}).items() if isinstance(entity, dict)]


def _options(sub: SubTask, checks: list[RubricCheck]) -> list[Option]:
    """Every option, with the record checks it fails when booked exactly as the rubrics ask."""
    record_checks = [(i, c.check) for i, c in enumerate(checks) if isinstance(c.check, RecordCheck)]
    kind = record_checks[0][1].record_type if record_checks else None
    wanted: dict[str, Any] = {}
    for _, check in record_checks:
        for name, cond in check.where.items():
            if name in ("address", "time", "note") and cond.contains is not None:
                wanted[name] = cond.contains
            elif "eq" in cond.model_fields_set and name not in ("entity_id", "product_ids"):
                wanted[name] = cond.eq
            elif name == "dates" and cond.includes_all:
                wanted[name] = list(cond.includes_all)
    options = []
    for position, (eid, entity) in enumerate(environment_entities(sub.environment)):
        rows: list[dict[str, Any] | None] = [None] if kind in ("reservation", "book") else \
            [p for p in entity.get("products") or [] if isinstance(p, dict)]
        for product in rows:
            record: dict[str, Any] = {name: None for name in RECORD_FIELDS}
            quantity = wanted.get("total_quantity", 1)
            record.update(record_type=kind, record_id="R", entity_id=eid, status=wanted.get("status", "paid"),
                          new=True, product_ids=[str(product.get("product_id"))] if product else [],
                          quantities=[quantity], total_quantity=quantity, address=wanted.get("address", ""),
                          dates=[str(product["date"])[:10]] if product and product.get("date") else
                          wanted.get("dates", []), time=wanted.get("time"),
                          customer_count=wanted.get("customer_count"), note=wanted.get("note", ""))
            failed = [i for i, check in record_checks if not run_check(check, [record], [])[0]]
            options.append(Option(position, eid, entity, product, failed))
    return options


def _target(sub: SubTask, where: str, options: list[Option], report: Report, limits: Limits) -> None:
    report.checked["target"] += 1
    winners = [o for o in options if not o.failed]
    if len(winners) != 1:
        keys = ", ".join(o.key for o in winners[:5])
        report.add("target", where, f"{len(winners)} options meet every record check" + (f" ({keys})" if keys else ""))
        return
    winner = winners[0]
    marked = set(sub.target_product_ids or [])
    ident = {winner.entity_id} if winner.product is None else {str(winner.product.get("product_id"))}
    if marked and not (ident & marked):
        report.add("target", where,
                   f"the only option meeting every check is {winner.key}, not the marked target {sorted(marked)}")
    if winner.position < limits.target_after:
        report.add("distractors", where,
                   f"the target's merchant is number {winner.position + 1}, not after the first {limits.target_after}")
    scores = [s for _, e in environment_entities(sub.environment) if isinstance(s := e.get("score"), (int, float))]
    score = winner.entity.get("score")
    if scores and isinstance(score, (int, float)) and score >= max(scores):
        report.add("distractors", where, f"the target's merchant is the best rated ({score})")


def _distractors(sub: SubTask, where: str, options: list[Option], checks: list[RubricCheck], report: Report,
                 limits: Limits) -> None:
    report.checked["distractors"] += 1
    entities = environment_entities(sub.environment)
    products = sum(len(e.get("products") or []) for _, e in entities)
    problems = []
    if not limits.merchants_min <= len(entities) <= limits.merchants_max:
        problems.append(f"{len(entities)} merchants, expected {limits.merchants_min}-{limits.merchants_max}")
    if products < limits.products_min:
        problems.append(f"{products} products, expected at least {limits.products_min}")
    # A reservation's options are venues: every product of a wrong venue is a distractor.
    venues = bool(options) and options[0].product is None
    distractors = sum(len(o.entity.get("products") or []) if venues else 1 for o in options if o.failed)
    if distractors < limits.distractors_min:
        problems.append(f"{distractors} distractors, expected at least {limits.distractors_min}")
    failing = Counter(i for o in options if len(o.failed) == 1 for i in o.failed)
    for i in sorted({i for o in options for i in o.failed}):
        if failing[i] < limits.one_off_min:
            problems.append(f"only {failing[i]} options break just {checks[i].rubric!r} "
                            f"(expected at least {limits.one_off_min})")
    multi = sum(1 for o in options if len(o.failed) > 1)
    if not limits.multi_min <= multi <= limits.multi_max:
        problems.append(f"{multi} options break several rubrics, expected {limits.multi_min}-{limits.multi_max}")
    problems += _popular(sub, options, checks)
    for problem in problems:
        report.add("distractors", where, problem)


def _popular(sub: SubTask, options: list[Option], checks: list[RubricCheck]) -> list[str]:
    """The best-rated merchant sells something that matches the request and breaks only a remembered preference."""
    scores = [s for o in options if isinstance(s := o.entity.get("score"), (int, float))]
    sources = _sources(sub)
    if not scores or not sources:  # trains and flights carry no rating
        return []
    best = max(scores)
    remembered = {i for i, c in enumerate(checks) if c.rubric in sources}
    if any(o.entity.get("score") == best and len(o.failed) == 1 and o.failed[0] in remembered for o in options):
        return []
    return [f"no option of the best-rated merchant ({best}) breaks just one remembered preference"]


# ------------------------------------------------------------------------------------------ evidence


def _sources(sub: SubTask) -> dict[str, dict[str, Any]]:
    memory = sub.groundtruth_preferences() or {}
    return {str(s.get("rubric")): s for s in memory.get("rubric_sources") or [] if isinstance(s, dict)}


def _noise(sub: SubTask) -> set[tuple[int, int]]:
    memory = sub.groundtruth_preferences() or {}
    return {(int(item[0]), int(item[1])) for item in memory.get("history_noise") or []
            if isinstance(item, list) and len(item) >= 2}


def _items(record: DailyRecord | EventRecord) -> list[tuple[int, str, Any]]:
    """``(item, type, content)`` of a record's events: a daily record's behaviours, or the event itself (item 0)."""
    if isinstance(record, EventRecord):
        return [(0, record.type, record.content)]
    return [(i, b.behavior_type, b.content) for i, b in enumerate(record.behavior)]


def _for_someone_else(content: Any) -> bool:
    return isinstance(content, dict) and bool(content.get("note"))


def _voiced(record: DailyRecord | EventRecord, noise: set[tuple[int, int]], position: int) -> list[str]:
    """Texts of a record that speak for the user: no searches or browsing, no noise, nothing for others."""
    out = []
    for item, kind, content in _items(record):
        if kind in SKIP_TYPES or (position, item) in noise:
            continue
        if isinstance(record, EventRecord) and kind == "conversation" and isinstance(content, list):
            out += [str(t.get("content", "")) for t in content if isinstance(t, dict) and t.get("role") == "user"]
        elif not _for_someone_else(content):
            out.append(json.dumps(content, ensure_ascii=False))
    if isinstance(record, DailyRecord) and record.dialogue and (position, -1) not in noise:
        out += [turn.content for turn in record.dialogue if turn.role == "user"]
    return out


def _evidence(user: UserTask, index: int, sub: SubTask, where: str, voiced: list[tuple[str, str]],
              report: Report) -> None:
    sources = _sources(sub)
    if not sources:
        if sub.rubrics():
            report.unchecked.setdefault("evidence", "no rubric_sources: which preference a rubric needs is unknown")
        return
    memory = sub.groundtruth_preferences() or {}
    current = {str(t) for tags in (memory.get("current") or {}).values()
               for t in (tags if isinstance(tags, list) else [tags])}
    day = sub.current_time or sub.env_time[:10]
    for rubric, source in sources.items():
        report.checked["evidence"] += 1
        tag, pid = str(source.get("tag", "")), str(source.get("preference_id", ""))
        if tag not in current:
            report.add("evidence", where, f"{rubric!r} relies on {tag!r}, which is not in the subtask's ground truth")
            continue
        since = _since(user, index, pid)
        phrases = [str(p).lower() for p in source.get("phrases") or []]
        found = False
        for when, text in reversed(voiced):  # latest first: evidence is usually recent; stop before ``since``
            if when < day and (when < since or any(phrase in text for phrase in phrases)):
                found = when >= since
                break
        if not found:
            report.add("evidence", where,
                       f"no user-voiced evidence of {tag!r} ({phrases}) between {since or 'the start'} and {day}")


def _since(user: UserTask, index: int, pid: str) -> str:
    """When the current value of a preference began (its last addition or modification so far)."""
    since = ""
    for sub in user.subtasks[: index + 1]:
        memory = sub.groundtruth_preferences() or {}
        for change in memory.get("preference_tag_change_history") or []:
            if isinstance(change, dict) and str(change.get("id")) == pid and change.get("type") in ("add", "modify"):
                since = max(since, str(change.get("date", "")))
    return since


# ------------------------------------------------------------------------------------------ leaks


def _visible_tools(sub: SubTask) -> str:
    """Every entity as the tools show it (the domains' allow-listed views)."""
    env = build_environment(sub.domain, sub.environment, user_id=str(sub.environment.get("user_id") or "u"),
                            time=sub.env_time.strip() or f"{(sub.current_time or '').strip()[:10]} 12:00:00", seed=0)
    assert isinstance(env, DomainEnvironment)  # every built-in domain's environment is one
    return "\n".join(json.dumps(entity.view() if hasattr(entity, "view") else {}, ensure_ascii=False)
                     for _, items in env.containers() for entity in items.values())


def _hidden_texts(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "distraction_reason" and isinstance(value, str) and len(value) > 12:
                found.add(value)
            _hidden_texts(value, found)
    elif isinstance(node, list):
        for value in node:
            _hidden_texts(value, found)
    return found


def _leaks(user: UserTask, sub: SubTask, where: str, rendered: list[str], report: Report) -> None:
    report.checked["leaks"] += 1
    visible = {
        "instruction": sub.instruction,
        "profile": json.dumps(user.user_profile, ensure_ascii=False),
        "history": rendered[-1],
        "tools": _visible_tools(sub),
    }
    hidden = _hidden_texts(sub.environment, set())
    truth = render_preferences(sub.groundtruth_preferences())
    targets = [t for t in sub.target_product_ids or [] if len(t) > 3]
    for name, text in visible.items():
        problems = [key for key in sorted(HIDDEN_KEYS) if key in text]
        problems += [f"marker {m!r}" for m in MARKER_PATTERN.findall(text)]
        problems += [f"distraction reason {h!r}" for h in hidden if h in text]
        if name != "tools":
            problems += [f"target id {t}" for t in targets if t in text]
            problems += [f"rubric {r!r}" for r in sub.rubrics() if len(r) > 25 and r in text]
        if truth and truth.count("\n") > 1 and truth in text:
            problems.append("the ground-truth preference block")
        for problem in problems:
            report.add("leaks", where, f"{problem} in agent-visible {name}")
    intention = (sub.user_intention or "").strip()
    if sub.is_proactive and intention:
        if intention in sub.instruction or intention in visible["profile"]:
            report.add("leaks", where, "the hidden user_intention is in the instruction or profile")
        if any(intention in chunk for chunk in rendered):
            report.add("leaks", where, "the hidden user_intention is in the history so far")


# ------------------------------------------------------------------------------------------ profile


def _profile(user: UserTask, sub: SubTask, where: str, noise: set[tuple[int, int]], report: Report) -> None:
    found = allergens(user.user_profile)
    if not found:
        return
    report.checked["profile"] += 1
    for allergy in found:
        word = allergy.rstrip("s")
        for position, record in enumerate(sub.interactions):
            for item, kind, content in _items(record):
                if kind != "order" or (position, item) in noise or _for_someone_else(content):
                    continue
                if word in json.dumps(content, ensure_ascii=False).lower():
                    report.add("profile", where, f"the user orders {allergy!r} for themself ({record.when}) although "
                                                 "the profile lists it")
        memory = sub.groundtruth_preferences() or {}
        for tags in (memory.get("current") or {}).values():
            for tag in tags if isinstance(tags, list) else [tags]:
                low = str(tag).lower()
                if is_none(low) or word not in low:
                    continue
                if word.isascii():
                    kept_away = bool(re.search(rf"\b(no|avoid\w*|allerg\w*)\b[^,]*{re.escape(word)}|"
                                               rf"{re.escape(word)}\w*\s*\(allerg", low))
                else:
                    kept_away = avoids(low, word)
                if not kept_away:
                    report.add("profile", where, f"ground truth {tag!r} contradicts the {allergy!r} allergy")
