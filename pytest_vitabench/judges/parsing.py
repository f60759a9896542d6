"""Tolerant parsing of judge replies: find the JSON in a model's text, repair common faults, normalise items.

Judge models wrap JSON in code fences, prepend reasoning (``<think>...</think>``), use Python literals
(``True``, ``None``, single quotes), leave trailing commas, or get cut off at the token limit. The VitaBench 2.0
harness either repairs silently or, in its rubric-less sliding judge, crashes on such replies; here every reply
goes through :func:`parse_reply`, and what cannot be read is reported, never guessed.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.S)
_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_TRAILING_COMMA = re.compile(r",\s*([\]}])")
_LINE_COMMENT = re.compile(r"(?m)^\s*//.*$")
_SMART_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)")
_PY_LITERALS = {"true": "True", "false": "False", "null": "None"}

T = TypeVar("T")

#: Keys under which a judge may return its list of rubric results.
_LIST_KEYS = ("rubrics", "results", "rubric_results", "evaluations", "evaluation", "items", "verdicts", "checks")
_INDEX_KEYS = ("rubric_idx", "rubric_index", "index", "idx", "id", "rubric_id", "number", "序号", "编号")
_MET_KEYS = ("met", "meetExpectation", "meet_expectation", "meets_expectation", "satisfied", "passed", "pass",
             "result", "achieved", "is_met", "满足", "是否满足")
_REASON_KEYS = ("justification", "reason", "explanation", "rationale", "evidence", "理由", "原因", "说明")
_TEXT_KEYS = ("rubric", "text", "criterion", "rubric_text", "评分标准", "标准")
_TRUE_WORDS = {"true", "yes", "y", "met", "pass", "passed", "satisfied", "achieved", "1", "是", "满足", "达成",
               "通过", "符合"}
_FALSE_WORDS = {"false", "no", "n", "unmet", "not met", "fail", "failed", "unsatisfied", "0", "否", "不满足",
                "未满足", "未达成", "不通过", "不符合"}


class JudgeParseError(ValueError):
    """The reply holds no readable JSON of the expected shape."""


def _strip_wrappers(text: str) -> str:
    text = _THINK.sub("", text)
    # An unclosed <think> (the answer was cut inside the reasoning) leaves nothing usable before it.
    if re.search(r"<think(?:ing)?>", text, re.I):
        text = re.split(r"</think(?:ing)?>", text, flags=re.I)[-1]
    fenced = _FENCE.findall(text)
    if fenced:
        # The last fenced block is the answer; earlier ones are usually examples the model echoed.
        return max(fenced, key=lambda block: ("[" in block or "{" in block, len(block)))
    # A fence opened but never closed (truncated output).
    opened = re.search(r"```[a-zA-Z0-9_-]*\s*\n", text)
    return text[opened.end():] if opened else text


def _balanced(text: str, start: int) -> tuple[str, bool]:
    """The JSON value starting at ``text[start]`` and whether it closed; string-aware."""
    stack: list[str] = []
    in_string: str | None = None
    escaped = False
    last_cut: tuple[int, list[str]] | None = None  # after the last complete nested value, and what stays open
    for pos in range(start, len(text)):
        char = text[pos]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == in_string:
                in_string = None
            continue
        if char in "\"'":
            in_string = char
        elif char in "[{":
            stack.append("]" if char == "[" else "}")
        elif char in "]}":
            if not stack or stack[-1] != char:
                return text[start:pos], False
            stack.pop()
            if not stack:
                return text[start:pos + 1], True
            last_cut = (pos + 1, list(stack))
    # Truncated: keep everything up to the last complete nested value and close what is open there, so a
    # reply cut at the token limit still yields the verdicts it did finish.
    if last_cut is not None:
        return text[start:last_cut[0]] + "".join(reversed(last_cut[1])), False
    fragment = text[start:] + (in_string or "")
    return re.sub(r",\s*$", "", fragment.rstrip()) + "".join(reversed(stack)), False


def _candidates(text: str) -> list[tuple[str, bool]]:
    """JSON-looking substrings in order of where they start (an outer value before the values inside it)."""
    found = []
    pos = min((p for p in (text.find("["), text.find("{")) if p != -1), default=-1)
    while pos != -1:
        fragment, closed = _balanced(text, pos)
        found.append((fragment, closed))
        nxt = [p for p in (text.find("[", pos + 1), text.find("{", pos + 1)) if p != -1]
        pos = min(nxt) if nxt else -1
    return found


def _loads(fragment: str) -> Any:
    """``json.loads`` after successive repairs; raises ``ValueError`` if none works."""
    attempts = [fragment]
    fixed = _TRAILING_COMMA.sub(r"\1", _LINE_COMMENT.sub("", fragment.translate(_SMART_QUOTES)))
    attempts.append(fixed)
    attempts.append(_UNQUOTED_KEY.sub(r'\1"\2"\3', fixed))
    for attempt in attempts:
        try:
            return json.loads(attempt, strict=False)
        except json.JSONDecodeError:
            continue
    # Python-literal style ({'met': True, ...}) from models that imitate a dict repr.
    python = re.sub(r"\b(true|false|null)\b", lambda m: _PY_LITERALS[m.group(1)], fixed)
    try:
        return ast.literal_eval(python)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError("no JSON value could be read") from None


def json_values(text: str) -> Iterator[tuple[Any, list[str]]]:
    """Every JSON value that can be read from a model reply, most likely first, with repair notes.

    The whole reply (fences and reasoning removed) comes first, then each JSON-looking part in order of
    position, so prose such as "see message [3]" before the answer does not hide it.
    """
    if not text or not text.strip():
        return
    body = _strip_wrappers(text)
    try:
        yield json.loads(body), []
        return
    except json.JSONDecodeError:
        pass
    for fragment, closed in _candidates(body):
        try:
            value = _loads(fragment)
        except ValueError:
            continue
        yield value, ([] if closed else ["the JSON was cut off; only its complete part was read"])


def parse_reply(text: str, read: Callable[[Any], T]) -> tuple[T, list[str]]:
    """The first JSON value in ``text`` that ``read`` accepts, and its repair notes.

    Raises:
        JudgeParseError: No value was accepted (the message says why, for the repair request).
    """
    problem: JudgeParseError | None = None
    for value, notes in json_values(text):
        try:
            return read(value), notes
        except JudgeParseError as exc:
            problem = problem or exc
    if problem is not None:
        raise problem
    if not text or not text.strip():
        raise JudgeParseError("the reply is empty")
    excerpt = " ".join(text.split())
    excerpt = excerpt if len(excerpt) <= 160 else excerpt[:160] + "..."
    raise JudgeParseError(f"no JSON found in the reply: {excerpt!r}")


def as_bool(value: Any) -> bool | None:
    """A verdict value as ``True``/``False``; ``None`` when it says neither."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().strip(".").lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    return None


def _first(item: dict[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {str(k).lower(): v for k, v in item.items()}
    for key in keys:
        if key in item:
            return item[key]
        if key.lower() in lowered:
            return lowered[key.lower()]
    return None


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        digits = re.search(r"\d+", value)
        return int(digits.group()) if digits else None
    return None


@dataclass
class RubricItem:
    """One rubric result read from a judge reply: the 1-based ``index`` and the ``text`` it gives (if any), its
    verdict (``None`` when it states none), and the object as given (for fields such as ``applicable``)."""

    index: int | None
    text: str
    met: bool | None
    reason: str
    raw: dict[str, Any] = field(default_factory=dict)


def rubric_items(value: Any) -> list[RubricItem]:
    """Normalise a parsed reply into rubric items.

    Accepts a list of objects, an object holding such a list (``{"rubrics": [...]}``), an object keyed by
    rubric (``{"rubric_1": {...}}``) or a single object.

    Raises:
        JudgeParseError: The value has none of these shapes, or no item states a verdict.
    """
    if isinstance(value, dict):
        listed = next((value[k] for k in value if str(k).lower() in _LIST_KEYS and isinstance(value[k], list)), None)
        if listed is not None:
            value = listed
        elif value and all(isinstance(v, dict) for v in value.values()) and _first(value, _MET_KEYS) is None:
            value = [{"rubric_idx": key, **item} for key, item in value.items()]
        else:
            value = [value]
    if not isinstance(value, list):
        raise JudgeParseError(f"expected a JSON list of rubric results, got {type(value).__name__}")
    items = []
    for entry in value:
        if not isinstance(entry, dict):
            continue
        reason = _first(entry, _REASON_KEYS)
        text = _first(entry, _TEXT_KEYS)
        items.append(RubricItem(index=_index(_first(entry, _INDEX_KEYS)), text=str(text or "").strip(),
                                met=as_bool(_first(entry, _MET_KEYS)), reason=str(reason or "").strip(),
                                raw=entry))
    if not any(item.met is not None for item in items):
        raise JudgeParseError("the reply states no verdict (no 'met' field in any item)")
    return items


def match_items(items: list[RubricItem], rubrics: list[str]) -> dict[int, RubricItem]:
    """Map items to 0-based rubric positions: by the 1-based index when it fits, else by exact text.

    A reply numbered from 0 (some models do, whatever the prompt says) is shifted when its indices show it.
    """
    by_text = {text.strip(): pos for pos, text in enumerate(rubrics)}
    indices = [item.index for item in items if item.index is not None]
    shift = 1 if indices and min(indices) == 0 and max(indices) < len(rubrics) else 0
    matched: dict[int, RubricItem] = {}
    for item in items:
        if item.met is None:
            continue
        pos: int | None = None
        if item.index is not None and 1 <= item.index + shift <= len(rubrics):
            pos = item.index + shift - 1
            # When the repeated text names another rubric, the text is the more reliable of the two.
            if item.text in by_text and by_text[item.text] != pos:
                pos = by_text[item.text]
        elif item.text in by_text:
            pos = by_text[item.text]
        if pos is not None:
            matched[pos] = item
    return matched
