"""The ``vitabench`` command: check suite files and read reports outside pytest.

    vitabench validate suites/demo/tasks.json     # load, check the fairness rules, replay the answers, compare
    vitabench synth --preset paper --seed 0 -o suites/paper/tasks.vita.json.gz   # generate a suite
    vitabench show run.json                       # the metrics table of a saved report
    vitabench rejudge run.json --vita-judge-model gpt-4.1   # score saved trajectories again
    vitabench estimate suites/demo/tasks.json     # tokens and cost of the paper's LLM configuration
    vitabench view run.json                       # the run in the browser (one self-contained HTML file)
    vitabench plot run.json -o plots/             # the paper's figures as PNG/SVG
    vitabench compare base.json new.json          # paired comparison: regressed and fixed subtasks
    vitabench cache info                          # what the disk cache holds; `cache clear` empties it

Run the benchmark itself with pytest (``pytest suites/demo``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence


def _validate(args: argparse.Namespace) -> int:
    from .suite.loader import SuiteError, load_suite

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
            user_model=args.user_model, judge_model=args.judge_model, prices=prices_from_option(args.prices))
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vitabench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
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
                               "rules judge), which names every unsolvable subtask and why (an error with --strict)")
    from .synth.commands import add_synth_parser, add_validate_options

    add_validate_options(validate)
    validate.set_defaults(func=_validate)
    show = commands.add_parser("show", help="print the metrics table of a --vita-report JSON file",
                               description="Print the metrics table of a saved --vita-report JSON file.")
    show.add_argument("report", help="the JSON report written by pytest --vita-report PATH")
    show.set_defaults(func=_show)
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
                          help="'model=prompt/completion,...' USD per 1M tokens (gpt-4.1 list prices built in)")
    estimate.set_defaults(func=_estimate)
    from .rejudge import add_rejudge_parser

    add_rejudge_parser(commands)
    add_synth_parser(commands)
    from .view.commands import add_view_parsers

    add_view_parsers(commands)
    from .store.commands import register as add_cache_parser

    add_cache_parser(commands)
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
