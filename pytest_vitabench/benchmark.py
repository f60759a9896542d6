"""One benchmark run's wiring, built from option values: configuration, LLM client, roles and runner.

Plain Python (the plugin translates pytest options into the mapping; the CLI and tests can build one
directly). Every setting is checked here, before any item runs: a bad value, a missing API key, a memory
backend that needs a model or a package all raise ``ValueError`` naming the option to fix.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .agents import BUILTIN_AGENTS
from .config import RunConfig
from .llm import Ledger, LLMClient, MissingAPIKey, settings_from_options
from .memory.registry import memory_factory, parse_memory_list, parse_threshold
from .memory.snapshots import SnapshotStore
from .option_values import one_of, unknown_model_hint, whole_number
from .runner import ItemRunner


class Benchmark:
    """Settings and shared objects of one run in one process (the controller or an xdist worker).

    Args:
        options: Option values keyed by ini name (``vita_model``, ``vita_memory``, ...), strings as read.
        rootdir: Where the default cache directory and relative prices files live.
        state_dir: The directory shared by all processes of the run for LLM rate and concurrency limits.
    """

    def __init__(self, options: Mapping[str, Any], *, rootdir: Path, state_dir: str):
        def get(name: str, default: Any = None) -> Any:
            value = options.get(name)
            return default if value is None or value == "" else value

        def number(name: str, minimum: int, default: int) -> int:
            return whole_number("--" + name.replace("_", "-"), get(name), minimum=minimum, default=default)

        memory = parse_memory_list(str(get("vita_memory", "full_context")))
        model = str(get("vita_model", "reference"))
        self.config = RunConfig(
            model=model, base_url=get("vita_base_url") or os.environ.get("OPENAI_BASE_URL"),
            api_key_env=get("vita_api_key_env", "OPENAI_API_KEY"), user_model=get("vita_user_model", "scripted"),
            judge_model=get("vita_judge_model", "rules"), memory=memory, trials=number("vita_trials", 1, 4),
            max_steps=number("vita_max_steps", 2, 100), seed=number("vita_seed", -(2 ** 63), 0),
            language=one_of("--vita-language", get("vita_language", "en"), ("en", "zh")),
            strict=bool(get("vita_strict", False)),
            full_context_max_tokens=number("vita_full_context_tokens", 1, 102_400),
            judge_mode=one_of("--vita-judge-mode", get("vita_judge_mode", "window"), ("window", "full")),
            judge_votes=number("vita_judge_votes", 1, 1),
            outcome_reward=bool(get("vita_outcome_reward", False)),
            user_wait_for_action=bool(get("vita_user_wait_for_action", False)),
            memory_model=get("vita_memory_model") or (model if model not in BUILTIN_AGENTS else None),
            embedding_model=get("vita_embedding_model"), embedding_base_url=get("vita_embedding_base_url"),
            rag_top_k=number("vita_rag_top_k", 1, 8), rag_threshold=parse_threshold(get("vita_rag_threshold")),
        )
        self.llm_settings = settings_from_options(
            base_url=self.config.base_url, api_key_env=self.config.api_key_env, rootdir=rootdir, state_dir=state_dir,
            rpm=get("vita_rpm"), max_concurrency=get("vita_max_concurrency"), timeout=get("vita_timeout"),
            cache=get("vita_cache"), prices=get("vita_prices"), circuit_breaker=get("vita_circuit_breaker"))
        window = float(get("vita_rpm_window", 60))
        if window != self.llm_settings.rpm_window_s:
            self.llm_settings = self.llm_settings.model_copy(update={"rpm_window_s": window})
        self.ledger = Ledger()
        self._llm_client: LLMClient | None = None
        if self.needs_llm:
            try:
                self.llm_client()  # a missing key fails now, not in every item later
            except MissingAPIKey as exc:
                hint = unknown_model_hint(self.role_names())
                raise MissingAPIKey(f"{hint} ({exc})" if hint else str(exc)) from None
        cache_dir = self.llm_settings.cache_dir if self.llm_settings.cache != "off" else None
        self.memory_options: dict[str, Any] = {
            "llm_client": self._llm_client, "memory_model": self.config.memory_model,
            "embedding_model": self.config.embedding_model, "embedding_base_url": self.config.embedding_base_url,
            "language": self.config.language, "rag_top_k": self.config.rag_top_k,
            "rag_threshold": self.config.rag_threshold,
            "full_context_max_tokens": self.config.full_context_max_tokens, "cache_dir": cache_dir,
        }
        for name in memory:  # built once now, so a missing model or package fails before any item
            memory_factory(name, self.memory_options)
        store = SnapshotStore(Path(cache_dir) / "memory") if cache_dir else None
        self.runner = ItemRunner(self.config, memory_options=self.memory_options, snapshots=store)
        self.user_simulator()  # checks the user and judge settings too
        self.judge()

    @property
    def needs_llm(self) -> bool:
        c = self.config
        return (c.model not in BUILTIN_AGENTS or c.user_model != "scripted" or c.judge_model != "rules"
                or ("agentic" in c.memory and bool(c.memory_model)))

    def role_names(self) -> list[tuple[str, str]]:
        """``(option, name)`` of the agent, user and judge roles, for messages about misspelled names."""
        c = self.config
        return [("--vita-model", c.model), ("--vita-user-model", c.user_model), ("--vita-judge-model", c.judge_model)]

    def llm_client(self) -> LLMClient:
        """The one client shared by every LLM role of this process (created on first use)."""
        if self._llm_client is None:
            self._llm_client = LLMClient(self.llm_settings, self.ledger)
        return self._llm_client

    def agent(self) -> Any:
        """The agent under test: a built-in, or the model at the configured endpoint."""
        from .agents import make_builtin_agent

        if self.config.model in BUILTIN_AGENTS:
            return make_builtin_agent(self.config.model)
        from .agents.openai_agent import OpenAIAgent

        return OpenAIAgent(self.config.model, client=self.llm_client())

    def user_simulator(self) -> Any:
        from .users import make_user_simulator

        c = self.config
        client = None if c.user_model == "scripted" else self.llm_client()
        return make_user_simulator(c.user_model, client=client, language=c.language,
                                   wait_for_action=c.user_wait_for_action)

    def judge(self) -> Any:
        from .judges import make_judge

        c = self.config
        client = None if c.judge_model == "rules" else self.llm_client()
        return make_judge(c.judge_model, client=client, mode=c.judge_mode, outcome=c.outcome_reward,
                          votes=c.judge_votes, language=c.language)
