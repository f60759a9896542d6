"""A deterministic bag-of-words encoder for fast offline RAG tests (no model, no network).

Each lower-cased word (or CJK character) adds a fixed pseudo-random vector, so texts that share words
have a high cosine similarity. It counts the texts it embeds, so tests can prove a warm cache embeds none.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

_WORD = re.compile(r"[\u4e00-\u9fff]|[a-z]+")
STOP = frozenset("a an the me my i to for of and in on with please is it this that".split())


class BagOfWords:
    model_id = "test:bag-of-words"

    def __init__(self, dims: int = 256):
        self.dims = dims
        self.calls: list[list[str]] = []

    def _word(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little")
        return np.random.default_rng(seed).standard_normal(self.dims).astype(np.float32)

    def embed(self, texts, kind):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                if word not in STOP:
                    out[i] += self._word(word.rstrip("s") or word)
        return out

    @property
    def embedded(self) -> int:
        return sum(len(c) for c in self.calls)
