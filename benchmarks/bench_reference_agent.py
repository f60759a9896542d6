"""CPU the built-in ``reference`` agent spends per item on the paper-scale suite, and how it splits (issue 8).

    python benchmarks/bench_reference_agent.py                     # 8 users, full_context, 4 trials
    python benchmarks/bench_reference_agent.py --users 56          # the whole paper suite (3,136 items)
    python benchmarks/bench_reference_agent.py --model literal --memory none

Runs the items in one process, in collection order (every trial of a subtask in turn, as pytest runs them),
through the real item runner with the scripted user and the rules judge, and times the agent's calls with
``time.thread_time``: its reading of the memory text (``BuiltinAgent.memory``) and its choosing (everything else
in ``respond``: the conversation's reading, the catalogue, the ranking, the next call). The whole item's CPU
(``time.process_time``) is printed beside them. Runs on any checkout of the plugin (before/after a change).

A benchmark, not a test: it prints figures and asserts nothing about time. Note ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from pytest_vitabench.agents import builtin, make_builtin_agent
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.users.scripted import ScriptedUser

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"


class _Clock:
    """CPU seconds spent inside the wrapped methods (of the thread that runs them)."""

    def __init__(self) -> None:
        self.respond = self.memory = 0.0
        self.calls = 0

    def wrap(self) -> None:
        respond, memory = builtin.BuiltinAgent.respond, builtin.BuiltinAgent.memory

        def timed_respond(agent: Any, *args: Any) -> Any:
            began = time.thread_time()
            try:
                return respond(agent, *args)
            finally:
                self.respond += time.thread_time() - began
                self.calls += 1

        def timed_memory(agent: Any, *args: Any) -> Any:
            began = time.thread_time()
            try:
                return memory(agent, *args)
            finally:
                self.memory += time.thread_time() - began

        builtin.BuiltinAgent.respond = timed_respond  # type: ignore[method-assign]
        builtin.BuiltinAgent.memory = timed_memory  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", nargs="?", type=Path, default=SUITE)
    parser.add_argument("--model", default="reference", help="a built-in agent")
    parser.add_argument("--memory", default="full_context")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--users", type=int, default=8, help="the first N users")
    args = parser.parse_args()

    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    runner = ItemRunner(RunConfig(model=args.model, memory=[args.memory], trials=args.trials))
    suite = runner.suite(args.suite)
    agent, user_simulator, judge = make_builtin_agent(args.model), ScriptedUser(), RulesJudge()
    clock = _Clock()
    clock.wrap()
    items = 0
    rewards = 0.0
    began = time.process_time()
    for user in suite.users[:args.users]:
        assert user.task is not None, user.error
        for index, sub in enumerate(user.task.subtasks):
            for trial in range(args.trials):
                result = runner.run(nodeid=f"{user.key}::{sub.subtask_id}[{args.memory}-t{trial}]", suite=suite,
                                    user=user, index=index, memory_name=args.memory, trial=trial, agent=agent,
                                    user_simulator=user_simulator, judge=judge)
                items += 1
                rewards += result.reward
    total = time.process_time() - began

    def per_item(seconds: float) -> str:
        return f"{1000 * seconds / items:6.2f} ms"

    print(f"{args.model}, {args.memory}, {args.trials} trials, {items} items of {args.users} users; "
          f"Avg {rewards / items:.3f}; {clock.calls / items:.1f} agent calls per item")
    print(f"CPU per item: whole item {per_item(total)} | agent {per_item(clock.respond)} = reading memory "
          f"{per_item(clock.memory)} + choosing {per_item(clock.respond - clock.memory)}")


if __name__ == "__main__":
    main()
