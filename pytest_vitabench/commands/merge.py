"""``vitabench merge``: the shards of a run (or any pieces of it) as the one report a one-process run writes.

The merged items (in node-id order) are scored, gated and reported by the code that does it for a run
(:mod:`pytest_vitabench.report.outcome`); a gate on a merge missing items exits 6.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from ..llm.ledger import Ledger
from ..options.fail_under import parse_fail_under
from ..report.early_stop import Pending, exact_decision
from ..report.failures import suite_subtask_data
from ..report.json_report import write_report
from ..report.outcome import gate_run, github_outputs, run_report, score_run, summary_lines
from ..run.early_stopping import gates_of, parse_item_id
from ..run.stopping import DECIDED
from ..runs.manifest import now_iso
from ..runs.pieces import Combined, MergeError, combine
from ..suite.loader import load_suite
from ..version import __version__
from .command import Command, argument, run_config, setting_arguments

#: ``vitabench merge``'s exit status when the pieces cannot be merged (pytest's usage-error code).
BAD_INPUT = 4


def merge_command(args: argparse.Namespace) -> int:
    """Merge the pieces into the report ``--output``, print its table, gate it (exit statuses: the
    command's description)."""
    output = args.output
    try:
        options = run_config(args)  # --vita-fail-regression needs --vita-baseline, as in a run
        thresholds = parse_fail_under(options.fail_under) if options.fail_under else None
        combined = combine(args.pieces)
    except (MergeError, ValueError) as exc:
        print(f"vitabench merge: {exc}", file=sys.stderr)
        return BAD_INPUT
    config, results = combined.config, combined.results
    # The same k as a run of all the pieces' items in one process: the trials selected per unit.
    outcome = score_run(results, trials=int(config.get("trials") or 1), seed=int(config.get("seed") or 0),
                        style=str(config.get("metrics_style") or "default"), selected_k=combined.trials_selected,
                        thresholds=thresholds, config=config,
                        subtask_data=suite_subtask_data(load_suite), baseline=options.baseline,
                        fail_regression=options.fail_regression, not_run=combined.not_run)
    # Missing items leave the scores as incomplete as errored ones do; items a shard's cap never started are
    # named apart (exit status 7, as the shard's own).
    missing = max(0, (combined.planned or 0) - len(results) - len(combined.not_run))
    undecided = _decide_merged(outcome, combined, options, thresholds)
    gate_run(outcome, unfinished=missing + undecided + (1 if combined.missing and not missing else 0))
    write_report(output, run_report(outcome, {**config, "report": output, "shard": "merged"},
                                    run=_run_block(combined), usage=combined.usage))
    ledger = Ledger()
    ledger.merge(combined.usage or {})
    for line in _head_lines(combined):
        print(line)
    for line, _ in summary_lines(outcome, ledger=ledger, show_failures=False, report=output):
        print(line)
    github_outputs(outcome, config=config, title="VitaBench results (merged shards)", echo=print,
                   warn=lambda message: print(f"vitabench merge: {message}", file=sys.stderr))
    return outcome.status


def _decide_merged(outcome: Any, combined: Combined, options: Any, thresholds: Any) -> int:
    """Shards that stopped early decided on their own items: the merged gate is decided again, on every
    shard's results and the items they left, as a run decides (``--vita-early-stop exact``). Returns how many
    items are left undecided (they then count as missing: the merged gate cannot read them)."""
    left = [nodeid for nodeid, reason in combined.not_run.items() if reason == DECIDED]
    if not left or (thresholds is None and options.fail_regression is None):
        return 0
    config = combined.config
    gates = replace(gates_of(options, selected_k=combined.trials_selected), trials=int(config.get("trials") or 1),
                    seed=int(config.get("seed") or 0), style=str(config.get("metrics_style") or "default"))
    suites = {r.user_id: r.suite for r in combined.results}
    pending = []
    for nodeid in left:
        parsed = parse_item_id(nodeid)
        if parsed is not None:
            file, user, subtask, memory, trial = parsed
            pending.append(Pending(nodeid=nodeid, user_id=user, subtask_id=subtask, memory=memory, trial=trial,
                                   suite=suites.get(user, file)))
    decision = exact_decision(combined.results, pending, gates)
    if decision.decided:
        outcome.decision = decision
        return 0
    print(f"vitabench merge: the shards stopped early, each on its own items, and the merged gate is not decided "
          f"({decision.reason}): --vita-resume each shard to run its {len(left)} item(s) left", file=sys.stderr)
    return len(left)


def _run_block(combined: Combined) -> dict[str, Any]:
    stores = combined.stores
    return {"id": combined.run_id, "dir": str(stores[0].path.resolve()) if len(stores) == 1 else None,
            "dirs": [str(s.path.resolve()) for s in stores], "merged_from": combined.pieces, "finished": now_iso(),
            "plugin_version": __version__, "planned": combined.planned, "completed": len(combined.results),
            "resumed": sum(1 for r in combined.results if r.resumed), "partial": combined.partial,
            "trials_selected": combined.trials_selected,
            "missing": combined.missing, **({"not_run": combined.not_run} if combined.not_run else {})}


def _head_lines(combined: Combined) -> list[str]:
    lines = [f"vitabench merge: {len(combined.pieces)} piece(s) of run {combined.run_id}, "
             f"{len(combined.results)} items"]
    if combined.partial:
        planned = f" of {combined.planned} planned" if combined.planned is not None else ""
        lines.append(f"partial: {len(combined.results)}{planned} items; " + "; ".join(combined.missing or
                     ["items missing from the pieces (a shard stopped early; rerun it with --vita-resume)"]))
    return lines + combined.notes


COMMAND = Command(
    "merge", help="join the shards of a run (--vita-shard) into one report, gated like a run",
    description="Join the pieces of one run (the run directories of its --vita-shard shards, a directory holding "
                "them, or their --vita-report files) into the report the run would have written in one process: "
                "the same metrics, intervals, failures, usage and cost. Pieces whose settings or suite files "
                "differ are refused (the differences are listed); missing shards or items make the merge "
                "partial. Exit status: 0 merged (and every gate passed), 1 a gate failed, 4 the pieces cannot be "
                "merged, 6 a gate met infrastructure errors or missing items, 7 a piece's --vita-budget-usd left "
                "items not run.",
    run=merge_command, arguments=(
        argument("pieces", nargs="+", metavar="RUN_DIR_OR_REPORT",
                 help="run directories (.vitabench/runs/RUN_ID/shard-I-of-N), directories holding them, or JSON "
                      "reports"),
        argument("-o", "--output", required=True, help="where to write the merged JSON report"),
        *setting_arguments(
            "fail_under", "baseline", "fail_regression",
            fail_under={"metavar": "SPEC", "help": "thresholds as for a run, e.g. 'avg@4=0.40,pass^4=0.20': the exit "
                                                   "status is the gate's"},
            baseline={"metavar": "RUN",
                      "help": "a saved run to compare the merged run with, paired per user and subtask"},
            fail_regression={"metavar": "DELTA", "help": "with --vita-baseline: exit 1 when Avg drops significantly "
                                                         "by more than DELTA"}),
    ))
