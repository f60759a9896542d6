"""The ``vitabench`` command: check suite files and read reports outside pytest.

    vitabench validate suites/demo/tasks.json     # load, check the fairness rules, replay the answers, compare
    vitabench synth --preset paper --seed 0 -o suites/paper/tasks.vita.json.gz   # generate a suite
    vitabench show run.json                       # the metrics table of a saved report
    vitabench rejudge run.json --vita-judge-model gpt-4.1   # score saved trajectories again
    vitabench judge-audit run.json --vita-judge-model gpt-4.1 --repeats 3   # how far the judge can be trusted
    vitabench estimate suites/demo/tasks.json     # tokens and cost of the paper's LLM configuration
    vitabench view run.json                       # the run in the browser (one self-contained HTML file)
    vitabench plot run.json -o plots/             # the paper's figures as PNG/SVG
    vitabench compare base.json new.json          # paired comparison: regressed and fixed subtasks
    vitabench merge .vitabench/runs/RUN_ID -o run.json   # the shards of a run as one report
    vitabench fetch                               # the official VitaBench 2.0 tasks.json from the Hugging Face Hub

Run the benchmark itself with pytest (``pytest suites/demo``).
"""

# This module owns every parser of the command: each subcommand is registered by one ``_add_*`` function in
# :data:`SUBCOMMANDS` and runs a plain function of the module that does the work (``synth.commands``,
# ``rejudge``, ``view.commands``...), which never sees argparse. A new subcommand is one more ``_add_*``
# function and one more entry in that list.

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]


def _validate(args: argparse.Namespace) -> int:
    from .suite.errors import SuiteError
    from .suite.loader import load_suite

    status = 0
    for path in args.paths:
        try:
            suite = load_suite(path, strict=args.strict)
        except SuiteError as exc:
            print(exc.render())
            status = 1
            continue
        for message in suite.warnings:
            print(f"warning: {message}")
        good = [u for u in suite.users if u.task is not None]
        for user in suite.users:
            if user.error is not None:
                print(user.error.render())
                status = 1
        subtasks = [s for u in good for s in u.task.subtasks]  # type: ignore[union-attr]
        domains = Counter(s.domain for s in subtasks)
        skills = Counter(skill for s in subtasks for skill in s.skills)
        rubrics = sum(len(s.rubrics()) for s in subtasks)
        checked = sum(len(s.rubric_checks or []) for s in subtasks)
        print(f"{path}: {suite.format}, {len(good)}/{len(suite.users)} users valid, {len(subtasks)} subtasks "
              f"({', '.join(f'{d} {n}' for d, n in sorted(domains.items()))}; "
              f"{', '.join(f'{k} {n}' for k, n in sorted(skills.items()))}), "
              f"{rubrics} rubrics, {checked} with machine checks, sha256 {suite.sha256[:12]}")
        if args.rules and good:
            from .synth.commands import report_rules

            status |= report_rules(suite, strict=args.strict, stats=args.stats, json_path=args.json_path)
        if args.answers and good:
            from .solvability import check_solvability

            solvability = check_solvability(suite)
            print("\n".join(solvability.lines()))
            status |= int(args.strict and bool(solvability.unsolvable))
    return status


def _show(args: argparse.Namespace) -> int:
    from .report.json_report import load_report
    from .report.terminal import render_table
    from .result import ItemResult

    try:
        report = load_report(args.report)
    except (OSError, ValueError) as exc:
        print(f"vitabench show: {exc}", file=sys.stderr)
        return 2
    results = [ItemResult.model_validate(r) for r in report.get("results", [])]
    for line in render_table(report["metrics"], results):
        print(line)
    return 0


def _estimate(args: argparse.Namespace) -> int:
    from .estimate import estimate_cost, prices_from_option
    from .memory.registry import parse_memory_list

    try:
        estimate = estimate_cost(
            args.suite, memory=parse_memory_list(args.memory), trials=args.trials, agent_model=args.model,
            user_model=args.user_model, judge_model=args.judge_model, prices=prices_from_option(args.prices),
            judge_batch=args.judge_batch)
    except ValueError as exc:
        print(f"vitabench estimate: {exc}", file=sys.stderr)
        return 2
    for line in estimate.lines():
        print(line)
    return 0


def _trials(value: str) -> int:
    from .option_values import whole_number

    try:
        return whole_number("--vita-trials", value, minimum=1, default=4)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_validate(commands: Subcommands) -> None:
    validate = commands.add_parser(
        "validate", help="check suite files (official 2.0 or 1.0 format)",
        description="Load suite files (official 2.0 or 1.0 format), report every problem with its JSON path, "
                    "print their counts, and check the fairness rules and statistics of generated suites.")
    validate.add_argument("paths", nargs="+", help="suite files (.json or .json.gz)")
    validate.add_argument("--strict", action="store_true",
                          help="treat chronology problems and the paper's complexity controls (merchant, product "
                               "and distractor counts, target position) as errors")
    validate.add_argument("--no-answers", dest="answers", action="store_false",
                          help="skip replaying each annotated subtask's answer key (the 'answer' agent under the "
                               "rules judge), which names every unsolvable subtask and why, and which tool check "
                               "makes one unsolvable only under the default tool checks (an error with --strict)")
    validate.add_argument("--no-rules", dest="rules", action="store_false",
                          help="only load the suite and print its counts")
    validate.add_argument("--no-stats", dest="stats", action="store_false",
                          help="do not print the statistics next to the paper's")
    validate.add_argument("--json", dest="json_path", default=None,
                          help="write the findings and statistics as JSON")
    validate.set_defaults(func=_validate)


def _add_show(commands: Subcommands) -> None:
    show = commands.add_parser("show", help="print the metrics table of a --vita-report JSON file",
                               description="Print the metrics table of a saved --vita-report JSON file.")
    show.add_argument("report", help="the JSON report written by pytest --vita-report PATH")
    show.set_defaults(func=_show)


def _add_estimate(commands: Subcommands) -> None:
    estimate = commands.add_parser(
        "estimate", help="estimate the tokens and cost of a run with LLM roles",
        description="Play every subtask once with the offline built-ins and count the tokens each LLM role would "
                    "have been sent along those trajectories, then price them (a floor: LLM agents usually take "
                    "more turns).")
    estimate.add_argument("suite", help="the suite file (.json or .json.gz)")
    estimate.add_argument("--vita-model", dest="model", default="gpt-4.1",
                          help="the agent model to price (default: gpt-4.1)")
    estimate.add_argument("--vita-user-model", dest="user_model", default="gpt-4.1",
                          help="the user simulator model, or scripted for none (default: gpt-4.1)")
    estimate.add_argument("--vita-judge-model", dest="judge_model", default="gpt-4.1",
                          help="the judge model, or rules for none (default: gpt-4.1)")
    estimate.add_argument("--vita-memory", dest="memory", default="full_context,agentic,rag",
                          help="memory backends, comma-separated (default: full_context,agentic,rag)")
    estimate.add_argument("--vita-trials", dest="trials", type=_trials, default=4,
                          help="trials per subtask (default: 4)")
    estimate.add_argument("--vita-prices", dest="prices", default=None,
                          help="'model=prompt/completion,...' or 'model=prompt/cached/completion,...' in USD per 1M "
                               "tokens (gpt-4.1's list prices, cached rate included, are built in); a .toml or "
                               ".json file may add each model's batch_factor (default 0.5)")
    estimate.add_argument("--vita-judge-batch", dest="judge_batch", action="store_true",
                          help="also print the cost with the judge sent through the Batch API, billed at its "
                               "batch price (half the list price, as OpenAI and Anthropic bill it)")
    estimate.set_defaults(func=_estimate)


def _add_rejudge(commands: Subcommands) -> None:
    from .rejudge import REJUDGE_DESCRIPTION

    rejudge = commands.add_parser(
        "rejudge", help="score a --vita-report JSON file again with another judge (no agent or user calls)",
        description=REJUDGE_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    rejudge.add_argument("report", help="the vitabench-report/1 JSON file of a run")
    rejudge.add_argument("--vita-judge-model", default="rules", help="rules, or an LLM judge model name")
    rejudge.add_argument("--vita-judge-mode", choices=("window", "full"), default="window",
                         help="LLM judge: sliding window (official default) or one call over the whole trajectory")
    rejudge.add_argument("--vita-judge-votes", type=int, default=1,
                         help="LLM judge runs per item, per-rubric majority")
    rejudge.add_argument("--vita-outcome-reward", action="store_true",
                         help="also judge the last order/booking; reward = min(trajectory, outcome)")
    rejudge.add_argument("--vita-judge-failures", choices=("unscored", "zero"), default=None,
                         help="a rubric the judge fails to return: unscored or zero (official); default: the run's")
    _add_judge_endpoint(rejudge)
    rejudge.add_argument("--vita-judge-batch", action="store_true",
                         help="send the judge's requests through the endpoint's Batch API (files + batches: half "
                              "the price, answered within 24 h); journaled in the run directory, so rerunning the "
                              "command after a crash resumes without resubmitting")
    rejudge.add_argument("--vita-batch-poll", type=float, default=30.0, metavar="SECONDS",
                         help="with --vita-judge-batch: seconds between status checks of a batch (default 30)")
    rejudge.add_argument("-o", "--output", default=None,
                         help="where to write the new report (default: REPORT.rejudged.json beside it)")
    rejudge.set_defaults(func=_rejudge)


def _add_judge_endpoint(parser: argparse.ArgumentParser) -> None:
    """The judge's language, endpoint, client limits and suite locations (rejudge and judge-audit)."""
    parser.add_argument("--vita-language", choices=("en", "zh"), default=None,
                        help="judge prompt language (default: the run's)")
    parser.add_argument("--vita-base-url", default=None,
                        help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL)")
    parser.add_argument("--vita-api-key-env", default="OPENAI_API_KEY", help="variable holding the API key")
    parser.add_argument("--vita-timeout", default=None, help="seconds per request (default 120)")
    parser.add_argument("--vita-rpm", default=None, help="requests per minute (default unlimited)")
    parser.add_argument("--vita-max-concurrency", default=None, help="requests in flight (default unlimited)")
    parser.add_argument("--vita-cache", default="judge", choices=("judge", "all", "off"), help="LLM disk cache")
    parser.add_argument("--vita-prices", default=None,
                        help="model prices: 'model=prompt/completion' or 'model=prompt/cached/completion' (USD per "
                             "1M tokens), or a .toml/.json file")
    parser.add_argument("--suite", action="append", default=None, metavar="PATH",
                        help="a suite file's current location, if it moved (matched by content; repeatable)")


def _llm_options(args: argparse.Namespace) -> dict[str, object]:
    return {"base_url": args.vita_base_url, "api_key_env": args.vita_api_key_env, "rpm": args.vita_rpm,
            "max_concurrency": args.vita_max_concurrency, "timeout": args.vita_timeout, "cache": args.vita_cache,
            "prices": args.vita_prices}


def _positive(option: str) -> Callable[[str], int]:
    def parse(value: str) -> int:
        from .option_values import whole_number

        try:
            return whole_number(option, value, minimum=1, default=1)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _add_judge_audit(commands: Subcommands) -> None:
    from .judge_audit import AUDIT_DESCRIPTION

    audit = commands.add_parser(
        "judge-audit", help="measure an LLM judge against the rules judge and itself on a saved run",
        description=AUDIT_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    audit.add_argument("report", help="the --vita-report JSON file of a run on a suite with machine checks")
    audit.add_argument("--vita-judge-model", required=True, help="the LLM judge model to audit")
    audit.add_argument("--vita-judge-mode", choices=("window", "full"), default="window",
                       help="sliding window (official default) or one call over the whole trajectory")
    audit.add_argument("--vita-judge-votes", type=_positive("--vita-judge-votes"), default=1,
                       help="judge runs per item, per-rubric majority (default: 1)")
    audit.add_argument("--vita-judge-failures", choices=("unscored", "zero"), default="unscored",
                       help="a rubric the judge fails to return: unscored (default) or zero (official)")
    audit.add_argument("--against-model", default=None,
                       help="also audit this judge model and compare it with the first (default: the same model)")
    audit.add_argument("--against-mode", choices=("window", "full"), default=None,
                       help="also audit this judge mode and compare it with the first")
    audit.add_argument("--against-votes", type=_positive("--against-votes"), default=None,
                       help="also audit this number of votes and compare it with the first")
    audit.add_argument("--repeats", type=_positive("--repeats"), default=1,
                       help="judgings of every item per configuration; 2 or more measure the flip rate (default: 1)")
    audit.add_argument("--sample", type=_positive("--sample"), default=None,
                       help="audit this many items drawn at random (default: every finished item)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the sample and the bootstrap (default: 0)")
    audit.add_argument("--concurrency", type=_positive("--concurrency"), default=8,
                       help="items judged at the same time (default: 8; --vita-rpm and --vita-max-concurrency apply)")
    audit.add_argument("--vita-fail-under", default=None,
                       help="gate on the judge: e.g. judge.kappa=0.8,judge.agreement=0.9 (exit 1 when missed)")
    audit.add_argument("--viewer", default=None,
                       help="prefix of the disagreement links (default: the audit report's .html name)")
    audit.add_argument("--limit", type=int, default=10, help="disagreements printed per judge (default: 10)")
    _add_judge_endpoint(audit)
    audit.add_argument("-o", "--output", default=None,
                       help="where to write the audit report (default: REPORT.judge-audit.json beside it)")
    audit.set_defaults(func=_judge_audit)


def _judge_audit(args: argparse.Namespace) -> int:
    from .judge_audit import JudgeSetup, audit_command

    setups = [JudgeSetup(args.vita_judge_model, args.vita_judge_mode, args.vita_judge_votes)]
    if args.against_model or args.against_mode or args.against_votes:
        setups.append(JudgeSetup(args.against_model or args.vita_judge_model,
                                 args.against_mode or args.vita_judge_mode,
                                 args.against_votes or args.vita_judge_votes))
    return audit_command(args.report, setups=setups, repeats=args.repeats, sample=args.sample, seed=args.seed,
                         failures=args.vita_judge_failures, language=args.vita_language,
                         llm_options=_llm_options(args), suite_paths=args.suite, output=args.output,
                         viewer=args.viewer, concurrency=args.concurrency, fail_under=args.vita_fail_under,
                         limit=args.limit)


def _rejudge(args: argparse.Namespace) -> int:
    from .rejudge import rejudge_command

    return rejudge_command(
        args.report, judge_model=args.vita_judge_model, judge_mode=args.vita_judge_mode,
        judge_votes=args.vita_judge_votes, outcome_reward=args.vita_outcome_reward, language=args.vita_language,
        llm_options=_llm_options(args), suite_paths=args.suite, output=args.output,
        judge_failures=args.vita_judge_failures, judge_batch=args.vita_judge_batch, batch_poll_s=args.vita_batch_poll)


def _add_synth(commands: Subcommands) -> None:
    from .synth.commands import PRESET_NAMES, knob_docs, knob_types

    synth = commands.add_parser(
        "synth", help="generate an English VitaBench 2.0 suite (deterministic for a preset, seed and knobs)",
        description="Generate a suite in the official tasks.json shape with machine-checked rubrics. "
                    "A .gz output is compressed deterministically.")
    synth.add_argument("--preset", choices=PRESET_NAMES, default="paper",
                       help="paper: the paper's scale and statistics; small: the same ratios, 4 users x 5 "
                            "subtasks; demo: the hand-curated demo suite")
    synth.add_argument("-o", "--output", default=None, help="output file (default: suites/<preset>/...)")
    synth.add_argument("--validate", action="store_true", help="validate the written suite")
    docs = knob_docs()
    for knob, kind in knob_types().items():
        synth.add_argument(f"--{knob.replace('_', '-')}", dest=f"knob_{knob}", metavar=knob.upper(), type=kind,
                           default=None, help=docs.get(knob, ""))
    synth.set_defaults(func=_synth)


def _synth(args: argparse.Namespace) -> int:
    from .synth.commands import synthesize

    knobs = {name[len("knob_"):]: value for name, value in vars(args).items()
             if name.startswith("knob_") and value is not None}
    try:
        path = synthesize(args.preset, output=args.output, knobs=knobs)
    except ValueError as exc:
        print(f"vitabench synth: {exc}", file=sys.stderr)
        return 2
    if args.validate:
        return _validate(argparse.Namespace(paths=[str(path)], strict=True, answers=True, rules=True, stats=True,
                                            json_path=None))
    return 0


def _add_view(commands: Subcommands) -> None:
    view = commands.add_parser("view", help="write a self-contained HTML viewer of a run and open it",
                               description="Write a run as one self-contained HTML page and open it in a browser.")
    view.add_argument("run", help="a --vita-report JSON file (or a run directory)")
    view.add_argument("-o", "--output", help="write the page here and do not open it (default: RUN.html, opened)")
    view.add_argument("--suite-dir", action="append",
                      help="where to find the run's suite files when they moved (for product and store names)")
    view.add_argument("--baseline", help="a saved run to compare with (adds a Compare tab)")
    view.add_argument("--no-open", action="store_true", help="do not open a browser")
    view.set_defaults(func=_view)


def _view(args: argparse.Namespace) -> int:
    from .view.commands import view_command

    return view_command(args.run, output=args.output, suite_dirs=args.suite_dir, baseline=args.baseline,
                        open_browser=not args.no_open)


def _add_plot(commands: Subcommands) -> None:
    plot = commands.add_parser("plot", help="the paper's figures of a run as PNG/SVG files (needs matplotlib)",
                               description="Draw the paper's figures of a run as PNG, SVG or PDF files "
                                           "(needs matplotlib: pip install 'pytest-vitabench[plot]').")
    plot.add_argument("run", help="a --vita-report JSON file (or a run directory)")
    plot.add_argument("-o", "--output", default="vitabench-plots", help="output directory (default: vitabench-plots)")
    plot.add_argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default: png,svg)")
    plot.set_defaults(func=_plot)


def _plot(args: argparse.Namespace) -> int:
    from .view.commands import plot_command

    return plot_command(args.run, output=args.output, formats=args.format)


def _add_compare(commands: Subcommands) -> None:
    compare = commands.add_parser("compare", help="paired comparison of two runs; regressed and fixed subtasks",
                                  description="Compare two runs paired per (user, subtask): the change of each "
                                              "metric with its bootstrap interval, and the subtasks that "
                                              "regressed or were fixed.")
    compare.add_argument("base", help="the baseline run (a --vita-report JSON file or a run directory)")
    compare.add_argument("new", help="the new run (a --vita-report JSON file or a run directory)")
    compare.add_argument("--base-memory", help="compare this backend of BASE ...")
    compare.add_argument("--new-memory", help="... with this backend of NEW")
    compare.add_argument("--fail-regression", type=float, metavar="DELTA",
                         help="exit 1 when Avg drops significantly by more than DELTA")
    compare.add_argument("--viewer", help="prefix of the links to each subtask, e.g. new.html")
    compare.add_argument("--json", help="also write the comparison as JSON here")
    compare.add_argument("--limit", type=int, default=20, help="subtasks listed per direction (default: 20)")
    compare.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    compare.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from .view.commands import compare_command

    return compare_command(args.base, args.new, base_memory=args.base_memory, new_memory=args.new_memory,
                           fail_regression=args.fail_regression, viewer=args.viewer, json_path=args.json,
                           limit=args.limit, seed=args.seed)


def _add_merge(commands: Subcommands) -> None:
    merge = commands.add_parser(
        "merge", help="join the shards of a run (--vita-shard) into one report, gated like a run",
        description="Join the pieces of one run (the run directories of its --vita-shard shards, a directory "
                    "holding them, or their --vita-report files) into the report the run would have written in "
                    "one process: the same metrics, intervals, failures, usage and cost. Pieces whose settings or "
                    "suite files differ are refused (the differences are listed); missing shards or items make "
                    "the merge partial. Exit status: 0 merged (and every gate passed), 1 a gate failed, 4 the "
                    "pieces cannot be merged, 6 a gate met infrastructure errors or missing items.")
    merge.add_argument("pieces", nargs="+", metavar="RUN_DIR_OR_REPORT",
                       help="run directories (.vitabench/runs/RUN_ID/shard-I-of-N), directories holding them, or "
                            "JSON reports")
    merge.add_argument("-o", "--output", required=True, help="where to write the merged JSON report")
    merge.add_argument("--vita-fail-under", default=None, metavar="SPEC",
                       help="thresholds as for a run, e.g. 'avg@4=0.40,pass^4=0.20': the exit status is the gate's")
    merge.add_argument("--vita-baseline", default=None, metavar="RUN",
                       help="a saved run to compare the merged run with, paired per user and subtask")
    merge.add_argument("--vita-fail-regression", type=float, default=None, metavar="DELTA",
                       help="with --vita-baseline: exit 1 when Avg drops significantly by more than DELTA")
    merge.set_defaults(func=_merge)


def _merge(args: argparse.Namespace) -> int:
    from .merge import merge_command

    return merge_command(args.pieces, output=args.output, fail_under=args.vita_fail_under,
                         baseline=args.vita_baseline, fail_regression=args.vita_fail_regression)


def _add_cache(commands: Subcommands) -> None:
    from pathlib import Path

    from .store.disk import DEFAULT_ROOT, LEGACY_ROOT, NAMESPACES

    cache = commands.add_parser(
        "cache", help="show or clear the disk cache (LLM answers, embeddings, memory checkpoints, suite indexes)",
        description=f"The disk cache lives in <rootdir>/{DEFAULT_ROOT.as_posix()}/, one directory per kind of "
                    "entry. Clearing it never touches the run journals in .vitabench/runs/ (--vita-resume needs "
                    "them); `pytest --cache-clear` clears the same cache.")
    actions = cache.add_subparsers(dest="cache_command", required=True)
    info = actions.add_parser("info", help="what the cache holds: entries and size per kind",
                              description="Print the cache's location and, per kind of entry, what it holds, "
                                          "what keys it, how many entries and how many bytes.")
    clear = actions.add_parser("clear", help="delete the cache (all of it, or the kinds named)",
                               description="Delete cached entries. Run journals (.vitabench/runs/) are kept.")
    clear.add_argument("kinds", nargs="*", metavar="KIND",
                       help=f"kinds to clear, among {', '.join(NAMESPACES)} (default: all, and the legacy "
                            f"{LEGACY_ROOT}/ directory)")
    for parser in (info, clear):
        parser.add_argument("--rootdir", type=Path, default=None,
                            help="the project's root (pytest's rootdir; default: the nearest directory upwards "
                                 "from here that holds .vitabench/, else the current directory)")
    info.set_defaults(func=_cache_info)
    clear.set_defaults(func=_cache_clear)


def _cache_info(args: argparse.Namespace) -> int:
    from .store.commands import cache_info

    return cache_info(args.rootdir)


def _cache_clear(args: argparse.Namespace) -> int:
    from .store.commands import cache_clear

    return cache_clear(args.rootdir, args.kinds)


def _add_fetch(commands: Subcommands) -> None:
    from .suite import fetch

    parser = commands.add_parser(
        "fetch", help="download the official VitaBench 2.0 tasks.json from the Hugging Face Hub (needs the hub extra)",
        description="Download the official VitaBench 2.0 task file from the Hugging Face Hub at a pinned revision, "
                    "record its revision and sha256 beside it (tasks.json.source, which the JSON report reads) and "
                    "print where it is. HF_ENDPOINT names a mirror, HF_TOKEN a token.")
    parser.add_argument("--dir", default=str(fetch.DEFAULT_DIR),
                        help=f"where tasks.json goes (default: {fetch.DEFAULT_DIR})")
    parser.add_argument("--revision", default=fetch.PINNED_REVISION,
                        help=f"dataset commit, branch or tag (default: {fetch.PINNED_REVISION}, the revision the "
                             "published counts were made on)")
    parser.add_argument("--repo", default=fetch.HUB_DATASET, help=f"the Hub dataset (default: {fetch.HUB_DATASET})")
    parser.set_defaults(func=_fetch)


def _fetch(args: argparse.Namespace) -> int:
    from .suite.fetch import FetchError, fetch_suite

    try:
        path, source = fetch_suite(args.dir, revision=args.revision, repo=args.repo)
    except FetchError as exc:
        print(f"vitabench fetch: {exc}", file=sys.stderr)
        return 1
    print(f"{path}  ({source.repo} revision {source.revision}, commit {source.commit}, sha256 {source.sha256})")
    print(f"run it: pytest {path} --vita-profile official")
    return 0


#: Every subcommand, in the order ``vitabench --help`` lists them.
SUBCOMMANDS: list[Callable[[Subcommands], None]] = [
    _add_validate, _add_show, _add_estimate, _add_rejudge, _add_judge_audit, _add_synth, _add_view, _add_plot,
    _add_compare, _add_merge, _add_cache, _add_fetch,
]


def build_parser() -> argparse.ArgumentParser:
    """The ``vitabench`` parser with every subcommand of :data:`SUBCOMMANDS`."""
    parser = argparse.ArgumentParser(prog="vitabench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for add in SUBCOMMANDS:
        add(commands)
    _plain_help(parser)
    return parser


def _plain(text: str) -> str:
    """Docstring markup out of ``--help`` text: ````x```` and :class:`~a.b.C` read as x and C."""
    import re

    text = re.sub(r":(?:class|func|meth|mod|attr|data):`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return text.replace("``", "")


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """Clean the description and every option's help of ``parser`` and its subcommands (several are
    built from docstrings, which carry reStructuredText markup)."""
    if parser.description:
        parser.description = _plain(parser.description)
    for action in parser._actions:
        if action.help:
            action.help = _plain(action.help)
        for sub in getattr(action, "choices", None) or {}:
            if isinstance(action.choices, dict) and isinstance(action.choices[sub], argparse.ArgumentParser):
                _plain_help(action.choices[sub])
        for choice_action in getattr(action, "_choices_actions", []):
            if choice_action.help:
                choice_action.help = _plain(choice_action.help)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
