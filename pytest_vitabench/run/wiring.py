"""One benchmark run's wiring, built from option values: configuration, LLM client, roles and runner.

Plain Python (the plugin translates pytest options into the mapping; the CLI and tests can build one
directly). Every setting is checked here, before any item runs: a bad value, a missing API key, a memory
backend that needs a model or a package all raise ``ValueError`` naming the option to fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from .. import agents, users
from ..judges.registry import JudgeSpec, batched, judge_for, judge_spec
from ..llm import Ledger, LLMClient, MissingAPIKey, price_for
from ..llm.settings import settings_for_run
from ..memory.registry import RunMemories, request_roles, specs_of
from ..memory.tokens import count_tokens, tokenizer_name, tokenizer_note
from ..official.behaviour import Behaviour
from ..official.harness import OfficialHarness, RoleModel
from ..official.source import NOT_COMPARABLE
from ..options.config import RunConfig
from ..options.parts import (
    AgentSettings,
    EndpointSettings,
    JudgeSettings,
    MemorySettings,
    ProfileSettings,
    UserSettings,
)
from ..options.values import unknown_model_hint
from . import comparability as profile
from .runner import ItemRunner, RunState

#: --vita-concurrency auto with an LLM role: enough to hide an endpoint's latency, well under common limits.
AUTO_LLM_CONCURRENCY = 16


class Benchmark:
    """Settings and shared objects of one run in one process (the controller or an xdist worker).

    Args:
        options: Raw option values keyed by ini name (``vita_model``, ``vita_memory``, ...), strings as read
            (see :meth:`~pytest_vitabench.options.config.RunConfig.from_options`).
        rootdir: Where the default cache directory and relative prices files live.
        state_dir: The directory shared by all processes of the run for LLM rate and concurrency limits.
        run_state: What the process's items share (the session's); ``None``: the runner makes its own.
    """

    def __init__(self, options: Mapping[str, Any], *, rootdir: Path, state_dir: str,
                 run_state: RunState | None = None):
        self.config = config = RunConfig.from_options(options)
        #: This process's shard of the run (``None``: unsharded).
        self.shard = config.process_shard()
        # What each component is, known from the names alone: whether it calls an LLM, the request roles it sends.
        self._judge: JudgeSpec = judge_spec(config.judge_model)
        #: The specs of the run's memory backends (what they call, count and need).
        self.memory_specs = specs_of(config.memory)
        #: Each component's rules, read once from the profile's switches.
        self.behaviour = Behaviour.of(config)
        # Read before anything else is built: a missing official source is a usage error naming where it looked.
        # The run's LLM roles, each with the model it calls (None: a built-in plays it, or no component sends it;
        # rag's summary sends the whole entry, its output budget included, the memory update sets its own).
        in_use = {spec.request_role for spec in self.memory_specs}
        roles = {"agent": RoleModel("--vita-model", config.model if agents.calls_llm(self.agent_settings) else None,
                                    config.model_args),
                 "user": RoleModel("--vita-user-model",
                                   config.user_model if users.calls_llm(self.user_settings) else None,
                                   config.user_model_args),
                 "judge": RoleModel("--vita-judge-model", config.judge_model if self._judge.needs_llm else None,
                                    config.judge_model_args),
                 **{role: RoleModel("--vita-memory-model", config.memory_model if role in in_use else None,
                                    config.memory_model_args) for role in request_roles()}}
        self._roles = roles
        self.official = OfficialHarness.open(ProfileSettings.of(config), roles=roles,
                                             official_answers=self.behaviour.tools.official_answers,
                                             answers_asked=config.named("tool_results"))
        self.official_source = self.official.source
        self.official_models = self.official.models
        #: Each LLM role's request settings: its models.yaml entry, then its own --vita-model-args.
        self.role_settings = self.official.request_settings
        #: The run's one client's settings: this shard's part of each run-wide limit.
        self.llm_settings = settings_for_run(EndpointSettings.of(config), rootdir=rootdir, state_dir=state_dir,
                                             shard=self.shard)
        # --vita-concurrency auto: 1 for offline built-ins (their items are CPU-bound: a thread pool would only
        # add overhead), AUTO_LLM_CONCURRENCY when a role waits on an endpoint.
        concurrency = config.concurrency
        self.concurrency = int(concurrency) if concurrency != "auto" else AUTO_LLM_CONCURRENCY if self.needs_llm else 1
        self.ledger = Ledger()
        self._llm_client: LLMClient | None = None
        if self.needs_llm:
            self._open_client()  # a missing key fails now, not in every item later
        #: The judge, built now: its settings are checked before any item (the session's judge is this one).
        self._plain = judge_for(self.judge_settings, client=self._llm_client if self._judge.needs_llm else None,
                                language=_fallback_language(config.language), official_source=self.official_source,
                                params=self.role_settings.get("judge"))
        cache_dir = self.llm_settings.cache_dir if self.llm_settings.cache != "off" else None
        # Every backend gets the run's one client (key, limits, timeout, cache and ledger): rag's endpoint
        # embeddings included, which needs_llm counts so the client exists for them.
        self.memories = RunMemories.for_run(
            self.memory_settings, language=config.language, llm_client=self._llm_client, cache_dir=cache_dir,
            role_settings=self.role_settings,
            # The official wording of history records, when the agent prompt is the official one.
            official_source=self.official_source if self.behaviour.prompt.official_rules else None)
        self.runner = ItemRunner(config, memories=self.memories, official_source=self.official_source,
                                 behaviour=self.behaviour, state=run_state)

    @cached_property
    def agent_settings(self) -> AgentSettings:
        """The agent's part of the configuration."""
        return AgentSettings.of(self.config)

    @cached_property
    def user_settings(self) -> UserSettings:
        """The user simulator's part of the configuration."""
        return UserSettings.of(self.config)

    @cached_property
    def judge_settings(self) -> JudgeSettings:
        """The judge's part of the configuration."""
        return JudgeSettings.of(self.config)

    @cached_property
    def memory_settings(self) -> MemorySettings:
        """The memory backends' part of the configuration."""
        return MemorySettings.of(self.config)

    @property
    def needs_llm(self) -> bool:
        """Whether any role (agent, user, judge, a memory backend's model or endpoint embeddings) calls an LLM."""
        return self._chat_needs_llm or any(endpoint.kind == "embeddings" for spec in self.memory_specs
                                           for endpoint in spec.endpoints(self.config))

    @property
    def _chat_needs_llm(self) -> bool:
        return (agents.calls_llm(self.agent_settings) or users.calls_llm(self.user_settings)
                or self._judge.needs_llm or any(spec.calls_llm(self.config) for spec in self.memory_specs))

    def role_models(self) -> list[tuple[str, str]]:
        """``(role, model)`` of each LLM role the run calls, rag's endpoint embeddings included."""
        models = [(role, entry.model) for role, entry in self._roles.items() if entry.model]
        if self.config.embedding_model and any(endpoint.kind == "embeddings" for spec in self.memory_specs
                                               for endpoint in spec.endpoints(self.config)):
            models.append(("embeddings", self.config.embedding_model))
        return models

    def unpriced_models(self) -> list[str]:
        """``--option MODEL`` of each model the run calls that ``--vita-prices`` does not price."""
        options = {role: entry.option for role, entry in self._roles.items()}
        return sorted({f"{options.get(role, '--vita-embedding-model')} {model}" for role, model in self.role_models()
                       if price_for(self.llm_settings.prices, model) is None})

    def role_names(self) -> list[tuple[str, str]]:
        """``(option, name)`` of the agent, user and judge roles, for messages about misspelled names."""
        c = self.config
        return [("--vita-model", c.model), ("--vita-user-model", c.user_model), ("--vita-judge-model", c.judge_model)]

    def _open_client(self) -> None:
        try:
            self.llm_client()
        except MissingAPIKey as exc:
            if not self._chat_needs_llm:
                raise MissingAPIKey(f"the rag memory's embedding model {self.config.embedding_model!r}: {exc}; "
                                    "or set --vita-memory-args embedding-base-url, or leave "
                                    "--vita-embedding-model unset "
                                    "for the local model") from None
            hint = unknown_model_hint(self.role_names())
            raise MissingAPIKey(f"{hint} ({exc})" if hint else str(exc)) from None

    def llm_client(self) -> LLMClient:
        """The one client shared by every LLM role of this process (created on first use)."""
        if self._llm_client is None:
            settings = self.llm_settings
            if not self._chat_needs_llm and self.memory_settings.embedding_base_url:
                # Only rag's embeddings call out: the client is aimed at their endpoint, so a local embedding
                # server needs no key although --vita-base-url (the chat endpoint) is unset.
                settings = settings.model_copy(update={"base_url": self.memory_settings.embedding_base_url})
            self._llm_client = LLMClient(settings, self.ledger, count_tokens=count_tokens)
        return self._llm_client

    def agent(self) -> Any:
        """The agent under test: a built-in, or the model at the configured endpoint."""
        return agents.agent_for(self.agent_settings, client=self.llm_client, params=self.role_settings.get("agent"))

    def user_simulator(self) -> Any:
        """The user simulator of ``--vita-user-model``."""
        return users.user_for(self.user_settings,
                              client=self.llm_client() if users.calls_llm(self.user_settings) else None,
                              language=_fallback_language(self.config.language),
                              official_source=self.official_source, params=self.role_settings.get("user"))

    def judge(self, *, batch_dir: Path | None = None, writer: str = "main") -> Any:
        """The judge; with ``--vita-judge-args batch``, wrapped to send its requests in batches journaled in
        ``batch_dir`` (the run directory's ``batches/``) under this process's ``writer`` name."""
        if not self.judge_settings.judge_batch or not self._judge.batchable:
            return self._plain
        return batched(self._plain, self.judge_settings, client=self.llm_client(), batch_dir=batch_dir,
                       writer=writer)

    def profile_summary(self) -> dict[str, Any]:
        """The report's ``profile`` block: switches, tokenizer and whether the numbers are leaderboard-comparable."""
        block = profile.summary(self.config, tokenizer=tokenizer_name(),
                                official_wording=self.official_source is not None,
                                official_models=self.official_models is not None)
        block["official_source"] = self.official_source.describe() if self.official_source else None
        block["official_models"] = self.official_models.describe() if self.official_models else None
        block["request_settings"] = self.role_settings
        return block

    def header_lines(self, verbose: bool = False) -> list[str]:
        """The terminal header: which profile ran and whether it is comparable, in one line; ``verbose``: every
        reason, the wording, how token budgets are counted and each role's request settings."""
        official = self.official_source is not None
        verdict = profile.header_line(self.config, tokenizer=tokenizer_name(), official_wording=official,
                                      official_models=self.official_models is not None, verbose=verbose)
        shard = [] if self.shard is None else [
            f"vitabench {self.shard.label} (from {self.shard.source}): this process runs its share of the items; "
            "`vitabench merge` joins the shards"]
        if not verbose:
            return [verdict, *shard]
        source = self.official_source
        lines = [verdict, f"official wording: none; {NOT_COMPARABLE}" if source is None
                 else f"official wording: {source.package_dir} ({source.found_as}, {source.version})"]
        if any(spec.counts_tokens for spec in self.memory_specs):
            lines.append(tokenizer_note())
        lines.extend(shard)
        if self.official_models is not None:
            lines.append(f"request settings from {self.official_models.path} ({self.official_models.found_as})")
        # A None is a key left out of the requests (an entry without temperature): not worth a line.
        sent = {role: {k: v for k, v in settings.items() if v is not None}
                for role, settings in self.role_settings.items()}
        lines.extend(f"{role} request settings: {json.dumps(settings, sort_keys=True)}"
                     for role, settings in sent.items() if settings)
        return lines


def _fallback_language(language: str) -> str:
    # Roles built once per process get a default; each item passes the suite's language (detected or given).
    return "en" if language == "auto" else language

