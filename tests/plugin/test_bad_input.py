"""Bad suites through pytest and ``vitabench validate``: the same clear error, for that user only, no traceback."""

from __future__ import annotations

import json

import pytest
from _suites import tiny_suite

from pytest_vitabench.commands.cli import main


def _huge_int(text: str) -> str:
    return text.replace('"score": 4.5', '"score": ' + "7" * 5000, 1)


def _blank_time_bad_fallback(text: str) -> str:
    data = json.loads(text)
    data[1]["subtasks"][0]["environment"]["time"] = ""
    data[1]["subtasks"][0]["current_time"] = "0000-00-00 00:00:00"
    return json.dumps(data)


def _colon_id(text: str) -> str:
    return text.replace('"id": "U2"', '"id": "U2::x"', 1)


def _nan_score(text: str) -> str:
    data = json.loads(text)
    data[1]["subtasks"][0]["environment"]["stores"]["S1"]["score"] = float("nan")
    return json.dumps(data)


def _domain_contradicts_data(text: str) -> str:
    data = json.loads(text)
    sub = data[1]["subtasks"][0]
    sub["domain"] = "delivery,delivery"
    sub["environment"]["shops"] = {"H1": {"shop_id": "H1", "shop_name": "Tea House"}}
    return json.dumps(data)


@pytest.mark.parametrize("corrupt, user, line", [
    (_huge_int, "U1", "*at [[]0[]].subtasks[[]0[]].environment.stores.S2.score: an integer of 5000 digits*"),
    (_blank_time_bad_fallback, "U2", "*at [[]1[]].subtasks[[]0[]].current_time: the environment time is blank*"),
    (_colon_id, "U2::x", "*at [[]1[]].id: user id 'U2::x' contains '::'*"),
    (_nan_score, "U2", "*at [[]1[]].subtasks[[]0[]].environment.stores.S1.score: nan is not a number*"),
    (_domain_contradicts_data, "U2", "*at [[]1[]].subtasks[[]0[]].domain: domain 'delivery,delivery' lists*"),
])
def test_a_broken_user_is_one_collection_error_and_validate_says_the_same(project, capsys, corrupt, user, line):
    path = project.path / "tasks.json"
    path.write_text(corrupt(path.read_text()))
    result = project.runpytest("--vita-trials", "1", "--continue-on-collection-errors")
    result.stdout.fnmatch_lines(["*ERROR collecting tasks.json*", line, f"ERROR tasks.json::{user}*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*Error: *")  # no exception class name leaks into the report
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", outcomes.get("error")) == 1 and outcomes.get("passed", 0) + outcomes.get(
        "failed", 0) >= 1  # the other user still ran
    capsys.readouterr()
    assert main(["validate", str(path)]) == 1
    printed = capsys.readouterr().out
    assert f"{path}: invalid VitaBench suite" in printed and "1/2 users valid" in printed
    import fnmatch

    assert any(fnmatch.fnmatch(out_line, line) for out_line in printed.splitlines()), printed


@pytest.mark.parametrize("raw, line", [
    (b"[" * 100_000 + b"]" * 100_000, "*at [[]0[]] (line 1 column 65): nested more than 64 levels deep*"),
    (json.dumps(tiny_suite()).encode()[:-7], "*not valid JSON: * at line 1 column*"),
    (b'[{"id": "\xff"}]', "*not UTF-8 text: byte 0xff at offset 9*"),
], ids=["deep", "truncated", "utf8"])
def test_an_unusable_file_is_one_clear_error_in_pytest_and_validate(project, capsys, raw, line):
    path = project.path / "tasks.json"
    path.write_bytes(raw)
    # Named on the command line: found by a directory walk, a file this broken does not look like a suite
    # and is left alone (tests/suite/test_discovery.py).
    result = project.runpytest("tasks.json", "--vita-trials", "1")
    result.stdout.fnmatch_lines(["*tasks.json: invalid VitaBench suite*", line])
    result.stdout.no_fnmatch_line("*Traceback*")
    capsys.readouterr()
    assert main(["validate", str(path)]) == 1
    import fnmatch

    assert any(fnmatch.fnmatch(out_line, line) for out_line in capsys.readouterr().out.splitlines())


def test_under_xdist_the_broken_user_fails_alone(project):
    path = project.path / "tasks.json"
    path.write_text(_nan_score(path.read_text()))
    result = project.runpytest_subprocess("-n", "2", "--vita-trials", "1", "--continue-on-collection-errors")
    result.stdout.fnmatch_lines(["*at [[]1[]].subtasks[[]0[]].environment.stores.S1.score: nan is not a number*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 2  # U1's two subtasks ran
