"""A provider's tokens-per-window limit, scripted into :class:`_stub_llm.StubLLM` as its endless replies.

Set ``stub.replies = TokenLimit(budget, window_s)``: every chat request is counted as a provider counts it
(``cl100k_base`` tokens of each message's text plus 4 per message, the tool definitions as compact JSON, as
providers count the functions they render into the prompt, plus the completion it answers with);
one that would take the last ``window_s`` of accepted requests over ``budget`` gets OpenAI's 429 ("Rate
limit reached ... on tokens per min (TPM) ... Please try again in Xs", with ``x-ratelimit-reset-tokens``),
anything else the next scripted answer. The accepted requests' ``(time, tokens)`` and the refusals are
recorded for the checks.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from pytest_vitabench.memory.tokens import count_tokens

#: Completion tokens of every accepted answer (a request's estimate does not know them: the correction does).
COMPLETION_TOKENS = 24


class TokenLimit(list):
    """An endless reply script for :class:`StubLLM` that enforces ``budget`` tokens per ``window_s``.

    Args:
        budget: Tokens accepted per sliding window.
        window_s: The window.
        answer: The message of an accepted request, as a function of its body (default: the agent stops).
    """

    def __init__(self, budget: int, window_s: float,
                 answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None):
        super().__init__()
        self.budget = budget
        self.window_s = window_s
        self.answer = answer or (lambda request: {"content": "Nothing more for you today. ###STOP###"})
        self.accepted: list[tuple[float, int]] = []
        self.refused = 0
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return True

    def pop(self, index: int = -1) -> Callable[[dict[str, Any]], Any]:  # the stub pops one reply per request
        return self._reply

    def _reply(self, request: dict[str, Any]) -> Any:
        prompt = sum(4 + count_tokens(str(m.get("content") or "")) for m in request.get("messages") or [])
        if request.get("tools"):
            prompt += count_tokens(json.dumps(request["tools"], ensure_ascii=False, separators=(",", ":")))
        tokens = prompt + COMPLETION_TOKENS
        with self._lock:
            now = time.time()  # a provider counts a request when it arrives: after the lock, as the next one
            recent = [(t, n) for t, n in self.accepted if t > now - self.window_s]
            used = sum(n for _, n in recent)
            if recent and used + tokens > self.budget:
                self.refused += 1
                freed, reset = used, self.window_s
                for t, n in sorted(recent):
                    freed -= n
                    if freed + tokens <= self.budget:
                        reset = t + self.window_s - now
                        break
                message = (f"Rate limit reached for {request.get('model')} in organization org-stub on tokens per "
                           f"min (TPM): Limit {self.budget}, Used {used}, Requested {tokens}. Please try again in "
                           f"{reset:.3f}s.")
                return 429, {"error": {"message": message, "type": "tokens", "code": "rate_limit_exceeded"}}, {
                    "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": f"{reset:.3f}s"}
            self.accepted.append((now, tokens))
        message = dict(self.answer(request))
        message["usage"] = {"prompt_tokens": prompt, "completion_tokens": COMPLETION_TOKENS,
                            "total_tokens": tokens}
        return message

    def window_max(self) -> int:
        """The most tokens accepted within any ``window_s``-long span."""
        times = sorted(self.accepted)
        most = total = start = 0
        for end in range(len(times)):
            total += times[end][1]
            while times[end][0] - times[start][0] >= self.window_s:
                total -= times[start][1]
                start += 1
            most = max(most, total)
        return most

    def full_windows(self) -> list[int]:
        """Tokens accepted in each whole window from the first acceptance on (the last, partial one left out)."""
        if not self.accepted:
            return []
        first, last = self.accepted[0][0], self.accepted[-1][0]
        count = int((last - first) // self.window_s)
        totals = [0] * count
        for t, n in self.accepted:
            slot = int((t - first) // self.window_s)
            if slot < count:
                totals[slot] += n
        return totals
