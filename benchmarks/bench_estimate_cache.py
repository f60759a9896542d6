"""Does the estimate's prompt-cache model give what a caching provider serves, role by role?

    python benchmarks/bench_estimate_cache.py              # the first 2 users of suites/paper
    python benchmarks/bench_estimate_cache.py --users 4

``vitabench estimate`` plays every subtask once with the offline built-ins (``reference`` agent, ``scripted``
user) and models which prompt tokens a provider's cache would serve. This benchmark sends the requests that the
LLM roles would make along those same trajectories, built by the plugin's own code, to the caching stub
(tests/_caching_llm.py: prefixes of 1,024+ tokens in 128-token steps, known once answered, kept 5 minutes) on
127.0.0.1, in the order a run sends them, and prints for each role the share of prompt tokens the stub served
from cache beside the share the estimate models for the same slice:

* user simulator: at every user turn after the instruction, the LLM simulator's request (its system prompt and
  the role-flipped conversation so far), one trial (sibling trials of a real run diverge after their first
  turns, so nothing across trials is counted);
* judge: the sliding-window LLM judge on each trajectory (its windows one after another), one trial;
* memory: the agentic memory's rewrite before every subtask, 4 trials, each subtask's trial 0 answered before
  its siblings send theirs (what the request order does). The stub answers each rewrite with a memory as large as
  the records so far, up to the 4,096-token budget, that differs per trial from its first line (as the estimate
  assumes: each trial's memory is its own);
* agent: see benchmarks/bench_prompt_cache.py, which runs the plugin's LLM agent at the stub.

The stub counts 4 characters a token and the estimate its own estimator, so compare shares, not token counts.
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"
sys.path[:0] = [str(REPO / "tests")]

from _caching_llm import CHARS_PER_TOKEN, caching_stub, role_answer  # noqa: E402

from pytest_vitabench.agents import make_builtin_agent  # noqa: E402
from pytest_vitabench.commands.estimate import DEFAULT_PRICES, estimate_cost  # noqa: E402
from pytest_vitabench.judges.llm_rubric import LLMRubricJudge  # noqa: E402
from pytest_vitabench.llm import LLMClient, LLMSettings  # noqa: E402
from pytest_vitabench.memory.agentic import DEFAULT_MAX_TOKENS, AgenticMemory  # noqa: E402
from pytest_vitabench.memory.base import MemoryContext  # noqa: E402
from pytest_vitabench.memory.tokens import keep_last_tokens  # noqa: E402
from pytest_vitabench.options.config import RunConfig  # noqa: E402
from pytest_vitabench.run.runner import ItemRunner  # noqa: E402
from pytest_vitabench.users import make_user_simulator  # noqa: E402
from pytest_vitabench.users.base import UserSetup  # noqa: E402
from pytest_vitabench.users.llm_user import flip_roles, user_system_prompt  # noqa: E402

KEY_ENV = "VITA_BENCH_ESTIMATE_CACHE_KEY"
MEMORY_BUDGET = DEFAULT_MAX_TOKENS


def realistic_memory(request: dict[str, Any]) -> dict[str, Any]:
    """The rewrite's answer: a memory as long as the current memory and the new records together (up to the
    budget), its first line the trial's own, so sibling trials' memories differ from their first word."""
    if "long-term preference memory" not in str((request.get("messages") or [{}])[0].get("content") or ""):
        return role_answer(request)
    prompt = str(request["messages"][-1]["content"])
    # the budget in the estimator's tokens, the unit the estimate's memory size is in
    return {"content": f"- kept for trial seed {request.get('seed')}\n" + keep_last_tokens(prompt, MEMORY_BUDGET - 16)}


def slice_suite(users: int, directory: Path) -> Path:
    with gzip.open(SUITE, "rt", encoding="utf-8") as handle:
        tasks = json.load(handle)[:users]
    path = directory / "slice.json"
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    return path


def measure(suite_path: Path, trials: int) -> dict[str, tuple[int, int, int]]:
    """``{role: (requests, prompt tokens, cached prompt tokens)}`` the stub reported."""
    stub, _ = caching_stub(answer=realistic_memory)
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env=KEY_ENV, cache="off", max_retries=0))
    try:
        with client:
            runner = ItemRunner(RunConfig.model_validate({"memory": ["full_context"], "trials": 1}))
            suite = runner.suite(suite_path)
            language = runner.language_for(suite)
            agent, scripted = make_builtin_agent("reference"), make_user_simulator("scripted")
            judge = LLMRubricJudge("gpt-4.1", client=client, language=language)
            for entry in suite.users:
                task = entry.task
                if task is None:
                    continue
                memories = [AgenticMemory(llm_client=client, memory_model="gpt-4.1", language=language)
                            for _ in range(trials)]
                for index, sub in enumerate(task.subtasks):
                    for trial, memory in enumerate(memories):  # trial 0 first, then its siblings
                        memory.update(list(sub.interactions), MemoryContext(
                            user_id=task.user_id, subtask_id=sub.subtask_id, now=entry.times[index], language=language,
                            trial=trial, seed=trial))
                    # the estimate's trajectory, judged by the LLM judge at the stub
                    result = runner.run(nodeid="estimate-cache", suite=suite, user=entry, index=index,
                                        memory_name="full_context", trial=0, agent=agent, user_simulator=scripted,
                                        judge=judge)
                    setup = UserSetup(instruction=sub.instruction, user_id=task.user_id,
                                      user_intention=sub.user_intention or "", persona=task.user_profile,
                                      proactive=sub.is_proactive, language=language, seed=0)
                    system = {"role": "system", "content": user_system_prompt(setup)}
                    for position, message in enumerate(result.messages):
                        if message.role == "user" and position >= 2:  # what the LLM simulator would be asked
                            client.complete("user", model="gpt-4.1",
                                            messages=[system, *flip_roles(result.messages[:position])])
            return {role: (u.requests, u.prompt_tokens, u.cached_prompt_tokens)
                    for role, u in client.ledger.by_role().items()}
    finally:
        stub.close()


def modeled(suite_path: Path, trials: int) -> dict[str, tuple[int, int, int]]:
    """``{role: (requests, prompt tokens, cached prompt tokens)}`` the estimate models for the same slice."""
    judged = estimate_cost(suite_path, memory=["full_context"], trials=1, agent_model="gpt-4.1",
                           user_model="gpt-4.1", judge_model="gpt-4.1", prices=DEFAULT_PRICES)
    rewritten = estimate_cost(suite_path, memory=["agentic"], trials=trials, agent_model="gpt-4.1",
                              prices=DEFAULT_PRICES)
    roles = {**judged.ledger.by_role(), "memory": rewritten.ledger.by_role()["memory"]}
    return {role: (u.requests, u.prompt_tokens, u.cached_prompt_tokens) for role, u in roles.items()}


def modeled_in_stub_units(suite_path: Path, trials: int) -> dict[str, tuple[int, int, int]]:
    """The same, counting tokens as the stub does (4 characters a token): the rule compared, not the unit."""
    import pytest_vitabench.run.estimate as estimate_module

    counted = estimate_module.count_tokens
    estimate_module.count_tokens = lambda text: -(-len(text) // CHARS_PER_TOKEN)
    try:
        return modeled(suite_path, trials)
    finally:
        estimate_module.count_tokens = counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2, help="the first N users of suites/paper (default 2)")
    parser.add_argument("--trials", type=int, default=4, help="trials of the memory rewrites (default 4)")
    args = parser.parse_args(argv)
    os.environ.setdefault(KEY_ENV, "local")
    with tempfile.TemporaryDirectory(prefix="bench-estimate-cache-") as tmp:
        path = slice_suite(args.users, Path(tmp))
        stub, model = measure(path, args.trials), modeled(path, args.trials)
        same_unit = modeled_in_stub_units(path, args.trials)
    print(f"first {args.users} users of suites/paper; memory rewrites over {args.trials} trials")
    print(f"  {'role':<8}{'stub: requests':>15}{'prompt':>10}{'cached':>8}   {'estimate: requests':>18}{'prompt':>10}"
          f"{'cached':>8}   {'estimate at 4 chars/token: cached':>34}")
    for role in ("user", "judge", "memory"):
        (sr, sp, sc), (er, ep, ec) = stub.get(role, (0, 0, 0)), model.get(role, (0, 0, 0))
        _, up, uc = same_unit.get(role, (0, 0, 0))
        print(f"  {role:<8}{sr:>15,}{sp:>10,}{sc / max(sp, 1):>8.1%}   {er:>18,}{ep:>10,}{ec / max(ep, 1):>8.1%}   "
              f"{uc / max(up, 1):>34.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
