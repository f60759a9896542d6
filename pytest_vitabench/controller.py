"""The controller's side of a run: gather every item's result, score the run, gate it, report it.

:class:`VitaController` is registered as a plugin on the controller only (the process that runs pytest;
never an xdist worker), as pytest-xdist registers its ``DSession``. Each pytest session has its own, so a
pytest run nested inside another (pytester) keeps its results apart. It receives results as the
JSON-ready dict on each test report (``report.vita_result``), validates them once, and owns the metrics,
gates, JSON report, terminal summary and CI outputs.

It implements only hooks every pytest has; :mod:`pytest_vitabench.plugin` forwards the xdist hooks and
``pytest_sessionfinish`` (which must run before junitxml writes its file) to it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .result import ItemResult


class VitaController:
    """The results and verdicts of one run, on the controller.

    Args:
        config: The session's ``pytest.Config``; the run's settings and per-process state are read through
            the plugin's accessors when first needed, so a session without suites builds nothing.
    """

    def __init__(self, config: Any, *, state_of: Callable[[Any], Any], has_state: Callable[[Any], bool],
                 suite_warning: type[Warning]):
        self.config = config
        # The plugin's accessors are handed in (not imported) so that plugin -> controller stays one-way.
        self._state_of = state_of
        self._has_state = has_state
        self._suite_warning = suite_warning
        #: Each item's result by node id, validated from its light payload as it arrives: the controller
        #: waits on the workers meanwhile, and the end of the run is everyone's wait.
        self.arrived: dict[str, ItemResult] = {}
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
        #: Other gates (a regression check against a baseline) report into the exit status and the step
        #: summary: failure messages, and the regressions found (None: no baseline).
        self.gated = False  # another gate is on (even if it found nothing): the gate decides the exit status
        self.gate_failures: list[str] = []
        self.regressions: list[Any] | None = None
        self.gate_verdict: str | None = None
        self.analysis: Any = None
        self.report_written: str | None = None
        #: The preflight's failures, still being found (its requests run while the suite is collected).
        self.preflight: Future[list[str]] | None = None

    # -- the run's per-process state (built by the plugin on first use) ---------------------------------

    @property
    def state(self) -> Any:
        return self._state_of(self.config)

    @property
    def active(self) -> bool:
        """Whether this session runs a suite (the plugin built its state)."""
        return self._has_state(self.config)

    # -- results as they arrive ---------------------------------------------------------------------

    def pytest_runtest_logreport(self, report: Any) -> None:
        payload = getattr(report, "vita_result", None)
        if payload is not None:
            from .result import ItemResult

            self.arrived[report.nodeid] = ItemResult.model_validate(payload)
            self._show_progress(payload)
        elif report.failed and self.active:
            self.non_vita_failures += 1

    def record_crash(self, crashitem: str, report: Any) -> None:
        """xdist: a worker died while running ``crashitem``: record it as an error, once."""
        if not self.active or "[" not in crashitem:
            return
        from .runs.session import crashed_item_result

        state = self.state
        result = crashed_item_result(state.runner, state.store, crashitem, str(report.longrepr))
        report.vita_result = result.light()

    def _show_progress(self, payload: dict[str, Any]) -> None:
        config = self.config
        if config.get_verbosity() < 0:
            return
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if self.progress is None:
            from .report.progress import Progress, parse_interval

            # Decided at the first result: the terminal reporter (is it a TTY?) exists by then.
            tty = bool(reporter is not None and getattr(reporter, "isatty", False))
            self.progress = Progress(parse_interval(self.state.run_config.progress, tty=tty),
                                     started=self.started_monotonic)
            self.progress.planned = self.planned_items
        self.progress.add(payload)
        if reporter is not None and self.progress.due():
            # Under xdist pytest writes its dots without tracking a current file, so write_line alone would
            # append our line to a row of dots.
            reporter.ensure_newline()
            if getattr(getattr(reporter, "_tw", None), "width_of_current_line", 0):
                reporter.write("\n")
            reporter.write_line(self.progress.line())

    # -- the end of the session ---------------------------------------------------------------------

    def finish(self, session: Any, junit_xml: Any = None) -> None:
        """Score, gate and report the run (``pytest_sessionfinish``, before junitxml writes its file)."""
        if not self.active or not self.arrived:
            return
        from .metrics import compute_metrics
        from .report.json_report import build_report, write_report

        state, config = self.state, self.config
        run_config = state.run_config
        self.results = results = [result for _, result in sorted(self.arrived.items())]
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

        suites = complete_suite_hashes(state.suites, results)
        from .suite.fetch import suite_sources

        manifest = {**run_config.report_config(), "suites": suites,
                    "profile_summary": state.bench.profile_summary(), "suite_languages": self._suite_languages(suites),
                    "suite_sources": suite_sources(suites)}
        self._analyse(session, results, manifest)
        if self.thresholds is not None or self.gated or self.gate_failures:
            from .report.exit_policy import GateInputs, explain, gated_exit_status

            found = GateInputs(missed_thresholds=tuple(self.violations), gate_failures=tuple(self.gate_failures),
                               infrastructure_errors=sum(1 for r in results if r.outcome == "error"),
                               other_failures=self.non_vita_failures)
            session.exitstatus = gated_exit_status(int(session.exitstatus), found)
            self.gate_verdict = explain(int(session.exitstatus), found)
            if state.shard is not None:  # a shard's gate saw a part of the run, and must say so
                self.gate_verdict = (f"{state.shard.label}: {self.gate_verdict} (this shard's items only; gate the "
                                     "run with `vitabench merge ... --vita-fail-under`)")
            self._github_annotations(found)
        from .runs.session import run_metadata, write_run_summary

        counts = {"planned": sum(state.planned.values()), "completed": len(results),
                  "resumed": sum(1 for r in results if r.resumed)}
        # What `vitabench merge` needs beyond the journal: the report's config block and the usage.
        write_run_summary(state.store, config=manifest, usage=state.ledger.to_dict(),
                          run={"id": state.store.run_id, **counts})
        if run_config.report:
            run = run_metadata(store=state.store, started=state.started, command=command(config),
                               rootdir=config.rootpath, **counts)
            report = build_report(manifest, self.metrics, results, run=run)
            report["usage"] = state.ledger.to_dict()
            if self.analysis is not None:
                report["failures"] = self.analysis.failures
                if self.analysis.comparison is not None:
                    report["comparison"] = self.analysis.comparison.to_dict()
            config.hook.pytest_vitabench_report(report=report, config=config)
            write_report(run_config.report, report)
            self.report_written = str(run_config.report)
        self._add_junit_properties(junit_xml)
        self._github_step_summary()

    def _suite_languages(self, suites: dict[str, str]) -> dict[str, str]:
        # As collected (here, or on the xdist workers, which send theirs); else the controller indexes the
        # file (lazy: a few users tell the language), never validating it all.
        state = self.state
        runner = state.runner
        return {path: state.languages.get(path) or runner.language_for(runner.suite(path, lazy=True))
                for path in sorted(suites) if os.path.exists(path)}

    def _analyse(self, session: Any, results: list[ItemResult], manifest: dict[str, Any]) -> None:
        """Failure categories and the baseline comparison; the regression gate fails the session."""
        run_config = self.state.run_config
        if not (run_config.failures or run_config.report or run_config.baseline):
            return
        from .report.run_analysis import analyse_session, suite_subtask_data
        from .settings import run_scoped

        self.analysis = analyse_session(results, manifest, want_failures=run_config.failures or bool(run_config.report),
                                        subtask_data=suite_subtask_data(self.state.runner.suite),
                                        baseline=run_config.baseline, max_drop=run_config.fail_regression,
                                        seed=run_config.seed, ignored_settings=run_scoped())
        if run_config.baseline:
            self.regressions = list(self.analysis.regressions or [])
        if run_config.fail_regression is not None:
            self.gated = True  # the regression gate, like --vita-fail-under, decides the exit status
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

        markdown = step_summary(self.metrics, self.results, config=self.state.run_config.manifest(),
                                thresholds=self.threshold_outcomes or None, regressions=self.regressions,
                                verdict=self.gate_verdict)
        try:
            write_step_summary(path, markdown)
        except OSError as exc:
            warnings.warn(self._suite_warning(f"could not write GITHUB_STEP_SUMMARY {path}: {exc}"), stacklevel=1)

    def _add_junit_properties(self, xml: Any) -> None:
        if xml is None or self.metrics is None:
            return
        run_config = self.state.run_config
        xml.add_global_property("vita_model", run_config.model)
        xml.add_global_property("vita_profile", run_config.profile)
        from .report.junit import suite_properties

        for name, value in suite_properties(self.metrics):
            xml.add_global_property(name, value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: Any) -> None:
        if self.metrics is None:
            return
        from .report.terminal import render_table

        state, write = self.state, terminalreporter.write_line
        trials = state.run_config.trials
        results = self.results
        terminalreporter.section("VitaBench results")
        write(state.bench.header_lines()[0])
        planned, completed = sum(state.planned.values()), len(results)
        if state.shard is not None:
            write(f"{state.shard.label}: {completed} items of run {state.store.run_id} in {state.store.path}; "
                  "`vitabench merge` joins the shards into the run's report")
        elif planned and completed < planned:
            write(f"partial: {completed} of {planned} planned items (run {state.store.run_id}; "
                  f"--vita-resume completes it)", yellow=True)
        for line in render_table(self.metrics, results):
            write(line)
        if state.ledger.total().requests or state.ledger.total().cached_requests:
            for line in state.ledger.table_lines():
                write(line)
        if self.analysis is not None:
            from .report.run_analysis import summary_lines

            for line in summary_lines(self.analysis, show_failures=state.run_config.failures):
                write(line)
            if self.analysis.regression:
                write(f"REGRESSION: {self.analysis.regression}", red=True)
            elif state.run_config.fail_regression is not None:
                write(f"regression gate passed (allowed drop {state.run_config.fail_regression})", green=True)
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
                scope = f" ({state.shard.label})" if state.shard is not None else ""
                for message in self.violations:
                    write(f"FAIL-UNDER{scope}: {message}", red=True)
            else:
                write("fail-under thresholds met", green=True)
        if self.gate_verdict:
            write(self.gate_verdict, bold=True)


def command(config: Any) -> list[str]:
    """The command line that started the run, as recorded in the report and the run manifest; a URL that
    carries credentials (``--vita-limits-url redis://:password@host``) is recorded without them."""
    from .llm.secrets import redact_url

    return ["pytest", *(redact_url(arg) if "://" in arg and "@" in arg else arg
                        for arg in map(str, config.invocation_params.args))]
