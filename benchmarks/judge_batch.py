"""Measure ``--vita-judge-args batch`` against a local stub of the Batch API (files + batches on 127.0.0.1).

1. A saved run: the demo suite, the offline ``reference`` agent and scripted user, 2 trials, a run directory
   and a JSON report (``pytest suites/demo ... --vita-report``).
2. ``vitabench rejudge`` of it with an LLM judge (the official sliding window), once synchronously and once
   with ``--vita-judge-args batch``, both answered by one deterministic function of the request (a rubric is met
   when its text shares a word with the records the judge is shown, so verdicts differ between items):
   items whose verdicts agree, judge requests of each path, batch rounds and batches created.
3. A crash between submission and download: with the journal emptied, the batch command is killed (SIGKILL)
   while its first batch is in progress, then run again; the stub's batch creations show whether anything
   was sent twice.

    python benchmarks/judge_batch.py
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _stub_batch import StubBatchAPI  # noqa: E402

from pytest_vitabench.commands.rejudge import batch_journal_folder  # noqa: E402


def answer(request: dict) -> str:
    """Verdicts for the rubrics in the request's rubric state, a function of the request's text only (a hash
    of the rubric and the transcript window: about three rubrics in four met)."""
    text = request["messages"][1]["content"]
    start = text.find("<rubrics>")
    rubrics = json.loads(text[start + len("<rubrics>"):text.find("</rubrics>", start)]) if start >= 0 else []
    window = text[text.find("</rubrics>"):]
    out = []
    for item in rubrics:
        digest = hashlib.sha256(f"{item['rubric']}|{window}".encode()).digest()
        out.append({"rubric_idx": item["rubric_idx"], "met": digest[0] % 4 != 0, "justification": "stub"})
    return json.dumps(out)


def _rejudge(report: Path, stub: StubBatchAPI, output: Path, *extra: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "pytest_vitabench.commands.cli", "rejudge", str(report), "--vita-judge-model",
               "judge-m",
               "--vita-base-url", stub.base_url, "--vita-api-key-env", "VITA_NO_SUCH_VAR", "--vita-cache", "off",
               "-o", str(output), *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        report = work / "run.json"
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "suites" / "demo"),
                        "--rootdir", str(work), "--vita-trials", "2", "--vita-report", str(report)],
                       cwd=work, capture_output=True, check=False)
        stub = StubBatchAPI(answer)
        try:
            sync = _rejudge(report, stub, work / "sync.json")
            sync.communicate()
            sync_requests = len(stub.chat_requests)
            batch = _rejudge(report, stub, work / "batch.json", "--vita-judge-args", "batch", "--vita-judge-args",
                             "batch-poll=0.05")
            batch_out = batch.communicate()[0]
            created = stub.creations
            first, second = (json.loads((work / name).read_text()) for name in ("sync.json", "batch.json"))
            same = sum(a["reward"] == b["reward"] and a["rubrics"] == b["rubrics"]
                       for a, b in zip(first["results"], second["results"], strict=True))
            note = second["rejudged_from"]["batch"]
            print(json.dumps({"items": len(first["results"]), "verdicts_equal": same,
                              "sync_judge_requests": sync_requests,
                              "batch_judge_requests": len(stub.batch_requests()),
                              "chat_requests_during_batch": len(stub.chat_requests) - sync_requests,
                              "rounds": note["rounds"], "batches_created": created,
                              "rewards": sorted({r["reward"] for r in second["results"]}),
                              "batch_exit": batch.returncode, "batch_tail": batch_out.strip().splitlines()[-1]}))
            # the crash: the journal emptied (a first batch run of this report), the batch held in progress
            # until the kill
            crash_report = report
            shutil.rmtree(batch_journal_folder(report))
            before = stub.creations
            stub.hold = True
            killed = _rejudge(crash_report, stub, work / "crash-out.json", "--vita-judge-args", "batch",
                              "--vita-judge-args", "batch-poll=0.05")
            deadline = time.monotonic() + 120
            while stub.creations == before and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)
            os.killpg(killed.pid, signal.SIGKILL)
            killed.wait()
            created_before_kill = stub.creations - before
            stub.hold = False
            resumed = _rejudge(crash_report, stub, work / "crash-out.json", "--vita-judge-args", "batch",
                               "--vita-judge-args", "batch-poll=0.05")
            resumed_out = resumed.communicate()[0]
            after = json.loads((work / "crash-out.json").read_text())
            print(json.dumps({"crash": {"created_before_kill": created_before_kill,
                                        "created_in_all": stub.creations - before,
                                        "rounds_after_resume": after["rejudged_from"]["batch"]["rounds"],
                                        "resumed": after["rejudged_from"]["batch"]["resumed"],
                                        "verdicts_equal_to_sync": sum(
                                            a["reward"] == b["reward"] and a["rubrics"] == b["rubrics"]
                                            for a, b in zip(first["results"], after["results"], strict=True)),
                                        "exit": resumed.returncode,
                                        "tail": resumed_out.strip().splitlines()[-1]}}))
        finally:
            stub.close()


if __name__ == "__main__":
    main()
