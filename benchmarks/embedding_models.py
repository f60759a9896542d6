"""Measure embedding models for the RAG memory: retrieval quality in English and Chinese, and throughput.

    python benchmarks/embedding_models.py                       # every installed local model
    python benchmarks/embedding_models.py use-multilingual-v3   # one model

Retrieval: the labelled set of ``tests/_retrieval_set.py`` (16 history chunks and
24 vague requests per language); hit@1 / hit@3 = the share of requests whose labelled chunk ranks first /
in the top 3; also the share of labelled chunks at or above the model's threshold and of other chunks
above it. Throughput: chunks of about 460 tokens (the size the RAG memory cuts, at most 512) embedded per
second, cache off.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_vitabench.memory.tokens import split_tokens

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "tests")]

from _retrieval_set import CHUNKS, retrieval_check  # noqa: E402


def throughput_chunks(language: str, n: int = 48) -> list[str]:
    """``n`` distinct chunks of about 460 tokens, cut from the labelled history."""
    base = " ".join(" ".join(CHUNKS[language].values()).split("\n"))
    text = " ".join([base] * 3)
    return [split_tokens(text[i * 37:], 460)[0] for i in range(n)]


def throughput(encoder: Any, language: str, n: int = 48) -> float:
    """Chunks per second of ``encoder`` (an uncached :class:`~pytest_vitabench.embeddings.Encoder`)."""
    chunks = throughput_chunks(language, n)
    encoder.embed(chunks[:2], "document")  # load and warm up
    started = time.perf_counter()
    encoder.embed(chunks, "document")
    return n / (time.perf_counter() - started)


def main(argv: Sequence[str] | None = None) -> int:
    from pytest_vitabench.embeddings import (
        CachedEmbedder,
        EmbeddingCache,
        LocalEmbedder,
        LocalModelUnavailable,
        default_threshold,
    )
    from pytest_vitabench.embeddings.local import LOCAL_MODELS

    parser = argparse.ArgumentParser(prog="python benchmarks/embedding_models.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", help=f"local models (default: all of {', '.join(LOCAL_MODELS)})")
    parser.add_argument("-n", type=int, default=48, help="chunks per throughput measurement (default 48)")
    args = parser.parse_args(argv)
    header = (f"{'model':24} {'lang':4} {'hit@1':>6} {'hit@3':>6} {'thr':>5} {'kept':>5} {'other':>6} "
              f"{'chunks/s':>9}")
    print(header)
    for name in args.models or list(LOCAL_MODELS):
        spec = LOCAL_MODELS[name]
        try:
            encoder = LocalEmbedder(spec)
        except LocalModelUnavailable as exc:
            print(f"{name:24} not installed: {exc}")
            continue
        threshold = default_threshold(name)
        for language in ("en", "zh"):
            check = retrieval_check(CachedEmbedder(encoder, EmbeddingCache()), language, threshold)
            speed = throughput(encoder, language, args.n)
            print(f"{name:24} {language:4} {check['hit@1']:6.3f} {check['hit@3']:6.3f} {threshold:5.2f} "
                  f"{check['relevant_kept']:5.2f} {check['other_kept']:6.3f} {speed:9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
