"""``vitabench judge-audit RUN --vita-judge-model X``: how far an LLM judge can be trusted, measured on a saved run.

The saved trajectories are judged again, as :mod:`pytest_vitabench.commands.rejudge` does; where a rubric has a machine
check the rules judge's verdict is the truth. ``docs/judge-audit.md`` lists what the report holds.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..formulas import METRIC_BY_NAME, metric_key
from ..judges.audited import rules_truth
from ..judges.base import Judge, JudgeCase, Verdict
from ..judges.registry import make_judge
from ..llm.ledger import align
from ..messages import Usage
from ..metrics import compute_metrics
from ..options.fail_under import parse_fail_under
from ..report.agreement import FIGURES, collect, figures, flip_rate, judge_summary
from ..report.json_report import build_report, write_report
from ..report.terminal import fixed, with_interval
from ..report.thresholds import check_thresholds
from ..result import ItemResult
from .command import Command, argument, positive, run_config, setting_arguments
from .rejudge import (
    JUDGE_ENDPOINT_ARGUMENTS,
    RejudgeError,
    SuitePaths,
    open_llm_client,
    open_saved_run,
    record_verdict,
    replay,
    suite_language,
)

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from ..llm.ledger import Ledger

SCHEMA = "vitabench-judge-audit/1"
#: The metrics the audit shows per judging beside the rules judge's: the mean reward and the all-trials rate.
_HEADLINE = ("avg", "pass^")


@dataclass(frozen=True)
class JudgeSetup:
    """One judge configuration under audit (``--vita-judge-model``, ``--vita-judge-args mode`` and ``votes``)."""

    model: str
    mode: str = "window"
    votes: int = 1

    @property
    def label(self) -> str:
        return f"{self.model} {self.mode} x{self.votes}"


def repeat_seed(seed: int, repeat: int) -> int:
    """The cache seed of the ``repeat``-th judging of an item of trial seed ``seed``.

    The first judging keeps the trial seed, so the run's own judge calls are cache hits; the others are new,
    stable samples (a repeated audit reuses them), distinct from the seeds of votes.
    """
    if repeat == 0:
        return seed
    digest = hashlib.sha256(f"vitabench:judge-audit:{seed}:{repeat}".encode()).hexdigest()
    return int(digest[:15], 16)


@dataclass
class _Item:
    result: ItemResult
    case: JudgeCase
    truth: list[dict[str, Any]]
    truth_reward: float


def _judged(item: _Item, verdict: Verdict | None, error: str | None) -> ItemResult:
    """The item as this judging scored it, with the rules judge's verdicts beside the judge's."""
    result = item.result.model_copy(deep=True)
    if verdict is None:
        result.outcome, result.reward, result.rubrics, result.error = "error", 0.0, [], error
        result.judge_details = {}
        return result
    record_verdict(result, verdict)
    result.judge_details = {**verdict.details, "rules": item.truth, "rules_reward": item.truth_reward}
    return result


def _judge_item(judge: Judge, item: _Item, repeat: int) -> ItemResult:
    case = dataclasses.replace(item.case, seed=repeat_seed(item.case.seed, repeat))
    try:
        return _judged(item, judge.judge(case), None)
    except Exception as exc:  # an infrastructure failure of the judge: counted, never a verdict
        return _judged(item, None, f"judging failed: {type(exc).__name__}: {exc}")


def _headline(metrics: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """Subtask-level Avg@k and Pass^k per backend."""
    return {memory: {**{name: m["subtask"].get(metric_key(name, m["k"])) for name in _HEADLINE}, "k": m["k"]}
            for memory, m in metrics.items()}


def _truth_results(items: Sequence[_Item]) -> list[ItemResult]:
    """The items as the rules judge scores them (where every rubric has a check, the truth's metrics)."""
    out = []
    for item in items:
        result = item.result.model_copy()
        result.reward = item.truth_reward
        result.outcome = "passed" if item.truth_reward == 1.0 else "failed"
        out.append(result)
    return out


def _disagreements(results: Sequence[ItemResult], viewer: str) -> list[dict[str, Any]]:
    return [{"nodeid": p.nodeid, "link": f"{viewer}#item={p.nodeid}", "rubric": p.text, "kind": p.kind,
             "domain": p.domain, "judge_met": p.judged, "judge_reason": p.judge_reason, "rules_met": p.truth,
             "rules_reason": p.truth_reason}
            for p in collect(results).pairs if p.truth != p.judged]


def _against(reference: Sequence[ItemResult], other: Sequence[ItemResult], *, bootstrap: int,
             seed: int) -> dict[str, Any]:
    """``other``'s verdicts measured against ``reference``'s (as if the reference were the truth)."""
    as_truth = {}
    for r in reference:
        kinds = {entry["text"]: entry.get("kind") or "other" for entry in r.judge_details.get("rules") or []}
        as_truth[r.nodeid] = [{"text": v.text, "met": v.met, "kind": kinds[v.text], "reason": v.reason}
                              for v in r.rubrics if v.kind == "rubric" and v.text in kinds
                              and v.met is not None and not v.judge_failure]
    relabelled = []
    for r in other:
        copy = r.model_copy()
        copy.judge_details = {**r.judge_details, "rules": as_truth.get(r.nodeid, [])}
        relabelled.append(copy)
    return figures(collect(relabelled).pairs, bootstrap=bootstrap, seed=seed)


def audit_run(path: str | Path, setups: Sequence[JudgeSetup], *, client: LLMClient, ledger: Ledger,
              repeats: int = 1, sample: int | None = None, seed: int = 0, suite_paths: SuitePaths = None,
              failures: str = "unscored", language: str | None = None, viewer: str = "",
              concurrency: int = 8, bootstrap: int = 1000,
              progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Judge a saved run again with every setup, ``repeats`` times each, and measure it against the rules judge.

    Args:
        path: The run's ``vitabench-report`` file.
        setups: The judge configurations; the first is the one audited, the others are also compared with it.
        client: The one LLM client; ``ledger`` is its ledger (the cost of each setup is read from it).
        repeats: Judgings of every item per setup (the flip rate needs 2 or more).
        sample: Audit this many items, drawn at random with ``seed`` (default: every finished item).
        viewer: Prefix of the disagreement links (the audit report's viewer page).

    Returns:
        The audit report: a ``vitabench-report`` of the first setup's first judging, with its ``judge`` figures
        and the whole audit in ``judge_audit``.

    Raises:
        RejudgeError: The run or a suite is unusable; ValueError: bad arguments.
    """
    if not setups:
        raise ValueError("judge-audit needs at least one judge configuration")
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    if sample is not None and sample < 1:
        raise ValueError(f"--sample must be at least 1, got {sample}")
    report, suites, results = open_saved_run(path, suite_paths)
    config = dict(report.get("config") or {})
    finished = sorted((r for r in results if r.outcome != "error"), key=lambda r: r.nodeid)
    chosen = finished if sample is None or sample >= len(finished) else sorted(
        random.Random(seed).sample(finished, sample), key=lambda r: r.nodeid)
    run_language = str(config.get("language") or "en")
    items = []
    mismatches: dict[str, list[str]] = {}
    rules = make_judge("rules")
    for result in chosen:
        case, problems = replay(result, suites[result.suite], suite_language(run_language, suites[result.suite]),
                                checks=config.get("tool_checks"))
        if problems:
            mismatches[result.nodeid] = problems
        items.append(_Item(result=result, case=case, truth=rules_truth(case), truth_reward=rules.judge(case).reward))
    if not any(item.truth for item in items):
        raise RejudgeError(f"no audited item of {path} has a machine-checked rubric (rubric_checks), so there is "
                           "no truth to measure the judge against; audit a run of suites/demo, suites/paper or a "
                           "suite written by vitabench synth")
    truth_metrics = _headline(compute_metrics(_truth_results(items), bootstrap=0))
    audited: list[dict[str, Any]] = []
    first_results: list[list[ItemResult]] = []
    for setup in setups:
        judge = make_judge(setup.model, client=client, mode=setup.mode, votes=setup.votes,
                           language=language or run_language, records=bool(config.get("judge_records", True)),
                           failures=failures)
        mark = ledger.snapshot()
        started = time.perf_counter()
        judgings: list[list[ItemResult]] = []
        for repeat in range(repeats):
            with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
                judgings.append(list(pool.map(lambda item, r=repeat, j=judge: _judge_item(j, item, r), items)))
            if progress is not None:
                progress(f"{setup.label}: judging {repeat + 1}/{repeats} of {len(items)} items done")
        seconds = time.perf_counter() - started
        usage = ledger.since(mark).get("judge", Usage())
        first = judgings[0]
        summary = judge_summary(first, bootstrap=bootstrap, seed=seed) or {}
        audited.append({
            "label": setup.label, **dataclasses.asdict(setup), **summary,
            "errors": sum(1 for r in first if r.outcome == "error"),
            "unscored_items": sum(1 for r in first if r.unscored),
            "flip": flip_rate(judgings, bootstrap=bootstrap, seed=seed) if repeats > 1 else None,
            "metrics": {"rules": truth_metrics,
                        "judgings": [_headline(compute_metrics(j, bootstrap=0)) for j in judgings]},
            "usage": usage.model_dump(), "seconds": round(seconds, 3),
            "disagreements": _disagreements(first, viewer),
        })
        first_results.append(first)
    between = [{"reference": setups[0].label, "other": setups[i].label,
                **_against(first_results[0], first_results[i], bootstrap=bootstrap, seed=seed)}
               for i in range(1, len(setups))]
    audit = {"schema": SCHEMA, "source": str(path), "items": len(items), "finished_items": len(finished),
             "sampled": len(items) < len(finished), "sample_seed": seed, "repeats": repeats,
             "setups": audited, "between": between, "replay_mismatches": mismatches}
    lead = setups[0]
    new_config = {**config, "judge_model": lead.model, "judge_mode": lead.mode, "judge_votes": lead.votes,
                  "judge_failures": failures}
    out = build_report(new_config, compute_metrics(first_results[0], seed=seed), first_results[0],
                       run=report.get("run"))
    out["judge_audit"] = audit
    return out


# -- what the terminal shows ---------------------------------------------------------------------------


def _with_ci(block: Mapping[str, Any], name: str) -> str:
    return with_interval(block.get(name), (block.get("ci95") or {}).get(name))


def _figure_rows(label: str, blocks: Mapping[str, Mapping[str, Any]]) -> list[list[str]]:
    rows = [[label, "pairs", "users", *FIGURES]]
    for name, block in blocks.items():
        rows.append([name, str(block.get("n", 0)), str(block.get("n_users", 0)),
                     *(_with_ci(block, f) for f in FIGURES)])
    return rows


def render_audit(audit: Mapping[str, Any], *, limit: int = 10) -> list[str]:
    """The terminal lines of a ``judge_audit`` block."""
    lines = [f"Judge audit of {audit['source']}: {audit['items']} items"
             + (f" (a sample of {audit['finished_items']}, seed {audit['sample_seed']})" if audit["sampled"] else "")
             + f", {audit['repeats']} judging(s) per item per judge; truth: the rules judge's machine checks; "
               "95% intervals: bootstrap over users"]
    for setup in audit["setups"]:
        lines += ["", f"== {setup['label']}"]
        lines += align(_figure_rows("all", {"all": setup}) if setup.get("n") is not None else [["no pairs"]], 1)
        for key, title in (("by_kind", "rubric kind"), ("by_domain", "domain")):
            if setup.get(key):
                lines += align(_figure_rows(title, setup[key]), 1)
        lines.append(f"unscored: {setup.get('unscored', 0)} machine-checked rubric(s) the judge failed to return, "
                     f"{setup['unscored_items']} item(s) unscored; {setup['errors']} item(s) the judge errored on")
        flip = setup.get("flip")
        if flip:
            lines.append(f"flip rate over {flip['repeats']} judgings: rubrics {_with_ci(flip, 'rate')} "
                         f"({flip['flipped']} of {flip['rubrics']}); item rewards {_with_ci(flip, 'item_rate')} "
                         f"({flip['items_flipped']} of {flip['items']})")
        for memory, truth in setup["metrics"]["rules"].items():
            per = [j.get(memory, {}) for j in setup["metrics"]["judgings"]]
            shown = [f"{METRIC_BY_NAME[name].header(truth['k'])} rules {fixed(truth[name])}, judge "
                     + ", ".join(fixed(p.get(name)) for p in per) for name in _HEADLINE]
            lines.append(f"{memory}: " + "; ".join(shown))
        usage = setup["usage"]
        lines.append(f"cost: {usage['requests']} request(s) ({usage['cached_requests']} from the cache), "
                     f"{usage['prompt_tokens']:,} in + {usage['completion_tokens']:,} out tokens, "
                     f"${usage['cost']:.4f}, {setup['seconds']:.1f} s")
        shown = setup["disagreements"][:limit]
        if shown:
            lines.append(f"disagreements ({len(setup['disagreements'])}; first {len(shown)}):")
            for d in shown:
                lines.append(f"  {d['nodeid']} [{d['kind']}] {d['rubric']}")
                lines.append(f"    judge {'met' if d['judge_met'] else 'unmet'}: {d['judge_reason'][:200]}")
                lines.append(f"    rules {'met' if d['rules_met'] else 'unmet'}: {d['rules_reason'][:200]}")
                lines.append(f"    {d['link']}")
    for pair in audit.get("between") or []:
        lines += ["", f"== {pair['other']} against {pair['reference']} (the reference's verdicts as the truth)"]
        lines += align(_figure_rows("all", {"all": pair}), 1)
    return lines


# -- the command ----------------------------------------------------------------------------------------

#: ``vitabench judge-audit --help``.
AUDIT_DESCRIPTION = """\
Measure an LLM judge against the rules judge on a saved run, and against itself.

The saved trajectories are judged again (as vitabench rejudge does: nothing is asked of the agent or the
user). Every rubric with a machine check (suites/demo, suites/paper, anything vitabench synth writes) has a
true verdict, the rules judge's; the audit reports agreement, Cohen's kappa, false passes and false fails
with 95% intervals over users, by rubric kind and by domain, the rubrics the judge failed to return, the
flip rate between --repeats judgings and what it does to Avg@k and Pass^k, the cost, and every
disagreement with a link into the viewer. --against-mode / --against-votes / --against-model audit a
second configuration and compare it with the first.

The output is a report (vitabench view / show read it) with the audit in its judge_audit block; with
--vita-fail-under judge.kappa=0.8 (or judge.agreement=...) the exit status is the gate's.
"""


def audit_command(args: argparse.Namespace) -> int:
    """``vitabench judge-audit``: audit, write the audit report, print it, check the gate; exit status 0, 1
    when a ``--vita-fail-under`` threshold is missed, 2 on usage errors."""
    source = Path(args.report)
    written = Path(args.output) if args.output else source.with_name(f"{source.stem}.judge-audit.json")
    try:
        config = run_config(args)
    except ValueError as exc:
        print(f"vitabench judge-audit: {exc}", file=sys.stderr)
        return 2
    setups = [JudgeSetup(config.judge_model, config.judge_mode, config.judge_votes)]
    if args.against_model or args.against_mode or args.against_votes:
        setups.append(JudgeSetup(args.against_model or config.judge_model, args.against_mode or config.judge_mode,
                                 args.against_votes or config.judge_votes))
    if any(setup.model == "rules" for setup in setups):
        print("vitabench judge-audit: --vita-judge-model must name an LLM judge (the rules judge is the truth "
              "it is measured against)", file=sys.stderr)
        return 2
    client = None
    try:
        thresholds = parse_fail_under(config.fail_under) if config.fail_under else []
        client, ledger = open_llm_client(config)
        report = audit_run(source, setups, client=client, ledger=ledger, repeats=args.repeats, sample=args.sample,
                           seed=args.seed, suite_paths=args.suite, failures=config.judge_failures,
                           language=args.vita_language,
                           viewer=args.viewer if args.viewer is not None else written.with_suffix(".html").name,
                           concurrency=args.concurrency, progress=lambda line: print(line, file=sys.stderr))
    except (RejudgeError, ValueError) as exc:
        print(f"vitabench judge-audit: {exc}", file=sys.stderr)
        return 2
    finally:
        if client is not None:
            client.close()
    write_report(written, report)
    for line in render_audit(report["judge_audit"], limit=args.limit):
        print(line)
    print(f"wrote {written} (vitabench view {written} shows it, with a Judge tab)")
    if not thresholds:
        return 0
    results = [ItemResult.model_validate(r) for r in report["results"]]
    outcomes = check_thresholds(thresholds, report["metrics"], results)
    for outcome in outcomes:
        print(f"{'ok' if outcome.status != 'missed' else 'MISSED'}: {outcome.message}")
    return 1 if any(o.status == "missed" for o in outcomes) else 0


COMMAND = Command(
    "judge-audit", help="measure an LLM judge against the rules judge and itself on a saved run",
    description=AUDIT_DESCRIPTION, run=audit_command, arguments=(
        argument("report", help="the --vita-report JSON file of a run on a suite with machine checks"),
        *setting_arguments("judge_model", "judge_mode", "judge_votes", "judge_failures",
                           judge_model={"required": True, "help": "the LLM judge model to audit"}),
        argument("--against-model", default=None,
                 help="also audit this judge model and compare it with the first (default: the same model)"),
        argument("--against-mode", choices=("window", "full"), default=None,
                 help="also audit this judge mode and compare it with the first"),
        argument("--against-votes", type=positive("--against-votes"), default=None,
                 help="also audit this number of votes and compare it with the first"),
        argument("--repeats", type=positive("--repeats"), default=1,
                 help="judgings of every item per configuration; 2 or more measure the flip rate (default: 1)"),
        argument("--sample", type=positive("--sample"), default=None,
                 help="audit this many items drawn at random (default: every finished item)"),
        argument("--seed", type=int, default=0, help="seed of the sample and the bootstrap (default: 0)"),
        argument("--concurrency", type=positive("--concurrency"), default=8,
                 help="items judged at the same time (default: 8; --vita-limits rpm and --vita-limits in-flight "
                      "apply)"),
        *setting_arguments("fail_under", fail_under={
            "help": "gate on the judge: e.g. judge.kappa=0.8,judge.agreement=0.9 (exit 1 when missed)"}),
        argument("--viewer", default=None,
                 help="prefix of the disagreement links (default: the audit report's .html name)"),
        argument("--limit", type=int, default=10, help="disagreements printed per judge (default: 10)"),
        *JUDGE_ENDPOINT_ARGUMENTS,
        argument("-o", "--output", default=None,
                 help="where to write the audit report (default: REPORT.judge-audit.json beside it)"),
    ))
