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
from typing import TYPE_CHECKING, Any

import pytest

from ..options.settings import spec
from .session import (
    WORKER_LANGUAGES,
    WORKER_LEDGER,
    WORKER_LLM_DIR,
    WORKER_PLANNED,
    WORKER_RUN_DIR,
    VitaSession,
    VitaSuiteWarning,
    names_a_suite,
    run_core,
)

try:
    from _pytest.junitxml import xml_key
except ImportError:  # pragma: no cover - private API moved
    xml_key = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from concurrent.futures import Future

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
        #: The items the run never started, with the reason (``budget``...), by node id.
        self.not_run: dict[str, str] = {}
        self.started_monotonic: float | None = None
        self.planned_items: int | None = None
        #: The node ids the session selected (after -k, -m, --lf, a shard...): the metrics' k comes from them.
        self.selected_ids: list[str] = []
        self._early_off_said = False
        #: Under xdist, the node ids the first worker collected, until the resume line is written.
        self._resume_ids: list[str] | None = None
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
        if self.planned_items is None and self.active:
            self._resume_ids = list(ids)
        self.planned_items = len(ids)
        self.selected_ids = list(ids)  # each worker collects the same selection

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.planned_items = len(session.items)
        if session.items:
            self.selected_ids = [item.nodeid for item in session.items]

    def pytest_report_collectionfinish(self, config: pytest.Config, items: list[pytest.Item]) -> list[str]:
        if not self.active:
            return []
        ids = [item.nodeid for item in items]
        return [line for line in (self.core.resume_line(ids), self._budget_line(ids)) if line]

    def _budget_line(self, ids: list[str]) -> str | None:
        return None if self.config.option.collectonly else self.core.budget_line(ids)

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        """Under xdist the controller collects nothing: the resume line waits for the first item to start,
        after xdist's status lines."""
        ids, self._resume_ids = self._resume_ids, None
        lines = [self.core.resume_line(ids), self._budget_line(ids)] if ids is not None else []
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        for line in lines:
            if line and reporter is not None:
                reporter.ensure_newline()
                reporter.write_line(line)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any) -> None:
        """A worker died while running ``crashitem``: record it as an error, once."""
        if not self.active or "[" not in crashitem:
            return
        result = self.core.crashed_item(crashitem, str(report.longrepr))
        report.vita_result = result.light()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        config = self.config
        self.started_monotonic = time.monotonic()
        if config.option.collectonly:
            return
        if getattr(config.option, "numprocesses", None) and config.get_verbosity() >= 0:
            # xdist workers collect out of sight: say here that the wait is the suite loading
            patterns = list(config.getini("vita_suite_patterns"))
            for path, size in run_core().large_suite_files(config.args, config.invocation_params.dir, patterns):
                self.announce_large_suite(path, size)

    @pytest.hookimpl(wrapper=True, specname="pytest_sessionstart")
    def pytest_sessionstart_preflight(self, session: pytest.Session) -> Iterator[None]:
        """Start the preflight in the background after every other ``pytest_sessionstart`` (xdist's spawning
        of workers): its thread imports ``openai``, which holds the interpreter lock and would delay them."""
        yield
        if self.config.option.collectonly:
            return
        if self.active or any(self.option(spec(name).ini) not in (None, "", spec(name).default) for name in _ROLES):
            self.preflight = self.core.start_preflight()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Wait for the preflight (started with the session) before any item starts, here or on a worker."""
        if self.preflight is None:
            return
        failures = self.preflight.result()
        self.preflight = None
        if failures:
            raise pytest.UsageError(run_core().preflight_error(failures))

    def pytest_report_header(self, config: pytest.Config) -> list[str] | None:
        if not (self.active or names_a_suite(config.args, config.getini("vita_suite_patterns"))):
            return None
        return self.core.header(verbose=config.get_verbosity() > 0)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._llm_dir is not None and os.path.isdir(self._llm_dir):
            shutil.rmtree(self._llm_dir, ignore_errors=True)
        super().pytest_unconfigure(config)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: Any, config: pytest.Config) -> Any:
        """An item whose episode failed for infrastructure reasons is an error (``E``), raised in its call."""
        payload = getattr(report, "vita_result", None)
        if report.when == "call" and report.failed and isinstance(payload, dict) and payload.get("outcome") == "error":
            return "error", "E", ("ERROR", {"red": True})
        return None

    def pytest_runtest_logreport(self, report: Any) -> None:
        payload = getattr(report, "vita_result", None)
        not_run = getattr(report, "vita_not_run", None)
        if payload is not None:
            self.arrived[report.nodeid] = (run_core().result_from(payload), payload)
            self._show_progress(payload)
            decision = self.core.early_stop(self.arrived, self.selected_ids, self.not_run)
            if self.core.early_stop_off and not self._early_off_said:
                self._early_off_said = True
                self._say(f"vitabench: {self.core.early_stop_off}")
            if decision is not None:
                self._say(f"vitabench early stop: {decision.reason}; the gate "
                          f"{'passes' if decision.passes else 'fails'} whatever the rest do, so the items not "
                          "started yet are not run: decided")
        elif not_run is not None:
            self.not_run[report.nodeid] = not_run
            self._show_progress(None, not_run=not_run)
        elif report.failed and self.active:
            self.non_vita_failures += 1

    def _show_progress(self, payload: dict[str, Any] | None, *, not_run: str | None = None) -> None:
        config = self.config
        if config.get_verbosity() < 0:
            return
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if self.progress is None:
            # Decided at the first result: the terminal reporter (is it a TTY?) exists by then.
            tty = bool(reporter is not None and getattr(reporter, "isatty", False))
            self.progress = self.core.progress(tty=tty, started=self.started_monotonic)
            self.progress.planned = self.planned_items
        if payload is not None:
            self.progress.add(payload)
        else:
            self.progress.add_not_run(not_run or "")
        if reporter is not None and self.progress.due():
            _new_line(reporter)
            reporter.write_line(self.progress.line())

    def _say(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            _new_line(reporter)
            reporter.write_line(line)

    def finish(self, session: pytest.Session) -> None:
        """Score, gate and report the run (``pytest_sessionfinish``, before junitxml writes its file)."""
        if not self.arrived and not self.not_run:
            return
        core, config = self.core, self.config
        arrived = [self.arrived[nodeid] for nodeid in sorted(self.arrived)]
        outcome, manifest = core.score(arrived, suites=self.suites, languages=self.languages,
                                       selected=self.selected_ids, not_run=self.not_run)
        self.outcome = outcome
        session.exitstatus = core.gate(outcome, status=session.exitstatus, other_failures=self.non_vita_failures)
        core.record(outcome, manifest, [payload for _, payload in arrived], planned=sum(self.planned.values()),
                    started=self.started, command=self.command(),
                    on_report=lambda report: config.hook.pytest_vitabench_report(report=report, config=config))
        self._add_junit_properties(outcome)
        self._github_outputs(outcome)

    def _github_outputs(self, outcome: RunOutcome) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        self.core.github_outputs(outcome, echo=reporter.write_line if reporter is not None else print,
                                 warn=lambda message: warnings.warn(VitaSuiteWarning(message), stacklevel=1))

    def _add_junit_properties(self, outcome: RunOutcome) -> None:
        xml = self.config.stash.get(xml_key, None) if xml_key is not None else None
        if xml is None:
            return
        for name, value in self.core.junit_properties(outcome):
            xml.add_global_property(name, value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: Any) -> None:
        if self.outcome is None:
            return
        terminalreporter.section("VitaBench results")
        for line, markup in self.core.summary(self.outcome, planned=sum(self.planned.values())):
            terminalreporter.write_line(line, **({markup: True} if markup else {}))


def _new_line(reporter: Any) -> None:
    """Start a line of our own: under xdist pytest's dots track no current file, so ``write_line`` alone would
    append to a row of dots."""
    reporter.ensure_newline()
    if getattr(getattr(reporter, "_tw", None), "width_of_current_line", 0):
        reporter.write("\n")
