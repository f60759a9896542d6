"""Token prices per model, from a dict, an inline spec or a small TOML/JSON file.

The forms (``--vita-prices``) are in docs/cost.md. Reasoning tokens are billed as completion tokens
(OpenAI counts them inside ``completion_tokens``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

#: A dated snapshot suffix such as ``-2025-04-14``, ``-0613`` or ``@20250514``: priced like its base name.
_SNAPSHOT = re.compile(r"[-@](\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")
#: What a provider's batch costs relative to the same requests sent one by one (OpenAI, Anthropic: half).
BATCH_PRICE_FACTOR = 0.5


class ModelPrice(BaseModel):
    """USD per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    prompt_per_1m: float = Field(ge=0, validation_alias=AliasChoices("prompt_per_1m", "prompt_price", "prompt"))
    completion_per_1m: float = Field(
        ge=0, validation_alias=AliasChoices("completion_per_1m", "completion_price", "completion"))
    #: The rate of prompt tokens served from the provider's prompt cache; ``None``: the prompt rate.
    cached_per_1m: float | None = Field(
        default=None, ge=0, validation_alias=AliasChoices("cached_per_1m", "cached_prompt_price", "cached"))
    #: The share of the price a Batch API request costs; ``None``: :data:`BATCH_PRICE_FACTOR`.
    batch_factor: float | None = Field(default=None, ge=0, le=1)

    @property
    def cached_rate(self) -> float:
        return self.prompt_per_1m if self.cached_per_1m is None else self.cached_per_1m

    @property
    def batch_rate(self) -> float:
        """What a Batch API request costs relative to the same request sent alone."""
        return BATCH_PRICE_FACTOR if self.batch_factor is None else self.batch_factor

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_prompt_tokens: int = 0) -> float:
        """USD of one call (or a sum of calls); ``cached_prompt_tokens`` is the cached part of ``prompt_tokens``."""
        cached = min(max(cached_prompt_tokens, 0), prompt_tokens)
        return ((prompt_tokens - cached) * self.prompt_per_1m + cached * self.cached_rate
                + completion_tokens * self.completion_per_1m) / 1_000_000


def _price(name: str, value: Any) -> ModelPrice:
    if isinstance(value, ModelPrice):
        return value
    if isinstance(value, (list, tuple)) and len(value) in (2, 3):
        return ModelPrice(prompt_per_1m=value[0], completion_per_1m=value[-1],
                          cached_per_1m=value[1] if len(value) == 3 else None)
    if isinstance(value, Mapping):
        # VitaBench 2.0's models.yaml nests the prices under ``cost_1m_token_dollar``.
        try:
            return ModelPrice.model_validate(value.get("cost_1m_token_dollar", value))
        except ValidationError as exc:  # pydantic's own text does not say which model
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']} (got {e.get('input')!r})"
                                 for e in exc.errors())
            raise ValueError(f"price of {name!r}: {problems}") from None
    raise ValueError(f"price of {name!r} must be {{prompt_per_1m, cached_per_1m, completion_per_1m}}, "
                     "[prompt, completion] or [prompt, cached, completion]")


def _from_mapping(data: Mapping[str, Any]) -> dict[str, ModelPrice]:
    models = data.get("models", data) if isinstance(data.get("models"), Mapping) else data
    return {str(name): _price(str(name), value) for name, value in models.items()}


def _from_inline(spec: str) -> dict[str, ModelPrice]:
    prices: dict[str, ModelPrice] = {}
    for entry in filter(None, (part.strip() for part in spec.split(","))):
        # Model names may contain '/' (``openai/gpt-4.1``), so split the name off at the last '='.
        name, sep, value = entry.rpartition("=")
        rates = value.split("/")
        if not (sep and name.strip() and len(rates) in (2, 3)):
            raise ValueError(f"bad price entry {entry!r}: expected MODEL=PROMPT/COMPLETION or "
                             "MODEL=PROMPT/CACHED/COMPLETION (USD per 1M tokens)")
        try:
            numbers = [float(rate) for rate in rates]
        except ValueError:
            raise ValueError(f"bad price entry {entry!r}: prices must be numbers") from None
        try:
            prices[name.strip()] = _price(name.strip(), numbers)
        except ValueError:  # pydantic's message lists field names the user never typed
            raise ValueError(f"bad price entry {entry!r}: prices must not be negative") from None
    return prices


def load_prices(spec: str | Path | Mapping[str, Any] | None, *, base_dir: Path | None = None) -> dict[str, ModelPrice]:
    """Prices from a mapping, a file path (``.toml``/``.json``, relative to ``base_dir``) or an inline spec;
    none for ``None`` or empty. :class:`ValueError` names the malformed entry."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return {}
    if isinstance(spec, Mapping):
        return _from_mapping(spec)
    text = str(spec).strip()
    path = Path(text)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    if isinstance(spec, Path) or path.suffix.lower() in (".toml", ".json") or path.is_file():
        if not path.is_file():
            raise ValueError(f"prices file not found: {path}")
        toml = _toml_reader(path) if path.suffix.lower() == ".toml" else None
        try:
            data = toml.loads(path.read_text(encoding="utf-8")) if toml else json.loads(path.read_bytes())
        except ValueError as exc:  # a TOMLDecodeError is a ValueError too
            raise ValueError(f"prices file {path}: {exc}") from None
        if not isinstance(data, Mapping):
            raise ValueError(f"prices file {path} must hold a table of models")
        return _from_mapping(data)
    return _from_inline(text)


def _toml_reader(path: Path) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:  # tomli is a dependency on Python 3.10, unless it was installed without its dependencies
        import tomli
    except ModuleNotFoundError:
        raise ValueError(f"reading {path} needs Python 3.11+ or 'pip install tomli'; or use a .json prices file") \
            from None
    return tomli


def price_for(prices: Mapping[str, ModelPrice], model: str) -> ModelPrice | None:
    """The price of ``model``, a dated snapshot's falling back to its base name (only date suffixes:
    ``gpt-4.1-mini`` is never priced as ``gpt-4.1``); ``None`` when unknown."""
    if model in prices:
        return prices[model]
    base = _SNAPSHOT.sub("", model)
    return prices.get(base) if base != model else None


def batch_rate(prices: Mapping[str, ModelPrice], model: str) -> float:
    """What a Batch API request to ``model`` costs relative to the same request sent alone."""
    price = price_for(prices, model)
    return price.batch_rate if price else BATCH_PRICE_FACTOR
