"""One VitaBench run in one process: :class:`VitaSession`, the plugin object that owns the run's state.

It builds nothing until a suite is collected or a ``--vita-*`` option is given. At module level it imports only
pytest, the standard library and the option declarations (standard library only), so a session without suites
stays as cheap as pytest alone; the run core is reached at one seam, :func:`run_core`, the adapter's only import
of it (as pytest-xdist's plugin imports ``DSession`` once, when ``-n`` is given)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..options.settings import GROUPS

if TYPE_CHECKING:
    from ..result import ItemResult
    from ..run.core import RunCore
    from ..run.engine.run import RunEngine
    from ..run.runner import ItemJob
    from ..run.wiring import Benchmark
    from ..runs.store import RunStore
    from ..suite.loader import LoadedSuite, LoadedUser

#: What the controller hands each xdist worker (``workerinput``) and each worker sends back (``workeroutput``).
WORKER_LLM_DIR = "vita_llm_state_dir"
WORKER_RUN_DIR = "vita_run_dir"
WORKER_LEDGER = "vita_llm_ledger"
WORKER_PLANNED = "vita_planned"
WORKER_LANGUAGES = "vita_languages"
#: The roles an item's fixture hands in; running ahead reuses them, so they must be session-scoped.
ROLE_FIXTURES = ("vita_agent", "vita_user_simulator", "vita_judge")


def run_core() -> type[RunCore]:
    """The seam: the adapter's one import of the run core (:class:`~pytest_vitabench.run.core.RunCore`)."""
    from ..run.core import RunCore

    return RunCore


class VitaSuiteWarning(pytest.PytestWarning):
    """Questionable but usable suite data (blank times with a fallback, out-of-order history, unknown keys)."""


@dataclass
class ItemRef:
    """Which subtask of which user an item runs, with which memory backend and trial."""

    user: LoadedUser
    index: int
    memory: str
    trial: int


def _user_of(item: pytest.Item) -> tuple[str, str]:
    """The user an item runs, as results name it (``(suite, user_id)``); other tests sort first, as one user."""
    ref: ItemRef | None = getattr(item, "vita_ref", None)
    return (str(item.path), ref.user.key) if ref is not None else ("", "")


class VitaSession:
    """The run's state and hooks in one process (the controller without xdist, or an xdist worker)."""

    NAME = "vitabench-session"

    def __init__(self, config: pytest.Config):
        self.config = config
        self.worker_input: dict[str, Any] | None = getattr(config, "workerinput", None)
        self._core: RunCore | None = None
        #: Suite path -> its sha256, as collected.
        self.suites: dict[str, str] = {}
        #: Suite path -> its prompt language, as collection found it (xdist workers send theirs).
        self.languages: dict[str, str] = {}
        #: Items each collected suite file holds in all (subtasks x backends x trials), whatever is selected.
        self.planned: dict[str, int] = {}
        #: The selected items before and after this shard took its share (``None`` until collected).
        self.shard_split: tuple[int, int] | None = None
        self.started = time.time()
        self._llm_dir: str | None = None
        self._engine: RunEngine | None = None
        self._items: dict[str, Any] = {}
        self._ordered: list[str] = []
        self._positions: dict[str, int] = {}
        self._interactor: Any = None
        #: Users whose validation warnings were shown (once per process), by ``id``: they live all run.
        self._warned_users: set[int] = set()
        self._scope_warned = False
        # The real stderr, taken now: pytest captures file descriptor 2 while items and collectors run, and a
        # retry line must reach the terminal while it happens (see pytest_vitabench.llm.notices).
        self._stderr_fd: int | None = None
        with contextlib.suppress(OSError):
            self._stderr_fd = os.dup(2)

    @property
    def is_worker(self) -> bool:
        return self.worker_input is not None

    @property
    def writer(self) -> str:
        """This process's journal name: ``gw0``, ``gw1``... on an xdist worker, ``main`` on the controller (read
        from the config, not the environment, which a pytest run inside a worker inherits)."""
        return str(self.worker_input.get("workerid") or "worker") if self.worker_input is not None else "main"

    @property
    def active(self) -> bool:
        return self._core is not None

    @property
    def core(self) -> RunCore:
        """The run in this process, built at its first use; building it checks every setting (a bad one is a
        usage error, before any item)."""
        if self._core is None:
            config = self.config
            try:
                self._core = run_core()(self.option, rootdir=config.rootpath, state_dir=self.llm_state_dir(),
                                        run_dir=(self.worker_input or {}).get(WORKER_RUN_DIR), writer=self.writer,
                                        selection=self.selection, invocation_dir=config.invocation_params.dir)
            except ValueError as exc:  # pydantic's ValidationError, MissingAPIKey and ResumeError are ValueErrors
                raise pytest.UsageError(f"pytest-vitabench: {exc}") from None
            self._show_retries()
        return self._core

    def _show_retries(self) -> None:
        fd = self._stderr_fd
        if fd is None or self.config.get_verbosity() < -1 or self._core is None:
            return

        def write(line: str) -> None:
            with contextlib.suppress(OSError):
                os.write(fd, (line + "\n").encode("utf-8", "replace"))

        self._core.show_retries(write)

    @property
    def bench(self) -> Benchmark:
        """The run's wiring (agents, users, judges, memory backends, the LLM client and its ledger)."""
        return self.core.bench

    @property
    def store(self) -> RunStore:
        """The run directory (a new run, the resumed one, or the one the controller chose for this worker)."""
        return self.core.store

    def option(self, ini: str) -> Any:
        value = self.config.getoption(ini)
        if ini.removeprefix("vita_") in GROUPS:  # KEY=VALUE pairs: the ini file's first, the command line's over them
            return [*self.config.getini(ini), *(value or [])]
        return self.config.getini(ini) if value is None else value

    def llm_state_dir(self) -> str:
        """The directory that coordinates LLM limits across the run's processes (named by the controller)."""
        if self._llm_dir is None:
            self._llm_dir = str((self.worker_input or {}).get(WORKER_LLM_DIR) or os.path.join(
                tempfile.gettempdir(), f"vitabench-run-{os.getpid()}-{uuid.uuid4().hex[:8]}"))
        return self._llm_dir

    def selection(self) -> dict[str, Any]:
        """What the command line selected: paths, ``-k``, ``-m``, ``--deselect`` (the manifest's, the run id's)."""
        config = self.config
        return {"args": list(config.args), "keyword": config.getoption("keyword", "") or "",
                "markexpr": config.getoption("markexpr", "") or "",
                "deselect": list(config.getoption("deselect", None) or [])}

    def collect_suite(self, path: Any, nodeid: str) -> LoadedSuite:
        """Index a collected suite file and count what it plans (its users are validated as items need them)."""
        core = self.core
        if not self.is_worker:
            size = path.stat().st_size
            if size >= core.LARGE_SUITE_BYTES:
                self.announce_large_suite(nodeid, size)
        suite, language, planned = core.collect_suite(path)
        self.suites[str(path)] = suite.sha256
        self.languages[str(path)] = language
        self.planned[str(path)] = planned
        if self.writer in ("main", "gw0"):  # under xdist every worker collects; one of them is enough to warn
            for message in suite.warnings:
                warnings.warn(VitaSuiteWarning(message), stacklevel=1)
        return suite

    def announce_large_suite(self, path: str, size: int) -> None:
        """Say that the wait is the suite loading; pytest captures output during collection, and this line is
        for the person waiting, so it bypasses that."""
        config = self.config
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or config.get_verbosity() < 0:
            return
        capture = config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            reporter.write_line(f"vitabench: collecting {path} ({size / 1e6:.1f} MB): loading and validating the "
                                "suite takes a few seconds per process")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """``--vita-shard``: keep this shard's chains (after ``-k``/``-m``, so every shard splits the same set);
        ``--vita-early-stop``: users interleaved, so that the gate's verdict comes early."""
        if not self.active:
            return
        if self.bench.shard is not None:
            self._take_share(config, items)
        if self.bench.config.early_stop != "off":
            workers = int((self.worker_input or {}).get("workercount", 1) or 1)
            items[:] = self.core.early_stop_order(items, user_of=_user_of, workers=workers)

    def _take_share(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        def chain_of(item: pytest.Item) -> tuple[tuple[str, str, str], int] | None:
            ref: ItemRef | None = getattr(item, "vita_ref", None)
            if ref is None:
                return None
            span = ref.user.span
            # The file as the node id names it (relative to the rootdir): the same on every machine, wherever
            # the checkout is, so the tie-breaks of the split agree too.
            return (item.nodeid.split("::", 1)[0], ref.user.key, ref.memory), (span[1] - span[0] if span else 0)

        share = self.core.take_share(items, chain_of)
        self.shard_split = (share.selected_in_run, share.selected_here)
        if share.dropped:
            config.hook.pytest_deselected(items=share.dropped)
        items[:] = share.kept

    def item_result(self, item: Any, roles: tuple[Any, Any, Any]) -> ItemResult:
        """The item's result: saved by the resumed run, run inline, or awaited from the scheduler.

        Raises:
            SuiteError: The item's user has invalid data: not a result, the item errors like a collection
                error and stays out of the metrics (the run is then partial).
        """
        ref: ItemRef = item.vita_ref
        suite = self.core.suite(item.path)
        if id(ref.user) not in self._warned_users:
            self.core.validate_user(suite, ref.user)
            self._warned_users.add(id(ref.user))
            for message in ref.user.warnings:
                warnings.warn(VitaSuiteWarning(message), stacklevel=1)
        if ref.user.error is not None:
            raise ref.user.error
        engine = self.engine(item.session)
        saved = engine.saved_result(item.nodeid, suite.sha256)
        if saved is not None:
            return saved
        if engine.concurrency <= 1 or not self._session_scoped_roles(item):
            return engine.run(self._job(item, roles))
        session = item.session
        scheduler = engine.scheduler(job_for=lambda nodeid: self._job(self._items[nodeid], roles),
                                     upcoming=lambda nodeid: self._upcoming(session, nodeid),
                                     should_stop=lambda: bool(session.shouldfail or session.shouldstop))
        return scheduler.result(item.nodeid)

    def _job(self, item: Any, roles: tuple[Any, Any, Any]) -> ItemJob:
        ref: ItemRef = item.vita_ref
        return self.core.job(item.nodeid, item.path, ref.user, ref.index, ref.memory, ref.trial, roles)

    def engine(self, session: pytest.Session) -> RunEngine:
        """The process's run engine, built when its first item starts (the session's items are final then)."""
        if self._engine is None:
            core = self.core
            bench = core.bench
            self._items = {i.nodeid: i for i in session.items if hasattr(i, "vita_ref")}
            self._ordered = list(self._items)
            self._positions = {nodeid: n for n, nodeid in enumerate(self._ordered)}

            def manifest() -> None:
                selection = {"planned": sum(self.planned.values()), "selected": len(self._items), **self.selection()}
                if bench.shard is not None and self.shard_split is not None:
                    selection["shard"] = {"index": bench.shard.index, "count": bench.shard.count,
                                          "source": bench.shard.source, "selected_in_run": self.shard_split[0]}
                core.write_manifest(suites=dict(self.suites), selection=selection, command=self.command(),
                                    selected=list(self._items))

            self._engine = core.engine(manifest=manifest)
            if bench.config.judge_batch:
                # Items wait for batches before anything is journaled: the run must be resumable from the first
                # submitted batch on, so that --vita-resume finds its journal (batches/) after a crash.
                manifest()
        return self._engine

    def _upcoming(self, session: pytest.Session, nodeid: str) -> Iterator[str]:
        """The node ids this process will run from ``nodeid`` on (on an xdist worker: those queued for it)."""
        if not self.is_worker:
            yield from self._ordered[self._positions.get(nodeid, len(self._ordered)):]
            return
        from .xdist_queue import find_worker_interactor, worker_queue

        if self._interactor is None:
            self._interactor = find_worker_interactor(self.config)
        yield nodeid
        for index in worker_queue(self._interactor):
            if 0 <= index < len(session.items) and hasattr(session.items[index], "vita_ref"):
                yield session.items[index].nodeid

    def _session_scoped_roles(self, item: Any) -> bool:
        """Running ahead reuses the first item's agent, user simulator and judge for the items that follow,
        which is only right when those fixtures are session-scoped (the plugin's are; a conftest may narrow them)."""
        definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        for name in ROLE_FIXTURES:
            chain = definitions.get(name)
            if chain and chain[-1].scope != "session":
                if not self._scope_warned:
                    self._scope_warned = True
                    warnings.warn(VitaSuiteWarning(f"{name} is {chain[-1].scope}-scoped: items run one at a time "
                                                   "(--vita-concurrency needs session-scoped roles)"), stacklevel=1)
                return False
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item) -> Iterator[None]:
        report: Any = yield
        not_run = getattr(item, "vita_not_run", None)
        if not_run is not None and report.when == "setup":
            report.vita_not_run = not_run  # the controller names it apart from skips (xdist carries it over)
        result: ItemResult | None = getattr(item, "vita_result", None)
        if result is not None and (report.when == "call" or report.outcome != "passed"):
            report.vita_result = result.light()
            # Dropped once reported: a worker holding every item's trajectory would grow with every item.
            item.vita_result = None  # type: ignore[attr-defined]
        return report

    @pytest.hookimpl(wrapper=True, specname="pytest_sessionstart")
    def pytest_sessionstart_warm_up(self, session: pytest.Session) -> Iterator[None]:
        """An xdist worker whose roles call an LLM imports the ``openai`` package in the background while it
        collects (once every other ``pytest_sessionstart`` ran)."""
        yield
        if self.active and self.is_worker and self.bench.needs_llm and not self.config.option.collectonly:
            self.bench.llm_client().warm_up_in_background()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Close the engine, then hand on what the run found (tryfirst: before junitxml writes its file)."""
        if not self.active:
            return
        if self._engine is not None:
            self._engine.close()
        self.finish(session)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        config.pluginmanager.unregister(self, self.NAME)
        if self._stderr_fd is not None:
            if self._core is not None:
                self._core.show_retries(None)
            with contextlib.suppress(OSError):
                os.close(self._stderr_fd)
            self._stderr_fd = None

    def finish(self, session: pytest.Session) -> None:
        """An xdist worker's end: send the controller its LLM usage, planned items and suite languages."""
        output: dict[str, Any] = getattr(self.config, "workeroutput", {})
        output[WORKER_LEDGER] = self.bench.ledger.to_dict()
        output[WORKER_PLANNED] = dict(self.planned)
        output[WORKER_LANGUAGES] = dict(self.languages)

    def command(self) -> list[str]:
        """The command line that started the run, as the report and the run manifest record it."""
        return self.core.command(self.config.invocation_params.args)


def names_a_suite(args: Iterable[str], patterns: Iterable[str]) -> bool:
    """Whether a command-line path is a suite file or a directory holding one (one level deep); cheap, as
    pytest asks it in every session."""
    for arg in args:
        path = str(arg).split("::", 1)[0]
        if path.endswith((".json", ".json.gz")):
            return True
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                candidates = [name for name in files if name.endswith((".json", ".json.gz"))]
                if candidates:  # only then: a session without JSON files imports nothing more
                    return any(is_suite_file(Path(root) / name, list(patterns)) for name in candidates)
                break
    return False


def is_suite_file(path: Path, patterns: list[str], *, named: bool = False) -> bool:
    """Whether pytest collects ``path`` as a suite (:func:`~pytest_vitabench.suite.discovery.is_suite_file`):
    the rule is a light leaf of the package, imported here, outside the seam, because pytest asks it of every
    ``.json`` file of every project it runs in, with suites or without."""
    from ..suite.discovery import is_suite_file as rule

    return rule(path, patterns, named=named)
