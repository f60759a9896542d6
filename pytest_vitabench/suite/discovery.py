"""Which files pytest collects as VitaBench suites (the rules are in docs/suites.md).

Projects have JSON files of their own, so a ``.json`` file is a suite only when named on the command line,
matched by ``vita_suite_patterns``, or shaped like one. The shape sniff reads at most :data:`SNIFF_BYTES`
and never parses the file (a big suite is parsed once, by the loader); anything unreadable is not a suite
here, so a broken suite is found by name and then fails with its JSON path.
"""

from __future__ import annotations

import fnmatch
import gzip
import re
import zlib
from collections.abc import Iterable
from pathlib import Path

#: What collection matches by name alone.
DEFAULT_PATTERNS = ("*.vita.json", "*.vita.json.gz")
#: Bytes read to decide a file's shape. The first user of the paper suite is ~0.7 MB, and its ``subtasks``
#: key comes after the profile, a few hundred bytes in; a VitaBench 1.0 task names ``instructions`` within
#: its first 10 kB.
SNIFF_BYTES = 1 << 20

_JSON_SUFFIXES = (".json", ".json.gz")
# JSON strings (escapes included) and the structural characters; everything else (numbers, literals,
# commas, whitespace) is irrelevant to finding the first element's keys.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:]', re.S)
_V2_KEYS = frozenset({"subtasks"})
_V1_KEYS = frozenset({"instructions", "environment"})


def is_json_file(name: str) -> bool:
    """Whether ``name`` ends in ``.json`` or ``.json.gz`` (the only files that can be suites)."""
    return name.endswith(_JSON_SUFFIXES)


def is_suite_file(path: Path, patterns: Iterable[str], *, named: bool = False) -> bool:
    """Whether collection should treat ``path`` as a suite (see the module docstring).

    Args:
        path: A file.
        patterns: The ``vita_suite_patterns`` ini value.
        named: The file was named on the command line.
    """
    if not is_json_file(path.name):
        return False
    return (named or any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns)
            or looks_like_suite(path))


def looks_like_suite(path: Path, limit: int = SNIFF_BYTES) -> bool:
    """Whether the first ``limit`` bytes of ``path`` start a JSON array of VitaBench users or tasks."""
    try:
        head = _head(path, limit)
    except (OSError, EOFError, zlib.error):
        return False
    return shape_is_suite(head.decode("utf-8", errors="replace"))


def shape_is_suite(text: str) -> bool:
    """Whether ``text`` (the start of a JSON document) is an array whose first element is an object with
    the keys of a VitaBench 2.0 user or a VitaBench 1.0 task. Keys of nested objects do not count."""
    text = text.lstrip("\ufeff \t\r\n")
    if not text.startswith("["):
        return False
    depth = 0
    keys: set[str] = set()
    previous = ""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            if depth == 1 and token != "{":
                return False  # the first element is not an object
            depth += 1
        elif token in "]}":
            depth -= 1
            if depth <= 1:
                return False  # the first element (or the array) ended without the keys
        elif token == ":":
            if depth == 2 and previous.startswith('"'):
                keys.add(previous[1:-1])
                if _V2_KEYS <= keys or _V1_KEYS <= keys:
                    return True
        elif depth == 1:
            return False  # a string as the first element
        previous = token
    return False


def _head(path: Path, limit: int) -> bytes:
    if path.name.endswith(".gz"):
        with gzip.open(path, "rb") as stream:
            return stream.read(limit)
    with path.open("rb") as stream:
        return stream.read(limit)
