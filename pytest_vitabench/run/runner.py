"""Run one item (subtask x memory backend x trial) from suite data to an :class:`ItemResult`.

The memory of subtask ``i`` is built from the interactions of subtasks ``0..i`` (never from conversations),
so any item can run alone, in any order, on any xdist worker.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agents.base import Agent, AgentSetup
from ..agents.prompts import agent_system_prompt, time_with_weekday
from ..domains import build_environment
from ..domains.base import WRITE_KINDS, Environment
from ..judges.base import Judge, JudgeCase
from ..llm.errors import LLMError
from ..llm.secrets import redact
from ..memory.base import Memory, MemoryContext, memory_tools, take_usage
from ..memory.registry import RunMemories
from ..memory.snapshots import advance, settings_of, snapshot_key
from ..memory.spec import MemoryOptions
from ..messages import Usage
from ..official.behaviour import Behaviour
from ..official.tool_answers import answers_for
from ..official.wording import wording_for
from ..options.config import RunConfig
from ..report.failures import failure_category
from ..result import ItemResult
from ..suite.answer_key import answer_key_of
from ..suite.language import INDEXED_SAMPLE_USERS, detect_language
from ..suite.loader import LoadedSuite, LoadedUser, SuiteError, ensure_user, held_user, load_suite
from ..suite.schema import SubTask, UserTask
from ..users.base import UserSetup, UserSimulator
from .episode import EpisodeResult, SyncCaller, drive, play_episode
from .seed_history import seed_messages

ChainKey = tuple[str, str, str, int]

#: 1.0 profiles mix identity with the user's hidden constraints; the agent sees only identity fields.
_VB1_HIDDEN_PROFILE_KEYS = re.compile(r"diet|restriction|personality|preference|饮食|忌口|性格|偏好", re.I)

if TYPE_CHECKING:
    from ..official.source import OfficialSource


@dataclass
class _Chain:
    memory: Memory
    next_index: int


@dataclass
class RunState:
    """What the items of one process share: its loaded suites and the users' memory chains. The session
    makes the run's and hands it to the run's runner; a runner made alone (a command, a test) makes its own."""

    #: Where lazily loaded suites cache their user index (``None``: no cache).
    index_dir: Path | None = None
    #: Loaded suites by the path as asked for, and as resolved: every item asks for its suite, and
    #: ``Path.resolve`` costs one ``lstat`` per component.
    suites: dict[str, LoadedSuite] = field(default_factory=dict)
    chains: OrderedDict[ChainKey, _Chain] = field(default_factory=OrderedDict)
    #: Memory chains kept (least recently used dropped first); the engine raises it to cover the episodes
    #: in flight.
    max_chains: int = 16
    chains_lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class _Prepared:
    """Everything an item's conversation needs, built from its memory and environment."""

    subtask: SubTask
    environment: Environment
    agent_setup: AgentSetup
    user_setup: UserSetup
    env_time: str
    #: The agent has tools that read the memory object itself, so the chain must wait for this item.
    live_memory: bool
    #: Builds a fresh environment (memory tools included) for an episode that starts again.
    rebuild: Callable[[], Environment]
    history: list[Any] | None = None
    language: str = "en"


@dataclass
class ItemJob:
    """One item to run: a user's subtask, with a memory backend and a trial, and the roles that play it."""

    nodeid: str
    suite: LoadedSuite
    user: LoadedUser
    index: int
    memory: str
    trial: int
    agent: Any
    user_simulator: Any
    judge: Any


class ItemRunner:
    """Runs the items of one configuration, on the process's :class:`RunState`."""

    def __init__(self, config: RunConfig, *, memories: RunMemories | None = None,
                 official_source: OfficialSource | None = None, behaviour: Behaviour | None = None,
                 state: RunState | None = None):
        self.config = config
        #: The user's copy of the official harness whose wording the requests carry (``None``: our own).
        self.official_source = official_source
        #: The run's behaviour, read once from its style settings (the run's, when it has read them).
        self.behaviour = behaviour or Behaviour.of(config)
        self.memories = memories or RunMemories(MemoryOptions(full_context_max_tokens=config.full_context_max_tokens))
        self.state = state or RunState()

    def suite(self, path: str | Path, *, lazy: bool = False) -> LoadedSuite:
        """The suite file (loaded once per process); ``lazy`` only indexes its users, each validated when an
        item needs it (:func:`~pytest_vitabench.suite.loader.held_user`)."""
        suites, text = self.state.suites, os.fspath(path)
        if text not in suites:
            resolved = str(Path(text).resolve())
            if resolved not in suites:
                suites[resolved] = load_suite(resolved, strict=self.config.strict, lazy=lazy,
                                              index_dir=self.state.index_dir)
            suites[text] = suites[resolved]
        suite = suites[text]
        if not lazy:
            for user in suite.users:
                ensure_user(suite, user)
        return suite

    def language_for(self, suite: LoadedSuite) -> str:
        """The prompt and simulator language of a suite: ``--vita-language`` (a mismatch with the detected one
        adds a suite warning), else detected from its text."""
        if suite.prompt_language is None:
            if suite.language is None:  # not told while indexing: a few validated users are enough to tell
                if not any(user.task is not None for user in suite.users):
                    for user in suite.users[:INDEXED_SAMPLE_USERS]:
                        ensure_user(suite, user)
                suite.language = detect_language(user.task for user in suite.users if user.task is not None)
            if self.config.language not in ("auto", suite.language):
                suite.warnings.append(f"{suite.path}: --vita-language {self.config.language} but the suite's "
                                      f"instructions and rubrics are in {suite.language!r}: prompts and rubrics "
                                      f"will mix languages")
            suite.prompt_language = suite.language if self.config.language == "auto" else self.config.language
        return suite.prompt_language

    def memory_for(self, suite: LoadedSuite, user: LoadedUser, index: int, memory_name: str, trial: int) -> Memory:
        """The user's memory right before subtask ``index``, built from the interactions of subtasks
        ``0..index`` (resumed from a snapshot where the backend can checkpoint)."""
        language = self.language_for(suite)
        key = self.chain_key(suite, user, memory_name, trial)
        trial_key, state = key[3], self.state
        with state.chains_lock:
            chain = state.chains.get(key)
            if chain is None or chain.next_index > index + 1:
                chain = _Chain(memory=self.memories.factory(memory_name, language=language)(), next_index=0)
            state.chains[key] = chain
            state.chains.move_to_end(key)
            while len(state.chains) > state.max_chains:
                state.chains.popitem(last=False)
        seed = self.config.trial_seed(trial_key)

        def update(j: int) -> None:
            sub = task.subtasks[j]  # the task held below
            chain.memory.update(list(sub.interactions), MemoryContext(
                user_id=task.user_id, subtask_id=sub.subtask_id, now=user.times[j], language=language,
                groundtruth=sub.groundtruth_preferences(), trial=trial_key, seed=seed))

        def key_for(j: int) -> str:
            return snapshot_key(suite_sha256=suite.sha256, user_id=user.key, index=j, backend=memory_name,
                                trial=trial_key, settings=settings_of(chain.memory))

        with held_user(suite, user) as task:
            chain.next_index = advance(chain.memory, next_index=chain.next_index, index=index, update=update,
                                       store=self.memories.snapshots, key_for=key_for)
        return chain.memory

    def chain_key(self, suite: LoadedSuite, user: LoadedUser, memory_name: str, trial: int) -> ChainKey:
        """The memory chain an item belongs to: one per user, backend and trial (one for all trials of a
        deterministic backend). Items of one chain must build their memory one at a time, in order."""
        trial_key = 0 if self.memories.deterministic(memory_name) else trial
        return (str(suite.path), user.key, memory_name, trial_key)

    def run(self, *, nodeid: str, suite: LoadedSuite, user: LoadedUser, index: int, memory_name: str, trial: int,
            agent: Agent, user_simulator: UserSimulator, judge: Judge) -> ItemResult:
        """Run one item in this thread: :meth:`run_async` driven to its end without an event loop."""
        with SyncCaller() as call:
            return drive(self.run_async(ItemJob(nodeid, suite, user, index, memory_name, trial, agent,
                                                user_simulator, judge), call=call))

    async def run_async(self, job: ItemJob, *, call: Callable[..., Awaitable[Any]],
                        chain_lock: asyncio.Lock | None = None) -> ItemResult:
        """Run one item on an event loop, next to others.

        Args:
            call: Invokes a sync or async role (:class:`~pytest_vitabench.run.episode.ThreadedCaller`, or the
                :class:`~pytest_vitabench.run.episode.SyncCaller` of :meth:`run`).
            chain_lock: An ``asyncio.Lock`` per :meth:`chain_key` (``None``: an item run alone): the item's
                memory is built and read under it, and for a backend that gives the agent tools (which read
                the live memory object) the whole item runs under it, so a later subtask never updates a
                memory still in use.
        """
        sub = job.user.outline[job.index]
        result = ItemResult(
            nodeid=job.nodeid, suite=str(job.suite.path), user_id=job.user.key, subtask_id=sub.subtask_id,
            subtask_index=job.index, domain=",".join(sub.domains), skills=list(sub.skills), memory=job.memory,
            trial=job.trial, seed=self.config.trial_seed(job.trial),
        )
        started = time.perf_counter()
        prepared: _Prepared | None = None
        chain_lock = chain_lock or asyncio.Lock()
        try:
            await chain_lock.acquire()
            locked = True
            try:
                prepared, memory_usage = await call(self._prepare, result, job)
                if not prepared.live_memory:  # the agent holds a snapshot: the chain may move on
                    chain_lock.release()
                    locked = False
                episode = await self._play(result, prepared, job, call)
            finally:
                if locked:
                    chain_lock.release()
            result.messages = episode.messages
            result.termination = episode.termination
            result.steps = episode.steps
            result.tool_errors = episode.tool_errors
            result.usage = {**episode.usage, "judge": Usage(), "memory": memory_usage}
            verdict = await call(job.judge.judge, JudgeCase(
                subtask=prepared.subtask, messages=episode.messages, environment=prepared.environment,
                termination=episode.termination, time=prepared.env_time, seed=result.seed,
                extra={"language": prepared.language}))
            result.record_verdict(verdict)
            # Decided here, where the trajectory and the subtask's data are at hand (the controller gets summaries).
            result.failure_category = failure_category(result, prepared.subtask)
        except Exception as exc:  # an infrastructure failure: reported as an error, scored as a failure
            result.failure_category = "infrastructure_error"
            result.outcome = "error"
            result.reward = 0.0
            # An exception from an endpoint may quote what it was sent: no credential goes into a result.
            result.error = exc.render() if isinstance(exc, SuiteError) else redact(f"{type(exc).__name__}: {exc}")
            result.termination = result.termination or "error"
            result.traceback = redact(traceback.format_exc())
        finally:
            if prepared is not None:
                prepared.environment.close()
        result.duration_s = round(time.perf_counter() - started, 4)
        return result

    async def _play(self, result: ItemResult, prepared: _Prepared, job: ItemJob,
                    call: Callable[..., Awaitable[Any]]) -> EpisodeResult:
        """The item's episode. A crashed one starts again on a fresh environment as many times as the episode
        rules allow."""
        rules = self.behaviour.episode
        while True:
            try:
                return await play_episode(
                    agent=job.agent, agent_setup=prepared.agent_setup, user=job.user_simulator,
                    user_setup=prepared.user_setup, environment=prepared.environment,
                    max_steps=self.config.max_steps, history=prepared.history, call=call,
                    rules=rules)
            except Exception as exc:
                # A refused request (a 4xx, a validation error) is refused again: starting over only repeats it.
                if result.restarts >= rules.restarts or (isinstance(exc, LLMError) and not exc.retryable):
                    raise
                result.restarts += 1
                prepared.environment.close()
                prepared.environment = prepared.rebuild()

    def _prepare(self, result: ItemResult, job: ItemJob) -> tuple[_Prepared, Usage]:
        """The item's memory snapshot, environment and both setups (the memory chain advanced to its subtask)."""
        suite, user, index, agent = job.suite, job.user, job.index, job.agent
        with held_user(suite, user) as task:  # what the item needs of the user is read here, held
            memory = self.memory_for(suite, user, index, result.memory, result.trial)
            tool_user_id, answer = user.tool_user_id(index), _answer_for(agent, user, index)
        sub = task.subtasks[index]
        config = self.config
        language = self.language_for(suite)
        memory_usage = take_usage(memory)
        snapshot = memory.read(query=sub.instruction)
        result.memory_snapshot = snapshot
        env_time = user.times[index]
        tools = memory_tools(memory)
        # The offline built-in agents read JSON answers; the official text is for models, and is read from the
        # official source (without one, under the official profile, the answers are ours as the prompts are).
        behaviour = self.behaviour
        text_answers = not getattr(agent, "reads_json_results", False) and self.official_source is not None
        answers = answers_for(behaviour.tools, self.official_source) if text_answers else None

        def fresh_environment() -> Environment:
            built = build_environment(
                sub.domain, sub.environment, user_id=tool_user_id,
                time=env_time, seed=result.seed, language=language, checks=config.tool_checks,
                official_search=behaviour.tools.official_search, answers=answers,
            )
            built.add_tools(tools)
            return built

        environment = fresh_environment()
        profile = agent_profile(task)
        clock = time_with_weekday(env_time, language)
        history = seed_messages(sub.message_history)
        wording = wording_for(self.official_source, language) if behaviour.prompt.official_wording else None
        if wording is not None:
            system_prompt = wording.agent_system_prompt(time=clock, profile=profile, memory=snapshot,
                                                        proactive=sub.is_proactive)
        else:
            system_prompt = agent_system_prompt(time=clock, profile=profile, memory=snapshot,
                                                proactive=sub.is_proactive, language=language,
                                                rules=behaviour.prompt)
        write_tools = frozenset(name for name, tool in environment.tools.items() if tool.kind in WRITE_KINDS)
        setup = AgentSetup(
            system_prompt=system_prompt, hides_greeting=wording is not None and not history,
            official_format=wording is not None,
            tools=(wording.tool_schemas(sub.domain, environment.tool_schemas()) if wording
                   else environment.tool_schemas()),
            memory=snapshot, time=clock, user_profile=profile,
            proactive=sub.is_proactive, language=language, seed=result.seed,
            groundtruth=sub.groundtruth_preferences() if getattr(agent, "reads_groundtruth", False) else None,
            write_tools=write_tools, answer=answer,
        )
        user_setup = UserSetup(
            instruction=sub.instruction, user_id=task.user_id, user_intention=sub.user_intention or "",
            persona=task.user_profile, proactive=sub.is_proactive, language=language, seed=result.seed,
            # a 1.0 task's text is the user's hidden scenario: an LLM user writes its own opening from it
            scenario_is_hidden=task.source_format == "vitabench1",
            write_tools=write_tools, greeting=wording.greeting() if wording else "", history_length=len(history),
        )
        return _Prepared(subtask=sub, environment=environment, agent_setup=setup, user_setup=user_setup,
                         env_time=env_time, history=history, language=language, live_memory=bool(tools),
                         rebuild=fresh_environment), memory_usage


def _answer_for(agent: Agent, user: LoadedUser, index: int) -> Any:
    """The answer key, only for an agent that declares it reads the answer (the ``answer`` built-in)."""
    return answer_key_of(user, index) if getattr(agent, "reads_answer", False) else None


def agent_profile(task: UserTask) -> dict[str, Any]:
    """The account profile shown to the agent (for converted 1.0 tasks, identity fields only)."""
    if task.source_format != "vitabench1":
        return dict(task.user_profile)
    return {k: v for k, v in task.user_profile.items() if not _VB1_HIDDEN_PROFILE_KEYS.search(k)}
