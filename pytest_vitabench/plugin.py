"""The pytest plugin: options, suite collection, items and fixtures.

Import-light by design: pytest loads this module in every session, so it imports only pytest and the
standard library at module level and does nothing until a suite file is collected. The options come from
the one declaration in :mod:`pytest_vitabench.settings`. Results travel from xdist workers to the
controller as a JSON-ready dict on the test report (``report.vita_result``); only the controller's
:class:`~pytest_vitabench.controller.VitaController` (registered on the controller alone) aggregates,
prints the table and writes the JSON report.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .config import RunConfig
    from .controller import VitaController
    from .result import ItemResult
    from .suite.loader import LoadedUser

GROUP = "vitabench"
DEFAULT_PATTERNS = ["*.vita.json", "*.vita.json.gz"]  # = suite.discovery.DEFAULT_PATTERNS (kept import-free)
MARKERS = {
    "delivery": "VitaBench subtask in the food-delivery domain",
    "instore": "VitaBench subtask in the in-store consumption domain",
    "ota": "VitaBench subtask in the travel (OTA) domain",
    "proactive": "VitaBench subtask that tests proactive information gathering",
    "personalize": "VitaBench subtask that tests preference-driven decisions",
}


class VitaSuiteWarning(pytest.PytestWarning):
    """Questionable but usable suite data (blank times with a fallback, out-of-order history, unknown keys)."""


class VitaFailure(Exception):
    """A subtask's reward was below 1.0; the message lists each unmet rubric."""


class VitaInfrastructureError(Exception):
    """The run itself failed (endpoint, timeout, a crashing backend): the item is an error, never a pass."""

    #: The last lines of the traceback, shown when the error is not the LLM client's own.
    traceback_tail: str = ""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    from .settings import specs  # the one declaration of every option (stdlib only: cheap in any session)

    group = parser.getgroup(GROUP, "VitaBench 2.0 benchmark")
    for spec in specs():
        meta = spec.meta
        if meta.flag:
            group.addoption(spec.option, dest=spec.ini, action="store_true", default=None, help=meta.help)
            parser.addini(spec.ini, meta.help, type="bool", default=False)
            continue
        if meta.optional_value is not None:
            group.addoption(spec.option, dest=spec.ini, nargs="?", const=meta.optional_value, default=None,
                            metavar=meta.metavar, help=meta.help)
        else:
            group.addoption(spec.option, dest=spec.ini, default=None, metavar=meta.metavar, help=meta.help)
        parser.addini(spec.ini, meta.help, default=spec.ini_default)
    parser.addini("vita_suite_patterns", "file name patterns collected as VitaBench suites in directory walks "
                  "(other .json/.json.gz files only when their content starts like a suite)",
                  type="args", default=DEFAULT_PATTERNS)


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    if config.getoption("cacheclear", False) and not _is_worker(config):
        from .store import clear_project

        clear_project(config.rootpath)  # our caches go with pytest's; the run journals stay (--vita-resume)
    if not _is_worker(config):  # as xdist registers its DSession: the controller's state is a plugin of its own
        from .controller import VitaController

        config.pluginmanager.register(
            VitaController(config, state_of=_state, has_state=_has_state, suite_warning=VitaSuiteWarning), _CONTROLLER)
    from .settings import specs

    if any(config.getoption(spec.ini) is not None for spec in specs()):
        _state(config)  # explicit options are validated up front, so a typo fails before collection


@dataclass
class _ItemRef:
    user: LoadedUser
    index: int
    memory: str
    trial: int


class _State:
    """Per-process run state (the controller and each xdist worker): the run's wiring
    (:class:`~pytest_vitabench.benchmark.Benchmark`), its run store, and the suites and items this process
    collected. What only the controller gathers lives on :class:`VitaController`."""

    def __init__(self, config: pytest.Config):
        from .benchmark import Benchmark
        from .settings import raw_options

        try:
            self.bench = Benchmark(raw_options(lambda ini: _option(config, ini)), rootdir=config.rootpath,
                                   state_dir=_llm_state_dir(config))
        except ValueError as exc:  # pydantic's ValidationError and MissingAPIKey are ValueErrors too
            raise pytest.UsageError(f"pytest-vitabench: {exc}") from None
        self.run_config = self.bench.config
        self.runner = self.bench.runner
        from .store import default_root

        self.runner.index_dir = default_root(config.rootpath) / "suites"
        self.ledger = self.bench.ledger
        self.suites: dict[str, str] = {}
        #: Suite path -> its prompt language, as collection found it (xdist workers send theirs to the
        #: controller, which then need not load a suite it never collected only to name its language).
        self.languages: dict[str, str] = {}
        #: Items each collected suite file holds in all (subtasks x backends x trials), whatever is selected.
        self.planned: dict[str, int] = {}
        from .runs.session import open_run_store

        self.shard = self.bench.shard
        #: The selected items before and after this shard took its share (``None`` until collected).
        self.shard_split: tuple[int, int] | None = None
        try:
            self.store, self.saved = open_run_store(
                rootdir=config.rootpath, config=self.run_config.manifest(), resume=self.run_config.resume,
                run_dir=_worker_input(config, _WORKER_RUN_DIR), writer=_worker_id(config),
                named_dir=self._named_run_dir(config))
        except ValueError as exc:  # ResumeError: the message lists the settings that differ
            raise pytest.UsageError(f"pytest-vitabench: {exc}") from None
        self.engine: Any = None
        self.started = time.time()
        self.items_by_id: dict[str, Any] = {}
        self.positions: dict[str, int] = {}
        self.ordered_ids: list[str] = []
        self.interactor: Any = None

    def _named_run_dir(self, config: pytest.Config) -> Any:
        """The run directory ``--vita-run-id`` names, or a shard's under its derived run id; else ``None``."""
        if self.run_config.run_id is None and self.shard is None:
            return None
        from .shard import derived_run_id, run_directory

        run_id = self.run_config.run_id or derived_run_id(self.run_config.manifest(), _selection(config),
                                                          config.invocation_params.dir)
        return run_directory(config.rootpath, run_id, self.shard)


def _is_tty(config: pytest.Config) -> bool:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    return bool(reporter is not None and getattr(reporter, "isatty", False))


def _option(config: pytest.Config, ini: str) -> Any:
    """A command-line value, else the ini value."""
    value = config.getoption(ini)
    return config.getini(ini) if value is None else value


_STATE_KEY = pytest.StashKey["_State"]()
_LLM_DIR_KEY = pytest.StashKey[str]()
_WORKER_LLM_DIR = "vita_llm_state_dir"
_WORKER_LEDGER = "vita_llm_ledger"
_WORKER_RUN_DIR = "vita_run_dir"
_WORKER_PLANNED = "vita_planned"
_WORKER_LANGUAGES = "vita_languages"


def _worker_input(config: pytest.Config, key: str) -> Any:
    """What the controller handed this xdist worker under ``key`` (``None`` on the controller)."""
    workerinput: dict[str, Any] = getattr(config, "workerinput", {})
    return workerinput.get(key)


def _worker_id(config: pytest.Config) -> str:
    """``gw0``, ``gw1``... on an xdist worker, ``main`` on the controller. (Read from this session's config,
    not the environment, which a pytest run inside an xdist worker inherits.)"""
    return str(_worker_input(config, "workerid") or "worker") if _is_worker(config) else "main"


def _llm_state_dir(config: pytest.Config) -> str:
    """The directory that coordinates LLM rate and concurrency limits across the run's processes.

    The controller names it (nothing is created until a limiter needs it) and hands it to each xdist
    worker through ``workerinput``, so the limits hold for the whole run, not per worker.
    """
    if _is_worker(config):
        return str(_worker_input(config, _WORKER_LLM_DIR) or _controller_llm_dir(config))
    return _controller_llm_dir(config)


def _controller_llm_dir(config: pytest.Config) -> str:
    path = config.stash.get(_LLM_DIR_KEY, None)
    if path is None:
        import tempfile
        import uuid

        path = os.path.join(tempfile.gettempdir(), f"vitabench-run-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        config.stash[_LLM_DIR_KEY] = path
    return path


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist (controller side): give each worker the run's shared LLM coordination directory."""
    node.workerinput[_WORKER_LLM_DIR] = _controller_llm_dir(node.config)
    node.workerinput[_WORKER_RUN_DIR] = str(_state(node.config).store.path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist (controller side): keep 2 x --vita-concurrency items queued on each worker (engine/xdist_queue.py)."""
    if getattr(config.option, "dist", "load") != "load" or _state(config).bench.concurrency <= 1:
        return None
    from .engine.xdist_queue import make_deep_load_scheduler

    return make_deep_load_scheduler(config, log, min_queued=2 * _state(config).bench.concurrency)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist (controller side): add each worker's LLM usage, planned items and suite languages to the run's."""
    output = getattr(node, "workeroutput", {})
    data = output.get(_WORKER_LEDGER)
    if data and _has_state(node.config):
        _state(node.config).ledger.merge(data)
    if output.get(_WORKER_PLANNED) and _has_state(node.config):
        _state(node.config).planned.update(output[_WORKER_PLANNED])
    if output.get(_WORKER_LANGUAGES) and _has_state(node.config):
        for path, language in output[_WORKER_LANGUAGES].items():
            _state(node.config).languages.setdefault(path, language)


def pytest_unconfigure(config: pytest.Config) -> None:
    controller = _controller(config)
    if controller is not None:
        config.pluginmanager.unregister(controller, _CONTROLLER)
    path = config.stash.get(_LLM_DIR_KEY, None)
    if path and not _is_worker(config) and os.path.isdir(path):
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    if _has_state(config):
        from .heap import freeze_before_exit

        freeze_before_exit()


def _state(config: pytest.Config) -> _State:
    state = config.stash.get(_STATE_KEY, None)
    if state is None:
        state = _State(config)
        config.stash[_STATE_KEY] = state
    return state


def _has_state(config: pytest.Config) -> bool:
    return config.stash.get(_STATE_KEY, None) is not None


def _is_worker(config: pytest.Config) -> bool:
    """The one test of "am I an xdist worker": xdist gives a worker's config its ``workerinput``."""
    return hasattr(config, "workerinput")


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    if not file_path.name.endswith((".json", ".json.gz")):
        return None  # before any import: pytest calls this for every file of every project it runs in
    from .suite.discovery import is_suite_file

    if is_suite_file(file_path, parent.config.getini("vita_suite_patterns"),
                     named=parent.session.isinitpath(file_path)):
        return SuiteFile.from_parent(parent, path=file_path)
    return None


class SuiteFile(pytest.File):
    """A suite file: one child collector per user."""

    def collect(self) -> Iterator[pytest.Collector]:
        state = _state(self.config)
        if not _is_worker(self.config):
            from .report.progress import LARGE_SUITE_BYTES

            size = self.path.stat().st_size
            if size >= LARGE_SUITE_BYTES:
                _announce_large_suite(self.config, self.nodeid, size)
        suite = state.runner.suite(self.path, lazy=True)
        state.suites[str(self.path)] = suite.sha256
        # a --vita-language that contradicts the suite warns below
        state.languages[str(self.path)] = state.runner.language_for(suite)
        config = state.run_config
        state.planned[str(self.path)] = sum(len(user.outline) for user in suite.users if user.error is None) \
            * len(config.memory) * config.trials
        # Under xdist every worker collects; one of them is enough to warn.
        if _worker_id(self.config) in ("main", "gw0"):
            for message in suite.warnings:
                warnings.warn(VitaSuiteWarning(message), stacklevel=1)
        for user in suite.users:
            yield UserCollector.from_parent(self, name=user.key, user=user)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from .suite.loader import SuiteError

        if isinstance(excinfo.value, SuiteError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)


class UserCollector(pytest.Collector):
    """One user: its subtasks x memory backends x trials. A bad user fails alone."""

    def __init__(self, *, user: LoadedUser, **kwargs: Any):
        super().__init__(**kwargs)
        self.user = user

    def collect(self) -> Iterator[pytest.Item]:
        if self.user.error is not None:
            raise self.user.error
        config = _state(self.config).run_config
        # Only the outline and the validation verdict are known here (cached per file version, see
        # suite/index.py): the user's models are built when its first item runs (runner.ensure_user).
        fixtureinfo = None  # the same for every item of a user: resolving it 3,136 times took seconds
        for index, sub in enumerate(self.user.outline):
            for memory in config.memory:
                for trial in range(config.trials):
                    item = VitaItem.from_parent(self, name=f"{sub.subtask_id}[{memory}-t{trial}]",
                                                callobj=_vita_subtask, fixtureinfo=fixtureinfo)
                    fixtureinfo = item._fixtureinfo
                    item.vita_ref = _ItemRef(user=self.user, index=index, memory=memory, trial=trial)
                    for marker in [*sub.domains, *sub.skills]:
                        if marker in MARKERS:
                            item.add_marker(marker)
                    yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from .suite.loader import SuiteError

        if isinstance(excinfo.value, SuiteError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)


class VitaItem(pytest.Function):
    """One subtask x memory backend x trial. Its body is :func:`_vita_subtask`; fixtures can be overridden."""

    vita_ref: _ItemRef

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # pytest >= 9.2 keeps structured node ids and compares them with ids parsed from report strings
        # (--lf, --deselect); parse ours the same way so "s1[full_context-t0]" splits into name and params.
        node_id = getattr(self, "_id", None)
        parse = getattr(type(node_id), "parse", None)
        if parse is not None:
            self._id = parse(str(node_id))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.nodeid.split("::", 1)[-1]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (VitaFailure, VitaInfrastructureError)):
            return self._vita_failure_text(excinfo.value)
        return super().repr_failure(excinfo)

    def _repr_failure_py(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # pytest renders setup-phase errors (ours: the vita_result fixture) through this method rather than
        # repr_failure, which would dump the fixture's source; an infrastructure error or a bad user's data is
        # a message (with -v, the traceback too).
        from .suite.loader import SuiteError

        if isinstance(excinfo.value, (VitaFailure, VitaInfrastructureError)):
            return self._vita_failure_text(excinfo.value)
        if isinstance(excinfo.value, SuiteError):
            return excinfo.value.render()
        return super()._repr_failure_py(excinfo, style=style)

    def _vita_failure_text(self, exc: BaseException) -> str:
        result = getattr(self, "_vita_result", None)
        if result is None:
            return str(exc)
        from .report.failure_text import failure_text

        return failure_text(result, self.config.get_verbosity(), getattr(exc, "traceback_tail", ""))


def _vita_subtask(vita_result: ItemResult) -> None:
    """Passes when the subtask's reward is 1.0 (every rubric met)."""
    if vita_result.outcome == "skipped":
        pytest.skip(f"not judged: {vita_result.error}")
    if vita_result.outcome != "passed":
        raise VitaFailure(vita_result.failure_text())


@pytest.fixture(scope="session")
def vita_config(request: pytest.FixtureRequest) -> RunConfig:
    """The run configuration (all ``--vita-*`` options)."""
    return _state(request.config).run_config


@pytest.fixture(scope="session")
def vita_agent(request: pytest.FixtureRequest) -> Any:
    """The agent under test. Override in your conftest.py to bring your own (see README)."""
    return _state(request.config).bench.agent()


@pytest.fixture(scope="session")
def vita_user_simulator(request: pytest.FixtureRequest) -> Any:
    """The user simulator (``--vita-user-model``)."""
    return _state(request.config).bench.user_simulator()


@pytest.fixture(scope="session")
def vita_judge(request: pytest.FixtureRequest) -> Any:
    """The judge (``--vita-judge-model``)."""
    state = _state(request.config)
    return state.bench.judge(batch_dir=state.store.path / "batches", writer=_worker_id(request.config))


@pytest.fixture
def vita_result(
    request: pytest.FixtureRequest, vita_agent: Any, vita_user_simulator: Any, vita_judge: Any
) -> ItemResult:
    """Runs the item's subtask and returns its :class:`~pytest_vitabench.result.ItemResult`."""
    item = request.node
    ref: _ItemRef | None = getattr(item, "vita_ref", None)
    if ref is None:
        pytest.fail("the vita_result fixture is only available to VitaBench items", pytrace=False)
    result = _item_result(_state(request.config), request, ref, (vita_agent, vita_user_simulator, vita_judge))
    item.config.hook.pytest_vitabench_result(result=result, item=item)
    item._vita_result = result
    item.user_properties.extend([("vita_reward", result.reward), ("vita_memory", result.memory),
                                 ("vita_trial", result.trial), ("vita_domain", result.domain)])
    from .report.junit import item_properties

    item.user_properties.extend(item_properties(result))
    if result.outcome == "error":
        error = VitaInfrastructureError(f"infrastructure error: {result.error}")
        error.traceback_tail = "\n".join((result.traceback or "").strip().splitlines()[-12:])
        raise error
    return result


def _item_result(state: _State, request: pytest.FixtureRequest, ref: _ItemRef, roles: tuple[Any, Any, Any]) -> Any:
    """The item's result: saved by the resumed run, or run inline, or awaited from the scheduler, which runs
    the upcoming items of this process ahead of pytest (see engine/scheduler.py)."""
    from .engine.run import ItemJob

    item = request.node
    suite = state.runner.suite(item.path, lazy=True)
    if not getattr(ref.user, "_vita_warned", False):  # a lazily validated user's warnings, once per process
        from .suite.loader import ensure_user

        ensure_user(suite, ref.user)
        ref.user._vita_warned = True  # type: ignore[attr-defined]
        for message in ref.user.warnings:
            warnings.warn(VitaSuiteWarning(message), stacklevel=1)
    if ref.user.error is not None:
        # Bad data is not a result: the item errors with the file and JSON path of each problem, like a
        # collection error, and stays out of the metrics (the run is then partial).
        raise ref.user.error
    engine = _engine(state, request)
    saved = engine.saved_result(item.nodeid, suite.sha256)
    if saved is not None:
        return saved
    if engine.concurrency <= 1 or not _session_scoped_roles(item):
        return engine.run(ItemJob(item.nodeid, suite, ref.user, ref.index, ref.memory, ref.trial, *roles))
    session = request.session
    items: dict[str, Any] = state.items_by_id

    def job_for(nodeid: str) -> ItemJob:
        other = items[nodeid]
        other_ref: _ItemRef = other.vita_ref
        return ItemJob(nodeid, state.runner.suite(other.path, lazy=True), other_ref.user, other_ref.index,
                       other_ref.memory, other_ref.trial, *roles)

    scheduler = engine.scheduler(job_for=job_for, upcoming=lambda nodeid: _upcoming(state, session, nodeid),
                                 should_stop=lambda: bool(session.shouldfail or session.shouldstop))
    return scheduler.result(item.nodeid)


def _engine(state: _State, request: pytest.FixtureRequest) -> Any:
    if state.engine is None:
        from .controller import command
        from .engine.run import RunEngine
        from .runs.manifest import config_sha256
        from .runs.session import write_manifest_once

        config = request.config
        session = request.session
        state.items_by_id = {i.nodeid: i for i in session.items if isinstance(i, VitaItem)}
        state.ordered_ids = list(state.items_by_id)
        state.positions = {nodeid: n for n, nodeid in enumerate(state.ordered_ids)}
        block = state.run_config.manifest()

        def manifest() -> None:
            selection = {"planned": sum(state.planned.values()), "selected": len(state.items_by_id),
                         **_selection(config)}
            if state.shard is not None and state.shard_split is not None:
                selection["shard"] = {"index": state.shard.index, "count": state.shard.count,
                                      "source": state.shard.source, "selected_in_run": state.shard_split[0]}
            write_manifest_once(state.store, config=block, suites=dict(state.suites), selection=selection,
                                command=command(config))

        state.engine = RunEngine(runner=state.runner, store=state.store, config_sha256=config_sha256(block),
                                 saved=state.saved, concurrency=state.bench.concurrency, on_first_journal=manifest)
        if state.run_config.judge_batch:
            # Items wait for batches before anything is journaled: the run must be resumable from the first
            # submitted batch on, so that --vita-resume finds its journal (batches/) after a crash.
            manifest()
    return state.engine


def _selection(config: pytest.Config) -> dict[str, Any]:
    """What the command line selected: paths, ``-k``, ``-m``, ``--deselect`` (the manifest's, the run id's)."""
    return {"args": list(config.args), "keyword": config.getoption("keyword", "") or "",
            "markexpr": config.getoption("markexpr", "") or "",
            "deselect": list(config.getoption("deselect", None) or [])}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--vita-shard``: keep this shard's chains (after ``-k``/``-m``, so every shard splits the same set)."""
    shard = _state(config).shard if _has_state(config) else None
    if shard is None:
        return
    from .shard import take_share

    state = _state(config)

    def chain_of(item: pytest.Item) -> tuple[tuple[str, str, str], int] | None:
        ref = getattr(item, "vita_ref", None)
        if ref is None:
            return None
        span = ref.user.span
        # The file as the node id names it (relative to the rootdir): the same on every machine, wherever
        # the checkout is, so the tie-breaks of the split agree too.
        return (item.nodeid.split("::", 1)[0], ref.user.key, ref.memory), (span[1] - span[0] if span else 0)

    share = take_share(items, shard, chain_of)
    state.shard_split = (share.selected_in_run, share.selected_here)
    if share.dropped:
        config.hook.pytest_deselected(items=share.dropped)
    items[:] = share.kept


def _upcoming(state: _State, session: pytest.Session, nodeid: str) -> Iterator[str]:
    """The node ids this process will run from ``nodeid`` on: the rest of the session's items, or on an xdist
    worker the ones the controller has queued for it (engine/xdist_queue.py)."""
    if not _is_worker(session.config):
        ordered = state.ordered_ids
        for position in range(state.positions.get(nodeid, len(ordered)), len(ordered)):
            yield ordered[position]
        return
    from .engine.xdist_queue import find_worker_interactor, worker_queue

    if state.interactor is None:
        state.interactor = find_worker_interactor(session.config)
    yield nodeid
    for index in worker_queue(state.interactor):
        if 0 <= index < len(session.items) and isinstance(session.items[index], VitaItem):
            yield session.items[index].nodeid


def _session_scoped_roles(item: pytest.Item) -> bool:
    """Running ahead reuses the first item's agent, user simulator and judge for the items that follow, which
    is only right when those fixtures are session-scoped (the plugin's are; a conftest may narrow them)."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in ("vita_agent", "vita_user_simulator", "vita_judge"):
        chain = definitions.get(name)
        if chain and chain[-1].scope != "session":
            if not getattr(item.config, "_vita_scope_warned", False):
                item.config._vita_scope_warned = True  # type: ignore[attr-defined]
                warnings.warn(VitaSuiteWarning(f"{name} is {chain[-1].scope}-scoped: items run one at a time "
                                               "(--vita-concurrency needs session-scoped roles)"), stacklevel=1)
            return False
    return True


_REPORTED_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    result = getattr(item, "_vita_result", None)
    if result is not None and not item.stash.get(_REPORTED_KEY, False):
        if report.when == "call" or report.outcome != "passed":
            report.vita_result = result.light()
            item.stash[_REPORTED_KEY] = True
            # Reported (and its failure text rendered): a worker holding every item's trajectory and memory
            # snapshot until the end grew by ~0.1 MB per item, past 330 MB on the paper suite.
            delattr(item, "_vita_result")
    return report


_CONTROLLER = "vitabench-controller"


def _controller(config: pytest.Config) -> VitaController | None:
    """The controller's plugin object (``None`` on an xdist worker)."""
    return config.pluginmanager.get_plugin(_CONTROLLER)


def pytest_collection_finish(session: pytest.Session) -> None:
    controller = _controller(session.config)
    if controller is not None:
        controller.planned_items = len(session.items)
    if _has_state(session.config):
        from .heap import freeze_long_lived

        freeze_long_lived()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """xdist (controller side): the number of items planned, for the progress lines."""
    controller = _controller(node.config)
    if controller is not None:
        controller.planned_items = len(ids)


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: Any, sched: Any) -> None:
    """xdist (controller side): a worker died while running ``crashitem``: record it as an error, once."""
    config = getattr(sched, "config", None)  # every xdist scheduler keeps the controller's config
    controller = _controller(config) if config is not None else None
    if controller is not None:
        controller.record_crash(crashitem, report)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    controller = _controller(config)
    if controller is None:
        return
    controller.started_monotonic = time.monotonic()
    if config.option.collectonly:
        return
    if getattr(config.option, "numprocesses", None) and config.get_verbosity() >= 0:
        # xdist workers collect out of sight: say here that the wait is the suite loading
        from .report.progress import large_suite_files

        for path, size in large_suite_files(config.args, config.invocation_params.dir, _suite_patterns(config)):
            _announce_large_suite(config, path, size)


@pytest.hookimpl(wrapper=True, specname="pytest_sessionstart")
def pytest_sessionstart_preflight(session: pytest.Session) -> Iterator[None]:
    """Start the preflight's requests in the background once every other ``pytest_sessionstart`` ran, i.e.
    after xdist has spawned its workers: the preflight thread imports the ``openai`` package, and holding the
    interpreter lock for that while the controller sets up its workers only delays them. An xdist worker
    whose roles call an LLM starts that import in the background too, while it collects."""
    yield
    config = session.config
    controller = _controller(config)
    if _is_worker(config):
        if _has_state(config) and _state(config).bench.needs_llm and not config.option.collectonly:
            _state(config).bench.llm_client().warm_up_in_background()
        return
    if controller is None or config.option.collectonly:
        return
    if _has_state(config) or any(_option(config, ini) not in (None, "", default)
                                 for ini, default in _OFFLINE_ROLE_DEFAULTS.items()):
        state = _state(config)
        if state.run_config.preflight == "on" and state.bench.needs_llm:
            from .preflight import start_checks

            controller.preflight = start_checks(state.bench)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Wait for the preflight (started with the session) before any item starts, here or on a worker."""
    controller = _controller(session.config)
    if controller is None or controller.preflight is None:
        return
    failures = controller.preflight.result()
    controller.preflight = None
    if failures:
        from .preflight import preflight_error

        raise pytest.UsageError(preflight_error(failures))


#: Role options whose default is offline; any other value names an LLM, so a preflight may be due.
_OFFLINE_ROLE_DEFAULTS = {"vita_model": "reference", "vita_user_model": "scripted", "vita_judge_model": "rules",
                          "vita_memory_model": None}


def _announce_large_suite(config: pytest.Config, path: str, size: int) -> None:
    import contextlib

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.get_verbosity() < 0:
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    # pytest captures output during collection; this line is for the person waiting, so it bypasses that.
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        reporter.write_line(f"vitabench: collecting {path} ({size / 1e6:.1f} MB): loading and validating the suite "
                            "takes a few seconds per process")


def _suite_patterns(config: pytest.Config) -> list[str]:
    return list(config.getini("vita_suite_patterns"))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if not _has_state(config):
        return
    state = _state(config)
    if state.engine is not None:
        state.engine.close()
    if _is_worker(config):
        worker_output: dict[str, Any] = getattr(config, "workeroutput", {})
        worker_output[_WORKER_LEDGER] = state.ledger.to_dict()
        worker_output[_WORKER_PLANNED] = dict(state.planned)
        worker_output[_WORKER_LANGUAGES] = dict(state.languages)
        return
    controller = _controller(config)
    if controller is not None:
        controller.finish(session, junit_xml=_junit_xml(config))


def _junit_xml(config: pytest.Config) -> Any:
    """``--junitxml``'s writer, to which the run's metrics are added as global properties."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - private API moved
        return None
    return config.stash.get(xml_key, None)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Which profile runs and whether its numbers can stand next to the leaderboard."""
    if _is_worker(config) or not (_has_state(config) or _names_a_suite(config)):
        return None
    from .store import legacy_notice

    notice = legacy_notice(config.rootpath)
    state = _state(config)
    journal = [f"vitabench run {state.store.run_id}: journal {state.store.path}"] \
        if state.shard is not None or state.run_config.run_id else []
    return [*state.bench.header_lines(), *journal, *([notice] if notice else [])]


def _names_a_suite(config: pytest.Config) -> bool:
    """Whether a command-line path is a suite file or a directory holding one (checked one level deep)."""
    patterns = config.getini("vita_suite_patterns")
    for arg in config.args:
        path = str(arg).split("::", 1)[0]
        if path.endswith((".json", ".json.gz")):
            return True
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                candidates = [name for name in files if name.endswith((".json", ".json.gz"))]
                if candidates:  # only then: a session without JSON files imports nothing more
                    from pathlib import Path

                    from .suite.discovery import is_suite_file

                    return any(is_suite_file(Path(root) / name, patterns) for name in candidates)
                break
    return False
