"""The viewer in a real headless Chromium (the OS package, driven by Playwright; no browser download).

The run is a real one: the demo suite through the plugin with two xdist workers and two memory backends.
The test opens the written page, filters, opens a trajectory and checks what is shown.
"""

from __future__ import annotations

import json

import pytest
from _browser import launch
from _paths import REPO_ROOT

from pytest_vitabench.commands.cli import main


@pytest.fixture(scope="module")
def page_factory():
    with launch() as (browser, sync_api):
        errors: list[str] = []

        def open_page(path, fragment=""):
            page = browser.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            # Anything beyond the file itself (a CDN, a font) would be a request: the page must make none.
            page.on("request",
                    lambda req: errors.append(f"request {req.url}") if not req.url.startswith("file:") else None)
            page.goto(path.resolve().as_uri() + fragment)
            page.wait_for_selector("body[data-ready='1']")
            return page

        yield open_page, errors, sync_api.expect


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo-run")
    report = root / "run.json"
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "pytest", str(REPO_ROOT / "suites" / "demo" / "tasks.json"), "-q", "-n", "2",
                    "-p", "no:cacheprovider", "--vita-trials", "2", "--vita-memory", "none,full_context",
                    "--vita-report", str(report)], cwd=root, capture_output=True, check=False)
    assert report.is_file()
    return report


def test_filter_open_a_trajectory_and_see_names_memory_and_verdicts(page_factory, demo_run, tmp_path):
    open_page, errors, expect = page_factory
    html = tmp_path / "run.html"
    assert main(["view", str(demo_run), "-o", str(html)]) == 0
    from pytest_vitabench.runs import open_run

    run = open_run(demo_run)  # the report holds summaries; trajectories and memory come from its run directory
    results = [run.full_result(r["nodeid"]) for r in run.results]
    page = open_page(html)
    assert page.inner_text("#count") == f"{len(results)} of {len(results)} items"

    page.select_option("#f-outcome", "failed")
    page.select_option("#f-memory", "full_context")
    page.select_option("#f-domain", "ota")
    expected = [r for r in results
                if r["outcome"] == "failed" and r["memory"] == "full_context" and r["domain"] == "ota"]
    assert expected, "the demo run should have failed ota items under full_context"
    assert page.inner_text("#count") == f"{len(expected)} of {len(results)} items"
    assert page.locator("#rows tr.row").count() == len(expected)

    page.locator("#rows tr.row").first.click()
    page.wait_for_selector("#detail .messages")
    detail = page.inner_text("#detail")
    first = sorted(expected, key=lambda r: r["nodeid"])[0]
    assert first["nodeid"] in detail and "failed" in detail
    assert "(second class)" in detail and "(first class)" in detail  # product names beside ids in the verdict
    assert "✗ The seats are second class" in detail
    assert f"termination: {first['termination']}" in detail and f"steps: {first['steps']}" in detail
    # The conversation: every message, tool calls with arguments, tool results.
    assert page.locator("#detail .msg").count() == len(first["messages"])
    assert "train_ticket_search" in detail and '"destination": "Shanghai"' in detail
    page.click("#detail details.memory summary")
    page.wait_for_selector("#detail details.memory[data-filled='1']")
    assert first["memory_snapshot"].splitlines()[0] in page.inner_text("#detail details.memory pre")
    assert page.url.endswith("#item=" + first["nodeid"].replace("/", "%2F").replace(":", "%3A")
                             .replace("[", "%5B").replace("]", "%5D"))

    # The trials of one subtask side by side.
    page.click("#detail a.unit")
    page.wait_for_selector("#detail .side")
    assert page.locator("#detail .side > div").count() == 2
    assert "t0]" in page.inner_text("#detail .side") and "t1]" in page.inner_text("#detail .side")

    # Text filter over ids and rubrics, and the deeper search in conversations.
    page.select_option("#f-outcome", "")
    page.select_option("#f-memory", "")
    page.select_option("#f-domain", "")
    page.fill("#f-text", "U100003")
    n_user = sum(1 for r in results if r["user_id"] == "U100003")
    expect(page.locator("#count")).to_have_text(f"{n_user} of {len(results)} items")
    page.fill("#f-text", "Hongqiao")  # a station name: only inside tool results
    expect(page.locator("#count")).to_have_text(f"0 of {len(results)} items")
    page.check("#f-deep")
    n_deep = sum(1 for r in results if "Hongqiao" in json.dumps(r["messages"]))
    assert n_deep > 0
    expect(page.locator("#count")).to_have_text(f"{n_deep} of {len(results)} items")
    assert errors == []


def test_failure_table_plots_and_deep_links(page_factory, demo_run, tmp_path):
    open_page, errors, expect = page_factory
    html = tmp_path / "run.html"
    assert main(["view", str(demo_run), "-o", str(html), "--baseline", str(demo_run)]) == 0
    page = open_page(html)
    page.click("nav button[data-tab=failures]")
    table = page.inner_text("#failure-table")
    assert "preference_missing" in table and "none:delivery" in table
    page.locator("#failure-table a.cell[data-category=preference_missing][data-memory=none][data-domain=ota]").click()
    assert page.input_value("#f-category") == "preference_missing" and page.input_value("#f-domain") == "ota"
    count = int(page.inner_text("#count").split()[0])
    assert count == page.locator("#rows tr.row").count() > 0

    page.click("nav button[data-tab=plots]")
    assert page.locator("#plots svg").count() == 5
    assert "position in the user's subtask sequence" in page.inner_text("#plots")

    page.click("nav button[data-tab=summary]")
    assert "VitaBench metrics (k=2" in page.inner_text("#metrics")
    page.click("nav button[data-tab=compare]")
    assert "no significant change" in page.inner_text("#compare")

    deep = open_page(html, "#unit=U100002/sub_U100002_2/full_context")
    assert deep.locator("#detail .side > div").count() == 2
    assert errors == []


def test_each_tab_and_item_has_a_url_and_a_zero_bar_is_visible(page_factory, demo_run, tmp_path):
    """Clicking a tab puts it in the address (#tab=NAME); opening that address shows the tab; an item's address
    opens the item; the none backend's Avg@k of 0 is a visible bar with its value."""
    open_page, errors, expect = page_factory
    html = tmp_path / "run.html"
    assert main(["view", str(demo_run), "-o", str(html)]) == 0
    page = open_page(html)
    for tab in ("summary", "plots", "failures", "items"):
        page.click(f"nav button[data-tab={tab}]")
        assert page.url.endswith(f"#tab={tab}")
    for tab in ("summary", "plots", "failures"):
        direct = open_page(html, f"#tab={tab}")
        assert direct.get_attribute(f"#tab-{tab}", "class") == "tab active"
        assert direct.get_attribute("nav button.active", "data-tab") == tab
        direct.close()
    page.locator("#rows tr.row").first.click()
    page.wait_for_selector("#detail .messages")
    item_url = page.url
    assert "#item=" in item_url
    page.click("nav button[data-tab=plots]")
    page.click("nav button[data-tab=items]")
    assert page.url == item_url  # back on the items tab, the open item keeps its address
    nodeid = page.inner_text("#detail h3").split()[0]
    other = open_page(html, item_url[item_url.index("#"):])
    other.wait_for_selector("#detail .messages")
    assert nodeid in other.inner_text("#detail")

    page.click("nav button[data-tab=plots]")
    backend = page.locator("#plots .plot").nth(1)
    assert "memory backend" in backend.inner_text()
    labels = backend.locator("svg text.bar-value").evaluate_all("texts => texts.map((t) => t.textContent)")
    assert len(labels) == 2 and "0.00" in labels  # full_context and none, each its own group; none scores 0
    heights = [float(h) for h in backend.locator("svg rect[height]").evaluate_all(
        "rects => rects.filter((r) => r.querySelector('title')).map((r) => r.getAttribute('height'))")]
    assert len(heights) == 2 and min(heights) >= 2
    assert errors == []


def test_the_judge_tab_shows_the_audit_and_links_each_disagreement_to_its_item(page_factory, demo_run, tmp_path):
    from _stub_judge import PlantedJudge
    from _stub_llm import StubLLM

    from pytest_vitabench.commands.judge_audit import JudgeSetup, audit_run
    from pytest_vitabench.commands.rejudge import replay, resolve_suites
    from pytest_vitabench.llm import LLMClient, LLMSettings
    from pytest_vitabench.report.json_report import load_report, write_report
    from pytest_vitabench.result import ItemResult
    from pytest_vitabench.runs import open_run

    open_page, errors, expect = page_factory
    plain = tmp_path / "plain.html"
    assert main(["view", str(demo_run), "-o", str(plain)]) == 0
    assert open_page(plain).locator("#judge-tab").is_hidden()  # a rules-judged run has no judge figures

    suites = resolve_suites(load_report(demo_run))
    run = open_run(demo_run)
    cases = [replay(ItemResult.model_validate(run.full_result(r["nodeid"])), suites[r["suite"]], "en")[0]
             for r in run.results]
    stub = StubLLM()
    stub.responder = PlantedJudge(cases, flip=0.2, seed=1)
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off"))
    try:
        report = audit_run(demo_run, [JudgeSetup("stub-judge", "full")], client=client, ledger=client.ledger,
                           repeats=2)
    finally:
        client.close()
        stub.close()
    audit_path = write_report(demo_run.with_name("audit.json"), report)
    html = tmp_path / "audit.html"
    assert main(["view", str(audit_path), "-o", str(html)]) == 0
    page = open_page(html)
    page.click("#judge-tab")
    setup = report["judge_audit"]["setups"][0]
    overall = page.inner_text("#setup-0-all")
    assert f"{setup['agreement']:.3f}" in overall and f"{setup['kappa']:.3f}" in overall
    assert "rating floor" in page.inner_text("#setup-0-kind") and "ota" in page.inner_text("#setup-0-domain")
    assert f"{setup['flip']['rate']:.3f}" in page.inner_text("#flip-0")
    rows = page.locator("#disagree-0 tr")
    assert rows.count() == len(setup["disagreements"]) + 1
    first = setup["disagreements"][0]
    assert first["rules_reason"][:40] in page.inner_text("#disagree-0")
    page.locator("#disagree-0 a.item").first.click()
    page.wait_for_selector("#detail .messages")
    assert first["nodeid"] in page.inner_text("#detail") and page.locator("#tab-items").is_visible()
    assert not errors
