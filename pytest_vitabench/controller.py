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
    from .result import ItemResult

#: Role options whose default is offline; any other value names an LLM, so a preflight may be due.
_OFFLINE_ROLE_DEFAULTS = {"vita_model": "reference", "vita_user_model": "scripted", "vita_judge_model": "rules",
                          "vita_memory_model": None}


class VitaController(VitaSession):
    """The results and verdicts of one run, on the controller."""

    def __init__(self, config: pytest.Config):
        super().__init__(config)
        #: Each item's result (validated as it arrives, not at the end) and its payload, by node id.
        self.arrived: dict[str, tuple[ItemResult, dict[str, Any]]] = {}
        self.results: list[ItemResult] = []
        self.non_vita_failures = 0
        self.started_monotonic: float | None = None
        self.planned_items: int | None = None
        self.progress: Any = None
        self.metrics: dict[str, Any] | None = None
        self.thresholds: Any = None
        self.threshold_outcomes: list[Any] = []
        self.violations: list[str] = []
        #: The k the thresholds were checked at (fewer than --vita-trials when fewer trials ran).
        self.gate_k: int | None = None
        #: Another gate (the baseline's regression check) is on, even if it found nothing: it decides the exit status.
        self.gated = False
        self.gate_failures: list[str] = []
        self.regressions: list[Any] | None = None
        self.gate_verdict: str | None = None
        self.analysis: Any = None
        self.report_written: str | None = None
        #: The preflight's failures, still being found (its requests run while the suite is collected).
        self.preflight: Future[list[str]] | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKER_LLM_DIR] = self.llm_state_dir()
        node.workerinput[WORKER_RUN_DIR] = str(self.store.path)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Keep 2 x --vita-concurrency items queued on each worker (engine/xdist_queue.py)."""
        if getattr(config.option, "dist", "load") != "load" or self.bench.concurrency <= 1:
            return None
        from .engine.xdist_queue import make_deep_load_scheduler

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
        from .runs.session import crashed_item_result

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
            from .report.progress import large_suite_files

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
        if self.active or any(self.option(ini) not in (None, "", default)
                              for ini, default in _OFFLINE_ROLE_DEFAULTS.items()):
            if self.bench.config.preflight == "on" and self.bench.needs_llm:
                from .preflight import start_checks

                self.preflight = start_checks(self.bench)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Wait for the preflight (started with the session) before any item starts, here or on a worker."""
        if self.preflight is None:
            return
        failures = self.preflight.result()
        self.preflight = None
        if failures:
            from .preflight import preflight_error

            raise pytest.UsageError(preflight_error(failures))

    def pytest_report_header(self, config: pytest.Config) -> list[str] | None:
        if not (self.active or names_a_suite(config.args, config.getini("vita_suite_patterns"))):
            return None
        from .store import legacy_notice

        notice = legacy_notice(config.rootpath)
        bench = self.bench
        journal = [f"vitabench run {self.store.run_id}: journal {self.store.path}"] \
            if bench.shard is not None or bench.config.run_id else []
        return [*bench.header_lines(), *journal, *([notice] if notice else [])]

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._llm_dir is not None and os.path.isdir(self._llm_dir):
            shutil.rmtree(self._llm_dir, ignore_errors=True)
        super().pytest_unconfigure(config)

    def pytest_runtest_logreport(self, report: Any) -> None:
        payload = getattr(report, "vita_result", None)
        if payload is not None:
            from .result import ItemResult

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
            from .report.progress import Progress, parse_interval

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
        from .metrics import compute_metrics
        from .report.json_report import build_report, write_report

        bench, config = self.bench, self.config
        run_config = bench.config
        arrived = [self.arrived[nodeid] for nodeid in sorted(self.arrived)]
        self.results = results = [result for result, _ in arrived]
        # K is --vita-trials whatever was selected or finished: a partial run does not shrink K.
        self.metrics = compute_metrics(results, k=run_config.trials, seed=run_config.seed,
                                       style=run_config.metrics_style, trials=run_config.trials)
        if run_config.fail_under:
            from .report.thresholds import check_thresholds, gate_metrics, parse_fail_under

            self.thresholds = parse_fail_under(run_config.fail_under)
            checked, self.gate_k = gate_metrics(results, self.metrics, trials=run_config.trials, seed=run_config.seed)
            self.threshold_outcomes = check_thresholds(self.thresholds, checked, results)
            self.violations = [o.message for o in self.threshold_outcomes if o.status == "missed"]
        from .report.run_analysis import complete_suite_hashes

        suites = complete_suite_hashes(self.suites, results)
        from .suite.fetch import suite_sources

        manifest = {**run_config.report_config(), "suites": suites,
                    "profile_summary": bench.profile_summary(), "suite_languages": self._suite_languages(suites),
                    "suite_sources": suite_sources(suites)}
        self._analyse(session, results, manifest)
        if self.thresholds is not None or self.gated or self.gate_failures:
            from .report.exit_policy import GateInputs, explain, gated_exit_status

            found = GateInputs(missed_thresholds=tuple(self.violations), gate_failures=tuple(self.gate_failures),
                               infrastructure_errors=sum(1 for r in results if r.outcome == "error"),
                               other_failures=self.non_vita_failures)
            session.exitstatus = gated_exit_status(int(session.exitstatus), found)
            self.gate_verdict = explain(int(session.exitstatus), found)
            if bench.shard is not None:  # a shard's gate saw a part of the run, and must say so
                self.gate_verdict = (f"{bench.shard.label}: {self.gate_verdict} (this shard's items only; gate the "
                                     "run with `vitabench merge ... --vita-fail-under`)")
            self._github_annotations(found)
        from .runs.session import run_metadata, write_run_summary

        counts = {"planned": sum(self.planned.values()), "completed": len(results),
                  "resumed": sum(1 for r in results if r.resumed)}
        # What `vitabench merge` needs beyond the journal: the report's config block and the usage.
        write_run_summary(self.store, config=manifest, usage=bench.ledger.to_dict(),
                          run={"id": self.store.run_id, **counts})
        if run_config.report:
            run = run_metadata(store=self.store, started=self.started, command=command(config),
                               rootdir=config.rootpath, **counts)
            report = build_report(manifest, self.metrics, results, run=run,
                                  records=[payload for _, payload in arrived])
            report["usage"] = bench.ledger.to_dict()
            if self.analysis is not None:
                report["failures"] = self.analysis.failures
                if self.analysis.comparison is not None:
                    report["comparison"] = self.analysis.comparison.to_dict()
            config.hook.pytest_vitabench_report(report=report, config=config)
            write_report(run_config.report, report)
            self.report_written = str(run_config.report)
        self._add_junit_properties()
        self._github_step_summary()

    def _suite_languages(self, suites: dict[str, str]) -> dict[str, str]:
        # As collected, else from the file's index (a few users tell the language), never validating it all.
        runner = self.bench.runner
        return {path: self.languages.get(path) or runner.language_for(runner.suite(path, lazy=True))
                for path in sorted(suites) if os.path.exists(path)}

    def _analyse(self, session: Any, results: list[ItemResult], manifest: dict[str, Any]) -> None:
        """Failure categories and the baseline comparison; the regression gate fails the session."""
        run_config = self.bench.config
        if not (run_config.failures or run_config.report or run_config.baseline):
            return
        from .report.run_analysis import analyse_session, suite_subtask_data
        from .settings import run_scoped

        self.analysis = analyse_session(results, manifest, want_failures=run_config.failures or bool(run_config.report),
                                        subtask_data=suite_subtask_data(self.bench.runner.suite),
                                        baseline=run_config.baseline, max_drop=run_config.fail_regression,
                                        seed=run_config.seed, ignored_settings=run_scoped())
        if run_config.baseline:
            self.regressions = list(self.analysis.regressions or [])
        if run_config.fail_regression is not None:
            self.gated = True
        if self.analysis.regression:
            self.gate_failures.append(f"regression against the baseline: {self.analysis.regression}")

    def _github_annotations(self, found: Any) -> None:
        if os.environ.get("GITHUB_ACTIONS") != "true":
            return
        from .report.github import error_annotations

        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        for line in error_annotations(found.missed_thresholds, found.gate_failures, found.infrastructure_errors):
            if reporter is not None:
                reporter.write_line(line)
            else:  # pragma: no cover - -p no:terminal
                print(line)

    def _github_step_summary(self) -> None:
        path = os.environ.get("GITHUB_STEP_SUMMARY")
        if not path or self.metrics is None:
            return
        from .report.github import step_summary, write_step_summary

        markdown = step_summary(self.metrics, self.results, config=self.bench.config.manifest(),
                                thresholds=self.threshold_outcomes or None, regressions=self.regressions,
                                verdict=self.gate_verdict)
        try:
            write_step_summary(path, markdown)
        except OSError as exc:
            warnings.warn(VitaSuiteWarning(f"could not write GITHUB_STEP_SUMMARY {path}: {exc}"), stacklevel=1)

    def _add_junit_properties(self) -> None:
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - private API moved
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is None or self.metrics is None:
            return
        run_config = self.bench.config
        xml.add_global_property("vita_model", run_config.model)
        xml.add_global_property("vita_profile", run_config.profile)
        from .report.junit import suite_properties

        for name, value in suite_properties(self.metrics):
            xml.add_global_property(name, value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: Any) -> None:
        if self.metrics is None:
            return
        from .report.terminal import render_table

        bench, store, write = self.bench, self.store, terminalreporter.write_line
        trials = bench.config.trials
        results = self.results
        terminalreporter.section("VitaBench results")
        write(bench.header_lines()[0])
        planned, completed = sum(self.planned.values()), len(results)
        if bench.shard is not None:
            write(f"{bench.shard.label}: {completed} items of run {store.run_id} in {store.path}; "
                  "`vitabench merge` joins the shards into the run's report")
        elif planned and completed < planned:
            write(f"partial: {completed} of {planned} planned items (run {store.run_id}; "
                  f"--vita-resume completes it)", yellow=True)
        for line in render_table(self.metrics, results):
            write(line)
        if bench.ledger.total().requests or bench.ledger.total().cached_requests:
            for line in bench.ledger.table_lines():
                write(line)
        if self.analysis is not None:
            from .report.run_analysis import summary_lines

            for line in summary_lines(self.analysis, show_failures=bench.config.failures):
                write(line)
            if self.analysis.regression:
                write(f"REGRESSION: {self.analysis.regression}", red=True)
            elif bench.config.fail_regression is not None:
                write(f"regression gate passed (allowed drop {bench.config.fail_regression})", green=True)
        if self.report_written:
            write(f"JSON report: {self.report_written}")
        if self.thresholds is not None:
            if self.gate_k is not None and self.gate_k < trials:
                write(f"fail-under: checked at k={self.gate_k}, the trials this run executed (the table keeps "
                      f"k={trials})", yellow=True)
            for outcome in self.threshold_outcomes:
                if outcome.status == "not_checked":
                    write(f"fail-under: {outcome.message}", yellow=True)
            if self.violations:
                scope = f" ({bench.shard.label})" if bench.shard is not None else ""
                for message in self.violations:
                    write(f"FAIL-UNDER{scope}: {message}", red=True)
            else:
                write("fail-under thresholds met", green=True)
        if self.gate_verdict:
            write(self.gate_verdict, bold=True)
