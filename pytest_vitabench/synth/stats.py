"""Statistics of a suite, side by side with the VitaBench 2.0 paper's (section C.2).

Everything is computed from the suite file alone. Figures that need our extension fields (preference ids,
noise labels) fall back to what the VitaBench 2.0 shape allows, and say so.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import Any

from .config import PAPER
from .profile_fields import birth_date, is_none, moved, profile_label
from .profiles import REFERENCE_DAY
from .validator import environment_entities

#: Figures that must come within 10% of the paper's for a suite to "match the paper".
CORE = ("users", "subtasks", "entities", "preferences_per_user", "additions_per_user", "deletions_per_user",
        "modifications_per_user", "changes_per_user", "history_days_per_user", "events_per_user", "noise_share")


@dataclass
class Row:
    name: str
    ours: float | None
    paper: float | None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if self.ours is None or not self.paper else self.ours / self.paper

    @property
    def within(self) -> bool | None:
        return None if self.ratio is None else abs(self.ratio - 1) <= 0.10


def suite_stats(data: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of a suite given as the raw list of users."""
    users = [u for u in data if isinstance(u, dict) and isinstance(u.get("subtasks"), list)]
    subtasks = [s for u in users for s in u["subtasks"]]
    out: dict[str, Any] = {"users": len(users), "subtasks": len(subtasks)}
    out["subtasks_per_user"] = len(subtasks) / max(1, len(users))
    out["domain_mix"] = dict(Counter(str(s.get("domain")) for s in subtasks))
    out["proactive_share"] = sum("proactive" in (s.get("skill_tested") or []) for s in subtasks) / max(1, len(subtasks))
    # Per subtask: the product count of each merchant (train, flight ...).
    entities = [[len(e.get("products") or []) for _, e in environment_entities(s.get("environment") or {})]
                for s in subtasks]
    out["entities"] = sum(len(e) + sum(e) for e in entities)
    out["entities_per_user"] = out["entities"] / max(1, len(users))
    out["merchants_per_subtask"] = statistics.mean(len(e) for e in entities) if entities else 0
    out["products_per_subtask"] = statistics.mean(sum(e) for e in entities) if entities else 0
    return out | _preferences(users) | _histories(users) | _profiles([u.get("user_profile") or {} for u in users])


def _memory(sub: dict[str, Any]) -> dict[str, Any]:
    return (sub.get("user_scenario") or {}).get("personalized_preference_memory") or {}


def _preferences(users: list[dict[str, Any]]) -> dict[str, Any]:
    """Preferences, their changes and categories per user, and how many are held by one user only."""
    categories: Counter[str] = Counter()  # one count per preference
    changes: Counter[str] = Counter()
    holders: Counter[str] = Counter()  # tag -> how many users hold it
    labelled = True
    for user in users:
        memories = [_memory(sub) for sub in user["subtasks"]]
        # Our extension maps each tag to a preference id once; without it every distinct tag counts.
        labelled = labelled and all("tag_ids" in memory for memory in memories)
        tag_ids = {tag: pid for memory in memories for tag, pid in (memory.get("tag_ids") or {}).items()}
        ids: dict[str, str] = {}
        tags: set[str] = set()
        for memory in memories:
            current = memory.get("current") or {}
            for category, items in (current.items() if isinstance(current, dict) else []):
                for tag in items if isinstance(items, list) else [items]:
                    if is_none(tag):  # "无", "none": the user holds nothing here
                        continue
                    tags.add(str(tag))
                    ids.setdefault(tag_ids.get(tag, str(tag)), category)
        for memory in memories:
            for change in memory.get("preference_tag_change_history") or []:
                if isinstance(change, dict):
                    changes[str(change.get("type"))] += 1
                    if change.get("id"):
                        ids.setdefault(str(change["id"]), str(change.get("category")))
        categories.update(ids.values())
        holders.update(tags)
    n = max(1, len(users))
    prefs = sum(categories.values())
    return {
        "preferences": prefs, "preferences_per_user": prefs / n, "additions_per_user": changes["add"] / n,
        "deletions_per_user": changes["delete"] / n, "modifications_per_user": changes["modify"] / n,
        "changes_per_user": (changes["add"] + changes["delete"] + changes["modify"]) / n,
        "category_share": {c: categories[c] / (prefs or 1) for c in sorted(categories)},
        "user_specific_share": sum(1 for c in holders.values() if c == 1) / max(1, len(holders)),
        "preference_ids_labelled": labelled,
    }


def _histories(users: list[dict[str, Any]]) -> dict[str, Any]:
    """History span, events, orders per user and the noise share (both record shapes)."""
    days, events, orders, noise = [], 0, 0, 0
    for user in users:
        dates = []
        for sub in user["subtasks"]:
            for record in sub.get("interactions") or []:
                if not isinstance(record, dict):
                    continue
                when = str(record.get("date") or record.get("timestamp") or "")[:10]
                if when:
                    dates.append(when)
                if "behavior" in record or "dialogue" in record:
                    behaviour = record.get("behavior") or []
                    events += len(behaviour) + (1 if record.get("dialogue") else 0)
                    orders += sum(1 for b in behaviour if isinstance(b, dict) and b.get("behavior_type") == "order")
                else:
                    events += 1
                    orders += record.get("type") == "order"
            noise += len(_memory(sub).get("history_noise") or [])
        if dates:
            days.append((date.fromisoformat(max(dates)) - date.fromisoformat(min(dates))).days)
    n = max(1, len(users))
    return {"history_days_per_user": statistics.mean(days) if days else 0, "events_per_user": events / n,
            "orders_per_user": orders / n, "noise_share": noise / max(1, events)}


def _profiles(profiles: list[dict[str, Any]]) -> dict[str, Any]:
    """Shares of the profiles that state each field, in English or Chinese (``None``: no profile states it)."""
    births = [b for p in profiles if (b := birth_date(p)) is not None]
    ages = [REFERENCE_DAY.year - b.year - ((REFERENCE_DAY.month, REFERENCE_DAY.day) < (b.month, b.day)) for b in births]

    def share(field: str, value: str) -> float | None:
        labels = [label for p in profiles if (label := profile_label(p, field)) is not None]
        return sum(1 for label in labels if label == value) / len(labels) if labels else None

    def of_ages(count: int) -> float | None:
        return count / len(ages) if ages else None

    moves = [m for p in profiles if (m := moved(p)) is not None]
    # Our generator writes moved_from only for users who moved: with any profile stating it, silence is "no".
    return {
        "female_share": share("gender", "female"),
        "age_20_29_share": of_ages(sum(20 <= a <= 29 for a in ages)),
        "age_30_39_share": of_ages(sum(30 <= a <= 39 for a in ages)),
        "born_after_1990_share": of_ages(sum(b.year >= 1990 for b in births)),
        "gen_z_share": of_ages(sum(b.year >= 1995 for b in births)),
        "mean_age": statistics.mean(ages) if ages else None,
        "tier_share": {t: share("city_tier", t) for t in ("emerging first-tier", "first-tier", "lower-tier")},
        "moved_share": sum(moves) / len(profiles) if moves else None,
        "collar_share": {c: share("occupation_type", c) for c in ("white-collar", "blue-collar", "gray-collar")},
        "consumption_share": {c: share("consumption_level", c) for c in ("high", "medium", "low")},
    }


def comparison(stats: dict[str, Any]) -> list[Row]:
    """Our figures next to the paper's, flat (nested shares become one row each)."""
    rows = [Row(key, stats.get(key), paper, "paper 819 with follow-ups; 771 in the released data"
                if key == "subtasks" else "") for key, paper in PAPER.items() if not isinstance(paper, dict)]
    total_mix = sum(PAPER["domain_mix"].values())
    for domain, count in PAPER["domain_mix"].items():
        ours = stats.get("domain_mix", {}).get(domain, 0) / max(1, stats.get("subtasks", 0))
        rows.append(Row(f"share {domain}", ours, count / total_mix))
    for group in ("category_share", "tier_share", "collar_share", "consumption_share"):
        for key, value in PAPER[group].items():
            rows.append(Row(f"{group.removesuffix('_share')} {key}", (stats.get(group) or {}).get(key), value))
    rows.append(Row("proactive_share", stats.get("proactive_share"), None, "paper: not stated; >= 15% asked"))
    return rows


def render_comparison(rows: list[Row]) -> list[str]:
    lines = [f"  {'statistic':32s} {'ours':>10s} {'paper':>10s}  ratio"]
    for row in rows:
        ours = "-" if row.ours is None else _fmt(row.ours)
        paper = "-" if row.paper is None else _fmt(row.paper)
        outside = "  (outside 10%)" if row.name in CORE and not row.within else ""
        ratio = "" if row.ratio is None else f"{row.ratio:5.2f}{outside}"
        lines.append(f"  {row.name:32s} {ours:>10s} {paper:>10s}  {ratio}{'  ' + row.note if row.note else ''}")
    return lines


def _fmt(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 10:
        return f"{int(value)}"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
