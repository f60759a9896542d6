"""``--vita-official-source`` through pytest: usage errors, the header, the report's config."""

from __future__ import annotations

import json

import pytest
from _fake_official import make_checkout


def test_a_missing_source_under_the_official_profile_is_a_usage_error(project, tmp_path):
    missing = tmp_path / "no-such-checkout"
    result = project.runpytest("--vita-profile", "official", "--vita-official-source", str(missing))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--vita-official-source {missing}: no such directory*"])


def test_auto_without_an_installed_harness_is_a_usage_error_naming_what_it_looked_for(project, monkeypatch):
    monkeypatch.delenv("VITA_OFFICIAL_SOURCE")
    result = project.runpytest("--vita-profile", "official")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-official-source auto: no installed 'vita' package*"])


def test_the_ini_key_sets_it_too(project, tmp_path):
    project.makeini(f"[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                    f"vita_official_source = {tmp_path / 'elsewhere'}\n")
    result = project.runpytest("--vita-profile", "official")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{tmp_path / 'elsewhere'}: no such directory*"])


def test_our_own_wording_says_it_is_not_comparable(project):
    path = project.path / "run.json"
    result = project.runpytest("--vita-profile", "official", "--vita-official-source", "none",
                               "--vita-report", str(path), "-v")
    result.stdout.fnmatch_lines(["official wording: none; not comparable: prompts are pytest-vitabench's own"])
    profile = json.loads(path.read_text())["config"]["profile_summary"]
    assert profile["official_source"] is None and profile["comparable_with_leaderboard"] is False
    assert "prompts are pytest-vitabench's own (--vita-official-source none)" in profile["not_comparable_because"]


def test_the_header_and_report_name_the_source_and_its_version(project, tmp_path):
    checkout = make_checkout(tmp_path / "harness")
    path = project.path / "run.json"
    result = project.runpytest("--vita-profile", "official", "--vita-official-source", str(checkout),
                               "--vita-report", str(path), "-v")
    package = (checkout / "src" / "vita").resolve()
    result.stdout.fnmatch_lines([f"official wording: {package} (checkout, sha256 *)"])
    report = json.loads(path.read_text())
    block = report["config"]["profile_summary"]["official_source"]
    assert block["path"] == str(package) and block["found_as"] == "checkout"
    assert block["version"].startswith("sha256 ") and report["config"]["official_source"] == str(checkout)
    assert "prompts are pytest-vitabench's own (--vita-official-source none)" not in \
        report["config"]["profile_summary"]["not_comparable_because"]
