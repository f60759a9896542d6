"""``vitabench rejudge --vita-judge-args batch``: the judge's requests through a Batch API stub on 127.0.0.1.

The stub (tests/_stub_batch.py) answers its chat endpoint and its batches from one function of the request,
so the synchronous and the batch judge get the same answers to the same requests.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from _stub_batch import StubBatchAPI
from test_rejudge import saved  # noqa: F401 - the saved run fixture

from pytest_vitabench.commands.rejudge import batch_journal_folder, rejudge_report
from pytest_vitabench.judges import make_judge
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.llm.batch import BatchJournal, BatchSubmitter, BatchUnsupported
from pytest_vitabench.report.json_report import load_report


def verdicts(request):
    """Rubric 1 met when the transcript shows the no-cilantro noodles (P2), rubric 2 when the order is paid."""
    text = request["messages"][1]["content"]
    return json.dumps([{"rubric_idx": 1, "met": "P2" in text, "justification": "product seen"},
                       {"rubric_idx": 2, "met": '"status": "paid"' in text, "justification": "payment seen"}])


def unreadable_first(request):
    """An unreadable first reply; the repair request (a third message) gets the verdicts."""
    return verdicts(request) if len(request["messages"]) > 2 else "I think it is fine, mostly."


def _client(stub, tmp_path, name="cache"):
    return LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off",
                                 cache_dir=tmp_path / name))


def _rejudge(report_path, stub, tmp_path, *, batch, mode="full"):
    client = _client(stub, tmp_path)
    judge = make_judge("judge-m", client=client, mode=mode)
    submitter = BatchSubmitter(client, BatchJournal(tmp_path / "journal"), poll_s=0.01) if batch else None
    try:
        return rejudge_report(report_path, judge, ledger=client.ledger, batch=submitter), client
    finally:
        client.close()


def _scores(report):
    return [(r["nodeid"], r["outcome"], r["reward"], r["rubrics"]) for r in report["results"]]


@pytest.mark.parametrize(("answer", "mode", "rounds"), [(verdicts, "full", 1), (unreadable_first, "window", 2)])
def test_batch_verdicts_equal_the_synchronous_ones(saved, tmp_path, answer, mode, rounds):  # noqa: F811
    report_path, _ = saved
    stub = StubBatchAPI(answer)
    try:
        synchronous, _ = _rejudge(report_path, stub, tmp_path / "sync", batch=False, mode=mode)
        sync_requests = list(stub.chat_requests)
        batched, client = _rejudge(report_path, stub, tmp_path / "batch", batch=True, mode=mode)
    finally:
        stub.close()
    assert _scores(batched) == _scores(synchronous)
    assert {r["reward"] for r in batched["results"]} == {0.0, 1.0}  # the answers tell items apart
    # the same requests, once each: one batch per round (the repair requests are the second round)
    assert len(stub.chat_requests) == len(sync_requests)
    assert stub.creations == rounds and stub.uploads == rounds
    assert sorted(json.dumps(r["body"], sort_keys=True) for r in stub.batch_requests()) == sorted(
        json.dumps(r, sort_keys=True) for r in sync_requests)
    note = batched["rejudged_from"]["batch"]
    assert note["rounds"] == rounds and note["submitted"] == [f"batch_{i}" for i in range(1, rounds + 1)]
    assert note["items"] == sorted(r["nodeid"] for r in batched["results"])
    assert all(r["judge_details"]["judged_in_batch"] for r in batched["results"])
    # each item's usage counts its requests once, although the judge ran once per round
    calls = 1 if rounds == 1 else 2
    assert [r["usage"]["judge"]["requests"] for r in batched["results"]] == [calls] * len(batched["results"])
    assert client.ledger.by_role()["judge"].requests == len(sync_requests)


def test_batch_cost_is_half_the_synchronous_cost(saved, tmp_path):  # noqa: F811
    report_path, _ = saved
    stub = StubBatchAPI(verdicts)
    prices = {"judge-m": {"prompt": 2.0, "completion": 8.0}}
    try:
        costs = []
        for batch in (False, True):
            client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off",
                                           prices=prices))
            submitter = BatchSubmitter(client, BatchJournal(tmp_path / f"j{batch}"), poll_s=0.01) if batch else None
            rejudge_report(report_path, make_judge("judge-m", client=client, mode="full"), ledger=client.ledger,
                           batch=submitter)
            costs.append(client.ledger.by_role()["judge"].cost)
    finally:
        stub.close()
    assert costs[0] > 0 and costs[1] == pytest.approx(costs[0] / 2)


def test_an_endpoint_without_a_batch_api_is_named_clearly(saved, tmp_path):  # noqa: F811
    report_path, _ = saved
    stub = StubBatchAPI(verdicts, batch=False)
    try:
        with pytest.raises(BatchUnsupported,
                           match=r"has no Batch API: could not upload .* HTTP 404.*--vita-judge-args batch"):
            _rejudge(report_path, stub, tmp_path, batch=True)
    finally:
        stub.close()
    assert stub.chat_requests == []  # nothing was judged call by call behind the user's back


def test_a_request_the_batch_could_not_answer_is_that_items_error(saved, tmp_path):  # noqa: F811
    report_path, _ = saved
    stub = StubBatchAPI(verdicts)
    client = _client(stub, tmp_path)
    journal = BatchJournal(tmp_path / "journal")
    try:
        original = stub._write_output

        def fail_first(batch):
            first = json.loads(stub.files[batch["input_file_id"]].decode().splitlines()[0])["custom_id"]
            stub.failing.add(first)
            return original(batch)

        stub._write_output = fail_first
        report = rejudge_report(report_path, make_judge("judge-m", client=client, mode="full"), ledger=client.ledger,
                                batch=BatchSubmitter(client, journal, poll_s=0.01))
    finally:
        client.close()
        stub.close()
    outcomes = [r["outcome"] for r in report["results"]]
    assert outcomes.count("error") == 1 and "error" not in outcomes[1:]
    assert "failed in batch batch_1: HTTP 500: stub: this one failed" in report["results"][0]["error"]
    assert len(report["rejudged_from"]["judge_failures"]) == 1


def test_the_journal_survives_a_torn_last_line(tmp_path):
    journal = BatchJournal(tmp_path)
    journal.record_submission("batch_1", "file-1", ["k1", "k2"])
    with journal.batches_file.open("a") as handle:
        handle.write('{"batch_id": "batch_2", "keys": ["k')  # killed mid-write
    assert journal.submitted() == {"batch_1": {"keys": ["k1", "k2"], "downloaded": False, "input_file_id": "file-1"}}
    journal.record_answers("batch_1", {"k1": {"payload": {"message": {}}}, "k2": {"error": "x"}})
    assert journal.submitted()["batch_1"]["downloaded"] is True
    assert set(journal.answers()) == {"k1", "k2"}


def test_the_journal_lives_in_the_run_directory_or_beside_the_report(saved, tmp_path):  # noqa: F811
    report_path, _ = saved
    assert batch_journal_folder(report_path) == report_path.with_name("run.batches")
    data = load_report(report_path)
    data.setdefault("run", {})["dir"] = str(tmp_path / "runs" / "r1")
    (tmp_path / "runs" / "r1").mkdir(parents=True)
    other = tmp_path / "with-run.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    assert batch_journal_folder(other) == tmp_path / "runs" / "r1" / "batches"


def _command(report_path, stub, *extra):
    return [sys.executable, "-m", "pytest_vitabench.commands.cli", "rejudge", str(report_path), "--vita-judge-model",
            "judge-m",
            "--vita-judge-args", "mode=full,batch,batch-poll=0.05", "--vita-base-url", stub.base_url,
            "--vita-api-key-env", "VITA_NO_SUCH_VAR", "--vita-cache", "off", *extra]


@pytest.mark.slow
def test_a_crash_between_submission_and_download_resumes_without_resubmitting(saved, tmp_path):  # noqa: F811
    report_path, _ = saved
    stub = StubBatchAPI(verdicts)
    stub.hold = True  # the batch stays in progress until the first process is gone
    try:
        first = subprocess.Popen(_command(report_path, stub, "-o", str(tmp_path / "new.json")), cwd=tmp_path,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while stub.creations == 0 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        assert stub.creations == 1, first.communicate()[0]
        time.sleep(0.2)  # it is polling now
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        assert not (tmp_path / "new.json").exists()
        stub.hold = False
        second = subprocess.run(_command(report_path, stub, "-o", str(tmp_path / "new.json")), cwd=tmp_path,
                                capture_output=True, text=True, timeout=120)
    finally:
        stub.close()
    assert second.returncode == 0, second.stdout + second.stderr
    assert stub.creations == 1 and stub.uploads == 1  # resumed: polled the journaled batch, sent nothing again
    assert "resumed: batch_1" in second.stdout and "batches submitted: none" in second.stdout
    report = json.loads((tmp_path / "new.json").read_text())
    assert report["rejudged_from"]["batch"]["resumed"] == ["batch_1"]
    assert {r["reward"] for r in report["results"]} == {0.0, 1.0}


def test_the_cli_refuses_batch_judging_with_the_rules_judge(saved, capsys):  # noqa: F811
    from pytest_vitabench.commands.cli import main

    report_path, _ = saved
    assert main(["rejudge", str(report_path), "--vita-judge-args", "batch"]) == 2
    assert "--vita-judge-args batch needs an LLM judge" in capsys.readouterr().err


def test_the_cli_refuses_a_poll_interval_that_is_not_positive(saved, capsys):  # noqa: F811
    from pytest_vitabench.commands.cli import main

    report_path, _ = saved
    assert main(["rejudge", str(report_path), "--vita-judge-model", "judge-m", "--vita-base-url",
                 "http://127.0.0.1:9/v1", "--vita-judge-args", "batch", "--vita-judge-args", "batch-poll=0"]) == 2
    assert "--vita-judge-args batch-poll must be positive, got '0'" in capsys.readouterr().err


def test_a_bad_batch_poll_is_a_usage_error_naming_the_option(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest("--vita-judge-model", "judge-m", "--vita-judge-args", "batch", "--vita-judge-args",
                                "batch-poll=soon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-judge-args batch-poll must be a number of seconds*"])
