"""The paper's analyses of one run as plot data, and as PNG/SVG files with matplotlib.

:func:`plot_data` is pure Python (the viewer draws the same data in the browser); :func:`render_plots`
needs matplotlib (the ``plot`` extra). The figures are described in docs/looking-at-a-run.md.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..formulas import metric_key, pass_hat_k
from .compare import record_reward

FIGURES = ("position", "domain", "backend", "skill", "pass_hat_k")


def _bar_group(metrics: Mapping[str, Any], breakdown: str | None) -> dict[str, Any]:
    """``{"groups": [...], "series": {memory: [[value, lo, hi] | None per group]}}`` from the metrics."""
    groups: list[str] = []
    for m in metrics.values():
        for name in (m["subtask"].get(breakdown) or {}) if breakdown else ["all"]:
            if name not in groups:
                groups.append(name)
    series: dict[str, list[list[float | None] | None]] = {}
    for memory, m in sorted(metrics.items()):
        key = metric_key("avg", m["k"])
        row: list[list[float | None] | None] = []
        for group in groups:
            level = m["subtask"] if breakdown is None else (m["subtask"].get(breakdown) or {}).get(group)
            if not level or level.get(key) is None:
                row.append(None)
                continue
            ci = (level.get("ci95") or {}).get(key) or [None, None]
            row.append([level[key], ci[0], ci[1]])
        series[memory] = row
    return {"groups": groups, "series": series}


def _by_backend(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Each backend its own x group, one series (``Avg@k``): backends side by side, not bars of one group."""
    overall = _bar_group(metrics, None)["series"]
    return {"groups": list(overall), "series": {"Avg@k": [cells[0] for cells in overall.values()]}}


def plot_data(results: Sequence[Mapping[str, Any]], metrics: Mapping[str, Any]) -> dict[str, Any]:
    """``{figure: data}`` for each name in :data:`FIGURES`, from the item records and the report's metrics
    (for the intervals of the bar charts)."""
    scored = [r for r in results if r.get("outcome") != "skipped"]
    by_position: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    units: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in scored:
        memory = str(r.get("memory"))
        by_position[memory][int(r.get("subtask_index") or 0) + 1].append(record_reward(r))
        units[memory][(str(r.get("user_id")), str(r.get("subtask_id")))].append(record_reward(r))
    positions = sorted({p for m in by_position.values() for p in m})
    position = {"positions": positions, "series": {
        memory: [[math.fsum(v) / len(v), len(v)] if (v := rows.get(p)) else None for p in positions]
        for memory, rows in sorted(by_position.items())}}
    k_max = max((len(rs) for m in units.values() for rs in m.values()), default=0)
    curve: dict[str, list[float | None]] = {}
    for memory, by_unit in sorted(units.items()):
        values: list[float | None] = []
        for k in range(1, k_max + 1):
            usable = [rs for rs in by_unit.values() if len(rs) >= k]
            # Units with fewer than k trials score 0 at k, as in the headline metrics.
            total = math.fsum(pass_hat_k(len(rs), sum(1 for x in rs if x == 1.0), k) for rs in usable)
            values.append(total / len(by_unit) if by_unit else None)
        curve[memory] = values
    return {
        "position": position,
        "domain": _bar_group(metrics, "by_domain"),
        "backend": _by_backend(metrics),
        "skill": _bar_group(metrics, "by_skill"),
        "pass_hat_k": {"ks": list(range(1, k_max + 1)), "series": curve},
    }


_TITLES = {
    "position": ("Avg reward by position in the user's subtask sequence", "position", "Avg reward"),
    "domain": ("Avg@k by domain", "domain", "Avg@k"),
    "backend": ("Avg@k by memory backend", "memory backend", "Avg@k"),
    "skill": ("Proactive vs personalize", "skill", "Avg@k"),
    "pass_hat_k": ("Pass^k for k = 1..K (reliability)", "k", "Pass^k"),
}


def render_plots(data: Mapping[str, Any], out_dir: str | Path, formats: Sequence[str] = ("png", "svg"),
                 title_suffix: str = "") -> list[Path]:
    """Write each figure as ``<out_dir>/<figure>.<format>`` (:class:`ImportError` without matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in FIGURES:
        fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
        title, xlabel, ylabel = _TITLES[name]
        figure = data[name]
        if name == "position":
            for memory, points in figure["series"].items():
                xs = [p for p, v in zip(figure["positions"], points, strict=True) if v]
                ax.plot(xs, [v[0] for v in points if v], marker="o", label=memory)
        elif name == "pass_hat_k":
            for memory, values in figure["series"].items():
                ax.plot(figure["ks"], values, marker="o", label=memory)
            ax.set_xticks(figure["ks"])
        else:
            groups, series = figure["groups"], figure["series"]
            width = 0.8 / max(1, len(series))
            for i, (memory, cells) in enumerate(series.items()):
                xs = [g + i * width - 0.4 + width / 2 for g in range(len(groups))]
                vals = [c[0] if c else 0.0 for c in cells]
                err = [[(c[0] - c[1]) if c and c[1] is not None else 0.0 for c in cells],
                       [(c[2] - c[0]) if c and c[2] is not None else 0.0 for c in cells]]
                bars = ax.bar(xs, vals, width=width, yerr=err, capsize=3, label=memory)
                # Every measured value is written on its bar, so a 0.0 reads as a measured zero, not a missing bar.
                ax.bar_label(bars, labels=[f"{c[0]:.2f}" if c else "" for c in cells], fontsize=7, padding=2)
                zeros = [x for x, c in zip(xs, cells, strict=True) if c and c[0] == 0]
                ax.plot(zeros, [0] * len(zeros), linestyle="none", marker="_", markersize=width * 60,
                        markeredgewidth=3, color=bars.patches[0].get_facecolor() if bars.patches else None)
            ax.set_xticks(range(len(groups)), groups)
        ax.set_ylim(0, 1.12)
        ax.set_title(title + title_suffix)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        for fmt in formats:
            path = out / f"{name}.{fmt}"
            # A fixed date keeps SVG/PNG bytes stable between runs.
            fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
            written.append(path)
        plt.close(fig)
    return written
