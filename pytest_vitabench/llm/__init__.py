"""One client for every LLM role: retries, shared rate and concurrency limits, a disk cache, usage and cost.

Import-light: the ``openai`` package is imported only when a client makes its first request.
"""

from __future__ import annotations

from .client import Completion, LLMClient
from .errors import LLMError
from .ledger import ROLES, Ledger
from .prices import ModelPrice, load_prices, price_for
from .ratelimit import Limiter, LimiterTimeout
from .settings import LOCAL_KEY, LLMSettings, MissingAPIKey, resolve_api_key

__all__ = [
    "LOCAL_KEY", "ROLES", "Completion", "LLMClient", "LLMError", "LLMSettings", "Ledger", "Limiter",
    "LimiterTimeout", "MissingAPIKey", "ModelPrice", "load_prices", "price_for", "resolve_api_key",
]
