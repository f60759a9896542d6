"""Earning the provider's prompt cache by request order: a request whose long prompt prefix is being sent
right now by another request waits until that one has been answered.

Providers cache a prompt's prefix once its request has been answered; requests sent at the same moment all
pay in full. The trials of a subtask start together with the same first prompts, so without an order all of
them miss. Nothing in a request changes: the same requests, in another order. A conversation's next request
(whose prefix was answered a moment ago) never waits.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

#: Prefix lengths compared, in characters of the canonical prompt (about 1,024 tokens each).
BOUNDARY_CHARS = 4_096
#: The shortest shared prefix worth a wait: the providers' minimum cacheable prefix (1,024 tokens).
MIN_SHARED_CHARS = BOUNDARY_CHARS
#: How long an answered prefix counts as cached: the shortest lifetime providers document (5 minutes).
WARM_S = 300.0


#: Tools lists whose text :class:`PrefixOrder` keeps (an episode sends one list with each of its requests).
KEPT_TOOLS = 1_024


def prefix_hashes(request: dict[str, Any], tools_text: str | None = None) -> list[int]:
    """The chained hash of the prompt's text (tools, then each message) at each whole :data:`BOUNDARY_CHARS`.

    Python's own string hash, not JSON and a cryptographic hash, for a ~400 kB prompt: the order lives in one
    process, and a rare collision costs at most one needless wait. ``tools_text``: the tools' text, if known.
    """
    parts = [tools_text if tools_text is not None else json.dumps(request.get("tools") or [], sort_keys=True)]
    for message in request.get("messages") or []:
        parts.append(str(message.get("role")))
        content = message.get("content")
        parts.append(content if isinstance(content, str) else json.dumps(content, sort_keys=True))
        if message.get("tool_calls") or message.get("tool_call_id"):
            parts.append(json.dumps([message.get("tool_calls"), message.get("tool_call_id")], sort_keys=True))
    text = "\x1e".join(parts)
    hashes: list[int] = []
    digest = 0
    for start in range(0, len(text) - BOUNDARY_CHARS + 1, BOUNDARY_CHARS):
        digest = hash((digest, text[start:start + BOUNDARY_CHARS]))
        hashes.append(digest)
    return hashes


class PrefixOrder:
    """Orders requests of one process so that siblings with a long shared prefix follow their leader.

    Args:
        max_wait_s: The longest a follower waits for its leader (then it is sent anyway).
        clock: The time source (tests can move it).
    """

    def __init__(self, max_wait_s: float = 120.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_wait_s = max_wait_s
        self.clock = clock
        self._changed = threading.Condition()
        self._sending: dict[int, int] = {}  # prefix hash -> requests sending it now
        self._answered: dict[int, float] = {}  # prefix hash -> when a request with it was last answered
        # id of a tools list -> (the list, its text): the tools' JSON was most of the hashing's cost. A list
        # changed in place would keep its old text: an order only, never a request, could differ.
        self._tools: dict[int, tuple[Any, str]] = {}
        self._tools_lock = threading.Lock()

    @contextlib.contextmanager
    def turn(self, request: dict[str, Any]) -> Iterator[None]:
        """Hold ``request`` back while its leader is in flight, then let it be sent (in the ``with`` body)."""
        hashes = prefix_hashes(request, self._tools_text(request.get("tools")))
        if len(hashes) * BOUNDARY_CHARS < MIN_SHARED_CHARS:
            yield
            return
        started = self.clock()
        with self._changed:
            while self._leader_in_flight(hashes) and self.clock() - started < self.max_wait_s:
                self._changed.wait(timeout=max(0.0, self.max_wait_s - (self.clock() - started)))
            for digest in hashes:
                self._sending[digest] = self._sending.get(digest, 0) + 1
        answered = False
        try:
            yield
            answered = True
        finally:
            with self._changed:
                now = self.clock()
                for digest in hashes:
                    left = self._sending[digest] - 1
                    if left:
                        self._sending[digest] = left
                    else:
                        del self._sending[digest]
                    if answered:
                        self._answered[digest] = now
                if len(self._answered) > 200_000:  # forget what no provider still caches
                    self._answered = {d: t for d, t in self._answered.items() if now - t <= WARM_S}
                self._changed.notify_all()

    def _tools_text(self, tools: Any) -> str | None:
        if not tools:
            return None
        with self._tools_lock:
            kept = self._tools.get(id(tools))
            if kept is None or kept[0] is not tools:
                kept = self._tools[id(tools)] = (tools, json.dumps(tools, sort_keys=True))
                if len(self._tools) > KEPT_TOOLS:
                    del self._tools[next(iter(self._tools))]
            return kept[1]

    def _leader_in_flight(self, hashes: list[int]) -> bool:
        """Whether the longest recently seen prefix of ``hashes`` is long, being sent, and not yet answered."""
        now = self.clock()
        for depth in range(len(hashes), 0, -1):
            digest = hashes[depth - 1]
            answered = self._answered.get(digest)
            if answered is not None and now - answered <= WARM_S:
                return False  # cached already: nothing to wait for
            if digest in self._sending:
                return depth * BOUNDARY_CHARS >= MIN_SHARED_CHARS
        return False
