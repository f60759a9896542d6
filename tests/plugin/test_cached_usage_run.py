"""Cached prompt tokens reach every place usage is shown, aggregated across xdist workers."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

USAGE = {"prompt_tokens": 2000, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": 1024}}
KEY = "sk-test-cache-usage-abcdefghij0123"


@pytest.mark.slow
def test_cached_prompt_tokens_in_report_junit_and_terminal_with_two_workers(project, monkeypatch):
    from _stub_llm import StubLLM

    stub = StubLLM()
    try:
        monkeypatch.setenv("VITA_STUB_KEY", KEY)
        project.makeconftest("")  # the built-in fixtures: the agent is the LLM behind the stub
        stub.replies += [{"content": "Nothing to do. ###STOP###", "usage": USAGE} for _ in range(6)]
        report, junit = project.path / "run.json", project.path / "junit.xml"
        result = project.runpytest_subprocess(
            "-n", "2", "--vita-trials", "2", "--vita-model", "stub-model", "--vita-base-url", stub.base_url,
            "--vita-api-key-env", "VITA_STUB_KEY", "--vita-prices", "stub-model=2/0.5/8",
            "--vita-report", str(report), f"--junitxml={junit}")
        assert len(stub.requests) == 6
        data = json.loads(report.read_text())
        agent = data["usage"]["roles"]["agent"]
        assert (agent["prompt_tokens"], agent["cached_prompt_tokens"]) == (12_000, 6_144)
        per_request = (976 * 2.0 + 1024 * 0.5 + 10 * 8.0) / 1e6
        assert agent["cost"] == pytest.approx(6 * per_request)
        for record in data["results"]:
            assert record["usage"]["agent"]["cached_prompt_tokens"] == 1024
            assert record["usage"]["agent"]["cost"] == pytest.approx(per_request)
        properties = [dict((p.get("name"), p.get("value")) for p in case.iter("property"))
                      for case in ET.parse(junit).getroot().iter("testcase")]
        assert len(properties) == 6 and all(p["vita_cached_prompt_tokens"] == "1024" for p in properties)
        result.stdout.fnmatch_lines(["*usage: agent 12,000 in (6,144 cached) + 60 out tokens*",
                                     "*role*prompt cached*", "*agent*12,000*6,144 (51%)*"])
    finally:
        stub.close()
