"""``vitabench fetch``: the task file from a stand-in Hugging Face Hub on 127.0.0.1, its source in the report."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _stub_hub import StubHub
from _suites import tiny_suite

from pytest_vitabench.suite.fetch import (
    HUB_DATASET,
    PINNED_REVISION,
    FetchError,
    fetch_suite,
    file_sha256,
    read_source,
    source_path,
    suite_sources,
)

pytest.importorskip("huggingface_hub", reason="the hub extra (in dev) is not installed")

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CONTENT = json.dumps(tiny_suite()).encode()


@pytest.fixture
def hub(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # no token or cache of the machine's
    monkeypatch.delenv("HF_TOKEN", raising=False)
    server = StubHub()
    server.publish(HUB_DATASET, COMMIT, {"tasks.json": CONTENT}, "main")
    yield server
    server.close()


def _cli(tmp_path, *args, env=None, pre=""):
    code = f"import sys; {pre}from pytest_vitabench.commands.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "fetch", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HF_HOME": str(tmp_path / "hf-home"), **(env or {})})


def test_fetch_downloads_the_file_at_a_revision_prints_where_and_records_its_source(hub, tmp_path):
    done = _cli(tmp_path, "--revision", "main", "--dir", "data", env={"HF_ENDPOINT": hub.endpoint})
    assert done.returncode == 0, done.stderr
    path = tmp_path / "data" / "tasks.json"
    assert path.read_bytes() == CONTENT
    assert str(path.relative_to(tmp_path)) in done.stdout and COMMIT in done.stdout
    record = read_source(path)
    assert record == {"repo": HUB_DATASET, "revision": "main", "commit": COMMIT, "sha256": file_sha256(path),
                      "filename": "tasks.json"}
    assert sorted(p.name for p in path.parent.iterdir()) == ["tasks.json", "tasks.json.source"]  # no staging left
    # the client honoured HF_ENDPOINT and sent no token
    assert hub.requests and all("authorization" not in {k.lower() for k in h} for _, _, h in hub.requests)


@pytest.mark.slow
def test_the_report_records_the_suites_revision_and_sha256(hub, tmp_path, pytester):
    path, source = fetch_suite(pytester.path / "official", revision="main", endpoint=hub.endpoint)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.runpytest_subprocess(str(path), "--vita-trials", "1", "--vita-memory", "none", "-p", "no:cacheprovider",
                                  "--vita-report", "run.json")
    sources = json.loads((pytester.path / "run.json").read_text())["config"]["suite_sources"]
    assert sources == {str(path): {"repo": HUB_DATASET, "revision": "main", "commit": COMMIT,
                                   "sha256": source.sha256, "unchanged": True}}


def test_a_changed_file_is_reported_as_not_the_downloaded_one(hub, tmp_path):
    path, _ = fetch_suite(tmp_path, revision="main", endpoint=hub.endpoint)
    path.write_bytes(CONTENT + b" ")
    assert suite_sources({str(path): file_sha256(path)})[str(path)]["unchanged"] is False
    assert suite_sources({str(tmp_path / "other.json"): "x"}) == {}  # a suite not fetched has no source


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"revision": "v9"}, "revision 'v9' not found in the dataset meituan-longcat/VitaBench-2.0"),
    ({"revision": "main", "repo": "someone/else"}, "dataset someone/else not found on the Hub"),
    ({"revision": "main", "filename": "data/tasks.json"}, "data/tasks.json not found in"),
    ({"revision": "  "}, "--revision must not be empty"),
])
def test_bad_input_is_a_clear_error_and_keeps_the_file_already_there(hub, tmp_path, kwargs, message):
    fetch_suite(tmp_path, revision="main", endpoint=hub.endpoint)
    before = (tmp_path / "tasks.json").read_bytes()
    with pytest.raises(FetchError, match=message):
        fetch_suite(tmp_path, endpoint=hub.endpoint, **kwargs)
    assert (tmp_path / "tasks.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "hf-home") == ["tasks.json", "tasks.json.source"]


def test_the_pinned_revision_must_have_the_published_sha256(hub, tmp_path):
    hub.publish(HUB_DATASET, PINNED_REVISION, {"tasks.json": CONTENT})  # a mirror serving another file
    with pytest.raises(FetchError, match=r"has sha256 [0-9a-f]{64}, not the published 3a05f7e2\.\.\.: not kept"):
        fetch_suite(tmp_path / "d", endpoint=hub.endpoint)
    assert not (tmp_path / "d" / "tasks.json").exists() and not source_path(tmp_path / "d" / "tasks.json").exists()


def test_offline_is_a_clear_error(hub, tmp_path, monkeypatch):
    done = _cli(tmp_path, "--revision", "main", env={"HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 1
    assert "the Hub is not reachable" in done.stderr and "check the network or HF_ENDPOINT" in done.stderr
    assert hub.requests == []


@pytest.mark.slow  # the client retries a refused connection with backoff (about 20 s) before giving up
def test_no_network_is_a_clear_error(tmp_path):
    done = _cli(tmp_path, "--revision", "main", env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    assert done.returncode == 1
    assert "vitabench fetch: could not download meituan-longcat/VitaBench-2.0@main (tasks.json): the Hub is not " \
           "reachable" in done.stderr
    assert not (tmp_path / "suites" / "official" / "tasks.json").exists()


def test_without_the_extra_the_message_says_what_to_install(tmp_path):
    done = _cli(tmp_path, pre="sys.modules['huggingface_hub'] = None; ")
    assert done.returncode == 1
    assert "vitabench fetch needs huggingface_hub: pip install 'pytest-vitabench[hub]'" in done.stderr
