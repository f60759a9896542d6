"""The run configuration: every ``--vita-*`` setting in one validated object, recorded in the report.

The fields, defaults and option metadata are declared once in :class:`~pytest_vitabench.options.settings.RunSettings`;
this pydantic model inherits them, validates them, reads them from raw option values and writes the report.
It also says which shard of the run this process is (:class:`Shard`), from ``--vita-shard`` and the job
runner's variables.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, PrivateAttr, model_validator

from ..version import __version__
from .settings import RunSettings, given, read_settings, specs
from .values import BUILTIN_ROLE_NAMES

#: The bound of the trial seeds the official harness draws from its ``--seed`` (300 by default: the seed's
#: official value in settings.py).
OFFICIAL_SEED_MAX = 1_000_000


class RunConfig(BaseModel, RunSettings):
    """Settings of one benchmark run: each field is declared in :mod:`pytest_vitabench.options.settings`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    #: The settings the options named (``from_options``), for a setting whose default yields where a named value
    #: would be an error: ``--vita-deviation tool-results=official`` without a source.
    _named: frozenset[str] = PrivateAttr(default=frozenset())

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
        if fields.get("early_stop", "off") != "off" and not fields.get("fail_under") \
                and fields.get("fail_regression") is None:
            raise ValueError("--vita-early-stop stops a run once its gate's verdict is known: it needs a gate, "
                             "--vita-fail-under SPEC or --vita-fail-regression DROP")
        config = cls(**fields)
        config._named = frozenset(given(get))
        return config

    def named(self, name: str) -> bool:
        """Whether the options gave setting ``name`` (not its default or the profile's value)."""
        return name in self._named

    def process_shard(self, environ: Mapping[str, str] | None = None) -> Shard | None:
        """The shard this process is (``None``: unsharded), from ``--vita-shard`` and the job runner's variables
        in ``environ`` (default ``os.environ``); :func:`resolve_shard` says how.

        Raises:
            ShardError: A job runner's index without a count, or an index outside the count.
        """
        return resolve_shard(self.shard, environ)

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


@dataclass(frozen=True)
class Shard:
    """This process's part of a sharded run: shard ``index`` (1-based) of ``count``; ``source`` says where
    that came from (``--vita-shard`` or the job runner's variables)."""

    index: int
    count: int
    source: str = "--vita-shard"

    @property
    def label(self) -> str:
        """``shard 2/4``: the prefix of whatever a shard says about itself."""
        return f"shard {self.index}/{self.count}"

    def divide(self, limit: int) -> int:
        """This shard's part of a run-wide limit (``0``: unlimited stays unlimited): ``ceil(limit / count)``,
        so no shard gets nothing; the whole run may then exceed the limit by at most ``count - 1``."""
        return 0 if limit <= 0 else -(-limit // self.count)


class ShardError(ValueError):
    """``--vita-shard`` or the job runner's variables do not name a shard; the message says why."""


def resolve_shard(spec: str, environ: Mapping[str, str] | None = None) -> Shard | None:
    """The shard this process is (``None``: unsharded), from ``--vita-shard`` (``off``, ``auto``, ``auto/N`` or
    ``I/N``, already checked by its parser) and the job runner's variables in ``environ``.

    Under ``auto`` the shard comes from a Slurm array (``SLURM_ARRAY_TASK_ID`` counted from
    ``SLURM_ARRAY_TASK_MIN``, of ``SLURM_ARRAY_TASK_COUNT``) or a Kubernetes Indexed Job
    (``JOB_COMPLETION_INDEX``, 0-based, with the count given as ``auto/N``: Kubernetes does not pass it on).

    Raises:
        ShardError: A job runner's index without a count, or an index outside the count.
    """
    env = os.environ if environ is None else environ
    if spec == "off":
        return None
    head, _, count_text = spec.partition("/")
    if head != "auto":
        return _checked(int(head), int(count_text), "--vita-shard")
    given_count = int(count_text) if count_text else None
    if env.get("JOB_COMPLETION_INDEX", "").strip():
        index = _env_int(env, "JOB_COMPLETION_INDEX") + 1
        if given_count is None:
            raise ShardError(f"JOB_COMPLETION_INDEX={env['JOB_COMPLETION_INDEX']} says this is a shard of a "
                             "Kubernetes Indexed Job, but not of how many: give --vita-shard auto/N with N = the "
                             "Job's completions (or --vita-shard off to run every item here)")
        return _checked(index, given_count, "JOB_COMPLETION_INDEX (0-based) with --vita-shard auto/N")
    if env.get("SLURM_ARRAY_TASK_ID", "").strip():
        first = _env_int(env, "SLURM_ARRAY_TASK_MIN") if env.get("SLURM_ARRAY_TASK_MIN", "").strip() else 0
        index = _env_int(env, "SLURM_ARRAY_TASK_ID") - first + 1
        count = given_count
        if count is None and env.get("SLURM_ARRAY_TASK_COUNT", "").strip():
            count = _env_int(env, "SLURM_ARRAY_TASK_COUNT")
        if count is None:
            raise ShardError(f"SLURM_ARRAY_TASK_ID={env['SLURM_ARRAY_TASK_ID']} says this is a Slurm array task, "
                             "but SLURM_ARRAY_TASK_COUNT is not set: give --vita-shard auto/N (or off)")
        return _checked(index, count, "SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1, of SLURM_ARRAY_TASK_COUNT")
    if given_count is not None:
        raise ShardError(f"--vita-shard {spec}: no job runner index in the environment (JOB_COMPLETION_INDEX or "
                         "SLURM_ARRAY_TASK_ID); give the shard as I/N")
    return None


def _env_int(env: Mapping[str, str], name: str) -> int:
    try:
        return int(env[name].strip())
    except ValueError:
        raise ShardError(f"{name} must be a whole number, got {env[name]!r}") from None


def _checked(index: int, count: int, source: str) -> Shard:
    if not 1 <= index <= count:
        raise ShardError(f"shard {index} of {count} (from {source}) is outside 1..{count}")
    return Shard(index=index, count=count, source=source)
