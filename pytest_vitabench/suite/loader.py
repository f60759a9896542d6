"""Load a suite file (2.0 ``tasks.json`` or a 1.0 task list, ``.gz`` too) into validated users.

A file that is not a JSON list fails as a whole; a bad user fails alone (:attr:`LoadedUser.error`), so
the file's other users still load. See docs/suites.md for what is an error and what a warning.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import hashlib
import json
import threading
import zlib
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..version import __version__
from . import integrity
from .domain_labels import vb1_domain
from .errors import SuiteError
from .index import outline_entry, read_index, user_spans, write_index
from .integrity import parse_json_text
from .language import INDEXED_SAMPLE_USERS, detect_language
from .schema import DailyRecord, EventRecord, UserTask

DEFAULT_TIME_OF_DAY = "12:00:00"
#: Validated users a lazily loaded suite keeps parsed once no item holds them (:func:`held_user`). A process
#: runs a user's items one after another, so a few spare the next items of the last users a parse, while a
#: paper-scale suite's dozens of users would each stay parsed (megabytes of models) for the whole run. With
#: many episodes in flight the engine raises a suite's ``kept_users`` to them: each in-flight chain's user is
#: released between two of its items, and parsing it again cost more CPU than the episode's requests.
KEPT_USERS = 8


@dataclass
class LoadedUser:
    """One user of a suite, or the error that keeps it from running."""

    index: int
    key: str
    task: UserTask | None = None
    error: SuiteError | None = None
    #: Effective environment time of each subtask (blank times resolved).
    times: list[str] = field(default_factory=list)
    #: An indexed user not validated yet: its span in :attr:`LoadedSuite.text`, until :func:`ensure_user`.
    span: tuple[int, int] | None = None
    #: What collection needs of each subtask, read without validating the user.
    outline: list[SubtaskOutline] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The index found it valid (same file, plugin version and strictness): parsing it again from its span
    #: needs the models and times only, not the integrity checks whose verdict and warnings the index keeps.
    checked: bool = False
    #: Items inside :func:`held_user`: while there is one, ``task`` stays parsed.
    holders: int = 0

    def tool_user_id(self, index: int) -> str:
        """The user id the tools of subtask ``index`` accept: its environment's ``user_id``, else the user's."""
        assert self.task is not None, "a validated user (ensure_user)"
        return str(self.task.subtasks[index].environment.get("user_id") or self.task.user_id)


@dataclass(frozen=True)
class SubtaskOutline:
    subtask_id: str
    domains: tuple[str, ...]
    skills: tuple[str, ...]


@dataclass
class LoadedSuite:
    path: Path
    sha256: str
    users: list[LoadedUser]
    warnings: list[str] = field(default_factory=list)
    format: str = "vitabench2"
    strict: bool = False
    text: str = field(default="", repr=False)
    #: Detected while indexing; ``None``: detect it from the validated users.
    language: str | None = None
    #: The run's language for its prompts and simulator (``ItemRunner.language_for``), once told.
    prompt_language: str | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    #: How many validated users no item holds stay parsed (:data:`KEPT_USERS`, or the episodes in flight).
    kept_users: int = KEPT_USERS
    #: Validated indexed users no item holds, least recently held first (``kept_users`` at most).
    _kept: OrderedDict[int, LoadedUser] = field(default_factory=OrderedDict, repr=False)


def json_path(loc: tuple[Any, ...] | list[Any], prefix: str = "") -> str:
    """Render a pydantic error location as a JSON path: ``("subtasks", 7, "domain")`` -> ``.subtasks[7].domain``."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("DailyRecord", "EventRecord", "function-after[_not_empty()]") or "[" in str(part):
            continue  # union-branch tags in pydantic locations say nothing to a user
        else:
            out += f".{part}"
    return out


def _validation_problems(exc: ValidationError, prefix: str) -> list[tuple[str, str]]:
    problems: dict[tuple[str, str], None] = {}  # each once, in pydantic's order
    for err in exc.errors(include_url=False):
        message = err["msg"]
        if err["type"] == "missing":
            message = "required field is missing"
        elif err["type"] == "value_error":
            message = message.removeprefix("Value error, ")
        problems[(json_path(err["loc"], prefix), message)] = None
    return list(problems)


def suite_sha256(path: Path) -> str:
    """The sha256 a loaded suite carries (:attr:`LoadedSuite.sha256`; ``""`` for a file that cannot be read)."""
    try:
        return hashlib.sha256(read_suite_bytes(path)).hexdigest()
    except SuiteError:
        return ""


def read_suite_bytes(path: Path) -> bytes:
    """The bytes of a suite file (``.gz`` decompressed).

    Raises:
        SuiteError: The file cannot be read.
    """
    try:
        data = path.read_bytes()
        return gzip.decompress(data) if path.name.endswith(".gz") else data
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise SuiteError(path, [("", f"cannot read file: {exc}")]) from exc


def read_suite_json(path: Path) -> Any:
    """The parsed JSON of a suite file, with the loader's file-level errors (:class:`SuiteError`)."""
    return integrity.parse_suite_json(read_suite_bytes(path), path)


def load_suite(path: str | Path, *, strict: bool = False, lazy: bool = False,
               index_dir: Path | None = None) -> LoadedSuite:
    """Read and validate a suite file.

    Args:
        path: A ``.json`` or ``.json.gz`` file.
        strict: Make out-of-order interactions and subtasks errors instead of warnings.
        lazy: Only index plain VitaBench 2.0-format users (:attr:`LoadedUser.outline`); :func:`ensure_user`
            validates each when first needed, with the same checks and errors.
        index_dir: With ``lazy``, where the user index of each file version is cached (:mod:`.index`).

    Raises:
        SuiteError: The file as a whole is unusable (unreadable, not JSON, not a list of tasks).
    """
    path = Path(path)
    raw = read_suite_bytes(path)
    if lazy:
        indexed = _load_indexed(path, raw, strict=strict, index_dir=index_dir)
        if indexed is not None:
            return indexed
    data = integrity.parse_suite_json(raw, path)
    if not isinstance(data, list):
        raise SuiteError(path, [("", f"expected a JSON list of tasks, got {type(data).__name__}")])
    if not data:
        raise SuiteError(path, [("", "the suite holds no tasks")])

    suite = LoadedSuite(path=path, sha256=hashlib.sha256(raw).hexdigest(), users=[], strict=strict)
    unknown: Counter[str] = Counter()
    for index, entry in enumerate(data):
        suite.users.append(_load_user(path, index, entry, strict=strict, warnings=suite.warnings, unknown=unknown))
    return _finish(suite, unknown)


def _finish(suite: LoadedSuite, unknown: Counter[str]) -> LoadedSuite:
    """Mark repeated user ids, and tell the suite's format and its unknown keys."""
    formats: Counter[str] = Counter()
    seen_ids: dict[str, int] = {}
    for user in suite.users:
        if user.task is None and user.span is None:
            continue
        formats[user.task.source_format if user.task is not None else "vitabench2"] += 1
        first = seen_ids.setdefault(user.key, user.index)
        if first != user.index:
            user.error = SuiteError(suite.path, [(f"[{user.index}].id",
                                                  f"duplicate user id {user.key!r} (first at [{first}])")])
            user.task, user.span, user.outline = None, None, []
    if formats:
        suite.format = formats.most_common(1)[0][0]
    if unknown:
        suite.warnings.append(_unknown_keys_warning(suite.path, unknown))
    return suite


def _load_indexed(path: Path, raw: bytes, *, strict: bool, index_dir: Path | None) -> LoadedSuite | None:
    """A suite whose plain users are only indexed (spans, outlines, verdicts; cached per sha256), or ``None``
    when the span decoder cannot read the text (the eager path then reports the problem).

    A file seen the first time has every user validated once, keeping only the verdict, so a bad user is
    still a collection error for that user alone.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    sha = hashlib.sha256(raw).hexdigest()
    variant = index_variant(strict)
    cached = read_index(index_dir, sha, variant)
    rows = cached["users"] if cached is not None else None
    language = cached["language"] if cached is not None else None
    values: dict[int, Any] = {}
    if rows is None:
        spans = user_spans(text)
        if not spans:
            return None
        rows = []
        sample: list[UserTask] = []
        for i, (start, end, value) in enumerate(spans):
            row: dict[str, Any] = {"start": start, "end": end, "outline": outline_entry(value)}
            if row["outline"] is not None:  # validated once, keeping the verdict and a few tasks (the language)
                checked, warnings = _validate(path, i, value, strict)
                row["problems"] = [list(problem) for problem in checked.error.problems] if checked.error else []
                row["warnings"] = [] if checked.error else warnings
                if i < INDEXED_SAMPLE_USERS and checked.task is not None:
                    sample.append(checked.task)
            rows.append(row)
            values[i] = value
        # With irregular users (validated at load) the runner detects the language from those.
        if all(row["outline"] is not None for row in rows):
            language = detect_language(sample)
        write_index(index_dir, sha, rows, variant, language=language)
    suite = LoadedSuite(path=path, sha256=sha, users=[], strict=strict, text=text, language=language)
    unknown: Counter[str] = Counter()
    for index, row in enumerate(rows):
        outline = row.get("outline")
        if outline is None:  # irregular or a 1.0 task: validated now, exactly as an eager load does
            entry = values[index] if index in values else parse_json_text(text[row["start"]:row["end"]])
            user = _load_user(path, index, entry, strict=strict, warnings=suite.warnings, unknown=unknown)
        elif row.get("problems"):
            user = LoadedUser(index=index, key=outline["key"],
                              error=SuiteError(path, [(str(w), str(p)) for w, p in row["problems"]]))
        else:
            user = LoadedUser(index=index, key=outline["key"], span=(row["start"], row["end"]), outline=[
                SubtaskOutline(subtask_id=sid, domains=tuple(domain.split(",")),
                               skills=("proactive",) if proactive else ("personalize",))
                for sid, domain, proactive in outline["subtasks"]],
                warnings=list(row.get("warnings") or []), checked="problems" in row)
            suite.warnings.extend(row.get("warnings") or [])
        suite.users.append(user)
    return _finish(suite, unknown)


def _unknown_keys_warning(path: str | Path, unknown: Counter[str], where: str = "") -> str:
    listed = ", ".join(f"{key} ({count}x)" for key, count in sorted(unknown.items()))
    return f"{path}: {where}unknown keys kept but not used by the harness: {listed}"


def index_variant(strict: bool) -> str:
    """What a cached index's validation verdicts depend on besides the file: strictness and the plugin version."""
    return f"{'strict' if strict else 'lenient'}-{__version__}"


def _validate(path: Path, index: int, entry: Any, strict: bool) -> tuple[LoadedUser, list[str]]:
    """One user validated alone, with its warnings (its unknown keys among them)."""
    warnings: list[str] = []
    unknown: Counter[str] = Counter()
    user = _load_user(path, index, entry, strict=strict, warnings=warnings, unknown=unknown)
    if unknown:
        warnings.append(_unknown_keys_warning(path, unknown, f"[{index}] "))
    return user, warnings


def ensure_user(suite: LoadedSuite, user: LoadedUser) -> None:
    """Validate an indexed user (thread-safe), filling ``task``, ``times``, ``error`` and ``warnings`` as an
    eager load would: the one way in to a user's validated data (:func:`held_user` keeps it parsed)."""
    with suite._lock:
        if not needs_validation(user):
            return
        assert user.span is not None
        text = suite.text[user.span[0]:user.span[1]]
        if user.checked:
            user.task, user.times = _checked_task(suite.path, user.index, text)
            user.outline = outline_of(user.task)
            return
        entry = parse_json_text(text)
        loaded, warnings = _validate(suite.path, user.index, entry, suite.strict)
        user.task, user.times, user.error = loaded.task, loaded.times, loaded.error
        if loaded.task is not None:
            user.outline = outline_of(loaded.task)
        user.warnings = warnings  # the suite's warnings have them already, from the index


@contextlib.contextmanager
def held_user(suite: LoadedSuite, user: LoadedUser) -> Iterator[UserTask]:
    """The user's validated task, kept parsed while the block runs (thread-safe).

    Once no block holds it, an indexed user waits among the suite's ``kept_users`` most recently held,
    then goes back to its span: validated again from it, with the same verdict, if an item needs it later.

    Raises:
        SuiteError: The user's data is invalid.
    """
    with suite._lock:
        ensure_user(suite, user)
        if user.error is not None:
            raise user.error
        assert user.task is not None
        task = user.task
        user.holders += 1
        suite._kept.pop(user.index, None)
    try:
        yield task
    finally:
        with suite._lock:
            user.holders -= 1
            if not user.holders and user.span is not None:
                suite._kept[user.index] = user
                while len(suite._kept) > suite.kept_users:
                    suite._kept.popitem(last=False)[1].task = None


def _checked_task(path: Path, index: int, text: str) -> tuple[UserTask, list[str]]:
    """A user the index found valid, parsed again from its span: the same task and times as :func:`_load_user`.

    Plain ``json.loads`` reads it as the checking parser does: a valid user has no repeated key with differing
    values, no over-long integer and no NaN. Each item of a run with many users in flight paid the integrity
    checks again (a third of a user's parse) for a verdict the index already holds.
    """
    task = UserTask.model_validate(json.loads(text))
    times = _resolve_times(task, f"[{index}]", [], [], path)
    return task, times


def needs_validation(user: LoadedUser) -> bool:
    """Whether :func:`ensure_user` has work to do (lock-free: an event loop must not wait to learn it)."""
    return user.task is None and user.error is None and user.span is not None


def outline_of(task: UserTask) -> list[SubtaskOutline]:
    return [SubtaskOutline(subtask_id=sub.subtask_id, domains=tuple(sub.domains), skills=tuple(sub.skills))
            for sub in task.subtasks]


def _load_user(
    path: Path, index: int, entry: Any, *, strict: bool, warnings: list[str], unknown: Counter[str],
) -> LoadedUser:
    prefix = f"[{index}]"
    key = str(entry.get("id", f"#{index}")) if isinstance(entry, dict) else f"#{index}"
    user = LoadedUser(index=index, key=key)
    if not isinstance(entry, dict):
        user.error = SuiteError(path, [(prefix, f"expected an object, got {type(entry).__name__}")])
        return user
    odd: dict[str, list[str]] = {}
    raw_problems: list[tuple[str, str]] = []
    clean = integrity.check_json_values(entry, prefix, raw_problems, odd)
    if raw_problems:  # NaN, huge integers or deep nesting: nothing below can be trusted with them
        user.error = SuiteError(path, raw_problems)  # paths of the file's own layout, 2.0 or 1.0
        return user
    try:
        if "subtasks" in entry:
            task = UserTask.model_validate(entry)
        elif "instructions" in entry and "environment" in entry:
            task = UserTask.model_validate(convert_vb1_task(entry))
        else:
            raise SuiteError(path, [(prefix, "neither a VitaBench 2.0 user (needs 'subtasks') nor a "
                                             "VitaBench 1.0 task (needs 'instructions' and 'environment')")])
    except ValidationError as exc:
        located = _validation_problems(exc, prefix)
        if "subtasks" not in entry:
            located = [(_vb1_path(where, prefix), message) for where, message in located]
        user.error = SuiteError(path, located)
        return user
    except SuiteError as exc:
        user.error = exc
        return user
    user.key = task.id
    problems: list[tuple[str, str]] = []
    _check_ids(task, prefix, problems)
    integrity.check_node_ids(task, prefix, problems)
    integrity.check_profile(task, prefix, problems)
    integrity.check_subtask_content(task, prefix, problems, odd)
    _check_environments(task, prefix, problems, odd, numbers_clean=clean)
    times = _resolve_times(task, prefix, problems, warnings, path)
    _check_chronology(task, times, prefix, problems if strict else None, warnings, path)
    if task.source_format == "vitabench1":
        problems = [(_vb1_path(where, prefix), message) for where, message in problems]
    if problems:
        user.error = SuiteError(path, problems)
        return user
    if task.source_format == "vitabench1":
        odd = {what: [_vb1_path(where, prefix) for where in paths] for what, paths in odd.items()}
    warnings += integrity.odd_value_warnings(path, odd)
    _collect_unknown(task, "", unknown)
    user.task = task
    user.times = times
    user.outline = outline_of(task)
    return user


def _vb1_path(where: str, prefix: str) -> str:
    """Map a path in a converted 1.0 task back to the 1.0 file's own layout."""
    inner = f"{prefix}.subtasks[0]"
    if where.startswith(inner + ".instruction") and not where.startswith(inner + ".instructions"):
        return prefix + ".instructions" + where[len(inner + ".instruction"):]
    if where.startswith(inner):
        return prefix + where[len(inner):]
    return where


def _check_ids(task: UserTask, prefix: str, problems: list[tuple[str, str]]) -> None:
    seen: dict[str, int] = {}
    for j, sub in enumerate(task.subtasks):
        if sub.subtask_id in seen:
            problems.append((f"{prefix}.subtasks[{j}].subtask_id",
                             f"duplicate subtask id {sub.subtask_id!r} (first at subtasks[{seen[sub.subtask_id]}])"))
        seen.setdefault(sub.subtask_id, j)


def _check_environments(
    task: UserTask, prefix: str, problems: list[tuple[str, str]], odd: dict[str, list[str]], *,
    numbers_clean: bool = False,
) -> None:
    from ..domains import validate_environment  # domains pull in rapidfuzz; only when a suite is loaded

    for j, sub in enumerate(task.subtasks):
        where = f"{prefix}.subtasks[{j}]"
        try:
            validate_environment(sub.domain, sub.environment)
        except ValidationError as exc:
            problems += _validation_problems(exc, f"{where}.environment")
        integrity.check_domain_entities(sub, where, problems, odd,
                                        label_is_authoritative=task.source_format == "vitabench2")
        integrity.check_environment_values(sub.environment, f"{where}.environment", problems, odd,
                                           numbers_clean=numbers_clean)


def _resolve_times(
    task: UserTask, prefix: str, problems: list[tuple[str, str]], warnings: list[str], path: Path
) -> list[str]:
    times = []
    for j, sub in enumerate(task.subtasks):
        time = sub.env_time.strip()
        where = f"{prefix}.subtasks[{j}].environment.time"
        if not time:
            if sub.current_time and sub.current_time.strip():
                time = f"{sub.current_time.strip()[:10]} {DEFAULT_TIME_OF_DAY}"
                problem = integrity.time_problem(time)
                if problem:
                    problems.append((f"{prefix}.subtasks[{j}].current_time",
                                     f"the environment time is blank and its fallback, current_time, is "
                                     f"not a date: {sub.current_time!r}"))
                else:
                    warnings.append(f"{path}: {where} is blank; using current_time {time!r}")
            else:
                problems.append((where, "blank environment time and no current_time to fall back on"))
        else:
            if len(time) == 10:
                time = f"{time} {DEFAULT_TIME_OF_DAY}"
            problem = integrity.time_problem(time)
            if problem:
                problems.append((where, problem))
        times.append(time)
    return times


def _check_chronology(
    task: UserTask,
    times: list[str],
    prefix: str,
    problems: list[tuple[str, str]] | None,
    warnings: list[str],
    path: Path,
) -> None:
    """Out-of-order data is a warning by default (the VitaBench 2.0 data has a few), an error when strict."""

    def report(where: str, message: str) -> None:
        if problems is not None:
            problems.append((where, message))
        else:
            warnings.append(f"{path}: {where}: {message}")

    for j in range(1, len(times)):
        if times[j] and times[j - 1] and times[j] < times[j - 1]:
            report(f"{prefix}.subtasks[{j}].environment.time",
                   f"subtask time {times[j]} is before the previous subtask's {times[j - 1]}")
    for j, sub in enumerate(task.subtasks):
        whens = [record.when for record in sub.interactions]
        for i in range(1, len(whens)):
            if whens[i] < whens[i - 1]:
                report(f"{prefix}.subtasks[{j}].interactions[{i}]",
                       f"interaction dated {whens[i]} comes after one dated {whens[i - 1]}")
                break
        if whens and times[j] and whens[-1][:10] > times[j][:10]:
            report(f"{prefix}.subtasks[{j}].interactions[{len(whens) - 1}]",
                   f"interaction dated {whens[-1]} is after the subtask's time {times[j]}")


def _collect_unknown(model: BaseModel, where: str, unknown: Counter[str]) -> None:
    for key in model.model_extra or {}:
        unknown[f"{where}.{key}" if where else key] += 1
    for name, value in model:
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel) and not isinstance(item, (DailyRecord, EventRecord)):
                _collect_unknown(item, f"{where}.{name}" if where else name, unknown)


def convert_vb1_task(task: dict[str, Any]) -> dict[str, Any]:
    """Turn one VitaBench 1.0 task into a one-subtask user.

    The 1.0 ``user_historical_behaviors`` (which 2.0 removed from the tools because it leaks preferences)
    become one history record for the memory backend, never a tool.
    """
    environment = copy.deepcopy(task.get("environment") or {})
    behaviours = environment.pop("user_historical_behaviors", None)
    profile = dict((task.get("user_scenario") or {}).get("user_profile") or {})
    user_id = str(environment.get("user_id") or profile.get("user id") or profile.get("user_id") or task.get("id"))
    time = str(environment.get("time") or "")
    domain: str | None
    try:
        domain = vb1_domain(task.get("domain"), environment)
    except ValueError:
        domain = task.get("domain")  # the schema then reports the unknown label at its JSON path
    interactions = []
    if behaviours:
        interactions.append({"type": "behavior_summary", "timestamp": time or "0000-00-00 00:00:00",
                             "content": behaviours})
    subtask = {
        "subtask_id": str(task.get("id")),
        "domain": domain,
        "instruction": task.get("instructions"),
        "environment": environment,
        "user_scenario": {"user_profile": profile},
        "evaluation_criteria": task.get("evaluation_criteria"),
        "interactions": interactions,
        "skill_tested": [],
        "message_history": task.get("message_history") or None,
        "current_time": time[:10] or None,
    }
    return {
        "id": str(task.get("id")),
        "user_id": user_id,
        "user_profile": profile,
        "subtasks": [subtask],
        "source_format": "vitabench1",
    }
