"""One benchmark run's wiring, built from option values: configuration, LLM client, roles and runner.

Plain Python (the plugin translates pytest options into the mapping; the CLI and tests can build one
directly). Every setting is checked here, before any item runs: a bad value, a missing API key, a memory
backend that needs a model or a package all raise ``ValueError`` naming the option to fix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .agents import BUILTIN_AGENTS
from .config import RunConfig
from .llm import Ledger, LLMClient, MissingAPIKey, settings_from_options
from .llm.model_args import parse_model_args
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
        profile = profile_settings(lambda name: get(name), str(get("vita_profile", "default")))
        self.config = RunConfig(**profile, model_args=parse_model_args(get("vita_model_args")),
            model=model, base_url=get("vita_base_url") or os.environ.get("OPENAI_BASE_URL"),
            api_key_env=get("vita_api_key_env", "OPENAI_API_KEY"), user_model=get("vita_user_model", "scripted"),
            judge_model=get("vita_judge_model", "rules"), memory=memory, trials=number("vita_trials", 1, 4),
            seed=number("vita_seed", -(2 ** 63), 0),
            language=one_of("--vita-language", get("vita_language", "auto"), ("auto", "en", "zh")),
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
        self.concurrency = _concurrency(get("vita_concurrency", "auto"), self.needs_llm)
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
            "rag_style": self.config.rag_style,
        }
        for name in memory:  # built once now, so a missing model or package fails before any item
            memory_factory(name, self.memory_options)
        store = SnapshotStore(cache_dir) if cache_dir else None
        self.runner = ItemRunner(self.config, memory_options=self.memory_options, snapshots=store)
        self.user_simulator()  # checks the user and judge settings too
        self.judge()

    @property
    def needs_llm(self) -> bool:
        """Whether any role (agent, user, judge, agentic memory) calls an LLM."""
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

        return OpenAIAgent(self.config.model, client=self.llm_client(), params=self.config.model_args)

    def user_simulator(self) -> Any:
        from .users import make_user_simulator

        c = self.config
        client = None if c.user_model == "scripted" else self.llm_client()
        return make_user_simulator(c.user_model, client=client, language=_fallback_language(c.language),
                                   wait_for_action=c.user_wait_for_action)

    def judge(self) -> Any:
        from .judges import make_judge

        c = self.config
        client = None if c.judge_model == "rules" else self.llm_client()
        return make_judge(c.judge_model, client=client, mode=c.judge_mode, outcome=c.outcome_reward,
                          votes=c.judge_votes, language=_fallback_language(c.language),
                          records=c.judge_records, outcome_style=c.outcome_style)

    def profile_summary(self) -> dict[str, Any]:
        """The report's ``profile`` block: switches, tokenizer and whether the numbers are leaderboard-comparable."""
        from .memory.tokens import tokenizer_name
        from .profile import summary

        return summary(self.config, tokenizer=tokenizer_name())

    def header_lines(self) -> list[str]:
        """The terminal header: which profile ran, comparability, and how token budgets are counted."""
        from .memory.tokens import tokenizer_name, tokenizer_note
        from .profile import header_line

        lines = [header_line(self.config, tokenizer=tokenizer_name())]
        if any(m in ("full_context", "agentic", "rag") for m in self.config.memory):
            lines.append(tokenizer_note())
        if self.config.model_args:
            lines.append(f"agent request settings: {json.dumps(self.config.model_args, sort_keys=True)}")
        return lines


def _fallback_language(language: str) -> str:
    # Roles built once per process get a default; each item passes the suite's language (detected or given).
    return "en" if language == "auto" else language


def profile_settings(get: Callable[[str], Any], profile: str) -> dict[str, Any]:
    """RunConfig fields set by ``--vita-profile`` and the per-deviation switches (each switch wins)."""
    from .profile import parse_on_off, parse_switch, parse_tool_checks, resolve

    values = resolve(get, profile)
    return {
        "profile": values["profile"],
        "judge_records": parse_on_off(values["judge_records"], "--vita-judge-records"),
        "rag_style": parse_switch(values["rag_style"], "--vita-rag-style", ("default", "official")),
        "tool_checks": parse_tool_checks(values["tool_checks"]),
        "max_steps": whole_number("--vita-max-steps", values["max_steps"], minimum=2, default=100),
        "agent_prompt": parse_switch(values["agent_prompt"], "--vita-agent-prompt", ("default", "official")),
        "outcome_style": parse_switch(values["outcome_style"], "--vita-outcome-style", ("default", "official")),
    }


#: --vita-concurrency auto with an LLM role: enough to hide an endpoint's latency, well under common limits.
AUTO_LLM_CONCURRENCY = 16


def _concurrency(value: Any, needs_llm: bool) -> int:
    """``--vita-concurrency``: ``auto`` is 1 for offline built-ins (their items are CPU-bound and a thread
    pool would only add overhead) and :data:`AUTO_LLM_CONCURRENCY` when a role waits on an endpoint."""
    text = str(value).strip().lower()
    if text == "auto":
        return AUTO_LLM_CONCURRENCY if needs_llm else 1
    try:
        number = int(text)
    except ValueError:
        raise ValueError(f"--vita-concurrency must be a positive integer or 'auto', got {value!r}") from None
    if number < 1:
        raise ValueError(f"--vita-concurrency must be at least 1, got {number}")
    return number
