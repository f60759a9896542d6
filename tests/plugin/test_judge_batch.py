"""``--vita-judge-args batch`` in a pytest run: items wait for their verdicts from a Batch API stub on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from _stub_batch import StubBatchAPI


def verdicts(request):
    """Rubric 1 met when the final order (the records the judge is shown) is for P2, rubric 2 when it is paid."""
    text = request["messages"][1]["content"]
    return json.dumps([{"rubric_idx": 1, "met": '"product_ids": ["P2"]' in text, "justification": "product seen"},
                       {"rubric_idx": 2, "met": '"status": "paid"' in text, "justification": "payment seen"}])


def _run(project, stub, *extra):
    path = project.path / "run.json"
    result = project.runpytest("--vita-trials", "2", "--vita-judge-model", "judge-m", "--vita-judge-args", "mode=full",
                               "--vita-base-url", stub.base_url, "--vita-preflight", "off", "--vita-cache", "off",
                               "--vita-report", str(path), *extra)
    return result, json.loads(path.read_text())


def _scores(report):
    return sorted((r["nodeid"], r["outcome"], r["reward"], json.dumps(r["rubrics"])) for r in report["results"])


def test_batch_judged_items_match_the_synchronous_run(project):
    stub = StubBatchAPI(verdicts)
    try:
        _, synchronous = _run(project, stub)
        sync_requests = len(stub.chat_requests)
        result, batched = _run(project, stub, "--vita-judge-args", "batch", "--vita-judge-args", "batch-poll=0.05")
    finally:
        stub.close()
    assert _scores(batched) == _scores(synchronous)
    assert {r["outcome"] for r in batched["results"]} == {"passed", "failed"}
    assert len(stub.chat_requests) == sync_requests  # the batch run sent no judge request one by one
    # the 6 items of the process wait together: one round, one batch carrying every judge request
    assert stub.creations == 1 and len(stub.batch_requests()) == sync_requests
    assert all(r["judge_details"]["judged_in_batch"] == ["batch_1"] for r in batched["results"])
    assert batched["usage"]["roles"]["judge"]["requests"] == sync_requests
    journal = list((project.path / batched["run"]["dir"] / "batches").glob("batches-*.jsonl"))
    assert len(journal) == 1 and "batch_1" in journal[0].read_text()
    result.stdout.fnmatch_lines(["*3 failed, 3 passed*"])


def test_inline_items_are_judged_in_batch_too(project):
    stub = StubBatchAPI(verdicts)
    try:
        _, report = _run(project, stub, "--vita-judge-args", "batch", "--vita-judge-args", "batch-poll=0.05",
                         "--vita-concurrency", "1")
    finally:
        stub.close()
    assert stub.creations == 6  # one item at a time: a batch each
    assert {r["outcome"] for r in report["results"]} == {"passed", "failed"}


def test_without_a_batch_api_every_item_is_an_error_saying_so(project):
    stub = StubBatchAPI(verdicts, batch=False)
    try:
        result, report = _run(project, stub, "--vita-judge-args", "batch", "--vita-judge-args", "batch-poll=0.05")
    finally:
        stub.close()
    assert [r["outcome"] for r in report["results"]] == ["error"] * 6
    assert all("has no Batch API" in r["error"] for r in report["results"])
    assert stub.chat_requests == []
    result.stdout.fnmatch_lines(["*has no Batch API*--vita-judge-args batch*"])


def test_batch_judging_needs_an_llm_judge(project):
    result = project.runpytest("--vita-judge-args", "batch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-judge-args batch needs an LLM judge*"])


def test_the_preflight_stops_a_run_whose_endpoint_has_no_batch_api(project):
    stub = StubBatchAPI(verdicts, batch=False)
    try:
        result = project.runpytest("--vita-judge-model", "judge-m", "--vita-base-url", stub.base_url,
                                   "--vita-judge-args", "batch")
    finally:
        stub.close()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*preflight failed, no item was run*",
                                 "*judge (--vita-judge-args batch) at http://127.0.0.1:*: the endpoint has no Batch "
                                 "API "
                                 "(HTTP 404 on GET /batches)*"])


@pytest.mark.slow
def test_under_xdist_each_worker_batches_its_own_items(project):
    pytest.importorskip("xdist")
    stub = StubBatchAPI(verdicts)
    try:
        _, synchronous = _run(project, stub)
        result, batched = _run(project, stub, "-n", "2", "--vita-judge-args", "batch", "--vita-judge-args",
                               "batch-poll=0.05")
    finally:
        stub.close()
    assert _scores(batched) == _scores(synchronous)
    # Items are grouped: fewer batches than items (how many rounds a worker needs depends on its timing: a round
    # goes out once its queue has been quiet for a poll interval, and a loaded machine can split one in two).
    assert 1 <= stub.creations < len(batched["results"])
    assert all(r["judge_details"]["judged_in_batch"] for r in batched["results"])
    journals = sorted(p.name for p in (project.path / batched["run"]["dir"] / "batches").glob("batches-*.jsonl"))
    assert journals and all(name.startswith("batches-gw") for name in journals)


@pytest.mark.slow
def test_a_killed_run_resumes_its_journaled_batch_without_resubmitting(project):
    """The episodes replay identically (a deterministic agent and user), so the resumed run's judge requests are
    the ones the killed run had submitted: the journaled batch answers them."""
    import os
    import signal
    import subprocess
    import sys
    import time

    stub = StubBatchAPI(verdicts)
    stub.hold = True
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--vita-trials", "2", "--vita-judge-model",
            "judge-m", "--vita-judge-args", "mode=full", "--vita-base-url", stub.base_url, "--vita-cache", "off",
            "--vita-judge-args", "batch", "--vita-judge-args", "batch-poll=0.05", "--vita-report", "run.json"]
    try:
        first = subprocess.Popen(args, cwd=project.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        deadline = time.monotonic() + 60
        while stub.creations == 0 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        assert stub.creations == 1, first.communicate()[0]
        time.sleep(0.2)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        stub.hold = False
        second = subprocess.run([*args, "--vita-resume"], cwd=project.path, capture_output=True, text=True,
                                timeout=120)
    finally:
        stub.close()
    assert stub.creations == 1 and stub.uploads == 1, second.stdout[-2000:]
    report = json.loads((project.path / "run.json").read_text())
    assert len(report["results"]) == 6
    assert all(r["judge_details"]["judged_in_batch"] == ["batch_1"] for r in report["results"])
