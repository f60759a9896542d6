"""``vitabench estimate``: what a run with LLM roles will cost, before paying for it
(:func:`~pytest_vitabench.run.estimate.estimate_cost`, which the spend cap of a run reads too)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..run.estimate import (  # noqa: F401 - the estimate's names, as this module has always offered them
    CACHE_MIN_PREFIX,
    CACHE_STEP,
    DEFAULT_PRICES,
    _rewrite_tokens,
    cacheable,
    estimate_cost,
    prices_from_option,
)
from ..store import default_root
from .command import Command, argument, run_config, setting_arguments


def estimate_command(args: argparse.Namespace) -> int:
    """``vitabench estimate``: print the tokens and cost of the suite under the roles and backends given."""
    # A paper-scale suite takes seconds: a terminal sees how far it is (a pipe or a log file gets the result only).
    shown = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if done == total or done % 10 == 0:
            print(f"\rvitabench estimate: played {done}/{total} subtasks", end="", file=sys.stderr, flush=True)

    try:
        config = run_config(args)
        estimate = estimate_cost(args.suite, memory=config.memory, trials=config.trials, agent_model=config.model,
                                 user_model=config.user_model, judge_model=config.judge_model,
                                 prices=prices_from_option(config.prices), judge_batch=config.judge_batch,
                                 progress=progress if shown else None,
                                 index_dir=default_root(Path.cwd()) / "suites")
    except ValueError as exc:
        print(f"vitabench estimate: {exc}", file=sys.stderr)
        return 2
    finally:
        if shown:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    for line in estimate.lines():
        print(line)
    return 0


COMMAND = Command(
    "estimate", help="estimate the tokens and cost of a run with LLM roles",
    description="Play every subtask once with the offline built-ins and count the tokens each LLM role would have "
                "been sent along those trajectories, then price them (a floor: LLM agents usually take more turns).",
    run=estimate_command, arguments=(
        argument("suite", help="the suite file (.json or .json.gz)"),
        *setting_arguments(
            "model", "user_model", "judge_model", "memory", "trials", "prices", "judge_batch", checked=("trials",),
            model={"metavar": "MODEL", "default": "gpt-4.1", "help": "the agent model to price (default: gpt-4.1)"},
            user_model={"metavar": "USER_MODEL", "default": "gpt-4.1",
                        "help": "the user simulator model, or scripted for none (default: gpt-4.1)"},
            judge_model={"metavar": "JUDGE_MODEL", "default": "gpt-4.1",
                         "help": "the judge model, or rules for none (default: gpt-4.1)"},
            memory={"metavar": "MEMORY", "default": "full_context,agentic,rag",
                    "help": "memory backends, comma-separated (default: full_context,agentic,rag)"},
            trials={"metavar": "TRIALS", "help": "trials per subtask (default: 4)"},
            prices={"metavar": "PRICES",
                    "help": "'model=prompt/completion,...' or 'model=prompt/cached/completion,...' in USD per 1M "
                            "tokens (gpt-4.1's list prices, cached rate included, are built in); a .toml or .json "
                            "file may add each model's batch_factor (default 0.5)"},
            judge_args={"help": "batch=on: also print the cost with the judge sent through the Batch API, billed "
                                "at its batch price (half the list price, as OpenAI and Anthropic bill it)"}),
    ))
