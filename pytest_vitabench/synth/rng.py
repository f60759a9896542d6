"""Seeded randomness that is stable across machines, processes and unrelated code changes.

Every part of a suite draws from its own stream, named by a string (``"profile:3"``, ``"env:U000001:7"``):
``random.Random`` seeds a string through SHA-512, which does not depend on ``PYTHONHASHSEED``, the
platform or the order in which other parts were generated. Adding a draw in one stream therefore never
shifts the output of another.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def stream(seed: int, *scope: object) -> random.Random:
    """An independent generator for one named part of the suite."""
    return random.Random(":".join(["vitabench-synth", str(seed), *map(str, scope)]))


def quota(total: int, weights: Sequence[float]) -> list[int]:
    """Split ``total`` into integer shares proportional to ``weights`` (largest remainder, ties by index).

    Exact shares make small populations match a target distribution as closely as integers allow,
    where independent draws would wander (56 users cannot be 62.5% female by chance).
    """
    if total <= 0 or not weights:
        return [0] * len(weights)
    whole = sum(weights)
    raw = [total * w / whole for w in weights]
    counts = [int(r) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - counts[i]), i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def spread(rng: random.Random, total: int, parts: int, low: int, high: int) -> list[int]:
    """``parts`` integers in ``[low, high]`` summing to ``total`` (clamped when infeasible), shuffled."""
    if parts <= 0:
        return []
    total = max(low * parts, min(high * parts, total))
    values = [low] * parts
    rest = total - low * parts
    while rest > 0:
        i = rng.randrange(parts)
        if values[i] < high:
            values[i] += 1
            rest -= 1
    return values


def labelled(rng: random.Random, counts: Sequence[int], labels: Sequence[T]) -> list[T]:
    """A shuffled list holding ``counts[i]`` copies of ``labels[i]``."""
    out = [label for label, count in zip(labels, counts, strict=True) for _ in range(count)]
    rng.shuffle(out)
    return out
