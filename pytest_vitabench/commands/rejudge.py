"""``vitabench rejudge REPORT.json --vita-judge-model X``: score saved trajectories again (see
:data:`REJUDGE_DESCRIPTION`). Each saved result gets its :class:`~pytest_vitabench.judges.base.JudgeCase`
back from the report, its sha256-checked suite and a replay of its tool calls; record ids derive from the
seed, so the replay is exact.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..domains import build_environment
from ..judges.base import Judge, JudgeCase, Verdict
from ..judges.batched import judge_in_batches
from ..judges.registry import judge_spec, make_judge
from ..llm import Ledger, LLMClient
from ..llm.batch import BatchJournal, BatchSubmitter
from ..llm.errors import LLMError
from ..llm.settings import settings_for_run
from ..messages import Usage
from ..metrics import compute_metrics
from ..official.behaviour import ToolRules, tool_rules
from ..official.source import OfficialSource
from ..official.source import locate as locate_official_source
from ..official.tool_answers import answers_for
from ..options.config import RunConfig
from ..report.json_report import build_report, load_report, write_report
from ..report.terminal import render_table
from ..result import ItemResult
from ..runs.reader import open_run
from ..suite.language import detect_language
from ..suite.loader import LoadedSuite, load_suite, read_suite_bytes
from .command import Command, argument, given_settings, run_config, setting_arguments

SuitePaths = Sequence[str | Path] | None


class RejudgeError(Exception):
    """The report cannot be re-judged as asked (a suite is missing or changed, the report is unreadable)."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(read_suite_bytes(path)).hexdigest()


def _recorded_sha(recorded: Mapping[str, str], suite: str) -> str | None:
    if suite in recorded:
        return recorded[suite]
    try:
        wanted = Path(suite).resolve()
        return next((sha for key, sha in recorded.items() if Path(key).resolve() == wanted), None)
    except OSError:
        return None


def resolve_suites(report: Mapping[str, Any], suite_paths: SuitePaths = None) -> dict[str, LoadedSuite]:
    """The suite file of every result, checked against the sha256 the report recorded; ``suite_paths`` are
    where suites are now if they moved (matched by content, so moved or renamed files are found).

    Raises:
        RejudgeError: A suite is not found, or its content differs from the run's.
    """
    recorded: Mapping[str, str] = (report.get("config") or {}).get("suites") or {}
    names = sorted({str(r.get("suite") or "") for r in report.get("results") or [] if r.get("outcome") != "error"})
    if "" in names:
        raise RejudgeError("some results name no suite file; this report predates re-judging support")
    by_sha: dict[str, Path] = {}
    for candidate in map(Path, suite_paths or ()):
        try:
            by_sha.setdefault(_sha256(candidate), candidate)
        except OSError as exc:
            raise RejudgeError(f"cannot read suite {candidate}: {exc}") from exc
    out: dict[str, LoadedSuite] = {}
    for name in names:
        expected = _recorded_sha(recorded, name)
        if expected is None:
            raise RejudgeError(f"the report records no sha256 for suite {name} (config.suites), so it cannot be "
                               "checked that the suite is unchanged")
        path = by_sha.get(expected, Path(name))
        if not path.exists():
            raise RejudgeError(f"suite {name} not found; pass its current location with --suite PATH")
        actual = _sha256(path)
        if actual != expected:
            raise RejudgeError(f"suite {path} changed since the run (sha256 {actual[:12]}, the report recorded "
                               f"{expected[:12]}); re-judging it would score the trajectories against different "
                               "rubrics or data. Restore the original file or pass it with --suite PATH")
        out[name] = load_suite(path)
    return out


def open_saved_run(path: str | Path, suite_paths: SuitePaths = None
                   ) -> tuple[dict[str, Any], dict[str, LoadedSuite], list[ItemResult]]:
    """A saved run's report, its checked suites (:func:`resolve_suites`) and its results with their
    trajectories (schema /2 keeps them in the run directory: read back through the one run reader).

    Raises:
        RejudgeError: The report or a suite is unusable.
    """
    try:
        saved = open_run(path)
    except (OSError, ValueError) as exc:
        raise RejudgeError(str(exc)) from exc
    suites = resolve_suites(saved.report, suite_paths)
    return saved.report, suites, [ItemResult.model_validate(saved.full_result(row["nodeid"])) for row in saved.results]


def suite_language(configured: str, suite: LoadedSuite) -> str:
    """The run's language for a suite: as configured, or (``auto``) detected from the suite as the run did."""
    if configured in ("en", "zh"):
        return configured
    return detect_language(user.task for user in suite.users if user.task is not None)


def replay(result: ItemResult, suite: LoadedSuite, language: str, checks: list[str] | None = None,
           tools: ToolRules | None = None, official_source: OfficialSource | None = None
           ) -> tuple[JudgeCase, list[str]]:
    """The judge case of a saved result: its subtask, messages and replayed final environment.

    Returns:
        The case, and one line per replayed tool call whose result differs from the saved one.

    Raises:
        RejudgeError: The user or subtask is not in the suite.
    """
    user = next((u for u in suite.users if u.key == result.user_id and u.task is not None), None)
    if user is None or user.task is None:
        raise RejudgeError(f"{result.nodeid}: user {result.user_id!r} is not in {suite.path}")
    index = next((i for i, s in enumerate(user.task.subtasks) if s.subtask_id == result.subtask_id), None)
    if index is None:
        raise RejudgeError(f"{result.nodeid}: subtask {result.subtask_id!r} is not in {suite.path}")
    sub = user.task.subtasks[index]
    time = user.times[index]
    rules = tools or ToolRules()
    environment = build_environment(sub.domain, sub.environment,
                                    user_id=user.tool_user_id(index),
                                    time=time, seed=result.seed, language=language, checks=checks,
                                    official_search=rules.official_search,
                                    answers=answers_for(rules, official_source))
    saved = {m.tool_call_id: m for m in result.messages if m.role == "tool" and m.tool_call_id}
    mismatches: list[str] = []
    for message in result.messages:
        if message.role != "assistant":
            continue
        for call in message.tool_calls or []:
            before = saved.get(call.id)
            if call.name not in environment.tools and before is not None and not before.error:
                continue  # a memory tool: it reads the memory, never the environment
            got = environment.call(call.name, call.arguments)
            if before is None:
                mismatches.append(f"{call.name} (call {call.id}): no saved result")
            elif got.content != before.text or got.error != before.error:
                mismatches.append(f"{call.name} (call {call.id}): saved {before.text[:80]!r}, replayed "
                                  f"{got.content[:80]!r}")
    case = JudgeCase(subtask=sub, messages=list(result.messages), environment=environment,
                     termination=result.termination, time=time, seed=result.seed, extra={"language": language})
    return case, mismatches


def rejudge_report(path: str | Path, judge: Judge, *, suite_paths: SuitePaths = None,
                   ledger: Ledger | None = None, judge_config: Mapping[str, Any] | None = None,
                   progress: Callable[[ItemResult], None] | None = None,
                   batch: BatchSubmitter | None = None) -> dict[str, Any]:
    """Score a saved report's trajectories again with ``judge`` and return a new report (same schema).

    Args:
        suite_paths: Where the suites are now (see :func:`resolve_suites`).
        ledger: The LLM client's ledger, to record each item's judge usage in its ``usage["judge"]``.
        judge_config: Config keys describing the new judge (``judge_model``, ``judge_mode`` ...).
        batch: Judge through this Batch API submitter (``--vita-judge-args batch``) instead of call by call; the
            judge's requests go out in rounds of batches (see :mod:`pytest_vitabench.judges.batched`).

    Returns:
        The new report: ``config`` updated with ``judge_config``, ``metrics`` recomputed, ``results``
        re-judged, and ``rejudged_from``: the source report, its judge, the replay mismatches, and the
        items kept as they were (infrastructure errors, whose trajectories are incomplete) or that failed
        to be judged.

    Raises:
        RejudgeError: The report or a suite is unusable (see :func:`resolve_suites`).
        BatchUnsupported: ``batch`` was given and its endpoint has no Batch API.
        LLMError: A batch failed as a whole or did not finish in time (journaled: a rerun resumes it).
    """
    report, suites, results = open_saved_run(path, suite_paths)
    config = dict(report.get("config") or {})
    # The official tool results replay with the official messages, from the source the run named.
    read_from = ((report.get("profile") or {}).get("official_source") or {}).get("path")
    # The run's search and answer styles, so that a replayed call answers as it did in the run.
    tools = tool_rules(config.get("search_style"), config.get("tool_results"))
    official_source = locate_official_source(str(read_from or "none")) if tools.official_answers else None
    language = str(config.get("language") or "en")
    mismatches: dict[str, list[str]] = {}
    kept: list[str] = []
    failed: dict[str, str] = {}
    batched: list[tuple[ItemResult, JudgeCase]] = []
    for result in results:
        if result.outcome == "error":
            kept.append(result.nodeid)  # the episode never finished: nothing complete to judge
            continue
        case, problems = replay(result, suites[result.suite], suite_language(language, suites[result.suite]),
                                checks=config.get("tool_checks"), tools=tools, official_source=official_source)
        if problems:
            mismatches[result.nodeid] = problems
        if batch is not None:
            batched.append((result, case))  # judged together below
            continue
        _judge_one(result, case, judge, ledger, failed)
        if progress is not None:
            progress(result)
    batch_note = _judge_batched(batched, judge, batch, failed, progress) if batch is not None else None
    new_config = {**config, **dict(judge_config or {})}
    # The k of the report's own table (the trials its run selected per unit), when the report says it.
    selected = (report.get("run") or {}).get("trials_selected")
    k = int(selected) if selected else None
    metrics = compute_metrics(results, k=k, trials=k, seed=int(config.get("seed") or 0),
                              style=str(config.get("metrics_style") or "default"))
    out = build_report(new_config, metrics, results, run=report.get("run"))
    out["rejudged_from"] = {
        "report": str(path),
        "judge_model": config.get("judge_model"),
        **{key: config[key] for key in ("judge_mode", "judge_votes", "outcome_reward") if key in config},
        "items": len(results),
        "kept_errors": kept,
        "judge_failures": failed,
        "replay_mismatches": mismatches,
    }
    if batch_note is not None:
        out["rejudged_from"]["batch"] = batch_note
    return out


def _judge_one(result: ItemResult, case: JudgeCase, judge: Judge, ledger: Ledger | None,
               failed: dict[str, str]) -> None:
    """Judge one case call by call: its verdict (or the judge's failure) and its judge usage go on ``result``."""
    mark = ledger.snapshot() if ledger is not None else None
    try:
        verdict = judge.judge(case)
    except Exception as exc:  # an infrastructure failure of the judge: reported, never scored as judged
        _record_failure(result, exc, failed)
    else:
        record_verdict(result, verdict)
    if mark is not None and ledger is not None:
        result.usage["judge"] = ledger.since(mark).get("judge", Usage())


def record_verdict(result: ItemResult, verdict: Verdict) -> None:
    """Score ``result`` by ``verdict``: its rubrics, reward, details and outcome."""
    result.rubrics = verdict.rubrics
    result.reward = verdict.reward
    result.judge_details = verdict.details
    if verdict.not_judgeable or verdict.unscored:
        result.outcome, result.error = "skipped", verdict.not_judgeable or f"unscored: {verdict.unscored}"
    else:
        result.outcome, result.error = ("passed" if verdict.reward == 1.0 else "failed"), None


def _record_failure(result: ItemResult, exc: BaseException, failed: dict[str, str]) -> None:
    result.outcome, result.reward, result.rubrics = "error", 0.0, []
    result.error = f"re-judging failed: {type(exc).__name__}: {exc}"
    failed[result.nodeid] = result.error


def _judge_batched(items: list[tuple[ItemResult, JudgeCase]], judge: Judge, batch: BatchSubmitter,
                   failed: dict[str, str], progress: Callable[[ItemResult], None] | None) -> dict[str, Any]:
    # each result says which batches judged it (judge_details)
    run = judge_in_batches([case for _, case in items], judge, client=batch.client, submitter=batch)
    for (result, _), outcome in zip(items, run.outcomes, strict=True):
        if outcome.verdict is None:
            _record_failure(result, outcome.error or RuntimeError("no verdict"), failed)
        else:
            record_verdict(result, outcome.verdict)
            result.judge_details = {**outcome.verdict.details, "judged_in_batch": outcome.batch_ids}
        result.usage["judge"] = outcome.usage
        if progress is not None:
            progress(result)
    return {"journal": str(batch.journal.folder), "rounds": run.rounds, "submitted": run.submitted,
            "resumed": run.resumed,
            "items": sorted(result.nodeid for result, _ in items if result.judge_details.get("judged_in_batch"))}


def batch_journal_folder(report_path: str | Path) -> Path:
    """Where ``vitabench rejudge --vita-judge-args batch`` journals its batches: ``batches/`` in the report's
    run directory, or ``REPORT.batches/`` beside a report that has none."""
    source = Path(report_path)
    try:
        store = open_run(source).store
    except (OSError, ValueError):
        store = None
    if store is not None:
        return store.path / "batches"
    return source.with_name(f"{source.stem}.batches")


def open_llm_client(config: RunConfig) -> tuple[LLMClient, Ledger]:
    """The one LLM client (cache, limits, ledger) of a command that judges saved runs outside pytest.

    Raises:
        ValueError: No API key for the endpoint.
    """
    ledger = Ledger()
    return LLMClient(settings_for_run(config, rootdir=Path.cwd()), ledger), ledger


#: ``vitabench rejudge --help`` (plain text: the module docstring is written for the API docs).
REJUDGE_DESCRIPTION = """\
Score the items of a saved --vita-report JSON file again, without calling the agent or the user.

Each item keeps its saved messages. Its subtask comes from the suite file named in the report; a suite
file whose sha256 differs from the one the report recorded is refused (its rubrics or data may have
changed; pass --suite with the file's new location if it only moved). The final state is rebuilt by
replaying every saved tool call against a fresh environment with the item's seed, so it is exact; any
replayed result that differs from the saved one is reported. The metrics are recomputed from the new
rewards and written to a new report.

Unlike the official harness's re-evaluation, each subtask is judged against its own rubrics.
"""

#: The judge's language, endpoint, client limits and suite locations (``rejudge`` and ``judge-audit``).
JUDGE_ENDPOINT_ARGUMENTS = (
    *setting_arguments("language", "base_url", "api_key_env", "timeout", "rpm", "max_concurrency", "cache",
                       "prices",
                       language={"choices": ("en", "zh"), "help": "judge prompt language (default: the run's)"},
                       # a command is one process: the run's "all xdist workers together" does not apply
                       limits={"help": "request budgets: timeout, rpm, in-flight (default: unlimited)"}),
    argument("--suite", action="append", default=None, metavar="PATH",
             help="a suite file's current location, if it moved (matched by content; repeatable)"),
)


def rejudge_command(args: argparse.Namespace) -> int:
    """``vitabench rejudge``: judge a saved run again, write the new report, print its metrics.

    What the run's judge was shown (``judge_records``, ``outcome_style``), its language and ``judge_failures``
    policy stay the saved run's unless given. Exits 0, 1 when some item could not be judged, 2 on usage errors.
    """
    source = Path(args.report)
    client = None
    ledger = None
    try:
        options = run_config(args)
        spec = judge_spec(options.judge_model)
        config = load_report(source).get("config") or {}
        language = args.vita_language or str(config.get("language") or "en")
        given = given_settings(args)
        failures = options.judge_failures if "judge_failures" in given else str(config.get("judge_failures")
                                                                                 or "unscored")
        if spec.needs_llm:
            client, ledger = open_llm_client(options)
        # The machine checks' verdicts beside the new judge's, as in a run; the saved run's profile: rejudging
        # keeps what the judge was shown.
        judge = make_judge(options.judge_model, audit=True, client=client, mode=options.judge_mode,
                           outcome=options.outcome_reward, votes=options.judge_votes, language=language,
                           records=bool(config.get("judge_records", True)),
                           outcome_style=str(config.get("outcome_style") or "default"), failures=failures)
    except (OSError, ValueError) as exc:  # MissingAPIKey is a ValueError too
        print(f"vitabench rejudge: {exc}", file=sys.stderr)
        return 2
    judge_config: dict[str, Any] = {"judge_model": options.judge_model}
    batch = None
    if spec.needs_llm:
        judge_config.update(judge_mode=options.judge_mode, judge_votes=options.judge_votes,
                            outcome_reward=options.outcome_reward, judge_failures=failures)
        if options.judge_batch and client is not None:
            folder = batch_journal_folder(source)
            print(f"judging in batches through {client.endpoint}; journal: {folder} (rerun the same command to "
                  "resume)")
            batch = BatchSubmitter(client, BatchJournal(folder), poll_s=options.batch_poll,
                                   on_wait=lambda batch_id, status: print(f"batch {batch_id}: {status}", flush=True))
    try:
        report = rejudge_report(source, judge, suite_paths=args.suite, ledger=ledger, judge_config=judge_config,
                                batch=batch)
    except RejudgeError as exc:
        print(f"vitabench rejudge: {exc}", file=sys.stderr)
        return 2
    except LLMError as exc:  # a batch that failed as a whole, or an endpoint without a Batch API
        print(f"vitabench rejudge: {exc}", file=sys.stderr)
        return 2 if exc.status in (404, 405) else 1
    finally:
        if client is not None:
            client.close()
    written = Path(args.output) if args.output else source.with_name(f"{source.stem}.rejudged.json")
    write_report(written, report)
    results = [ItemResult.model_validate(r) for r in report["results"]]
    for line in render_table(report["metrics"], results):
        print(line)
    note = report["rejudged_from"]
    if ledger is not None:
        for line in ledger.table_lines():
            print(line)
    for nodeid, lines in note["replay_mismatches"].items():
        print(f"warning: replaying {nodeid} gave different tool results than the run: {lines[0]}"
              + (f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""))
    if note["kept_errors"]:
        print(f"{len(note['kept_errors'])} item(s) kept as infrastructure errors (their episodes never finished)")
    for nodeid, error in note["judge_failures"].items():
        print(f"error: {nodeid}: {error}")
    if "batch" in note:
        done = note["batch"]
        print(f"judged in batch: {len(done['items'])} item(s) in {done['rounds']} round(s); batches submitted: "
              f"{', '.join(done['submitted']) or 'none'}; resumed: {', '.join(done['resumed']) or 'none'}")
    print(f"wrote {written} (re-judged with {options.judge_model})")
    return 1 if note["judge_failures"] else 0


COMMAND = Command(
    "rejudge", help="score a --vita-report JSON file again with another judge (no agent or user calls)",
    description=REJUDGE_DESCRIPTION, run=rejudge_command, arguments=(
        argument("report", help="the JSON report of a run (vitabench-report/2, or /1 of older runs)"),
        *setting_arguments("judge_model", "judge_mode", "judge_votes", "outcome_reward", "judge_batch",
                           "batch_poll", "judge_failures",
                           deviation={"help": "judge-failures=unscored|zero: a rubric the judge fails to return "
                                              "(default: the run's)"},
                           judge_args={"help": "LLM judge settings: mode, votes, outcome-reward, batch (the Batch "
                                               "API: half the price, within 24 h; journaled, so a rerun after a "
                                               "crash resumes), batch-poll"}),
        *JUDGE_ENDPOINT_ARGUMENTS,
        argument("-o", "--output", default=None,
                 help="where to write the new report (default: REPORT.rejudged.json beside it)"),
    ))
