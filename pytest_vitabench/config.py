"""The run configuration: every ``--vita-*`` option in one validated object, recorded in the report."""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .profile import TOOL_CHECKS
from .version import __version__


class RunConfig(BaseModel):
    """Settings of one benchmark run (see DESIGN.md §2 for the options)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = "reference"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    user_model: str = "scripted"
    judge_model: str = "rules"
    memory: list[str] = Field(default_factory=lambda: ["full_context"])
    trials: int = Field(default=4, ge=1)
    max_steps: int = Field(default=100, ge=2)
    seed: int = 0
    #: ``auto``: each suite's language, detected from its text (``--vita-language``).
    language: str = "auto"
    strict: bool = False
    full_context_max_tokens: int = Field(default=102_400, ge=1)
    judge_mode: Literal["window", "full"] = "window"
    judge_votes: int = Field(default=1, ge=1)
    outcome_reward: bool = False
    user_wait_for_action: bool = False
    memory_model: str | None = None
    embedding_model: str | None = None
    embedding_base_url: str | None = None
    rag_top_k: int = Field(default=8, ge=1)
    rag_threshold: float | None = None
    #: ``default`` or ``official``; the switches below take their values from it unless given (see profile.py).
    profile: Literal["default", "official"] = "default"
    judge_records: bool = True
    rag_style: Literal["default", "official"] = "default"
    tool_checks: list[str] = Field(default_factory=lambda: list(TOOL_CHECKS))
    agent_prompt: Literal["default", "official"] = "default"
    outcome_style: Literal["default", "official"] = "default"
    #: Request settings sent with every agent request (``--vita-model-args``); part of the cache key.
    model_args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        if value not in ("auto", "en", "zh"):
            raise ValueError(f"--vita-language must be 'auto', 'en' or 'zh', got {value!r}")
        return value

    def trial_seed(self, trial: int) -> int:
        """A stable per-trial seed: the same for every user in a trial, as in the official harness,
        derived with sha256 (Python's ``hash()`` differs between processes)."""
        digest = hashlib.sha256(f"vitabench:{self.seed}:{trial}".encode()).hexdigest()
        return int(digest[:8], 16)

    def manifest(self) -> dict[str, object]:
        """The report's ``config`` block (never the API key itself: only the variable's name)."""
        data = self.model_dump()
        if self.base_url:  # a URL may carry credentials (https://user:key@host/v1): keep only where it points
            from urllib.parse import urlsplit, urlunsplit

            parts = urlsplit(self.base_url)
            host = parts.hostname or ""
            netloc = f"{host}:{parts.port}" if parts.port else host
            data["base_url"] = urlunsplit(parts._replace(netloc=netloc, query=""))
        data["plugin_version"] = __version__
        return data
