"""A suite fuzzer: broken copies of a valid suite, and the rule every copy must obey.

A case is one defect applied to a copy of two users of the demo suite (delivery, instore and ota subtasks),
either at a JSON path (delete, retype, duplicate, NaN, negative, huge number, deep nesting, bad id, bad
domain, bad time, empty string, repeated key) or to the file (truncation, invalid UTF-8, corrupt gzip).

:func:`judge_case` loads the copy with the real loader and, for every user that loads, runs its subtasks
with the offline ``reference`` agent, scripted user and rules judge, and sorts the case into one of:

* ``error``: a :class:`SuiteError` naming the file and a JSON path (for the file, or that user only;
  the other user still loads unchanged);
* ``unchanged``: everything loads and every reward equals the unbroken suite's, or a warning names the
  broken user (odd but usable);
* ``traceback``: any other exception, or an item that ends as an infrastructure error;
* ``silent``: the copy loads with no error and no warning naming the broken user, but some reward
  differs from the unbroken suite's: the defect changed what the subtask means without a word.

The rule: no ``traceback`` and no ``silent``. ``tests/suite/test_fuzz.py`` drives this with hypothesis;
``benchmarks/fuzz_suites.py`` runs thousands of cases and prints the counts.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
import re
import tempfile
import traceback
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from _paths import REPO_ROOT

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
#: Users of the demo suite in the fuzz base: 10 subtasks over the three domains.
BASE_USERS = 2

PATH_MUTATIONS = ("delete", "retype", "duplicate", "nonfinite", "negative", "zero", "huge_int", "huge_string",
                  "deep", "bad_id", "bad_domain", "bad_time", "empty", "repeat_key")
FILE_MUTATIONS = ("truncate", "bad_utf8", "corrupt_gzip", "deep_text")
MUTATIONS = PATH_MUTATIONS + FILE_MUTATIONS

_HUGE = "\x00HUGE\x00"
_DEEP = "\x00DEEP\x00"
_REPEAT = "\x00REPEAT\x00"
_RETYPES: tuple[Any, ...] = (None, True, False, 0, -1, 1.5, "", "x", [], {}, [1], {"a": 1})
_BAD_IDS = ("", "   ", " padded", "a::b", "U[1]", "a]", "line\nbreak", "nul\x00", "tab\tid")
_BAD_DOMAINS = ("delivery,delivery", "instore", "ota", "delivery", "pharmacy", "", ",", "delivery,ota",
                "DELIVERY", "in-store consumption", "instore,instore,ota")
_BAD_TIMES = ("", "0000-00-00 00:00:00", "\x00", "2025-13-40 25:00:00", "soon", "1999-01-01 00:00:00",
              "2025-06-01T12:00:00Z", " ")


@dataclass
class Case:
    """One broken copy: ``mutation`` applied at the path chosen by ``steps`` with parameter ``pick``."""

    mutation: str
    steps: tuple[int, ...] = ()
    pick: int = 0
    #: Filled by :func:`build_case`: the JSON path hit and the user index it lies in (``None``: the file).
    where: str = ""
    user: int | None = None
    #: The path's length: 1 means a whole user was deleted, duplicated or replaced.
    depth: int = 0
    #: A well-formed edit rather than a defect (a list entry or a free-form key deleted): it may change
    #: rewards, so only "no traceback" applies to it.
    valid_edit: bool = False

    def command(self) -> str:
        return f"Case({self.mutation!r}, steps={self.steps}, pick={self.pick})"


@dataclass
class Verdict:
    outcome: str  # error | unchanged | traceback | silent
    detail: str = ""
    warned: bool = False
    case: Case | None = None
    messages: list[str] = field(default_factory=list)


@cache
def base_suite() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(DEMO.read_text(encoding="utf-8"))[:BASE_USERS])


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return list(range(len(value)))
    return []


def _locate(data: Any, steps: tuple[int, ...]) -> list[Any]:
    """The key path chosen by ``steps``: each step picks a child (modulo their number) until a leaf."""
    keys: list[Any] = []
    node = data
    for step in steps:
        children = _children(node)
        if not children:
            break
        key = children[step % len(children)]
        keys.append(key)
        node = node[key]
    return keys


def _render_path(keys: list[Any]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys)


def build_case(case: Case) -> tuple[bytes, str]:
    """The broken file's bytes and its name (``.json`` or ``.json.gz``)."""
    data = copy.deepcopy(list(base_suite()))
    rng = random.Random(case.pick)
    if case.mutation in FILE_MUTATIONS:
        text = json.dumps(data, ensure_ascii=False).encode()
        case.where, case.user = "", None
        if case.mutation == "truncate":
            return text[: 1 + case.pick % (len(text) - 1)], "tasks.json"
        if case.mutation == "bad_utf8":
            at = case.pick % len(text)
            return text[:at] + b"\xff\xfe" + text[at:], "tasks.json"
        if case.mutation == "deep_text":
            at = text.index(b'"instruction": ') + len(b'"instruction": ')
            depth = 100_000 if case.pick % 2 else 3_000
            return text[:at] + b"[" * depth + b"]" * depth + b', "_": ' + text[at:], "tasks.json"
        packed = bytearray(gzip.compress(text))
        at = 10 + case.pick % (len(packed) - 18)  # inside the deflate stream, past the gzip header
        packed[at] ^= 0xFF
        return bytes(packed), "tasks.json.gz"
    keys = _locate(data, case.steps)
    if not keys:
        keys = [case.pick % len(data)]
    keys = _retarget(data, keys, case.mutation)
    case.where, case.user, case.depth = _render_path(keys), keys[0], len(keys)
    parent = data
    for key in keys[:-1]:
        parent = parent[key]
    free_form = any(str(k) in FREE_FORM for k in keys[:-1])
    listing = isinstance(parent, list) or str(keys[-2]) in CONTAINERS if len(keys) > 1 else True
    case.valid_edit = case.depth == 1 or (case.mutation == "delete" and (listing or free_form))
    _apply(case.mutation, parent, keys[-1], rng, data)
    text = json.dumps(data, ensure_ascii=False, allow_nan=True)
    text = text.replace(json.dumps(_HUGE), "9" * 5_000)
    text = text.replace(json.dumps(_DEEP), "[" * 100_000 + "]" * 100_000)
    if json.dumps(_REPEAT) in text:  # the same key twice in one object: with another value, or the same one
        marker, name = json.dumps(_REPEAT), json.dumps(keys[-1])
        first = json.dumps(value_of(data, keys)) if case.mutation == "duplicate" else '"first"'
        text = text.replace(f"{marker}: ", f"{name}: {first}, {name}: ", 1)
    return text.encode(), "tasks.json"


#: Keys whose values are free-form data: deleting a key inside them is an edit, not a defect.
FREE_FORM = frozenset({"user_profile", "content", "personalized_preference_memory", "behavior", "dialogue"})
#: Dicts that are lists of entities or records keyed by id: deleting an entry is an edit, not a defect.
CONTAINERS = frozenset({"stores", "shops", "hotels", "attractions", "flights", "trains", "taxis", "orders",
                        "reservations", "books"})
#: Mutations that only make sense on one kind of field, and the fields they are moved to.
_TARGETS = {"bad_id": ("subtask_id",), "bad_time": ("environment", "time"), "bad_domain": ("domain",)}


def _retarget(data: Any, keys: list[Any], mutation: str) -> list[Any]:
    """Move an id/time/domain mutation to such a field of the subtask the path lies in (or its user's first).

    Writing ``"a::b"`` into free text is an edit of the text, not a bad id.
    """
    if mutation not in _TARGETS:
        return keys
    last = str(keys[-1])
    if mutation == "bad_id" and (last == "id" or last.endswith("_id")):
        return keys
    if mutation == "bad_time" and last in ("time", "current_time", "date", "timestamp"):
        return keys
    if mutation == "bad_domain" and last == "domain":
        return keys
    user = keys[0]
    if mutation == "bad_id" and len(keys) <= 2:
        return [user, "id"]
    sub = keys[2] if len(keys) >= 3 and keys[1] == "subtasks" else 0
    return [user, "subtasks", sub, *_TARGETS[mutation]]


def _apply(mutation: str, parent: Any, key: Any, rng: random.Random, data: Any) -> None:
    value = parent[key]
    if mutation == "delete":
        del parent[key]
    elif mutation == "retype":
        choices = [v for v in _RETYPES if type(v) is not type(value)]
        parent[key] = copy.deepcopy(rng.choice(choices))
    elif mutation == "duplicate":  # a list entry twice, or a key twice with the same value
        if isinstance(parent, list):
            parent.insert(key, copy.deepcopy(value))
        else:
            _rename(parent, key, _REPEAT)
    elif mutation == "nonfinite":
        parent[key] = rng.choice([float("nan"), float("inf"), float("-inf")])
    elif mutation == "negative":
        parent[key] = -abs(value) - 1 if isinstance(value, (int, float)) and not isinstance(value, bool) else -1
    elif mutation == "zero":
        parent[key] = 0
    elif mutation == "huge_int":
        parent[key] = _HUGE
    elif mutation == "huge_string":
        parent[key] = "long " * 30_000
    elif mutation == "deep":
        parent[key] = _DEEP
    elif mutation == "bad_id":
        parent[key] = rng.choice(_BAD_IDS)
    elif mutation == "bad_domain":
        parent[key] = rng.choice(_BAD_DOMAINS)
    elif mutation == "bad_time":
        sub = _enclosing_subtask(data, parent)
        if sub is not None and rng.random() < 0.5:
            sub["environment"]["time"] = ""  # and a broken fallback
            sub["current_time"] = rng.choice(_BAD_TIMES)
        else:
            parent[key] = rng.choice(_BAD_TIMES)
    elif mutation == "empty":
        parent[key] = type(value)() if isinstance(value, (str, list, dict)) else ""
    elif mutation == "repeat_key":
        if isinstance(parent, dict):
            _rename(parent, key, _REPEAT)  # rendered as: "key": "first", "key": value
        else:
            parent[key] = {_REPEAT: value}


def _rename(parent: dict[str, Any], key: str, new: str) -> None:
    """Rename a key in place: key order is data too (profiles are shown in order)."""
    items = list(parent.items())
    parent.clear()
    parent.update((new if k == key else k, v) for k, v in items)


def _enclosing_subtask(data: Any, target: Any) -> dict[str, Any] | None:
    for user in data:
        for sub in user.get("subtasks", []) if isinstance(user, dict) else []:
            if _contains(sub, target):
                return sub
    return None


def _contains(node: Any, target: Any) -> bool:
    if node is target:
        return True
    if isinstance(node, dict):
        return any(_contains(v, target) for v in node.values())
    if isinstance(node, list):
        return any(_contains(v, target) for v in node)
    return False


def value_of(data: Any, keys: list[Any]) -> Any:
    """The unbroken value at ``keys`` (the base suite's)."""
    node: Any = list(base_suite())
    for key in keys:
        node = node[key]
    return node


# ------------------------------------------------------------------------------------------ judging


class Judge:
    """Loads and runs broken copies; holds the unbroken suite's rewards per user and subtask."""

    def __init__(self, workdir: Path | None = None):
        from pytest_vitabench.run.wiring import Benchmark

        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="vita-fuzz-"))
        bench = Benchmark({"vita_model": "reference", "vita_memory": "full_context", "vita_trials": 1,
                           "vita_cache": "off"}, rootdir=self.workdir, state_dir=str(self.workdir / "state"))
        self.bench = bench
        self.agent, self.user_simulator, self.judge = bench.agent(), bench.user_simulator(), bench.judge()
        path = self.workdir / "base.json"
        path.write_text(json.dumps(list(base_suite())), encoding="utf-8")
        from pytest_vitabench.suite.loader import load_suite

        suite = load_suite(path)
        assert not suite.warnings and all(u.task for u in suite.users), "the fuzz base must be clean"
        self.baseline = {u.index: self._rewards(suite, u) for u in suite.users}
        self.base_models = {u.index: u.task.model_dump() for u in suite.users}

    def _validate(self, path: Path) -> str | None:
        """What ``vitabench validate`` prints for the file (its rules and statistics too); ``None`` if it raised."""
        import contextlib
        import io

        from pytest_vitabench.commands.cli import main

        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                main(["validate", str(path)])
        except BaseException:  # noqa: BLE001 - a traceback is what the fuzzer looks for
            self.validate_traceback = traceback.format_exc()
            return None
        return out.getvalue()

    def _rewards(self, suite: Any, user: Any) -> list[tuple[str, float]]:
        from pytest_vitabench.run.runner import ItemRunner

        runner = ItemRunner(self.bench.config, memories=self.bench.memories)
        out = []
        for index, _ in enumerate(user.task.subtasks):
            result = runner.run(nodeid="fuzz", suite=suite, user=user, index=index, memory_name="full_context",
                                trial=0, agent=self.agent, user_simulator=self.user_simulator, judge=self.judge)
            if result.outcome == "error":
                raise RuntimeError(f"infrastructure error: {result.error}\n{result.traceback}")
            out.append((result.subtask_id, result.reward))
        return out

    def judge_case(self, case: Case) -> Verdict:
        from pytest_vitabench.suite.loader import SuiteError, load_suite

        raw, name = build_case(case)
        path = self.workdir / name
        path.write_bytes(raw)
        suite, file_error = None, ""
        try:
            suite = load_suite(path)
        except SuiteError as exc:
            file_error = exc.render()
        except BaseException:  # noqa: BLE001 - anything else is the bug this fuzzer looks for
            return Verdict("traceback", traceback.format_exc(), case=case)
        said = self._validate(path)
        if said is None:
            return Verdict("traceback", f"vitabench validate raised:\n{self.validate_traceback}", case=case)
        if suite is None:
            clear = file_error.startswith(f"{path}: invalid VitaBench suite") and "\n  at " in file_error
            if not clear or file_error not in said:
                return Verdict("traceback", f"unclear, or not what validate says:\n{file_error}\n{said}", case=case)
            return Verdict("error", file_error, case=case)
        messages = []
        for user in suite.users:
            if user.error is not None:
                text = user.error.render()
                messages.append(text)
                if not text.startswith(f"{path}: invalid VitaBench suite") or "\n  at [" not in text:
                    return Verdict("traceback", f"unclear error: {text}", case=case)
                if text not in said:
                    return Verdict("traceback", f"vitabench validate does not say:\n{text}\nit says:\n{said}",
                                   case=case)
        broken = case.user
        names_user = re.compile(rf"(^|[\s,:])\[{broken}\][.\s]")  # "[1].subtasks...", not "[0].subtasks[1]"
        warned = broken is not None and any(names_user.search(w) for w in suite.warnings)
        for user in suite.users:
            if case.valid_edit:  # only "no traceback" applies
                if user.task is not None:
                    try:
                        self._rewards(suite, user)
                    except BaseException:  # noqa: BLE001
                        return Verdict("traceback", traceback.format_exc(), case=case)
                continue
            if user.index != broken:  # a defect in one user must leave the others alone
                if user.task is None or user.task.model_dump() != self.base_models.get(user.index):
                    return Verdict("traceback", f"user [{user.index}] was hurt by a defect in [{broken}]: "
                                   f"{user.error.render() if user.error else 'changed'}", case=case)
                continue
            if user.task is None:
                continue
            try:
                rewards = self._rewards(suite, user)
            except BaseException:  # noqa: BLE001
                return Verdict("traceback", traceback.format_exc(), case=case)
            if rewards != self.baseline.get(user.index) and not warned:
                return Verdict("silent", f"rewards {rewards} != {self.baseline.get(user.index)} with no error "
                               "or warning", case=case, messages=suite.warnings)
        if any(user.error is not None for user in suite.users):
            return Verdict("error", "\n".join(messages), case=case)
        return Verdict("unchanged", "; ".join(suite.warnings), warned=warned, case=case)
