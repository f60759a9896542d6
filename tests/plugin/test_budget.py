"""--vita-budget-usd: the run stops starting items before its spend passes the cap, names them "not run: budget",
exits 7, and --vita-resume completes it to the metrics of an uninterrupted run (the agent is a priced LLM behind
a stub on 127.0.0.1)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

KEY = "sk-test-budget-abcdefghij0123"
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100}
PRICES = "stub-model=2/0.5/8"
#: Three requests per item (order, pay, stop) at 2 and 8 USD per 1M prompt and completion tokens.
ITEM_COST = 3 * (1000 * 2 + 100 * 8) / 1e6


def even_odd_agent(body):
    """The plugin tests' even/odd agent as an LLM: the right noodles on even trial seeds, the wrong ones on odd."""
    system = body["messages"][0]["content"]
    done = [m for m in body["messages"] if m["role"] == "tool"]
    if not done:
        right = body.get("seed", 0) % 2 == 0
        store, product = ("S2", "P2") if right else ("S1", "P1")
        arguments = {"user_id": re.search(r"user_id: (U\d+)", system)[1], "store_id": store, "product_ids": [product],
                     "product_cnts": [1], "address": "No. 1 Test Road, Home",
                     "dispatch_time": re.search(r"current time is (\S+ \S+)", system)[1]}
        message = {"tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "create_delivery_order", "arguments": json.dumps(arguments)}}]}
    elif len(done) == 1:
        order_id = json.loads(done[0]["content"])["order_id"]
        message = {"tool_calls": [{"id": "c2", "type": "function", "function": {
            "name": "pay_delivery_order", "arguments": json.dumps({"order_id": order_id})}}]}
    else:
        message = {"content": "Your order is placed and paid. ###STOP###"}
    return {**message, "usage": USAGE}


@pytest.fixture
def stub(monkeypatch):
    from _stub_llm import StubLLM

    server = StubLLM()
    server.responder = even_odd_agent
    monkeypatch.setenv("VITA_STUB_KEY", KEY)
    yield server
    server.close()


def run(project, stub, *args):
    return project.runpytest_subprocess(
        "--vita-trials", "4", "--vita-model", "stub-model", "--vita-base-url", stub.base_url,
        "--vita-api-key-env", "VITA_STUB_KEY", "--vita-prices", PRICES, "--vita-concurrency", "2",
        "-p", "no:randomly", *args)


def metrics(path):
    return json.loads(path.read_text())["metrics"]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_a_capped_run_stops_starting_items_and_resume_completes_it_to_the_uninterrupted_metrics(
        project, stub, workers):
    project.makeconftest("")  # the built-in fixtures: the agent is the LLM behind the stub
    full, capped, resumed = (project.path / name for name in ("full.json", "capped.json", "resumed.json"))
    result = run(project, stub, *workers, "--vita-report", str(full))
    assert result.ret == 1  # odd trials fail: no gate
    uninterrupted = json.loads(full.read_text())
    assert uninterrupted["usage"]["total"]["cost"] == pytest.approx(12 * ITEM_COST)

    cap = 12 * ITEM_COST / 2
    junit = project.path / "junit.xml"
    result = run(project, stub, *workers, "--vita-budget-usd", f"{cap:.6f}", "--vita-report", str(capped),
                 f"--junitxml={junit}")
    assert result.ret == 7, result.stdout.str()
    report = json.loads(capped.read_text())
    spent = report["usage"]["total"]["cost"]
    assert spent <= cap + ITEM_COST + 1e-9
    not_run = report["not_run"]
    assert not_run and all(entry["outcome"] == "not_run" and entry["reason"] == "budget" for entry in not_run)
    assert len(report["results"]) + len(not_run) == 12
    assert report["run"]["budget"]["cap_usd"] == pytest.approx(cap)
    assert report["run"]["budget"]["spent_usd"] == pytest.approx(spent)
    assert {r["nodeid"] for r in report["results"]}.isdisjoint(e["nodeid"] for e in not_run)
    # Not-run trials are no zeros: a unit they cut short is left out of the metrics, not scored 0.
    assert report["metrics"]["full_context"]["subtask"]["n_short"] == 0
    result.stdout.fnmatch_lines([f"*vitabench budget: ${cap:.4f}; `vitabench estimate` puts the 12 selected items at*",
                                 f"*{len(not_run)} item(s) not run: budget*",
                                 "*exit status 7 (stopped by its budget)*"])
    cases = [case for case in ET.parse(junit).getroot().iter("testcase") if case.find("skipped") is not None]
    assert [case.find("skipped").get("message") for case in cases] == ["not run: budget"] * len(not_run)
    assert all({(p.get("name"), p.get("value")) for p in case.iter("property")} == {("vita_not_run", "budget")}
               for case in cases)

    result = run(project, stub, *workers, "--vita-resume", "--vita-report", str(resumed))
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"*resumed run *: {12 - len(not_run)} items reused, {len(not_run)} to run*"])
    completed = json.loads(resumed.read_text())
    assert "not_run" not in completed
    assert completed["metrics"] == uninterrupted["metrics"]
    assert sorted((r["nodeid"], r["reward"]) for r in completed["results"]) == \
        sorted((r["nodeid"], r["reward"]) for r in uninterrupted["results"])
    # Only the items the cap left out were paid for again.
    assert completed["usage"]["total"]["cost"] == pytest.approx(len(not_run) * ITEM_COST)


def test_a_cap_below_one_item_runs_nothing_and_says_the_estimate_passes_it(project, stub):
    project.makeconftest("")
    report = project.path / "run.json"
    result = run(project, stub, "--vita-budget-usd", "0.000001", "--vita-report", str(report), "-k", "U2")
    assert result.ret == 7
    assert not stub.requests
    result.stdout.fnmatch_lines(["*vitabench budget: $0.0000; `vitabench estimate` puts the 4 selected items at $*, "
                                 "over the cap: the run stops starting items before its end*",
                                 "*4 skipped*"])
    data = json.loads(report.read_text())
    assert data["results"] == [] and len(data["not_run"]) == 4
    from pytest_vitabench.commands.cli import main

    page = project.path / "run.html"
    assert main(["view", str(report), "-o", str(page), "--no-open"]) == 0
    assert "4 item(s) not run: budget" in page.read_text()
    # The run directory has its manifest although no item ran: --vita-resume finds it and runs them.
    result = run(project, stub, "--vita-resume", "-k", "U2")
    result.stdout.fnmatch_lines([f"*resumed run {data['run']['id']}: 0 items reused, 4 to run*"])
    assert result.ret == 1 and len(stub.requests) == 4 * 3


def test_a_cap_without_a_price_for_a_role_model_refuses_to_start(project, stub):
    project.makeconftest("")
    result = project.runpytest_subprocess(
        "--vita-model", "stub-model", "--vita-base-url", stub.base_url, "--vita-api-key-env", "VITA_STUB_KEY",
        "--vita-budget-usd", "5")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--vita-budget-usd counts what the run spends, but --vita-model stub-model has no "
                                 "price: give it one with --vita-prices*"])
    assert not stub.requests


@pytest.mark.parametrize("value", ["0", "-1", "nan", "ten"])
def test_a_cap_must_be_an_amount_above_zero(project, value):
    result = project.runpytest_subprocess("--vita-budget-usd", value)
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--vita-budget-usd must be*"])


@pytest.mark.slow
def test_a_merge_names_a_capped_shards_not_run_items_and_exits_7_until_the_shard_is_resumed(project, stub, capsys):
    from pytest_vitabench.commands.cli import main

    project.makeconftest("")
    assert run(project, stub, "--vita-shard", "off", "--vita-report", "full.json").ret == 1
    capped = run(project, stub, "--vita-shard", "1/2", "--vita-budget-usd", f"{2.5 * ITEM_COST:.6f}")
    assert capped.ret == 7
    assert run(project, stub, "--vita-shard", "2/2").ret == 1
    runs = next(project.path.glob(".vitabench/runs/shards-*"))

    capsys.readouterr()
    assert main(["merge", str(runs), "-o", str(project.path / "merged.json")]) == 7
    merged = json.loads((project.path / "merged.json").read_text())
    assert set(merged["run"]["not_run"].values()) == {"budget"} and not merged["run"]["missing"]
    assert len(merged["results"]) + len(merged["run"]["not_run"]) == 12
    assert merged["metrics"]["full_context"]["subtask"]["n_short"] == 0  # a unit the cap cut short is left out
    assert "exit status 7 (stopped by its budget)" in capsys.readouterr().out

    assert run(project, stub, "--vita-shard", "1/2", "--vita-resume").ret == 1
    assert main(["merge", str(runs), "-o", str(project.path / "merged.json")]) == 0
    merged = json.loads((project.path / "merged.json").read_text())
    assert "not_run" not in merged["run"]
    assert merged["metrics"] == json.loads((project.path / "full.json").read_text())["metrics"]


def test_the_cap_is_read_from_the_ini_file_too(project, stub):
    project.makeconftest("")
    project.makeini("[pytest]\nvita_budget_usd = 5\n")
    result = project.runpytest_subprocess(
        "--vita-model", "stub-model", "--vita-base-url", stub.base_url, "--vita-api-key-env", "VITA_STUB_KEY")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--vita-budget-usd counts what the run spends*--vita-prices*"])
