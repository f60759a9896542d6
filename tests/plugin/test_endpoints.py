"""Several base URLs for one model (--vita-base-url URL1,URL2,URL3): requests spread by least in flight, an
endpoint that dies halfway is drained, and no item is lost, errored or answered twice."""

from __future__ import annotations

import json
import threading
import time

import pytest
from _engine_helpers import REQUESTS_PER_ITEM, scripted_stub, write_many

USERS, SUBTASKS, TRIALS = 8, 2, 2
ITEMS = USERS * SUBTASKS * TRIALS
BASE = ["-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", str(TRIALS),
        "--vita-concurrency", "6", "--vita-cache", "off"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=USERS, subtasks=SUBTASKS)
    return pytester


def _kill_after(stub, total: list, requests: int) -> threading.Thread:
    def watch() -> None:
        deadline = time.time() + 120
        while sum(len(s.requests) for s in total) < requests and time.time() < deadline:
            time.sleep(0.005)
        stub.close()  # new connections are refused from here on; requests it has accepted are answered

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_an_endpoint_killed_halfway_is_drained_and_no_item_is_lost(project):
    stubs = [scripted_stub(delay=0.02) for _ in range(3)]
    reference = scripted_stub(delay=0.0)
    try:
        watcher = _kill_after(stubs[1], stubs, ITEMS * REQUESTS_PER_ITEM // 2)
        urls = ",".join(s.base_url for s in stubs)
        result = project.runpytest(*BASE, "--vita-base-url", urls, "--vita-report", "three.json")
        watcher.join(timeout=60)
        single = project.runpytest(*BASE, "--vita-base-url", reference.base_url, "--vita-report", "one.json")
    finally:
        for stub in (*stubs, reference):
            stub.close()
    report = json.loads((project.path / "three.json").read_text())
    assert len(report["results"]) == ITEMS
    assert [r["nodeid"] for r in report["results"] if r["outcome"] == "error"] == []
    assert result.ret == single.ret == 1  # the odd trials fail on purpose, the even ones pass
    one = json.loads((project.path / "one.json").read_text())
    assert {r["nodeid"]: r["outcome"] for r in report["results"]} == {r["nodeid"]: r["outcome"]
                                                                    for r in one["results"]}
    assert report["metrics"] == one["metrics"]

    received = [len(s.requests) for s in stubs]
    assert sum(received) == ITEMS * REQUESTS_PER_ITEM  # each request answered once: none sent twice
    endpoints = report["usage"]["endpoints"]
    assert [endpoints[s.base_url]["requests"] for s in stubs] == received
    assert endpoints[stubs[1].base_url]["failed_attempts"] >= 1  # it did die, and was drained
    assert 0 < received[1] < received[0] and received[1] < received[2]
    assert report["usage"]["roles"]["agent"]["errors"] == 0
    line = next(line for line in result.outlines if line.startswith("requests per endpoint: "))
    print(f"\nthree endpoints, the second killed after {ITEMS * REQUESTS_PER_ITEM // 2} requests: {line}")
    assert f"{stubs[1].base_url} {received[1]} (" in line and " failed attempts)" in line
    assert f"{stubs[0].base_url} {received[0]}" in line and f"{stubs[2].base_url} {received[2]}" in line


def test_requests_spread_over_healthy_endpoints(project):
    stubs = [scripted_stub(delay=0.05) for _ in range(2)]
    try:
        result = project.runpytest(*BASE, "-k", "U1 or U2 or U3", "--vita-base-url",
                                   ",".join(s.base_url for s in stubs), "--vita-report", "two.json")
    finally:
        for stub in stubs:
            stub.close()
    assert result.ret == 1
    received = [len(s.requests) for s in stubs]
    assert sum(received) == 3 * SUBTASKS * TRIALS * REQUESTS_PER_ITEM
    assert min(received) >= sum(received) // 4  # least in flight: both carry a fair part
    endpoints = json.loads((project.path / "two.json").read_text())["usage"]["endpoints"]
    expected = {s.base_url: n for s, n in zip(stubs, received, strict=True)}
    assert {url: e["requests"] for url, e in endpoints.items()} == expected


def test_every_endpoint_dead_is_an_error_not_a_hang(project):
    stubs = [scripted_stub(delay=0.0) for _ in range(2)]
    urls = ",".join(s.base_url for s in stubs)
    for stub in stubs:
        stub.close()
    result = project.runpytest(*BASE, "-k", "U1", "--vita-base-url", urls, "--vita-preflight", "off",
                               "--vita-report", "dead.json")
    report = json.loads((project.path / "dead.json").read_text())
    assert {r["outcome"] for r in report["results"]} == {"error"}
    assert result.ret == 1


def test_a_url_in_the_list_that_carries_credentials_is_refused(project):
    result = project.runpytest(*BASE, "--vita-base-url", "http://127.0.0.1:9/v1,http://me:secret@127.0.0.1:8/v1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*carries credentials*"])
    assert "secret" not in result.stderr.str() + result.stdout.str()


def test_the_preflight_checks_every_endpoint_and_names_the_dead_one(project):
    alive, dead = scripted_stub(delay=0.0), scripted_stub(delay=0.0)
    dead_url = dead.base_url
    dead.close()
    try:
        result = project.runpytest(*BASE, "-k", "U1", "--vita-base-url", f"{alive.base_url},{dead_url}")
    finally:
        alive.close()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str() + result.stdout.str()
    assert "preflight failed" in text and dead_url in text
    assert alive.requests == [] and len(alive.preflights) == 1  # the live one was checked too, nothing ran
