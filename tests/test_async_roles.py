"""``async def`` roles, driven on an event loop that pytest-asyncio owns, and next to pytest-asyncio in a run.

The plugin runs its own event loop (a background thread) and needs no asyncio plugin; these tests are
why ``pytest-asyncio`` is in the ``dev`` extra: a role's coroutine is awaited on whichever loop calls the
episode, sync roles leave that loop's thread, and a suite runs beside async tests in one session.
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from _suites import delivery_subtask, tiny_suite

from pytest_vitabench.agents.base import AgentSetup
from pytest_vitabench.domains import build_environment
from pytest_vitabench.messages import Message
from pytest_vitabench.run.episode import ThreadedCaller, play_episode
from pytest_vitabench.users.base import UserSetup

pytest_asyncio = pytest.importorskip("pytest_asyncio", reason="pytest-asyncio is in the dev extra: "
                                                              "pip install -e '.[dev]'")

SETUP = AgentSetup(system_prompt="", tools=[], memory="", time="")
USER = UserSetup(instruction="Order me noodles.", user_id="U1")


class LoopRecordingAgent:
    """An async agent that says where it ran, then stops on its second turn."""

    def __init__(self) -> None:
        self.loops: list[asyncio.AbstractEventLoop] = []

    async def respond(self, setup, messages):
        self.loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)  # really suspends: the episode must await, not just call
        turns = sum(1 for m in messages if m.role == "assistant")
        return Message(role="assistant", content="Done. ###STOP###" if turns >= 2 else "Which noodles?")


class ThreadRecordingUser:
    """A sync user simulator: records the thread it was called in."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def respond(self, setup, messages):
        self.threads.append(threading.get_ident())
        return Message(role="user", content="The beef ones.")


@pytest_asyncio.fixture
async def environment():
    """A fresh delivery environment, built off the loop as the scheduler builds it."""
    sub = delivery_subtask("s1")
    return await asyncio.to_thread(build_environment, "delivery", sub["environment"], user_id="U1",
                                   time=sub["environment"]["time"], seed=1)


@pytest.mark.asyncio
async def test_async_roles_run_on_the_callers_loop_and_sync_roles_off_it(environment):
    agent, user = LoopRecordingAgent(), ThreadRecordingUser()
    result = await play_episode(agent=agent, agent_setup=SETUP, user=user, user_setup=USER,
                                environment=environment, call=ThreadedCaller())
    assert result.termination == "agent_stop"
    assert [m.content for m in result.messages if m.role == "user"] == ["Order me noodles.", "The beef ones."]
    assert agent.loops and set(agent.loops) == {asyncio.get_running_loop()}
    assert user.threads and threading.get_ident() not in user.threads  # never blocks the loop


class WaitForPeerAgent:
    """Ends its episode only once the other episode has started: completes only if both are in flight."""

    def __init__(self, mine: asyncio.Event, theirs: asyncio.Event) -> None:
        self.mine, self.theirs = mine, theirs

    async def respond(self, setup, messages):
        self.mine.set()
        await self.theirs.wait()
        return Message(role="assistant", content="Done. ###STOP###")


@pytest.mark.asyncio
async def test_two_episodes_with_async_agents_are_in_flight_together():
    first, second = asyncio.Event(), asyncio.Event()
    sub = delivery_subtask("s1")

    def env():
        return build_environment("delivery", sub["environment"], user_id="U1", time=sub["environment"]["time"],
                                 seed=1)

    episodes = [play_episode(agent=agent, agent_setup=SETUP, user=ThreadRecordingUser(), user_setup=USER,
                             environment=env(), call=ThreadedCaller())
                for agent in (WaitForPeerAgent(first, second), WaitForPeerAgent(second, first))]
    # A deadlock (episodes run one after the other) fails here instead of hanging the suite.
    results = await asyncio.wait_for(asyncio.gather(*episodes), timeout=120)
    assert [r.termination for r in results] == ["agent_stop", "agent_stop"]


ASYNC_AGENT_CONFTEST = '''
import asyncio
import json

import pytest
from pytest_vitabench.messages import Message, ToolCall


class AsyncEvenOddAgent:
    """The plugin tests' EvenOddAgent, as a coroutine: right store on even trial seeds, wrong on odd."""

    async def respond(self, setup, messages):
        await asyncio.sleep(0)
        done = [m for m in messages if m.role == "tool"]
        if not done:
            store, product = ("S2", "P2") if setup.seed % 2 == 0 else ("S1", "P1")
            return Message(role="assistant", tool_calls=[ToolCall(id="c1", name="create_delivery_order", arguments={
                "user_id": setup.user_profile["user_id"], "store_id": store, "product_ids": [product],
                "product_cnts": [1], "address": "No. 1 Test Road, Home", "dispatch_time": setup.time[:19]})])
        if len(done) == 1:
            order_id = json.loads(done[0].content)["order_id"]
            return Message(role="assistant", tool_calls=[ToolCall(id="c2", name="pay_delivery_order",
                                                                  arguments={"order_id": order_id})])
        return Message(role="assistant", content="Your order is placed and paid. ###STOP###")


@pytest.fixture(scope="session")
def vita_agent():
    return AsyncEvenOddAgent()
'''

ASYNC_TEST = '''
import asyncio

import pytest


@pytest.mark.asyncio
async def test_an_async_test_of_the_project():
    await asyncio.sleep(0)
'''


def test_a_suite_with_an_async_agent_runs_beside_pytest_asyncio_tests(pytester):
    """One session: pytest-asyncio's loop for the project's async test, the plugin's own for the episodes."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(ASYNC_AGENT_CONFTEST)
    pytester.makepyfile(test_project=ASYNC_TEST)
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    report_path = pytester.path / "run.json"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "asyncio", "--vita-trials", "2",
                                           "--vita-concurrency", "2", "--vita-report", str(report_path))
    result.stdout.fnmatch_lines(["test_project.py .*", "*VitaBench results*"])
    report = json.loads(report_path.read_text())
    outcomes = {(r["user_id"], r["subtask_id"], r["trial"]): r["outcome"] for r in report["results"]}
    assert outcomes and "error" not in outcomes.values()
    # Even trial seeds order the right noodles: the async agent scores exactly as the sync one would.
    assert {o for (_, _, trial), o in outcomes.items() if trial == 0} == {"passed"}
    assert "failed" in {o for (_, _, trial), o in outcomes.items() if trial == 1}
    passed_tests = len(outcomes) - sum(o == "failed" for o in outcomes.values()) + 1  # + the async test
    result.assert_outcomes(passed=passed_tests, failed=sum(o == "failed" for o in outcomes.values()))
