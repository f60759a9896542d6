"""A stub memory model for the agentic backend: the stub server on 127.0.0.1 answering each rewrite with
the current memory plus the new records, verbatim, cut to the budget (a mechanical, not an intelligent,
rewriter). Lets the whole agentic path run offline end to end."""

from __future__ import annotations

import re

from _stub_llm import StubLLM

from pytest_vitabench.memory.tokens import keep_last_tokens

_SECTIONS = re.compile(r"New records[^\n]*:\n(?P<records>.*?)\n\nCurrent memory:\n(?P<memory>.*?)\n\nWrite the",
                       re.S)
_BUDGET = re.compile(r"within about (\d+) tokens")


class _EchoReplies(list):
    def __init__(self, stub: StubLLM):
        super().__init__()
        self.stub = stub

    def __bool__(self) -> bool:
        return True

    def pop(self, index: int = -1) -> dict:  # called under the stub's lock, right after the request is logged
        prompt = self.stub.requests[-1]["messages"][-1]["content"]
        found = _SECTIONS.search(prompt)
        if found is None:
            return {"content": "###STOP###"}
        memory = "" if found["memory"].startswith("(empty") else found["memory"]
        budget = int(_BUDGET.search(prompt).group(1))
        return {"content": keep_last_tokens(f"{memory}\n{found['records']}".strip(), budget)}


def echo_memory_stub() -> StubLLM:
    stub = StubLLM()
    stub.replies = _EchoReplies(stub)
    return stub
