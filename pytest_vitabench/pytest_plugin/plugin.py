"""The pytest plugin: options, suite collection, items, markers and fixtures.

pytest loads this module in every session, so it imports only pytest, the standard library, the option declarations
(standard library only) and the equally light rest of the adapter at module level, and does nothing until a suite
file is collected. The run's state and hooks live on one :class:`~pytest_vitabench.pytest_plugin.session.VitaSession`
per process, which reaches the run core at one seam (:func:`~pytest_vitabench.pytest_plugin.session.run_core`).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..options.settings import HEADINGS, REMOVED, options
from . import hookspecs
from .controller import VitaController
from .session import ItemRef, VitaSession, VitaSuiteWarning, is_suite_file, run_core

if TYPE_CHECKING:
    from ..options.config import RunConfig
    from ..result import ItemResult
    from ..suite.loader import LoadedUser

__all__ = ["VitaFailure", "VitaInfrastructureError", "VitaItem", "VitaSuiteWarning"]

GROUP = "vitabench"
DEFAULT_PATTERNS = ["*.vita.json", "*.vita.json.gz"]  # = suite.discovery.DEFAULT_PATTERNS (kept import-free)
MARKERS = {
    "delivery": "VitaBench subtask in the food-delivery domain",
    "instore": "VitaBench subtask in the in-store consumption domain",
    "ota": "VitaBench subtask in the travel (OTA) domain",
    "proactive": "VitaBench subtask that tests proactive information gathering",
    "personalize": "VitaBench subtask that tests preference-driven decisions",
}


class VitaFailure(Exception):
    """A subtask's reward was below 1.0; the message lists each unmet rubric."""


class VitaInfrastructureError(Exception):
    """The run itself failed (endpoint, timeout, a crashing backend): the item is an error, never a pass."""

    #: The last lines of the traceback, shown when the error is not the LLM client's own.
    traceback_tail: str = ""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    groups = {heading: parser.getgroup(GROUP if heading == "essentials" else f"{GROUP}-{heading}", title)
              for heading, title in HEADINGS.items()}
    for option in options():
        group, item = groups[option.heading], option.setting
        if option.group is not None:  # KEY=VALUE pairs, given any number of times
            group.addoption(option.option, dest=option.ini, action="append", default=None, metavar=option.metavar,
                            help=option.help)
            parser.addini(option.ini, _ini_help(option.ini, "linelist"), type="linelist", default=[])
        elif item is not None and item.meta.flag:
            group.addoption(option.option, dest=option.ini, action="store_true", default=None, help=option.help)
            parser.addini(option.ini, _ini_help(option.ini, "bool"), type="bool", default=False)
        else:
            assert item is not None
            extra = {"nargs": "?", "const": item.meta.optional_value} if item.meta.optional_value is not None else {}
            group.addoption(option.option, dest=option.ini, default=None, metavar=option.metavar, help=option.help,
                            **extra)
            parser.addini(option.ini, _ini_help(option.ini, "string"), default=item.ini_default)
    # A removed spelling is still parsed, so that it fails naming its replacement (pytest_configure).
    for removed in REMOVED:
        groups["runs"].addoption(removed.option, dest=f"vita_removed_{removed.ini}", help=argparse.SUPPRESS,
                                 default=None, **({"action": "store_true"} if removed.flag else {}))
    parser.addini("vita_suite_patterns", "file name patterns collected as VitaBench suites",
                  type="args", default=DEFAULT_PATTERNS)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str], parser: pytest.Parser) -> None:
    """An optional value is taken attached only (``--vita-resume=RUN``), as getopt does: argparse would take the
    next argument (a path) as the value. A bare ``--vita-resume`` becomes ``--vita-resume=latest`` here."""
    bare = {option.option: option.setting.meta.optional_value for option in options()
            if option.setting is not None and option.setting.meta.optional_value is not None}
    end = args.index("--") if "--" in args else len(args)
    changed = False
    for position in range(end):
        if args[position] in bare:
            args[position] = f"{args[position]}={bare[args[position]]}"
            changed = True
    if changed:  # the early parse read the swallowed path as the value: the initial conftests are the paths'
        early_config.known_args_namespace.file_or_dir = parser.parse_known_args(args).file_or_dir


def _ini_help(ini: str, kind: str) -> str:
    # Each ini key is its option's: pytest shows the key alone when the help would start a line of its own.
    return "--" + ini.replace("_", "-") if len(f"{ini} ({kind}):") <= 21 else ""


def _removed_spellings(config: pytest.Config) -> None:
    """A removed option or ini key is a usage error naming its replacement, never silently ignored."""
    ini_keys = set(getattr(config, "_inicfg", {}) or {})
    for removed in REMOVED:
        if config.getoption(f"vita_removed_{removed.ini}") is not None:
            raise pytest.UsageError(f"pytest-vitabench: {removed.message()}")
        if removed.ini in ini_keys:
            raise pytest.UsageError(f"pytest-vitabench: {removed.message(ini=True)}")


def _resume_run_read_as_path(config: pytest.Config) -> None:
    """The old ``--vita-resume RUN`` makes RUN a test path (the value is attached now): say so, not "not found"."""
    if not config.getoption("vita_resume") or config.option.pyargs:
        return
    for arg in config.args:
        path = config.invocation_params.dir / arg.split("::", 1)[0]
        if not path.exists() or (path / "manifest.json").is_file():  # missing, or a run's own directory
            raise pytest.UsageError(
                f"pytest-vitabench: {arg!r} is not a test path. --vita-resume takes a run attached: "
                f"--vita-resume={arg} continues that run; a bare --vita-resume continues the latest one.")


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    _removed_spellings(config)
    worker = hasattr(config, "workerinput")  # xdist gives a worker's config its workerinput
    if not worker:
        _resume_run_read_as_path(config)
    if config.getoption("cacheclear", False) and not worker:
        run_core().clear_caches(config.rootpath)  # our caches go with pytest's; the run journals stay (--vita-resume)
    session = VitaSession(config) if worker else VitaController(config)
    config.pluginmanager.register(session, VitaSession.NAME)
    if any(config.getoption(option.ini) is not None for option in options()):
        session.bench  # noqa: B018 - explicit options are validated up front, so a typo fails before collection


def _session(config: pytest.Config) -> VitaSession:
    session = config.pluginmanager.get_plugin(VitaSession.NAME)
    assert isinstance(session, VitaSession)
    return session


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    if not file_path.name.endswith((".json", ".json.gz")):
        return None  # before any import: pytest calls this for every file of every project it runs in
    if is_suite_file(file_path, parent.config.getini("vita_suite_patterns"),
                     named=parent.session.isinitpath(file_path)):
        return SuiteFile.from_parent(parent, path=file_path)
    return None


class _RendersSuiteErrors(pytest.Collector):
    """A bad suite or user fails with the file and JSON path of each problem, not a traceback."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        text = run_core().suite_error_text(excinfo.value)
        return text if text is not None else super().repr_failure(excinfo)


class SuiteFile(_RendersSuiteErrors, pytest.File):
    """A suite file: one child collector per user."""

    def collect(self) -> Iterator[pytest.Collector]:
        for user in _session(self.config).collect_suite(self.path, self.nodeid).users:
            yield UserCollector.from_parent(self, name=user.key, user=user)


class UserCollector(_RendersSuiteErrors):
    """One user: its subtasks x memory backends x trials. A bad user fails alone."""

    def __init__(self, *, user: LoadedUser, **kwargs: Any):
        super().__init__(**kwargs)
        self.user = user

    def collect(self) -> Iterator[pytest.Item]:
        if self.user.error is not None:
            raise self.user.error
        config = _session(self.config).bench.config
        # Only the outline is known here: the user's models are built when its first item runs.
        fixtureinfo = None  # the same for every item of a user: resolving it for each of thousands takes seconds
        for index, sub in enumerate(self.user.outline):
            for memory in config.memory:
                for trial in range(config.trials):
                    item = VitaItem.from_parent(self, name=f"{sub.subtask_id}[{memory}-t{trial}]",
                                                callobj=_vita_subtask, fixtureinfo=fixtureinfo)
                    fixtureinfo = item._fixtureinfo
                    item.vita_ref = ItemRef(user=self.user, index=index, memory=memory, trial=trial)
                    for marker in [*sub.domains, *sub.skills]:
                        if marker in MARKERS:
                            item.add_marker(marker)
                    yield item


class VitaItem(pytest.Function):
    """One subtask x memory backend x trial. Its body is :func:`_vita_subtask`; fixtures can be overridden."""

    vita_ref: ItemRef
    #: The item's result from its run until it is reported (then dropped: see the session's makereport).
    vita_result: ItemResult | None = None
    #: Why the item was never started (``budget``...), when the run stopped starting items.
    vita_not_run: str | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # pytest >= 9.2 keeps structured node ids and compares them with ids parsed from report strings
        # (--lf, --deselect); parse ours the same way so "s1[full_context-t0]" splits into name and params.
        node_id = getattr(self, "_id", None)
        parse = getattr(type(node_id), "parse", None)
        if parse is not None:
            self._id = parse(str(node_id))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        # pytest places a skip raised by a fixture at the item's line, and needs one: a not-run item's is the file's.
        return self.path, 0 if self.vita_not_run else None, self.nodeid.split("::", 1)[-1]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (VitaFailure, VitaInfrastructureError)):
            return self._vita_failure_text(excinfo.value)
        return super().repr_failure(excinfo)

    def _repr_failure_py(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # pytest renders setup-phase errors (a suite that cannot load, in the vita_result fixture) through this
        # method, not repr_failure; the default would dump the fixture's source.
        if isinstance(excinfo.value, (VitaFailure, VitaInfrastructureError)):
            return self._vita_failure_text(excinfo.value)
        text = run_core().suite_error_text(excinfo.value)
        return text if text is not None else super()._repr_failure_py(excinfo, style=style)

    def _vita_failure_text(self, exc: BaseException) -> str:
        result = self.vita_result
        if result is None:
            return str(exc)
        return run_core().failure_text(result, self.config.get_verbosity(), getattr(exc, "traceback_tail", ""))


def _vita_subtask(vita_result: ItemResult) -> None:
    """Passes when the subtask's reward is 1.0 (every rubric met); an infrastructure error is raised here, where
    the episode's outcome is read, so that pytest reports it as an error of this call, never of a fixture's
    setup."""
    if vita_result.outcome == "error":
        error = VitaInfrastructureError(f"infrastructure error: {vita_result.error}")
        error.traceback_tail = "\n".join((vita_result.traceback or "").strip().splitlines()[-12:])
        raise error
    if vita_result.outcome == "skipped":
        pytest.skip(f"not judged: {vita_result.error}")
    if vita_result.outcome != "passed":
        raise VitaFailure(vita_result.failure_text())


@pytest.fixture(scope="session")
def vita_config(request: pytest.FixtureRequest) -> RunConfig:
    """The run configuration (all ``--vita-*`` options)."""
    return _session(request.config).bench.config


@pytest.fixture(scope="session")
def vita_agent(request: pytest.FixtureRequest) -> Any:
    """The agent under test. Override in your conftest.py to bring your own (see README)."""
    return _session(request.config).bench.agent()


@pytest.fixture(scope="session")
def vita_user_simulator(request: pytest.FixtureRequest) -> Any:
    """The user simulator (``--vita-user-model``)."""
    return _session(request.config).bench.user_simulator()


@pytest.fixture(scope="session")
def vita_judge(request: pytest.FixtureRequest) -> Any:
    """The judge (``--vita-judge-model``)."""
    session = _session(request.config)
    return session.bench.judge(batch_dir=session.store.path / "batches", writer=session.writer)


@pytest.fixture
def vita_result(
    request: pytest.FixtureRequest, vita_agent: Any, vita_user_simulator: Any, vita_judge: Any
) -> ItemResult:
    """Runs the item's subtask and returns its :class:`~pytest_vitabench.result.ItemResult`."""
    item = request.node
    if not isinstance(item, VitaItem):
        pytest.fail("the vita_result fixture is only available to VitaBench items", pytrace=False)
    try:
        result = _session(request.config).item_result(item, (vita_agent, vita_user_simulator, vita_judge))
    except Exception as exc:
        reason = run_core().not_run_reason(exc)
        if reason is None:
            raise
        # Never started (the spend cap...): neither passed nor failed; no result, so --vita-resume runs it.
        item.vita_not_run = reason
        item.user_properties.append(("vita_not_run", reason))
        pytest.skip(f"not run: {reason}")
    item.config.hook.pytest_vitabench_result(result=result, item=item)
    item.vita_result = result
    item.user_properties.extend([("vita_reward", result.reward), ("vita_memory", result.memory),
                                 ("vita_trial", result.trial), ("vita_domain", result.domain)])
    item.user_properties.extend(run_core().item_properties(result))
    return result
