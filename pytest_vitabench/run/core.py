"""The run core as the pytest adapter sees it: :class:`RunCore`, one run in one process.

The adapter (:mod:`pytest_vitabench.pytest_plugin`) knows pytest and nothing else; it reaches everything else
through this class, which it imports at one place (``run_core()`` in its ``session.py``), and only when a suite is
collected, a ``--vita-*`` option is given or a step of a run needs it; pytest-xdist's plugin likewise imports its
``DSession`` only when ``-n`` is given. Here: the run built from the options and its store, a suite's collection,
an item's job and the engine that runs it, progress lines, scoring, gating and reporting, JUnit properties,
failure text and cache clearing. Nothing here imports pytest: the adapter hands in plain values and callbacks.

The stateless parts are static methods, usable before (or without) a run: clearing the caches, a result read
back from a report, the failure text of a result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..llm.secrets import redact_url
from ..memory.registry import BUILTIN_SPECS, memory_spec
from ..options import user_code
from ..options.settings import raw_options
from ..options.values import MEMORY_CODE_KIND
from ..report.failure_text import failure_text
from ..report.junit import item_properties, suite_properties
from ..report.progress import LARGE_SUITE_BYTES, Progress, large_suite_files, parse_interval
from ..result import ItemResult
from ..runs.manifest import config_sha256
from ..runs.session import (
    crashed_item_result,
    is_item_id,
    open_run_store,
    run_metadata,
    write_manifest_once,
    write_run_summary,
)
from ..store import clear_project, default_root, legacy_notice
from ..suite.loader import LoadedSuite, LoadedUser, SuiteError, held_user, suite_sha256
from .engine.run import RunEngine
from .preflight import preflight_error, start_checks
from .runner import ItemJob, RunState
from .shard import Share, derived_run_id, run_directory, take_share
from .stopping import ESTIMATE_FILE, Budget, NotRun, StartGate, decided_rule, resumed_spend, shared_json
from .wiring import Benchmark

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..report.early_stop import Decision, Pending
    from ..report.outcome import RunOutcome

Item = TypeVar("Item")



#: A URL anywhere in a command-line argument (``--vita-base-url URL``, ``--vita-limits rpm=5,url=redis://...``).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s,]+")

def _no_builtin_shadowed(memory: Iterable[str]) -> None:
    """A ``--vita-memory module:SPEC`` whose spec declares a built-in backend's name would run the built-in under
    the user's name: refused.

    Raises:
        ValueError: Naming the spec and the name to change.
    """
    for name in memory:
        reference = user_code.reference_of(name, what=MEMORY_CODE_KIND)
        if reference is not None and memory_spec(name) in BUILTIN_SPECS.values():
            raise ValueError(f"--vita-memory: {reference!r} declares the name {name!r} of a built-in backend; "
                             "give its spec a name of its own")


def _usd(amount: float) -> str:
    """Dollars and cents, or four decimals below a dollar (a smoke run's cap is a few cents)."""
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.4f}"


class RunCore:
    """One run in one process: its wiring (:attr:`bench`), its run directory (:attr:`store`) and the records
    of the run it resumes (:attr:`saved`).

    Args:
        option: An option's raw value by ini key (the command line's, else the ini file's).
        rootdir: pytest's rootdir; caches and runs live under it.
        state_dir: The directory that coordinates LLM limits across the run's processes.
        run_dir: The run directory the controller chose for this xdist worker, else ``None``.
        writer: This process's journal name (``main``, ``gw0``...).
        selection: What the command line selected (paths, ``-k``, ``-m``, ``--deselect``).
        invocation_dir: Where pytest was started (a shard's run id hashes the suite files named from there).

    Raises:
        ValueError: A bad setting, a missing API key, a run that cannot be resumed (the adapter makes it a
            usage error, before any item).
    """

    LARGE_SUITE_BYTES = LARGE_SUITE_BYTES

    def __init__(self, option: Callable[[str], Any], *, rootdir: Path, state_dir: str, run_dir: str | None,
                 writer: str, selection: Callable[[], dict[str, Any]], invocation_dir: Path):
        # Before the options are read: --vita-memory module:SPEC imports the user's module as it parses.
        user_code.set_project_folders([invocation_dir, rootdir, *(
            invocation_dir / arg.split("::", 1)[0] for arg in selection().get("args", []))])
        bench = Benchmark(raw_options(option), rootdir=rootdir, state_dir=state_dir,
                          run_state=RunState(index_dir=default_root(rootdir) / "suites"))
        _no_builtin_shadowed(bench.config.memory)
        self.rootdir = rootdir
        self.store, self.saved = open_run_store(
            rootdir=rootdir, config=bench.config.manifest(), resume=bench.config.resume, run_dir=run_dir,
            writer=writer, named_dir=self._named_run_dir(bench, selection, invocation_dir))
        self.bench = bench
        self.state_dir, self.writer = state_dir, writer
        #: The suite files this process collected (the spend cap's estimate reads them).
        self.suite_paths: list[Path] = []
        self._estimates: dict[Path, tuple[float, int]] = {}
        #: Suite files ``vitabench estimate`` could not estimate, with why (their items count as free until one
        #: finishes).
        self.estimate_failures: dict[Path, str] = {}
        self.budget = self._budget()
        #: What every item of this process asks before it starts (:mod:`.stopping`).
        self.start_gate = StartGate(budget=self.budget)
        if bench.config.early_stop != "off":
            self.start_gate.add_rule(decided_rule(state_dir))
        #: ``--vita-early-stop`` in the controller (built at its first result).
        self._early: Any = None

    def _budget(self) -> Budget | None:
        """``--vita-budget-usd``'s books, or ``None`` without a cap.

        Raises:
            ValueError: A model a role calls has no price: its spend could not be counted.
        """
        cap = self.bench.config.budget_usd
        if cap is None:
            return None
        unpriced = self.bench.unpriced_models()
        if unpriced:
            raise ValueError(f"--vita-budget-usd counts what the run spends, but {', '.join(unpriced)} has no price: "
                             "give it one with --vita-prices MODEL=PROMPT/COMPLETION (USD per 1M tokens), or drop "
                             "the cap")
        return Budget(cap, state_dir=self.state_dir, writer=self.writer, resumed=resumed_spend(self.saved.values()),
                      estimate_per_item=lambda: self.estimate()[1])

    def estimate(self, paths: Iterable[Path] | None = None) -> tuple[dict[Path, float], float]:
        """``vitabench estimate``'s figures for this run's roles: USD per item of each suite file (``paths``, by
        default the ones this process collected), and per item over them all. The offline built-ins play every
        subtask once, so it takes a while on a large suite; each file is estimated once per process."""
        from .estimate import estimate_cost

        bench, config = self.bench, self.bench.config
        models = dict(self.bench.role_models())
        per_item: dict[Path, float] = {}
        cost = items = 0.0
        for path in self.suite_paths if paths is None else paths:
            if not models:  # no role calls an LLM: nothing to price, and no need to play the suite
                self._estimates[path] = (0.0, 0)
            if path not in self._estimates:
                # One process of the run estimates a file, the others wait for its figure: on the paper suite
                # the estimate takes seconds of CPU, which every xdist worker would pay again.
                with shared_json(Path(self.state_dir) / ESTIMATE_FILE) as shared:
                    key = str(path.resolve())
                    if key not in shared:
                        try:
                            estimate = estimate_cost(
                                path, memory=config.memory, trials=config.trials,
                                agent_model=models.get("agent", config.model),
                                user_model=models.get("user", "scripted"), judge_model=models.get("judge", "rules"),
                                memory_model=models.get("memory", config.memory_model),
                                embedding_model=config.embedding_model or "text-embedding-3-large",
                                prices=bench.llm_settings.prices, index_dir=default_root(self.rootdir) / "suites")
                            shared[key] = [estimate.ledger.total().cost, estimate.items]
                        except Exception as exc:  # noqa: BLE001 - the cap still works from the first finished item
                            shared[key] = [0.0, 0, f"{type(exc).__name__}: {exc}"]
                    self._estimates[path] = (float(shared[key][0]), int(shared[key][1]))
                    if len(shared[key]) > 2:
                        self.estimate_failures[path] = str(shared[key][2])
            total, count = self._estimates[path]
            per_item[path] = total / count if count else 0.0
            cost, items = cost + total, items + count
        return per_item, cost / items if items else 0.0

    @staticmethod
    def not_run_reason(error: BaseException) -> str | None:
        """Why an item was not started (``budget``...), when ``error`` says it was not; else ``None``."""
        return error.reason if isinstance(error, NotRun) else None

    def budget_line(self, nodeids: Iterable[str]) -> str | None:
        """Before the first item: the cap, and whether the estimate for the selected ``nodeids`` passes it."""
        budget = self.budget
        if budget is None:
            return None
        files = [nodeid.split("::", 1)[0] for nodeid in nodeids if is_item_id(nodeid)]
        per_item, _ = self.estimate(sorted({self.rootdir / name for name in files}))
        figure = sum(per_item[self.rootdir / name] for name in files)
        spent = budget.resumed[0]
        head = f"vitabench budget: {_usd(budget.cap)}" + (f" ({_usd(spent)} spent by the resumed run)" if spent else "")
        line = f"{head}; `vitabench estimate` puts the {len(files)} selected items at {_usd(figure)}"
        if spent + figure > budget.cap:
            line += ", over the cap: the run stops starting items before its end (--vita-resume completes it)"
        for path, error in sorted(self.estimate_failures.items()):
            line += (f"; no estimate for {os.path.relpath(path, self.rootdir)} ({error}): until its first item "
                     "finishes, an item in flight counts as free")
        return line

    def _named_run_dir(self, bench: Benchmark, selection: Callable[[], dict[str, Any]],
                       invocation_dir: Path) -> Path | None:
        """The run directory ``--vita-run-id`` names, or a shard's under its derived run id; else ``None``."""
        if bench.config.run_id is None and bench.shard is None:
            return None
        run_id = bench.config.run_id or derived_run_id(bench.config.manifest(), selection(), invocation_dir)
        return run_directory(self.rootdir, run_id, bench.shard)

    # Without a run.

    @staticmethod
    def clear_caches(rootdir: Path) -> None:
        """``--cache-clear``: the project's caches go with pytest's; the run journals stay (``--vita-resume``)."""
        clear_project(rootdir)

    @staticmethod
    def large_suite_files(args: Iterable[str], cwd: Path, patterns: Iterable[str]) -> list[tuple[str, int]]:
        """The suite files named on the command line that take a while to load, with their sizes."""
        return list(large_suite_files(args, cwd, patterns))

    @staticmethod
    def suite_error_text(error: BaseException) -> str | None:
        """A bad suite's or user's problems, each with its file and JSON path; ``None`` for any other error."""
        return error.render() if isinstance(error, SuiteError) else None

    @staticmethod
    def result_from(payload: dict[str, Any]) -> ItemResult:
        """An item's result from the JSON-ready dict its test report carried."""
        return ItemResult.model_validate(payload)

    @staticmethod
    def failure_text(result: ItemResult, verbosity: int, traceback_tail: str = "") -> str:
        return failure_text(result, verbosity, traceback_tail)

    @staticmethod
    def item_properties(result: ItemResult) -> list[tuple[str, object]]:
        """The JUnit ``<property>`` pairs of one item."""
        return item_properties(result)

    @staticmethod
    def command(args: Iterable[str]) -> list[str]:
        """The command line that started the run, as recorded in the report and the run manifest; a URL that
        carries credentials (``--vita-limits url=redis://:password@host``) is recorded without them."""
        return ["pytest", *(_URL.sub(lambda url: redact_url(url.group(0)), arg) for arg in map(str, args))]

    # Collection.

    def collect_suite(self, path: Path) -> tuple[LoadedSuite, str, int]:
        """A collected suite file (indexed; its users are validated as items need them), its prompt language
        and the items it plans in all (subtasks x memory backends x trials)."""
        bench = self.bench
        suite = bench.runner.suite(path, lazy=True)
        if path not in self.suite_paths:
            self.suite_paths.append(path)
        planned = sum(len(user.outline) for user in suite.users if user.error is None) \
            * len(bench.config.memory) * bench.config.trials
        return suite, bench.runner.language_for(suite), planned

    def take_share(self, items: Sequence[Item],
                   chain_of: Callable[[Item], tuple[tuple[str, str, str], int] | None]) -> Share[Item]:
        """``--vita-shard``: this shard's whole chains of ``items`` (see :func:`~.shard.take_share`)."""
        assert self.bench.shard is not None
        return take_share(items, self.bench.shard, chain_of)

    # Items.

    def suite(self, path: Path) -> LoadedSuite:
        return self.bench.runner.suite(path, lazy=True)

    @staticmethod
    def validate_user(suite: LoadedSuite, user: LoadedUser) -> None:
        """Validate ``user`` and release it at once (its error and warnings stay on it); a user whose items the
        resumed run saved stays parsed no longer."""
        try:
            with held_user(suite, user):
                pass
        except SuiteError:
            pass

    def job(self, nodeid: str, path: Path, user: LoadedUser, index: int, memory: str, trial: int,
            roles: tuple[Any, Any, Any]) -> ItemJob:
        return ItemJob(nodeid, self.suite(path), user, index, memory, trial, *roles)

    def engine(self, *, manifest: Callable[[], None]) -> RunEngine:
        """The process's run engine; ``manifest`` writes the run manifest before the first journal record."""
        bench = self.bench
        return RunEngine(runner=bench.runner, store=self.store, config_sha256=config_sha256(bench.config.manifest()),
                         saved=self.saved, concurrency=bench.concurrency, on_first_journal=manifest,
                         gate=self.start_gate)

    def write_manifest(self, *, suites: dict[str, str], selection: dict[str, Any], command: list[str],
                       selected: Iterable[str] = ()) -> None:
        """The run manifest, unless the run (a resumed one, or another xdist worker) already has one.
        ``selected``: the selected node ids, whose trials per unit a merge of an unfinished shard needs."""
        from ..report.selection import metrics_k, selection_of

        selection = {**selection, "trials_selected": metrics_k(selection_of(selected).k, self.bench.config.trials)}
        write_manifest_once(self.store, config=self.bench.config.manifest(), suites=suites, selection=selection,
                            command=command)

    def crashed_item(self, nodeid: str, message: str) -> ItemResult:
        """The ``error`` result of an item whose xdist worker died, journaled here."""
        return crashed_item_result(self.bench.runner, self.store, nodeid, message)

    def start_preflight(self) -> Future[list[str]] | None:
        """One request per model and endpoint, in the background, when the run calls an LLM; else ``None``."""
        if self.bench.config.preflight == "on" and self.bench.needs_llm:
            return start_checks(self.bench)
        return None

    @staticmethod
    def preflight_error(failures: list[str]) -> str:
        return preflight_error(failures)

    # Reporting.

    def header(self, *, verbose: bool) -> list[str]:
        """The run's header lines, its journal when named (a shard, ``--vita-run-id``), and the notice of a
        cache left by an older version."""
        notice = legacy_notice(self.rootdir)
        bench, store = self.bench, self.store
        journal = [f"vitabench run {store.run_id}: journal {store.path}"] \
            if bench.shard is not None or bench.config.run_id else []
        return [*bench.header_lines(verbose=verbose), *journal, *([notice] if notice else [])]

    def resume_line(self, nodeids: Iterable[str]) -> str | None:
        """``resumed run R: N items reused, M to run`` over the selected ``nodeids`` (``None`` without
        ``--vita-resume``): an item is reused when the resumed run finished it from the same suite file."""
        if not self.bench.config.resume:
            return None
        shas: dict[str, str] = {}
        reused = selected = 0
        for nodeid in nodeids:
            if not is_item_id(nodeid):
                continue
            selected += 1
            record = self.saved.get(nodeid)
            if record is None:
                continue
            path = nodeid.split("::", 1)[0]
            if path not in shas:
                shas[path] = suite_sha256(self.rootdir / path)
            reused += record.get("suite_sha256") == shas[path]
        return f"resumed run {self.store.run_id}: {reused} items reused, {selected - reused} to run"

    def progress(self, *, tty: bool, started: float | None) -> Progress:
        """The progress lines' state (every ``--vita-progress`` seconds; a TTY's default differs)."""
        return Progress(parse_interval(self.bench.config.progress, tty=tty), started=started)

    @staticmethod
    def show_retries(sink: Callable[[str], None] | None) -> None:
        """Retries and timeouts go to ``sink`` as they happen (``None``: nowhere; :mod:`~..llm.notices`)."""
        from ..llm.notices import NOTICES

        NOTICES.attach(sink)

    def early_stop(self, arrived: Mapping[str, tuple[ItemResult, Any]], selected: Sequence[str],
                   not_run: Mapping[str, str]) -> Decision | None:
        """``--vita-early-stop``: the decision after one more result (the controller's), once it is decided;
        ``None`` while undecided or without early stopping. Once decided, every process stops starting items."""
        config = self.bench.config
        if config.early_stop == "off":
            return None
        if self._early is None:
            from ..report.selection import selection_of
            from .early_stopping import EarlyStopping, gates_of

            self._early = EarlyStopping(config.early_stop, gates_of(config, selected_k=selection_of(selected).k),
                                        state_dir=self.state_dir, pending_of=self.pending_items)
        if self._early.decision is not None or self._early.off is not None:
            return None  # said once
        self._early.after(arrived, selected, not_run)
        decision: Decision | None = self._early.decision
        return decision

    @property
    def early_stop_off(self) -> str | None:
        """Why ``--vita-early-stop`` gave up in this run (said once by the controller), if it did."""
        return self._early.off if self._early is not None else None

    def early_stop_order(self, items: Sequence[Item], *, user_of: Callable[[Item], Any], workers: int = 1
                         ) -> list[Item]:
        """``--vita-early-stop``: the items, users in the run's seeded order, each user's items in sequence, as
        many users open at a time as the run keeps items in flight (at least two): users finish steadily, which
        statistical early stopping needs (it reads finished users only), and a process keeps few users' memory
        chains at once (opening every user would rebuild chains the cache had to drop). ``workers``: the processes
        running the items (each keeps as many in flight)."""
        from .schedule import interleaved

        return interleaved(items, user_of, seed=self.bench.config.seed,
                           width=max(2, self.bench.concurrency * workers))

    def pending_items(self, nodeids: Sequence[str]) -> dict[str, Pending]:
        """Each selected item as early stopping reads it before it runs, by node id (from the suites' index:
        the controller of an xdist run collects nothing)."""
        from ..report.early_stop import Pending
        from .early_stopping import parse_item_id

        users: dict[str, tuple[LoadedSuite, dict[str, LoadedUser]]] = {}
        pending: dict[str, Pending] = {}
        for nodeid in nodeids:
            parsed = parse_item_id(nodeid)
            if parsed is None:
                continue
            file, user_key, subtask_id, memory, trial = parsed
            if file not in users:
                suite = self.suite(self.rootdir / file)
                users[file] = suite, {user.key: user for user in suite.users}
            suite, by_key = users[file]
            user = by_key.get(user_key)
            found = [(index, sub) for index, sub in enumerate(user.outline) if sub.subtask_id == subtask_id] \
                if user is not None else []
            if not found:
                continue
            index, sub = found[0]
            pending[nodeid] = Pending(nodeid=nodeid, user_id=user_key, subtask_id=subtask_id, memory=memory,
                                      trial=trial, suite=str(suite.path), subtask_index=index,
                                      domain=",".join(sub.domains), skills=tuple(sub.skills),
                                      seed=self.bench.config.trial_seed(trial))
        return pending

    def score(self, arrived: Sequence[tuple[ItemResult, dict[str, Any]]], *, suites: Mapping[str, str],
              languages: Mapping[str, str], selected: Iterable[str] = (),
              not_run: Mapping[str, str] | None = None) -> tuple[RunOutcome, dict[str, Any]]:
        """The run's scores, gates and verdict, and the report's config block (the controller alone scores:
        the scoring modules load here, never on an xdist worker). ``selected``: the session's selected node ids."""
        from ..options.fail_under import parse_fail_under
        from ..report.failures import suite_subtask_data
        from ..report.outcome import complete_suite_hashes, score_run
        from ..report.selection import selection_of
        from ..suite.fetch import suite_sources

        bench, run_config = self.bench, self.bench.config
        results = [result for result, _ in arrived]
        hashes = complete_suite_hashes(dict(suites), results)
        manifest = {**run_config.report_config(), "suites": hashes,
                    "profile_summary": bench.profile_summary(), "suite_languages": self._languages(hashes, languages),
                    "suite_sources": suite_sources(hashes)}
        # K is the trials selected per unit: deselected trials are not measured, unfinished ones still count.
        selection = selection_of(selected)
        outcome = score_run(
            results, trials=run_config.trials, seed=run_config.seed, style=run_config.metrics_style,
            selected_k=selection.k, unfinished=selection.unfinished(results),
            thresholds=parse_fail_under(run_config.fail_under) if run_config.fail_under else None,
            want_failures=bool(run_config.failures or run_config.report), config=manifest,
            subtask_data=suite_subtask_data(bench.runner.suite), baseline=run_config.baseline,
            fail_regression=run_config.fail_regression, not_run=not_run)
        outcome.decision = self._early.decision if self._early is not None else None
        return outcome, manifest

    def _languages(self, suites: Mapping[str, str], collected: Mapping[str, str]) -> dict[str, str]:
        # As collected, else from the file's index (a few users tell the language), never validating it all.
        runner = self.bench.runner
        return {path: collected.get(path) or runner.language_for(runner.suite(path, lazy=True))
                for path in sorted(suites) if os.path.exists(path)}

    def gate(self, outcome: RunOutcome, *, status: int, other_failures: int) -> int:
        """The session's exit status once the run's gates (``--vita-fail-under``, regressions...) are applied."""
        from ..report.outcome import gate_run

        shard = self.bench.shard
        return gate_run(outcome, status=status, other_failures=other_failures,
                        scope=shard.label if shard is not None else None)

    def record(self, outcome: RunOutcome, manifest: dict[str, Any], payloads: list[dict[str, Any]], *,
               planned: int, started: float, command: list[str],
               on_report: Callable[[dict[str, Any]], None]) -> None:
        """Leave the run's summary in its directory and write ``--vita-report`` (``on_report`` sees it first)."""
        from ..report.json_report import write_report
        from ..report.outcome import run_report

        bench, store, run_config = self.bench, self.store, self.bench.config
        counts = {"planned": planned, "completed": len(outcome.results),
                  "resumed": sum(1 for r in outcome.results if r.resumed), "trials_selected": outcome.k}
        # What `vitabench merge` needs beyond the journal: the report's config block and the usage.
        stopped: dict[str, Any] = {"not_run": dict(sorted(outcome.not_run.items()))} if outcome.not_run else {}
        if self.budget is not None:
            stopped["budget"] = {"cap_usd": self.budget.cap, "spent_usd": self.budget.spent()}
        if outcome.decision is not None:
            decision = outcome.decision
            stopped["early_stop"] = {"mode": run_config.early_stop, "decided_after": decision.run,
                                     "selected": decision.total, "passes": decision.passes,
                                     "verdict": [list(verdict) for verdict in decision.verdict]}
        write_run_summary(store, config=manifest, usage=bench.ledger.to_dict(),
                          run={"id": store.run_id, **counts, **stopped})
        if run_config.report:
            run = {**run_metadata(store=store, started=started, command=command, rootdir=self.rootdir, **counts),
                   **stopped}
            report = run_report(outcome, manifest, run=run, usage=bench.ledger.to_dict(), records=payloads)
            on_report(report)
            write_report(run_config.report, report)

    def junit_properties(self, outcome: RunOutcome) -> list[tuple[str, object]]:
        """The JUnit report's global ``<property>`` pairs: the model, the profile and each metric."""
        run_config = self.bench.config
        return [("vita_model", run_config.model), ("vita_profile", run_config.profile),
                *suite_properties(outcome.metrics)]

    def github_outputs(self, outcome: RunOutcome, *, echo: Callable[[str], None],
                       warn: Callable[[str], None]) -> None:
        """Under GitHub Actions, the gate's annotations, the job summary and the step outputs."""
        from ..report.outcome import github_outputs

        github_outputs(outcome, config=self.bench.config.manifest(), echo=echo, warn=warn)

    def summary(self, outcome: RunOutcome, *, planned: int) -> list[tuple[str, str | None]]:
        """The terminal summary's lines, each with its markup (``None``, ``"yellow"``...)."""
        from ..report.outcome import summary_lines

        bench, store = self.bench, self.store
        completed = len(outcome.results)
        lines: list[tuple[str, str | None]] = [(bench.header_lines()[0], None)]
        if bench.shard is not None:
            lines.append((f"{bench.shard.label}: {completed} items of run {store.run_id} in {store.path}; "
                          "`vitabench merge` joins the shards into the run's report", None))
        elif planned and completed < planned:
            why = "" if outcome.unfinished else ", as selected"
            lines.append((f"partial: {completed} of {planned} planned items{why} (run {store.run_id}; "
                          f"--vita-resume completes it)", "yellow"))
        if self.budget is not None:
            lines.append((f"budget: {_usd(self.budget.spent())} spent of {_usd(self.budget.cap)}"
                          + (f"; the run stopped starting items ({outcome.stopped_by_budget} not run)"
                             if outcome.stopped_by_budget else ""), "yellow" if outcome.stopped_by_budget else None))
        report = str(bench.config.report) if bench.config.report else None
        lines += summary_lines(outcome, ledger=bench.ledger, show_failures=bench.config.failures, report=report)
        return lines
