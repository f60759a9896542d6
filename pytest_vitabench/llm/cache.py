"""The disk cache of LLM answers, so a repeated or resumed run never pays for the same call twice.

The key hashes everything that decides the answer, the trial seed included even when it is not sent to
the model (the judge), so repeated trials never collapse onto one cached sample. Errors are never cached.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store import Namespace, content_key
from .endpoints import TRANSPORT_KEYS

#: Bump when the stored payload's shape changes, so old entries become misses instead of errors.
CACHE_VERSION = 1


def cache_key(*, kind: str, role: str, endpoint: str, model: str, request: dict[str, Any],
              trial_seed: int | None) -> str:
    """The hex sha256 identifying one call's answer."""
    body = {k: v for k, v in request.items() if k not in TRANSPORT_KEYS}
    return content_key({"v": CACHE_VERSION, "kind": kind, "role": role, "endpoint": endpoint, "model": model,
                        "request": body, "trial_seed": trial_seed})


class DiskCache(Namespace):
    """Answers in the ``llm`` namespace of the store rooted at ``root`` (``root/llm``)."""

    def __init__(self, root: Path | str):
        super().__init__(Path(root) / "llm", version=CACHE_VERSION)
