"""The run configuration: every ``--vita-*`` setting in one validated object, recorded in the report.

The fields, defaults and option metadata are declared once in :class:`~pytest_vitabench.options.settings.RunSettings`;
this pydantic model inherits them, validates them, reads them from raw option values and writes the report.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, model_validator

from ..version import __version__
from .settings import RunSettings, read_settings, specs
from .values import BUILTIN_ROLE_NAMES

#: The bound of the trial seeds the official harness draws from its ``--seed`` (300 by default: the seed's
#: official value in settings.py).
OFFICIAL_SEED_MAX = 1_000_000


class RunConfig(BaseModel, RunSettings):
    """Settings of one benchmark run: each field is declared in :mod:`pytest_vitabench.options.settings`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="after")
    def _bounds(self) -> RunConfig:
        # Bounds live in each field's metadata (settings.py), so the parsers and this check read one number.
        for item in specs():
            minimum = item.meta.minimum
            value = getattr(self, item.name)
            if minimum is not None and isinstance(value, int) and value < minimum:
                raise ValueError(f"{item.option} must be a whole number >= {minimum}, got {value}")
        return self

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | Callable[[str], Any]) -> RunConfig:
        """The configuration from raw option values keyed by ini name (``vita_model``, ...), as pytest reads them.

        Unset values keep their defaults, except where one setting's default is another's value:
        ``--vita-base-url`` defaults to ``$OPENAI_BASE_URL``, ``--vita-memory-model`` to the agent's model
        when that is an LLM, and ``--vita-fail-regression`` needs ``--vita-baseline``.

        Raises:
            ValueError: A bad value, naming the option.
        """
        get = options if callable(options) else options.get
        fields = read_settings(get)
        if not fields.get("base_url") and os.environ.get("OPENAI_BASE_URL"):
            fields["base_url"] = os.environ["OPENAI_BASE_URL"]
        model = fields.get("model", "reference")
        if not fields.get("memory_model"):
            fields["memory_model"] = model if model not in BUILTIN_ROLE_NAMES["--vita-model"] else None
        if not fields.get("official_source"):  # --vita-profile official gives auto (settings.py)
            fields["official_source"] = "none"
        if fields.get("fail_regression") is not None and not fields.get("baseline"):
            raise ValueError("--vita-fail-regression needs --vita-baseline RUN to compare with")
        if fields.get("judge_batch") and fields.get("judge_model", "rules") == "rules":
            raise ValueError("--vita-judge-args batch needs an LLM judge (--vita-judge-model NAME); the rules judge "
                             "makes no requests")
        return cls(**fields)

    def trial_seed(self, trial: int) -> int:
        """A stable per-trial seed: the same for every user in a trial, as in the official harness,
        derived with sha256 (Python's ``hash()`` differs between processes).

        Under ``--vita-profile official`` it is the official derivation, so that the seed each request carries
        is the official one: trial ``t`` takes the ``t``-th ``randint(0, 1_000_000)`` of a generator seeded
        with ``--vita-seed`` (Python's Mersenne Twister, stable across processes and versions).
        """
        return TRIAL_SEEDS[self.profile](self.seed, trial)

    def manifest(self) -> dict[str, object]:
        """The run's identity: the settings that can change a score, and where the endpoint is.

        ``--vita-resume`` compares these (all but the endpoint). Never the API key itself: only its variable's
        name; a base URL loses any credentials it carries.
        """
        return self._block(("score", "endpoint"))

    def report_config(self) -> dict[str, object]:
        """The report's ``config`` block: :meth:`manifest` and the run's limits, cache, gates and outputs."""
        return self._block(("score", "endpoint", "run"))

    def _block(self, scopes: tuple[str, ...]) -> dict[str, object]:
        names = [item.name for item in specs() if item.meta.scope in scopes]
        dumped = self.model_dump(include=set(names))
        data = {name: dumped[name] for name in names}  # in --help order (ORDER), not the parts' field order
        for name in ("base_url", "embedding_base_url", "limits_url"):
            if data.get(name):
                data[name] = _without_credentials(str(data[name]))
        data["plugin_version"] = __version__
        return data


def _hashed_seed(base: int, trial: int) -> int:
    digest = hashlib.sha256(f"vitabench:{base}:{trial}".encode()).hexdigest()
    return int(digest[:8], 16)


def _official_seed(base: int, trial: int) -> int:
    draw = random.Random(base)
    return [draw.randint(0, OFFICIAL_SEED_MAX) for _ in range(trial + 1)][trial]


#: Each profile's derivation of a trial's seed from ``--vita-seed``.
TRIAL_SEEDS = {"default": _hashed_seed, "official": _official_seed}


def _without_credentials(url: str) -> str:
    # A URL may carry credentials (https://user:key@host/v1): keep only where it points.
    if "," in url:  # several endpoints of one model
        return ",".join(_without_credentials(one.strip()) for one in url.split(",") if one.strip())

    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc, query=""))
