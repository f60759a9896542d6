"""One subtask's conversation: agent <-> user <-> tools, until a stop token or the step budget.

The official conversation loop (tau2-bench's), its faults fixed: the trajectory opens with the agent's greeting and
the user's verbatim
instruction; every hop counts toward ``max_steps`` (a user turn, an agent turn, one batch of tool results), and
``steps`` never exceeds it (see :attr:`~pytest_vitabench.official.behaviour.EpisodeRules.cap_ends_at_once`);
tool calls go to the environment (their message's text never reaches the user), tool errors back to the
agent; an empty agent message is retried up to three times before the episode ends as
``invalid_agent_message``. Other :class:`~pytest_vitabench.official.behaviour.EpisodeRules` may end the episode
at a stop token even beside tool calls (not run), give fewer attempts, and raise :class:`MalformedToolCall` for
tool-call arguments that are not a JSON object (the runner restarts then).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..agents.base import Agent, AgentSetup
from ..agents.prompts import GREETING
from ..domains.base import Environment
from ..messages import Message, Usage
from ..official.behaviour import EpisodeRules
from ..users.base import UserSetup, UserSimulator

T = TypeVar("T")
#: This project's episode rules (the first attempt at a valid agent message and three retries).
OURS = EpisodeRules()


class MalformedToolCall(Exception):
    """The agent's tool-call arguments are not a JSON object (under rules where that crashes the episode)."""


@dataclass
class EpisodeResult:
    messages: list[Message]
    termination: str
    steps: int
    tool_errors: int
    usage: dict[str, Usage] = field(default_factory=dict)


class SyncCaller:
    """Calls roles in the caller's thread; an awaitable answer runs on a private event loop, closed with the
    caller (a context manager). Its ``__call__`` never suspends, so :func:`drive` needs no event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, function: Any, *args: Any) -> Any:
        value = function(*args)
        if not inspect.isawaitable(value):
            return value
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(value)

    def __enter__(self) -> SyncCaller:
        return self

    def __exit__(self, *exc_info: object) -> None:
        # As ``asyncio.run`` ends: what a role left on the loop (a batch judge's flusher) is cancelled, and
        # the loop's threads are shut down, so the next item starts from a loop of its own.
        loop = self._loop
        if loop is None:
            return
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine whose awaits never suspend (it awaits only a :class:`SyncCaller`) to its result."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a synchronous run suspended; await it on an event loop instead")


class ThreadedCaller:
    """Calls roles from a running event loop: ``async def`` roles are awaited, sync ones run in a thread
    (``asyncio.to_thread`` copies the context, so the per-item usage accounting follows the call)."""

    async def __call__(self, function: Any, *args: Any) -> Any:
        if inspect.iscoroutinefunction(function):
            return await function(*args)
        value = await asyncio.to_thread(function, *args)
        return await value if inspect.isawaitable(value) else value


async def _user_turn(
    call: Any, user: UserSimulator, setup: UserSetup, messages: list[Message], usage: dict[str, Usage]
) -> Message:
    answer = await call(user.respond, setup, list(messages))
    if not isinstance(answer, Message) or answer.role != "user":
        raise TypeError(f"the user simulator returned {answer!r}, expected a user Message")
    if answer.usage:
        usage["user"] = usage["user"] + answer.usage
    return answer


async def _agent_reply(call: Any, agent: Agent, setup: AgentSetup, messages: list[Message],
                       attempts: int) -> Message | None:
    """The agent's next valid message, or ``None`` after ``attempts`` invalid ones."""
    for _ in range(attempts):
        reply = await call(agent.respond, setup, list(messages))
        if isinstance(reply, Message) and reply.role == "assistant" and (reply.text.strip() or reply.tool_calls):
            return reply
    return None


async def _tool_results(call: Any, environment: Environment, message: Message) -> list[Message]:
    results = []
    for tool_call in message.tool_calls or ():
        result = await call(environment.call, tool_call.name, tool_call.arguments)
        results.append(Message(role="tool", tool_call_id=tool_call.id, name=tool_call.name,
                               content=result.content, error=result.error))
    return results


def run_episode(**episode: Any) -> EpisodeResult:
    """:func:`play_episode` (same arguments, but ``call``) run to its end in this thread."""
    with SyncCaller() as call:
        return drive(play_episode(**episode, call=call))


async def play_episode(*, agent: Agent, agent_setup: AgentSetup, user: UserSimulator, user_setup: UserSetup,
                       environment: Environment, max_steps: int = 100, history: list[Message] | None = None,
                       call: Any = None, rules: EpisodeRules = OURS) -> EpisodeResult:
    """One subtask's conversation, to its end, as a coroutine (:func:`run_episode` runs it in a thread).

    Args:
        environment: A fresh environment for this subtask; mutated by write tools.
        max_steps: The hop budget; the greeting is not a hop.
        history: The subtask's ``message_history``: the conversation starts from it instead of the greeting
            and the instruction, and whoever did not speak last speaks next (as the official orchestrator).
        call: ``await call(function, *args)`` invokes a role or a tool; :class:`ThreadedCaller` (the
            default) runs sync roles in threads so that many episodes share one event loop.
        rules: The stop and retry rules (module docstring).

    Raises:
        MalformedToolCall: Only under ``rules.malformed_calls_crash``: the agent sent tool-call arguments
            that are not a JSON object.
        Exception: Whatever the agent or the simulator raised: an infrastructure failure, reported by the
            caller as an error outcome (never as a scored failure).
    """
    call = call or ThreadedCaller()
    usage = {"agent": Usage(), "user": Usage()}
    messages = list(history or ())
    stopped = False
    if not messages:
        greeting = user_setup.greeting or GREETING.get(user_setup.language, GREETING["en"])
        messages.append(Message(role="assistant", content=greeting))
        # The first user turn is the instruction verbatim, with no simulator call (as officially),
        # except for a hidden scenario (VitaBench 1.0 tasks), from which the simulator writes its opening.
        if user_setup.scenario_is_hidden:
            messages.append(await _user_turn(call, user, user_setup, messages, usage))
        else:
            messages.append(Message(role="user", content=user_setup.instruction))
        stopped = messages[-1].has_stop()
    elif messages[-1].role == "assistant" and messages[-1].tool_calls:  # calls still waiting for their results
        messages += await _tool_results(call, environment, messages[-1])
    elif messages[-1].role == "assistant":  # the agent spoke last: the user answers first
        messages.append(await _user_turn(call, user, user_setup, messages, usage))
        stopped = messages[-1].has_stop()
    steps = int(len(messages) > len(history or ()))  # the opening hop, if the start had one to make
    termination = "user_stop" if stopped else "max_steps"
    attempts = rules.agent_attempts
    while steps < max_steps and termination != "user_stop":
        reply = await _agent_reply(call, agent, agent_setup, messages, attempts)
        if reply is None:
            termination = "invalid_agent_message"
            break
        if reply.usage:
            usage["agent"] = usage["agent"] + reply.usage
        malformed = [c.arguments for c in reply.tool_calls or () if isinstance(c.arguments, str)]
        if rules.malformed_calls_crash and malformed:
            raise MalformedToolCall(f"the agent's tool-call arguments are not a JSON object: {malformed[0][:200]!r}")
        messages.append(reply)
        steps += 1
        if rules.stop_ends_at_once and reply.has_stop():  # before routing the calls to the tools
            termination = "agent_stop"
            break
        if reply.tool_calls:
            if steps >= max_steps and rules.cap_ends_at_once:
                break
            messages += await _tool_results(call, environment, reply)
            # Results of calls made at the cap are no hop past it: ``steps`` never exceeds ``max_steps``.
            steps = min(steps + 1, max_steps)
            continue
        if reply.has_stop():
            termination = "agent_stop"
            break
        if steps >= max_steps:
            break
        answer = await _user_turn(call, user, user_setup, messages, usage)
        messages.append(answer)
        steps += 1
        if answer.has_stop():
            termination = "user_stop"
            break
    if rules.cap_ends_at_once and steps >= max_steps:
        termination = "max_steps"
    return EpisodeResult(messages=messages, termination=termination, steps=steps,
                         tool_errors=environment.tool_errors, usage=usage)
