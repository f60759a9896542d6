"""A stub provider with an automatic prompt cache, on 127.0.0.1: what OpenAI, DeepSeek or vLLM's prefix
caching do to a run's usage, measurable offline.

:class:`PromptCache` is the provider's cache: it remembers the prompt prefixes it has answered, in blocks of
128 tokens chained by hash (as vLLM's automatic prefix caching keys them), and reports as ``cached_tokens`` the
longest remembered prefix of a new prompt once that prefix reaches 1,024 tokens. A prefix becomes known only
when the request that sent it has been answered (siblings sent at the same moment all miss, as at a real
provider), and is forgotten after ``ttl_s`` seconds without use. A prompt is the canonical JSON of its tools
followed by its messages, counted at 4 characters a token (the stub has no tokenizer; shares are what matter).

:func:`caching_stub` starts a :class:`~_stub_llm.StubLLM` whose every answer goes through the cache: each role
of a run (agent, user simulator, judge, memory rewrite) gets a short scripted answer (:func:`role_answer`) and
the usage a caching provider would report, ``prompt_tokens_details.cached_tokens`` included.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from _stub_llm import StubLLM, tool_call

MIN_PREFIX, BLOCK, CHARS_PER_TOKEN = 1_024, 128, 4


def prompt_text(request: dict[str, Any]) -> str:
    """The prompt as the cache sees it: tools first (providers render them ahead of the messages), then each
    message's role, text and tool calls, in order."""
    parts = [json.dumps(request.get("tools") or [], sort_keys=True, ensure_ascii=False)]
    for message in request.get("messages") or []:
        parts.append(json.dumps([message.get("role"), message.get("content"), message.get("tool_calls"),
                                 message.get("tool_call_id")], sort_keys=True, ensure_ascii=False))
    return "\n".join(parts)


class PromptCache:
    """The provider's prefix cache (thread-safe).

    Args:
        ttl_s: Seconds a prefix is kept after its last use.
        clock: The time source (a test can move it).
    """

    def __init__(self, ttl_s: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self.clock = clock
        self._blocks: dict[bytes, tuple[float, float]] = {}  # chained block hash -> (known from, last used)
        self._lock = threading.Lock()

    def answer(self, request: dict[str, Any], *, answered_in_s: float = 0.0) -> tuple[int, int]:
        """``(prompt_tokens, cached_tokens)`` of ``request``; its own prefix is known ``answered_in_s`` later."""
        text = prompt_text(request)
        prompt_tokens = -(-len(text) // CHARS_PER_TOKEN)
        size = BLOCK * CHARS_PER_TOKEN
        chain, digest = [], b""
        for start in range(0, len(text) - size + 1, size):  # whole blocks only, as a provider caches them
            digest = hashlib.blake2b(digest + text[start:start + size].encode(), digest_size=16).digest()
            chain.append(digest)
        now = self.clock()
        with self._lock:
            hits = 0
            for digest in chain:
                entry = self._blocks.get(digest)
                if entry is None or entry[0] > now or now - entry[1] > self.ttl_s:
                    break
                hits += 1
            for position, digest in enumerate(chain):
                known_from = self._blocks[digest][0] if position < hits else now + answered_in_s
                self._blocks[digest] = (known_from, now)
        cached = hits * BLOCK
        return prompt_tokens, cached if cached >= MIN_PREFIX else 0


_RUBRICS = re.compile(r"<rubrics>\s*(\[.*?\])\s*</rubrics>", re.S)


def role_answer(request: dict[str, Any]) -> dict[str, Any]:
    """A short, deterministic answer for whichever role sent ``request``.

    The agent (a request with tools) calls a tool that does not exist, then answers the user, then stops; the
    memory rewrite returns a short memory that depends on the trial seed (so trials keep their own memories,
    as sampled rewrites do); the judge finds every rubric unmet; the user simulator asks once, then stops.
    """
    messages = request.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    last = messages[-1] if messages else {}
    if request.get("tools"):
        if not any(m.get("role") == "tool" for m in messages):
            return {"tool_calls": [tool_call("c1", "no_such_tool", {})]}
        if last.get("role") == "tool":
            return {"content": "I could not find a suitable option. Shall I try something else?"}
        return {"content": "Understood, nothing more to do. ###STOP###"}
    if "long-term preference memory" in system:
        records = str(last.get("content") or "")
        return {"content": f"Food:\n- revision {request.get('seed')}\n- {records[-300:]}"}
    found = _RUBRICS.search(str(last.get("content") or ""))
    if found is not None:
        rubrics = json.loads(found.group(1))
        return {"content": json.dumps([{"rubric_idx": r.get("rubric_idx", i), "met": False,
                                        "justification": "not shown in this window"}
                                       for i, r in enumerate(rubrics, 1)])}
    if "rubric" in system.lower():
        return {"content": json.dumps({"met": False, "justification": "not shown"})}
    said = sum(1 for m in messages if m.get("role") == "assistant")
    return {"content": "Please go ahead." if said < 3 else "That is all, thanks. ###STOP###"}


class _CachingReplies(list):
    """The stub's reply queue, never empty: each pop answers the request just logged, with cache usage."""

    def __init__(self, stub: StubLLM, cache: PromptCache, answer: Callable[[dict[str, Any]], dict[str, Any]]):
        super().__init__()
        self.stub, self.cache, self.answer = stub, cache, answer
        #: The prompt and cached tokens reported for each request, in the order of ``stub.requests``.
        self.prompts: list[int] = []
        self.cached: list[int] = []

    def __bool__(self) -> bool:
        return True

    def pop(self, index: int = -1) -> Any:  # called under the stub's lock, right after the request is logged
        request = self.stub.requests[-1]
        message = dict(self.answer(request))
        prompt, cached = self.cache.answer(request, answered_in_s=self.stub.delay)
        self.cached.append(cached)
        self.prompts.append(prompt)
        completion = -(-len(json.dumps(message)) // CHARS_PER_TOKEN)
        message["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion, "prompt_tokens_details": {"cached_tokens": cached}}
        return message


def caching_stub(*, ttl_s: float = 300.0, delay: float = 0.0,
                 answer: Callable[[dict[str, Any]], dict[str, Any]] = role_answer) -> tuple[StubLLM, PromptCache]:
    """A running stub whose chat answers come from ``answer`` with a caching provider's usage."""
    stub = StubLLM(delay=delay)
    cache = PromptCache(ttl_s=ttl_s)
    stub.replies = _CachingReplies(stub, cache, answer)
    return stub, cache
