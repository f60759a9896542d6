"""Run one item (subtask x memory backend x trial) from suite data to an :class:`ItemResult`.

Plain Python: the plugin calls :meth:`ItemRunner.run`; the CLI and tests can too. The memory of subtask
``i`` is built from the interactions of subtasks ``0..i`` (never from conversations), so any item can run
alone, in any order, on any xdist worker. Each process keeps the memory chain of the user it last
served, so running a user's subtasks in order updates the memory once per subtask.
"""

from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .agents.base import Agent, AgentSetup
from .config import RunConfig
from .domains import build_environment
from .episode import run_episode
from .judges.base import Judge, JudgeCase
from .memory.base import Memory, MemoryContext, memory_tools, take_usage
from .memory.registry import is_deterministic, memory_factory
from .memory.snapshots import SnapshotStore, advance, settings_of, snapshot_key
from .messages import Usage
from .prompts import agent_system_prompt, time_with_weekday
from .result import ItemResult
from .suite.loader import LoadedSuite, LoadedUser, load_suite
from .suite.schema import SubTask, UserTask
from .users.base import UserSetup, UserSimulator

#: 1.0 profiles mix identity with the user's hidden constraints; the agent sees only identity fields.
_VB1_HIDDEN_PROFILE_KEYS = re.compile(r"diet|restriction|personality|preference|饮食|忌口|性格|偏好", re.I)


@dataclass
class _Chain:
    memory: Memory
    next_index: int


class ItemRunner:
    """Runs items for one configuration; caches loaded suites and memory chains per process."""

    def __init__(self, config: RunConfig, *, memory_options: dict[str, Any] | None = None,
                 snapshots: SnapshotStore | None = None):
        self.config = config
        self.memory_options = dict(memory_options or {})
        self.snapshots = snapshots
        self._suites: dict[Path, LoadedSuite] = {}
        self._chains: dict[tuple[str, str, str, int], _Chain] = {}
        self.last_traceback = ""

    def suite(self, path: str | Path) -> LoadedSuite:
        key = Path(path).resolve()
        if key not in self._suites:
            self._suites[key] = load_suite(key, strict=self.config.strict)
        return self._suites[key]

    def memory_for(self, suite: LoadedSuite, user: LoadedUser, index: int, memory_name: str, trial: int) -> Memory:
        """The user's memory as it stands right before subtask ``index`` (updated with its interactions).

        Built from the dataset interactions of subtasks ``0..index`` only; backends that can checkpoint
        (agentic, rag) resume from a saved state, so selecting a late subtask alone costs one file read.
        """
        task = user.task
        assert task is not None
        options = self._memory_options()
        trial_key = 0 if is_deterministic(memory_name, options) else trial
        key = (str(suite.path), user.key, memory_name, trial_key)
        chain = self._chains.get(key)
        if chain is None or chain.next_index > index + 1:
            chain = _Chain(memory=memory_factory(memory_name, options)(), next_index=0)
        # Keep this user's chains only: items of one user arrive together, across backends and trials.
        self._chains = {k: c for k, c in self._chains.items() if k[:2] == key[:2]}
        self._chains[key] = chain
        seed = self.config.trial_seed(trial_key)

        def update(j: int) -> None:
            sub = task.subtasks[j]
            chain.memory.update(list(sub.interactions), MemoryContext(
                user_id=task.user_id, subtask_id=sub.subtask_id, now=user.times[j], language=self.config.language,
                groundtruth=sub.groundtruth_preferences(), trial=trial_key, seed=seed))

        def key_for(j: int) -> str:
            return snapshot_key(suite_sha256=suite.sha256, user_id=user.key, index=j, backend=memory_name,
                                trial=trial_key, settings=settings_of(chain.memory))

        chain.next_index = advance(chain.memory, next_index=chain.next_index, index=index, update=update,
                                   store=self.snapshots, key_for=key_for)
        return chain.memory

    def _memory_options(self) -> dict[str, Any]:
        return {"full_context_max_tokens": self.config.full_context_max_tokens, **self.memory_options}

    def run(
        self,
        *,
        nodeid: str,
        suite: LoadedSuite,
        user: LoadedUser,
        index: int,
        memory_name: str,
        trial: int,
        agent: Agent,
        user_simulator: UserSimulator,
        judge: Judge,
    ) -> ItemResult:
        task = user.task
        assert task is not None
        sub = task.subtasks[index]
        seed = self.config.trial_seed(trial)
        result = ItemResult(
            nodeid=nodeid, suite=str(suite.path), user_id=task.id, subtask_id=sub.subtask_id, subtask_index=index,
            domain=sub.domain, skills=sub.skills, memory=memory_name, trial=trial, seed=seed,
        )
        started = time.perf_counter()
        try:
            self._run(result, task, user, sub, index, agent, user_simulator, judge, suite)
        except Exception as exc:  # an infrastructure failure: reported as an error, scored as a failure
            result.outcome = "error"
            result.reward = 0.0
            result.error = f"{type(exc).__name__}: {exc}"
            result.termination = result.termination or "error"
            self.last_traceback = traceback.format_exc()
        result.duration_s = round(time.perf_counter() - started, 4)
        return result

    def _run(
        self,
        result: ItemResult,
        task: UserTask,
        user: LoadedUser,
        sub: SubTask,
        index: int,
        agent: Agent,
        user_simulator: UserSimulator,
        judge: Judge,
        suite: LoadedSuite,
    ) -> None:
        config = self.config
        memory = self.memory_for(suite, user, index, result.memory, result.trial)
        memory_usage = take_usage(memory)
        snapshot = memory.read(query=sub.instruction)
        result.memory_snapshot = snapshot
        env_time = user.times[index]
        environment = build_environment(
            sub.domain, sub.environment, user_id=str(sub.environment.get("user_id") or task.user_id),
            time=env_time, seed=result.seed, language=config.language,
        )
        environment.add_tools(memory_tools(memory))
        profile = agent_profile(task)
        clock = time_with_weekday(env_time, config.language)
        setup = AgentSetup(
            system_prompt=agent_system_prompt(time=clock, profile=profile, memory=snapshot,
                                              proactive=sub.is_proactive, language=config.language),
            tools=environment.tool_schemas(), memory=snapshot, time=clock, user_profile=profile,
            proactive=sub.is_proactive, language=config.language, seed=result.seed,
            groundtruth=sub.groundtruth_preferences() if getattr(agent, "reads_groundtruth", False) else None,
            answer=_answer_for(agent, sub, environment.user_id, env_time, task),
        )
        user_setup = UserSetup(
            instruction=sub.instruction, user_id=task.user_id, user_intention=sub.user_intention or "",
            persona=task.user_profile, proactive=sub.is_proactive, language=config.language, seed=result.seed,
            # a 1.0 task's text is the user's hidden scenario: an LLM user writes its own opening from it
            scenario_is_hidden=task.source_format == "vitabench1",
            write_tools=frozenset(name for name, tool in environment.tools.items() if tool.kind == "write"),
        )
        episode = run_episode(agent=agent, agent_setup=setup, user=user_simulator, user_setup=user_setup,
                              environment=environment, max_steps=config.max_steps)
        result.messages = episode.messages
        result.termination = episode.termination
        result.steps = episode.steps
        result.tool_errors = episode.tool_errors
        result.usage = {**episode.usage, "judge": Usage(), "memory": memory_usage}
        verdict = judge.judge(JudgeCase(subtask=sub, messages=episode.messages, environment=environment,
                                        termination=episode.termination, time=env_time, seed=result.seed))
        result.rubrics = verdict.rubrics
        result.reward = verdict.reward
        result.judge_details = verdict.details
        if verdict.not_judgeable:
            result.outcome = "skipped"
            result.error = verdict.not_judgeable
        else:
            result.outcome = "passed" if verdict.reward == 1.0 else "failed"


def _answer_for(agent: Agent, sub: SubTask, user_id: str, time: str, task: UserTask) -> Any:
    """The answer key, only for an agent that declares it reads the answer (the ``answer`` built-in)."""
    if not getattr(agent, "reads_answer", False):
        return None
    from .suite.answer_key import answer_key

    return answer_key(sub, user_id=user_id, time=time, profile=task.user_profile)


def agent_profile(task: UserTask) -> dict[str, Any]:
    """The account profile shown to the agent (for converted 1.0 tasks, identity fields only)."""
    if task.source_format != "vitabench1":
        return dict(task.user_profile)
    return {k: v for k, v in task.user_profile.items() if not _VB1_HIDDEN_PROFILE_KEYS.search(k)}
