"""Checks that a suite's data means what it says: no value that would crash a run or change a score unnoticed.

Pydantic checks types; these check what types cannot (the JSON text itself, node ids, domain entities,
times, numbers). docs/suites.md lists every check. Each problem is a ``(json_path, message)`` pair for
:class:`~pytest_vitabench.suite.errors.SuiteError`; each warning is one line naming the file and paths.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import datetime
from itertools import repeat
from pathlib import Path
from typing import Any

from .errors import SuiteError, json_problem
from .schema import ENTITY_CONTAINERS

#: Deepest nesting a suite may use: a few hundred levels overflow ``copy.deepcopy`` at run time.
MAX_NESTING = 64
#: Strings longer than this load, with a warning.
LONG_STRING_CHARS = 100_000
_QUOTED_PATHS = 5

Problems = list[tuple[str, str]]

#: The entity containers that make up each domain's data (its subtasks' ``environment`` keys).
DOMAIN_CONTAINERS: dict[str, tuple[str, ...]] = {
    "delivery": ("stores",),
    "instore": ("shops",),
    "ota": ("hotels", "attractions", "flights", "trains", "taxis"),
}

NON_NEGATIVE_FIELDS = frozenset({
    "price", "book_price", "ticket_price", "estimated_price", "total_price", "quantity", "score",
    "star_rating", "estimated_duration", "shipping_time",
})
POSITIVE_COUNT_FIELDS = frozenset({"customer_count"})
_RANGES = {"longitude": (-180.0, 180.0), "latitude": (-90.0, 90.0)}
_NUMERIC_FIELDS = NON_NEGATIVE_FIELDS | POSITIVE_COUNT_FIELDS | frozenset(_RANGES)
#: Fields whose positive values can still be wrong (out of range, or a count below one).
_ALWAYS_CHECKED = POSITIVE_COUNT_FIELDS | frozenset(_RANGES)
_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")


class DuplicateKeys:
    """Marks an object whose JSON text repeats a key with different values (the parser keeps the last)."""

    #: No suite key starts with NUL.
    KEY = "\x00duplicate keys"

    def __init__(self, names: list[str]):
        self.names = names


class HugeNumber:
    """Stands in for a JSON integer literal too long for Python's ``int``, so its user fails alone."""

    def __init__(self, digits: str):
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"<integer of {self.digits} digits>"


def parse_suite_json(raw: bytes, path: str | Path) -> Any:
    """``json.loads`` that turns every way JSON text can be unusable into a :class:`SuiteError`; an
    over-long integer becomes a :class:`HugeNumber`, so that only its user fails."""
    try:
        return json.loads(raw, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise SuiteError(path, [("", f"not valid JSON: {json_problem(exc)}")]) from None
    except UnicodeDecodeError as exc:
        raise SuiteError(path, [("", f"not UTF-8 text: byte {exc.object[exc.start]:#04x} at offset {exc.start} "
                                     f"({exc.reason})")]) from None
    except RecursionError:
        raise SuiteError(path, [(_deep_point(raw), f"nested more than {MAX_NESTING} levels deep "
                                                   "(too deep for the JSON parser)")]) from None
    except ValueError as exc:  # only the digit limit of int(); anything else is a bug worth seeing
        if "digits" not in str(exc):
            raise
    try:
        return json.loads(raw, parse_int=_int_or_huge, object_pairs_hook=_object)
    except (ValueError, RecursionError) as exc:  # pragma: no cover - the first parse failed for digits only
        raise SuiteError(path, [("", f"not valid JSON: {exc}")]) from None


def parse_json_text(text: str) -> Any:
    """A user's span of a suite file, parsed with the hooks of :func:`parse_suite_json`."""
    return json.loads(text, parse_int=_int_or_huge, object_pairs_hook=_object)


def span_decoder() -> json.JSONDecoder:
    """A decoder for ``raw_decode`` with the same hooks as :func:`parse_json_text`."""
    return json.JSONDecoder(parse_int=_int_or_huge, object_pairs_hook=_object)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):  # a repeated key; harmless only when every copy holds the same value
        conflicting = sorted({key for key, value in pairs if obj[key] != value})
        if conflicting:
            obj[DuplicateKeys.KEY] = DuplicateKeys(conflicting)
    return obj


def _int_or_huge(text: str) -> int | HugeNumber:
    return HugeNumber(text) if len(text) > sys.get_int_max_str_digits() else int(text)


def _deep_point(raw: bytes) -> str:
    """Where nesting first passes :data:`MAX_NESTING`: ``[i] (line L column C)``, ``i`` the top-level entry."""
    depth, index, line, column, in_string, escaped = 0, -1, 1, 0, False, False
    for byte in raw:
        column += 1
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
            continue
        if byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth == 2:
                index += 1
            if depth > MAX_NESTING:
                return f"[{max(index, 0)}] (line {line} column {column})"
        elif byte in (0x5D, 0x7D):
            depth -= 1
        elif byte == 0x0A:
            line, column = line + 1, 0
    return ""


def check_json_values(entry: Any, prefix: str, problems: Problems, odd: dict[str, list[str]]) -> bool:
    """Non-finite numbers, over-long integers, repeated keys and excessive nesting in one user's JSON.

    Returns:
        ``True`` when the fast scan found nothing, numbers included (paths are built only otherwise).
    """
    if not _needs_attention(entry, 1, ""):
        return True
    for where, value, depth in _walk(entry, prefix, 1):
        if depth > MAX_NESTING:
            problems.append((where, f"nested more than {MAX_NESTING} levels deep"))
        elif isinstance(value, DuplicateKeys):
            problems.append((where.removesuffix("." + DuplicateKeys.KEY),
                             f"key(s) {', '.join(map(repr, value.names))} appear more than once with different "
                             "values (JSON readers disagree on which one counts)"))
        elif isinstance(value, HugeNumber):
            problems.append((where, f"an integer of {value.digits} digits (the most Python reads is "
                                    f"{sys.get_int_max_str_digits()})"))
        elif type(value) is float and value - value != 0.0:
            problems.append((where, f"{value} is not a number a suite can use (NaN or infinite)"))
        elif type(value) is str and len(value) > LONG_STRING_CHARS:
            odd.setdefault(f"strings longer than {LONG_STRING_CHARS:,} characters", []).append(where)
    return False


def _needs_attention(value: Any, depth: int, key: str) -> bool:
    """Whether anything below ``value`` is for :func:`check_json_values` or :func:`check_environment_values`."""
    if depth > MAX_NESTING:
        return True
    # This scan visits every value of a suite: the number rule only runs for values that could break it.
    for name, item in (value.items() if type(value) is dict else zip(repeat(key), value)):
        kind = type(item)
        if kind is dict or kind is list:
            if _needs_attention(item, depth + 1, name):
                return True
        elif kind is float or kind is int:
            if kind is float and item - item != 0.0:
                return True
            if name in _NUMERIC_FIELDS and (item <= 0 or name in _ALWAYS_CHECKED) and _number_flagged(name, item):
                return True
        elif kind is str:
            if len(item) > LONG_STRING_CHARS:
                return True
        elif kind is HugeNumber or kind is DuplicateKeys:
            return True
    return False


def _walk(value: Any, where: str, depth: int) -> Iterator[tuple[str, Any, int]]:
    """``(json_path, value, depth)`` of every value below ``value``; stops descending past the limit."""
    if depth > MAX_NESTING:
        yield where, value, depth
        return
    if type(value) is dict:
        children: Any = ((f"{where}.{key}", item) for key, item in value.items())
    elif type(value) is list:
        children = ((f"{where}[{i}]", item) for i, item in enumerate(value))
    else:
        yield where, value, depth
        return
    for child_where, item in children:
        yield from _walk(item, child_where, depth + 1)


def node_id_problem(value: str) -> str | None:
    """Why ``value`` cannot be one part of a pytest node id, or ``None`` when it can."""
    if not value.strip():
        return "is empty"
    if value != value.strip():
        return f"{value!r} has leading or trailing whitespace"
    if "::" in value:
        return f"{value!r} contains '::', which separates the parts of a pytest node id"
    if "[" in value or "]" in value:
        return f"{value!r} contains '[' or ']', which pytest reserves for parameters"
    if any(ord(char) < 32 or ord(char) == 127 for char in value):
        return f"{value!r} contains a control character"
    return None


def check_node_ids(task: Any, prefix: str, problems: Problems) -> None:
    """The user id and every subtask id must form node ids; the user id the tools check must not be empty."""
    problem = node_id_problem(task.id)
    if problem:
        problems.append((f"{prefix}.id", f"user id {problem}"))
    if not task.user_id.strip():
        problems.append((f"{prefix}.user_id", "user id is empty"))
    for j, sub in enumerate(task.subtasks):
        problem = node_id_problem(sub.subtask_id)
        if problem:
            problems.append((f"{prefix}.subtasks[{j}].subtask_id", f"subtask id {problem}"))


def check_profile(task: Any, prefix: str, problems: Problems) -> None:
    """A 2.0 profile's ``user_id`` (every tool call) and addresses (deliveries) must be usable."""
    if task.source_format != "vitabench2":
        return  # a 1.0 profile is the hidden scenario's, in free form
    profile = task.user_profile
    where = f"{prefix}.user_profile"
    if "user_id" not in profile:
        problems.append((where, f"the profile has no user_id (the agent is told whom it serves from it; "
                                f"expected {task.user_id!r})"))
    elif str(profile["user_id"]) != task.user_id:
        problems.append((f"{where}.user_id", f"{profile['user_id']!r} differs from the user's id {task.user_id!r}"))
    for key, value in profile.items():
        address = "address" in str(key).lower() or "地址" in str(key) or "住址" in str(key)
        if address and not (isinstance(value, str) and value.strip()):
            problems.append((f"{where}.{key}", f"an address must be non-empty text, got {value!r}"))


def check_subtask_content(task: Any, prefix: str, problems: Problems, odd: dict[str, list[str]]) -> None:
    """Every subtask states a request. Warnings: nothing to judge (it scores 1.0, as officially), or a
    proactive subtask whose user has no hidden details to give when the agent asks."""
    for j, sub in enumerate(task.subtasks):
        where = f"{prefix}.subtasks[{j}]"
        if not sub.instruction.strip():
            problems.append((f"{where}.instruction", "the instruction is empty"))
        if sub.is_proactive and not (sub.user_intention or "").strip():
            odd.setdefault("proactive subtasks without user_intention (the user has nothing to tell when asked)",
                           []).append(f"{where}.user_intention")
        if not sub.rubrics():
            odd.setdefault("no rubrics (judged only by its target annotation, else not judged; the official "
                           "harness scores it 1.0)", []).append(f"{where}.evaluation_criteria")


def check_domain_entities(sub: Any, where: str, problems: Problems, odd: dict[str, list[str]], *,
                          label_is_authoritative: bool) -> None:
    """The environment lacks its domain's entities (an error) or holds another domain's (a warning: the
    VitaBench 2.0 harness drops them silently).

    Args:
        label_is_authoritative: ``False`` for a 1.0 task, whose ``domain`` is a free-form label: only
            missing entities are checked.
    """
    names = [part.strip() for part in sub.domain.split(",")]
    environment = sub.environment
    for name in dict.fromkeys(names):
        containers = DOMAIN_CONTAINERS.get(name)
        if containers and not any(_non_empty(environment.get(c)) for c in containers):
            problems.append((f"{where}.environment",
                             f"a {name} subtask needs {' or '.join(containers)} in its environment; it has none"))
    if not label_is_authoritative:
        return
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        problems.append((f"{where}.domain", f"domain {sub.domain!r} lists {', '.join(map(repr, repeated))} "
                                            "more than once"))
    for other, containers in DOMAIN_CONTAINERS.items():
        if other in names:
            continue
        for container in containers:
            if _non_empty(environment.get(container)):
                odd.setdefault("entities of a domain the subtask does not list (its tools never see them)",
                               []).append(f"{where}.environment.{container}")


def _non_empty(value: Any) -> bool:
    return isinstance(value, (dict, list)) and len(value) > 0


def time_problem(value: str) -> str | None:
    """Why ``value`` is not a usable ``YYYY-MM-DD HH:MM[:SS]`` time, or ``None`` when it is."""
    text = value.strip().replace("T", " ")
    for fmt in _TIME_FORMATS:
        try:
            datetime.strptime(text, fmt)
            return None
        except ValueError:
            continue
    return f"{value!r} is not a valid time (expected YYYY-MM-DD HH:MM:SS)"


def check_environment_values(environment: dict[str, Any], where: str, problems: Problems,
                             odd: dict[str, list[str]], *, numbers_clean: bool = False) -> None:
    """Numbers that make no sense, and empty or duplicate entity and product ids (``numbers_clean``: the
    fast scan of :func:`check_json_values` found no flagged number, so that walk is skipped)."""
    if not numbers_clean:
        _check_numbers(environment, where, "", problems, odd)
    for container in ENTITY_CONTAINERS:
        entities = environment.get(container)
        if not isinstance(entities, dict):
            continue
        for key, entity in entities.items():
            entity_where = f"{where}.{container}.{key}"
            if not str(key).strip():
                problems.append((f"{where}.{container}", f"an entity of {container} has an empty id (its key)"))
            if isinstance(entity, dict):
                _check_products(entity.get("products"), entity_where, problems)


def _check_products(products: Any, where: str, problems: Problems) -> None:
    if not isinstance(products, list):
        return
    # Travel products repeat their id across dates (one seat class, one date each): the key is the pair.
    seen: dict[tuple[str, Any], int] = {}
    for i, product in enumerate(products):
        if not isinstance(product, dict) or not isinstance(product.get("product_id"), str):
            continue  # a missing or mistyped id is pydantic's to report
        product_id = product["product_id"]
        key = (product_id, product.get("date"))
        if not product_id.strip():
            problems.append((f"{where}.products[{i}].product_id", "product id is empty"))
        elif key in seen:
            dated = f" on {key[1]}" if key[1] else ""
            problems.append((f"{where}.products[{i}].product_id",
                             f"duplicate product id {product_id!r}{dated} (first at products[{seen[key]}])"))
        seen.setdefault(key, i)


def _number_flagged(name: str, value: float) -> bool:
    """Whether a number of field ``name`` is an error or a warning somewhere (the slow pass decides)."""
    return (value < 0 or (value == 0 and name in ("quantity", "price"))
            or (name in POSITIVE_COUNT_FIELDS and value < 1)
            or (name in _RANGES and not _RANGES[name][0] <= value <= _RANGES[name][1]))


def _check_numbers(value: Any, where: str, key: str, problems: Problems, odd: dict[str, list[str]]) -> None:
    # Recursion is safe: check_json_values has already bounded the nesting.
    pairs = value.items() if type(value) is dict else ((None, item) for item in value)
    for index, (child_key, item) in enumerate(pairs):
        name = key if child_key is None else str(child_key)
        kind = type(item)
        if kind is dict or kind is list:
            child = f"{where}[{index}]" if child_key is None else f"{where}.{child_key}"
            _check_numbers(item, child, name, problems, odd)
        elif (kind is int or kind is float) and name in _NUMERIC_FIELDS:
            child = f"{where}[{index}]" if child_key is None else f"{where}.{child_key}"
            _check_number(name, item, child, problems, odd)


def _check_number(key: str, value: float, where: str, problems: Problems, odd: dict[str, list[str]]) -> None:
    if key in NON_NEGATIVE_FIELDS and value < 0:
        problems.append((where, f"{key} {value} is negative"))
    elif key in POSITIVE_COUNT_FIELDS and value < 1:
        problems.append((where, f"{key} {value} is below 1"))
    elif key in _RANGES and not _RANGES[key][0] <= value <= _RANGES[key][1]:
        low, high = _RANGES[key]
        problems.append((where, f"{key} {value} is outside [{low:g}, {high:g}]"))
    elif value == 0 and key in ("quantity", "price") and ".products[" in where:
        odd.setdefault("stock of 0 (sold out)" if key == "quantity" else "product price of 0", []).append(where)


def odd_value_warnings(path: str | Path, odd: dict[str, list[str]]) -> list[str]:
    """One warning line per kind of odd-but-usable value, naming its first JSON paths."""
    lines = []
    for what, paths in odd.items():
        shown = ", ".join(paths[:_QUOTED_PATHS])
        more = f" and {len(paths) - _QUOTED_PATHS} more" if len(paths) > _QUOTED_PATHS else ""
        lines.append(f"{path}: {what} at {shown}{more}")
    return lines
