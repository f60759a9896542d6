"""A chat request's JSON body as bytes, its long texts encoded once rather than with every request.

Under ``full_context`` memory the agent's system prompt is a few hundred kilobytes and the same string in each
request of an episode; encoding it again was the largest JSON work of a request. The bytes are the ``openai``
SDK's own encoding of the body (``json.dumps``, ``ensure_ascii=False``, compact separators, no NaN), so the
request on the wire does not change.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

#: A message text at least this long is encoded once and reused while the same string is sent again.
LONG_TEXT = 16_384
#: Encoded long texts kept, the least recently sent dropped first (about one per episode in flight).
KEPT = 16
_PLACEHOLDER = "\x00vitabench long text {}\x00"


def dumps(value: Any) -> str:
    """The SDK's JSON encoding of a request body."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class BodyEncoder:
    """Encodes chat request bodies, keeping the encoding of the last :data:`KEPT` long message texts.

    A kept text is recognised by identity (the same string object sent again), never by an equal copy.
    """

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._texts: OrderedDict[int, tuple[str, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> bytes:
        messages = body.get("messages")
        long = [i for i, m in enumerate(messages or ()) if isinstance(m, dict)
                and isinstance(m.get("content"), str) and len(m["content"]) >= LONG_TEXT]
        if not long:
            return dumps(body).encode()
        assert messages is not None
        sent = list(messages)
        for n, i in enumerate(long):
            sent[i] = {**sent[i], "content": _PLACEHOLDER.format(n)}
        encoded = dumps({**body, "messages": sent}).encode()
        for n, i in enumerate(long):
            placeholder = dumps(_PLACEHOLDER.format(n)).encode()
            if encoded.count(placeholder) != 1:  # a text of the request holds the placeholder itself
                return dumps(body).encode()
            encoded = encoded.replace(placeholder, self._encoded(messages[i]["content"]), 1)
        return encoded

    def _encoded(self, text: str) -> bytes:
        with self._lock:
            kept = self._texts.get(id(text))
            if kept is not None and kept[0] is text:
                self._texts.move_to_end(id(text))
                return kept[1]
        encoded = dumps(text).encode()
        with self._lock:
            self._texts[id(text)] = (text, encoded)
            while len(self._texts) > self._kept:
                self._texts.popitem(last=False)
        return encoded
