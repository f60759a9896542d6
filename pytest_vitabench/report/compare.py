"""Run-to-run comparison: paired per (user, subtask) on the items two runs share, and the regression gate.

McNemar pairs trials by index because the same index shares its seed. A drop is *significant* when the
interval lies below 0 and ``p < 0.05``; ``docs/looking-at-a-run.md`` explains the pairing and the figures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..metrics import bootstrap_intervals
from ..runs.identity import settings_differences

ALPHA = 0.05


@dataclass
class UnitChange:
    """One (user, subtask) unit whose Avg@k moved between the runs."""

    memory: str
    user_id: str
    subtask_id: str
    domain: str
    base: float
    new: float
    base_nodeids: list[str]
    new_nodeids: list[str]
    #: The backend of the new run's items (``memory`` reads ``base->new`` when the backends differ).
    new_memory: str = ""

    @property
    def anchor(self) -> str:
        """The URL fragment of the new run's viewer that opens this unit's trials side by side."""
        return f"#unit={self.user_id}/{self.subtask_id}/{self.new_memory or self.memory}"


@dataclass
class Comparison:
    """The result of :func:`compare_runs`."""

    pairing: str
    n_units: int
    n_users: int
    base_avg: float | None
    new_avg: float | None
    delta: float | None
    ci95: list[float] | None
    discordant: dict[str, int]
    p_value: float | None
    regressed: list[UnitChange] = field(default_factory=list)
    fixed: list[UnitChange] = field(default_factory=list)
    settings: dict[str, list[Any]] = field(default_factory=dict)
    only_base: int = 0
    only_new: int = 0

    @property
    def significant_drop(self) -> bool:
        return (self.ci95 is not None and self.ci95[1] < 0 and self.p_value is not None
                and self.p_value < ALPHA)

    @property
    def significant_gain(self) -> bool:
        return (self.ci95 is not None and self.ci95[0] > 0 and self.p_value is not None
                and self.p_value < ALPHA)

    def to_dict(self) -> dict[str, Any]:
        def change(c: UnitChange) -> dict[str, Any]:
            return {"memory": c.memory, "user_id": c.user_id, "subtask_id": c.subtask_id, "domain": c.domain,
                    "base": c.base, "new": c.new, "anchor": c.anchor, "base_nodeids": c.base_nodeids,
                    "new_nodeids": c.new_nodeids}

        return {"pairing": self.pairing, "n_units": self.n_units, "n_users": self.n_users,
                "base_avg": self.base_avg, "new_avg": self.new_avg, "delta": self.delta, "ci95": self.ci95,
                "discordant": self.discordant, "p_value": self.p_value,
                "significant_drop": self.significant_drop, "significant_gain": self.significant_gain,
                "regressed": [change(c) for c in self.regressed], "fixed": [change(c) for c in self.fixed],
                "settings": self.settings, "only_base": self.only_base, "only_new": self.only_new}


def binomial_two_sided(b: int, c: int) -> float:
    """Exact McNemar test: two-sided p of ``b`` against ``b + c`` fair coin flips (1.0 when none)."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = math.fsum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def changed_settings(base: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The settings that differ (:func:`~pytest_vitabench.runs.identity.settings_differences`, the plugin
    version aside) as ``{key: [base value, new value]}``, and the suite files' hashes as ``suite sha256``."""
    out: dict[str, list[Any]] = {key: [base.get(key), new.get(key)]
                                 for key in settings_differences(base, new, version=False)}
    base_hashes = sorted((base.get("suites") or {}).values())
    new_hashes = sorted((new.get("suites") or {}).values())
    # A report written without hashes (older, or under xdist before they were recorded there) says nothing.
    if base_hashes and new_hashes and base_hashes != new_hashes:
        out["suite sha256"] = [[h[:12] for h in base_hashes], [h[:12] for h in new_hashes]]
    return out


def _units(results: Sequence[Mapping[str, Any]], memory: str | None) -> dict[tuple[str, str], list[Mapping[str, Any]]]:
    units: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in results:
        if r.get("outcome") == "skipped" or (memory is not None and r.get("memory") != memory):
            continue
        units[(str(r.get("user_id")), str(r.get("subtask_id")))].append(r)
    return units


def record_reward(r: Mapping[str, Any]) -> float:
    """An item record's reward, 0 for an infrastructure error."""
    return 0.0 if r.get("outcome") == "error" else float(r.get("reward") or 0.0)


def compare_results(base: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], *,
                    base_config: Mapping[str, Any] | None = None, new_config: Mapping[str, Any] | None = None,
                    base_memory: str | None = None, new_memory: str | None = None, bootstrap: int = 2000,
                    seed: int = 0) -> Comparison:
    """Compare two runs' item records (``user_id``, ``subtask_id``, ``memory``, ``trial``, ``reward``,
    ``outcome``, ``nodeid``, ``domain``), on ``base_memory`` against ``new_memory`` when either is given.

    Raises:
        ValueError: If the runs share no backend to pair on, or no (user, subtask) unit.
    """
    base_backends = sorted({str(r.get("memory")) for r in base})
    new_backends = sorted({str(r.get("memory")) for r in new})
    pairs: list[tuple[str, str]]
    if base_memory or new_memory:
        # One of the two is set: ``or ""`` only tells the type checker so.
        pairs = [(base_memory or new_memory or "", new_memory or base_memory or "")]
    else:
        shared = sorted(set(base_backends) & set(new_backends))
        if shared:
            pairs = [(m, m) for m in shared]
        elif len(base_backends) == 1 and len(new_backends) == 1:
            pairs = [(base_backends[0], new_backends[0])]
        else:
            raise ValueError(f"the runs share no memory backend (base: {', '.join(base_backends)}; new: "
                             f"{', '.join(new_backends)}); choose one of each with --base-memory/--new-memory")
    per_user: dict[str, list[float]] = defaultdict(list)
    base_sum = new_sum = 0.0
    b = c = 0
    regressed: list[UnitChange] = []
    fixed: list[UnitChange] = []
    only_base = only_new = 0
    for base_name, new_name in pairs:
        base_units, new_units = _units(base, base_name), _units(new, new_name)
        only_base += len(set(base_units) - set(new_units))
        only_new += len(set(new_units) - set(base_units))
        for key in sorted(set(base_units) & set(new_units)):
            old_items, new_items = base_units[key], new_units[key]
            old_avg = math.fsum(map(record_reward, old_items)) / len(old_items)
            new_avg = math.fsum(map(record_reward, new_items)) / len(new_items)
            per_user[key[0]].append(new_avg - old_avg)
            base_sum += old_avg
            new_sum += new_avg
            old_by_trial = {r.get("trial"): record_reward(r) == 1.0 for r in old_items}
            for r in new_items:
                if r.get("trial") in old_by_trial:
                    before, after = old_by_trial[r["trial"]], record_reward(r) == 1.0
                    b += before and not after
                    c += after and not before
            if new_avg != old_avg:
                label = base_name if base_name == new_name else f"{base_name}->{new_name}"
                change = UnitChange(memory=label, user_id=key[0], subtask_id=key[1],
                                    domain=str(new_items[0].get("domain", "")), base=old_avg, new=new_avg,
                                    base_nodeids=sorted(str(r.get("nodeid")) for r in old_items),
                                    new_nodeids=sorted(str(r.get("nodeid")) for r in new_items),
                                    new_memory=new_name)
                (regressed if new_avg < old_avg else fixed).append(change)
    n_units = sum(len(v) for v in per_user.values())
    if not n_units:
        raise ValueError("the runs share no (user, subtask) unit to compare")
    users = sorted(per_user)
    delta = math.fsum(d for u in users for d in per_user[u]) / n_units
    # Whole users resampled with the metrics' own draws, their units kept together.
    ci = bootstrap_intervals([(math.fsum(per_user[u]), len(per_user[u])) for u in users],
                             lambda picked: [math.fsum(s for s, _ in picked) / sum(n for _, n in picked)],
                             bootstrap=bootstrap, seed=seed)[0]
    regressed.sort(key=lambda u: (u.new - u.base, u.user_id, u.subtask_id))
    fixed.sort(key=lambda u: (u.base - u.new, u.user_id, u.subtask_id))
    label = ", ".join(a if a == b_ else f"{a} vs {b_}" for a, b_ in pairs)
    return Comparison(pairing=label, n_units=n_units, n_users=len(users), base_avg=base_sum / n_units,
                      new_avg=new_sum / n_units, delta=delta, ci95=ci,
                      discordant={"pass_to_fail": b, "fail_to_pass": c}, p_value=binomial_two_sided(b, c),
                      regressed=regressed, fixed=fixed,
                      settings=changed_settings(base_config or {}, new_config or {}),
                      only_base=only_base, only_new=only_new)


def compare_runs(base: Any, new: Any, **kwargs: Any) -> Comparison:
    """:func:`compare_results` of two :class:`~pytest_vitabench.runs.Run` objects."""
    return compare_results(base.results, new.results, base_config=base.config, new_config=new.config, **kwargs)


def regression_gate(comparison: Comparison, max_drop: float) -> str | None:
    """Why the gate fails, or ``None``: only a significant drop larger than ``max_drop`` fails it."""
    if comparison.delta is None or not comparison.significant_drop or -comparison.delta <= max_drop:
        return None
    assert comparison.ci95 is not None
    return (f"Avg drop {-comparison.delta:.3f} > allowed {max_drop:.3f} (95% CI of the change "
            f"[{comparison.ci95[0]:+.3f}, {comparison.ci95[1]:+.3f}], exact test p={comparison.p_value:.2g}, "
            f"{comparison.n_units} shared units)")


def regression_list(comparison: Comparison, viewer: str = "") -> list[str]:
    """The regressed units as plain lines (for a CI step summary): ``memory user/subtask base -> new link``."""
    return [f"{c.memory} {c.user_id}/{c.subtask_id} ({c.domain}): {c.base:.2f} -> {c.new:.2f}  {viewer}{c.anchor}"
            for c in comparison.regressed]


def render_comparison(comparison: Comparison, *, base_label: str = "base", new_label: str = "new",
                      viewer: str = "", limit: int = 20) -> list[str]:
    """The terminal form of a comparison."""
    c = comparison
    lines = [f"Comparison {new_label} vs {base_label} (paired per user and subtask; {c.pairing})",
             f"shared units: {c.n_units} over {c.n_users} users"
             + (f"; only in {base_label}: {c.only_base}, only in {new_label}: {c.only_new}"
                if c.only_base or c.only_new else "")]
    if c.settings:
        lines.append("settings that differ:")
        lines.extend(f"  {key}: {before!r} -> {after!r}" for key, (before, after) in c.settings.items())
    ci = "" if c.ci95 is None else f" [{c.ci95[0]:+.3f}, {c.ci95[1]:+.3f}]"
    lines.append(f"Avg: {c.base_avg:.3f} -> {c.new_avg:.3f}, change {c.delta:+.3f}{ci} "
                 "(95% paired bootstrap over users)")
    verdict = ("significant drop" if c.significant_drop else "significant gain" if c.significant_gain
               else "no significant change")
    lines.append(f"discordant trials: {c.discordant['pass_to_fail']} pass->fail, {c.discordant['fail_to_pass']} "
                 f"fail->pass; exact McNemar p = {c.p_value:.3g}: {verdict}")
    for title, changes in (("regressed", c.regressed), ("fixed", c.fixed)):
        lines.append(f"{title}: {len(changes)} subtask(s)")
        for change in changes[:limit]:
            lines.append(f"  {change.memory} {change.user_id}/{change.subtask_id} ({change.domain}): "
                         f"{change.base:.2f} -> {change.new:.2f}  {viewer}{change.anchor}")
        if len(changes) > limit:
            lines.append(f"  ... and {len(changes) - limit} more")
    return lines
