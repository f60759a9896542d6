"""The controller's side of a run: gather every item's result, score the run, gate it, report it.

Each pytest session has its own controller, so a pytest run nested inside another (pytester) keeps its results apart.
Results arrive as the JSON-ready dict on each test report (``report.vita_result``): validated once for the
metrics, the dict itself goes into the JSON report.
"""

from __future__ import annotations

import os
import shutil
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

import pytest

from .session import (
    WORKER_LANGUAGES,
    WORKER_LEDGER,
    WORKER_LLM_DIR,
    WORKER_PLANNED,
    WORKER_RUN_DIR,
    VitaSession,
    VitaSuiteWarning,
    command,
    names_a_suite,
)

if TYPE_CHECKING:
    from ..report.outcome import RunOutcome
    from ..result import ItemResult

#: Role settings whose default is offline; any other value names an LLM, so a preflight may be due.
_ROLES = ("model", "user_model", "judge_model", "memory_model")


class VitaController(VitaSession):
    """The results and verdicts of one run, on the controller."""

    def __init__(self, config: pytest.Config):
        super().__init__(config)
        #: Each item's result (validated as it arrives, not at the end) and its payload, by node id.
        self.arrived: dict[str, tuple[ItemResult, dict[str, Any]]] = {}
        self.non_vita_failures = 0
        self.started_monotonic: float | None = None
        self.planned_items: int | None = None
        self.progress: Any = None
        #: The run's scores, gates and verdict (:mod:`pytest_vitabench.report.outcome`), once it finished.
        self.outcome: RunOutcome | None = None
        #: The preflight's failures, still being found (its requests run while the suite is collected).
        self.preflight: Future[list[str]] | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKER_LLM_DIR] = self.llm_state_dir()
        node.workerinput[WORKER_RUN_DIR] = str(self.store.path)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Keep 2 x --vita-concurrency items queued on each worker (pytest_plugin/xdist_queue.py)."""
        if getattr(config.option, "dist", "load") != "load" or self.bench.concurrency <= 1:
            return None
        from .xdist_queue import make_deep_load_scheduler

        return make_deep_load_scheduler(config, log, min_queued=2 * self.bench.concurrency)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any) -> None:
        output = getattr(node, "workeroutput", {})
        if not self.active:
            return
        if output.get(WORKER_LEDGER):
            self.bench.ledger.merge(output[WORKER_LEDGER])
        self.planned.update(output.get(WORKER_PLANNED) or {})
        for path, language in (output.get(WORKER_LANGUAGES) or {}).items():
            self.languages.setdefault(path, language)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, ids: list[str]) -> None:
        self.planned_items = len(ids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.planned_items = len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any) -> None:
        """A worker died while running ``crashitem``: record it as an error, once."""
        if not self.active or "[" not in crashitem:
            return
        from ..runs.session import crashed_item_result

        result = crashed_item_result(self.bench.runner, self.store, crashitem, str(report.longrepr))
        report.vita_result = result.light()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        config = self.config
        self.started_monotonic = time.monotonic()
        if config.option.collectonly:
            return
        if getattr(config.option, "numprocesses", None) and config.get_verbosity() >= 0:
            # xdist workers collect out of sight: say here that the wait is the suite loading
            from ..report.progress import large_suite_files

            patterns = list(config.getini("vita_suite_patterns"))
            for path, size in large_suite_files(config.args, config.invocation_params.dir, patterns):
                self.announce_large_suite(path, size)

    @pytest.hookimpl(wrapper=True, specname="pytest_sessionstart")
    def pytest_sessionstart_preflight(self, session: pytest.Session) -> Iterator[None]:
        """Start the preflight in the background after every other ``pytest_sessionstart`` (xdist's spawning
        of workers): its thread imports ``openai``, which holds the interpreter lock and would delay them."""
        yield
        if self.config.option.collectonly:
            return
        from ..options.settings import spec  # already imported: it declared the options

        if self.active or any(self.option(spec(name).ini) not in (None, "", spec(name).default) for name in _ROLES):
            if self.bench.config.preflight == "on" and self.bench.needs_llm:
                from ..run.preflight import start_checks

                self.preflight = start_checks(self.bench)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Wait for the preflight (started with the session) before any item starts, here or on a worker."""
        if self.preflight is None:
            return
        failures = self.preflight.result()
        self.preflight = None
        if failures:
            from ..run.preflight import preflight_error

            raise pytest.UsageError(preflight_error(failures))

    def pytest_report_header(self, config: pytest.Config) -> list[str] | None:
        if not (self.active or names_a_suite(config.args, config.getini("vita_suite_patterns"))):
            return None
        from ..store import legacy_notice

        notice = legacy_notice(config.rootpath)
        bench = self.bench
        journal = [f"vitabench run {self.store.run_id}: journal {self.store.path}"] \
            if bench.shard is not None or bench.config.run_id else []
        return [*bench.header_lines(verbose=config.get_verbosity() > 0), *journal, *([notice] if notice else [])]

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._llm_dir is not None and os.path.isdir(self._llm_dir):
            shutil.rmtree(self._llm_dir, ignore_errors=True)
        super().pytest_unconfigure(config)

    def pytest_runtest_logreport(self, report: Any) -> None:
        payload = getattr(report, "vita_result", None)
        if payload is not None:
            from ..result import ItemResult

            self.arrived[report.nodeid] = (ItemResult.model_validate(payload), payload)
            self._show_progress(payload)
        elif report.failed and self.active:
            self.non_vita_failures += 1

    def _show_progress(self, payload: dict[str, Any]) -> None:
        config = self.config
        if config.get_verbosity() < 0:
            return
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if self.progress is None:
            from ..report.progress import Progress, parse_interval

            # Decided at the first result: the terminal reporter (is it a TTY?) exists by then.
            tty = bool(reporter is not None and getattr(reporter, "isatty", False))
            self.progress = Progress(parse_interval(self.bench.config.progress, tty=tty),
                                     started=self.started_monotonic)
            self.progress.planned = self.planned_items
        self.progress.add(payload)
        if reporter is not None and self.progress.due():
            # Under xdist pytest's dots track no current file: write_line alone would append to a row of dots.
            reporter.ensure_newline()
            if getattr(getattr(reporter, "_tw", None), "width_of_current_line", 0):
                reporter.write("\n")
            reporter.write_line(self.progress.line())

    def finish(self, session: pytest.Session) -> None:
        """Score, gate and report the run (``pytest_sessionfinish``, before junitxml writes its file)."""
        if not self.arrived:
            return
        from ..options.fail_under import parse_fail_under
        from ..report.failures import suite_subtask_data
        from ..report.json_report import write_report
        from ..report.outcome import complete_suite_hashes, gate_run, run_report, score_run
        from ..runs.session import run_metadata, write_run_summary
        from ..suite.fetch import suite_sources

        bench, config = self.bench, self.config
        run_config = bench.config
        arrived = [self.arrived[nodeid] for nodeid in sorted(self.arrived)]
        results = [result for result, _ in arrived]
        suites = complete_suite_hashes(self.suites, results)
        manifest = {**run_config.report_config(), "suites": suites,
                    "profile_summary": bench.profile_summary(), "suite_languages": self._suite_languages(suites),
                    "suite_sources": suite_sources(suites)}
        # K is --vita-trials whatever was selected or finished: a partial run does not shrink K.
        self.outcome = outcome = score_run(
            results, trials=run_config.trials, seed=run_config.seed, style=run_config.metrics_style,
            thresholds=parse_fail_under(run_config.fail_under) if run_config.fail_under else None,
            want_failures=bool(run_config.failures or run_config.report), config=manifest,
            subtask_data=suite_subtask_data(bench.runner.suite), baseline=run_config.baseline,
            fail_regression=run_config.fail_regression)
        session.exitstatus = gate_run(outcome, status=session.exitstatus, other_failures=self.non_vita_failures,
                                      scope=bench.shard.label if bench.shard is not None else None)
        counts = {"planned": sum(self.planned.values()), "completed": len(results),
                  "resumed": sum(1 for r in results if r.resumed)}
        # What `vitabench merge` needs beyond the journal: the report's config block and the usage.
        write_run_summary(self.store, config=manifest, usage=bench.ledger.to_dict(),
                          run={"id": self.store.run_id, **counts})
        if run_config.report:
            run = run_metadata(store=self.store, started=self.started, command=command(config),
                               rootdir=config.rootpath, **counts)
            report = run_report(outcome, manifest, run=run, usage=bench.ledger.to_dict(),
                                records=[payload for _, payload in arrived])
            config.hook.pytest_vitabench_report(report=report, config=config)
            write_report(run_config.report, report)
        self._add_junit_properties(outcome)
        self._github_outputs(outcome)

    def _suite_languages(self, suites: dict[str, str]) -> dict[str, str]:
        # As collected, else from the file's index (a few users tell the language), never validating it all.
        runner = self.bench.runner
        return {path: self.languages.get(path) or runner.language_for(runner.suite(path, lazy=True))
                for path in sorted(suites) if os.path.exists(path)}

    def _github_outputs(self, outcome: RunOutcome) -> None:
        from ..report.outcome import github_outputs

        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        github_outputs(outcome, config=self.bench.config.manifest(),
                       echo=reporter.write_line if reporter is not None else print,
                       warn=lambda message: warnings.warn(VitaSuiteWarning(message), stacklevel=1))

    def _add_junit_properties(self, outcome: RunOutcome) -> None:
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - private API moved
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is None:
            return
        run_config = self.bench.config
        xml.add_global_property("vita_model", run_config.model)
        xml.add_global_property("vita_profile", run_config.profile)
        from ..report.junit import suite_properties

        for name, value in suite_properties(outcome.metrics):
            xml.add_global_property(name, value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: Any) -> None:
        if self.outcome is None:
            return
        from ..report.outcome import summary_lines

        bench, store, write = self.bench, self.store, terminalreporter.write_line
        terminalreporter.section("VitaBench results")
        write(bench.header_lines()[0])
        planned, completed = sum(self.planned.values()), len(self.outcome.results)
        if bench.shard is not None:
            write(f"{bench.shard.label}: {completed} items of run {store.run_id} in {store.path}; "
                  "`vitabench merge` joins the shards into the run's report")
        elif planned and completed < planned:
            write(f"partial: {completed} of {planned} planned items (run {store.run_id}; "
                  f"--vita-resume completes it)", yellow=True)
        report = str(bench.config.report) if bench.config.report else None
        for line, markup in summary_lines(self.outcome, ledger=bench.ledger, show_failures=bench.config.failures,
                                          report=report):
            write(line, **({markup: True} if markup else {}))
