"""Collection: ids, markers, selection, parametrization over memory backends, collection errors."""

from __future__ import annotations

import json

import pytest
from _suites import broken


def test_item_ids_follow_the_design(project):
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "2")
    result.stdout.fnmatch_lines([
        "tasks.json::U1::s1[[]full_context-t0[]]",
        "tasks.json::U1::s1[[]full_context-t1[]]",
        "tasks.json::U1::s2[[]full_context-t0[]]",
        "tasks.json::U1::s2[[]full_context-t1[]]",
        "tasks.json::U2::s1[[]full_context-t0[]]",
        "tasks.json::U2::s1[[]full_context-t1[]]",
        "6 tests collected*",
    ])


def test_memory_list_is_a_parametrization_axis(project):
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "1", "--vita-memory", "null,groundtruth")
    result.stdout.fnmatch_lines(["tasks.json::U1::s1[[]none-t0[]]", "tasks.json::U1::s1[[]groundtruth-t0[]]",
                                 "6 tests collected*"])


def test_markers_select_without_warnings(project):
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "1", "-m", "delivery and proactive",
                               "-W", "error::pytest.PytestUnknownMarkWarning")
    result.stdout.fnmatch_lines(["tasks.json::U1::s2[[]full_context-t0[]]", "1/3 tests collected*"])
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "1", "-m", "personalize")
    result.stdout.fnmatch_lines(["2/3 tests collected*"])


def test_keyword_selection_and_deselect(project):
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "2", "-k", "U2 and t1")
    result.stdout.fnmatch_lines(["tasks.json::U2::s1[[]full_context-t1[]]", "1/6 tests collected*"])
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "1",
                               "--deselect", "tasks.json::U1::s1[full_context-t0]")
    result.stdout.fnmatch_lines(["2/3 tests collected*"])


def test_markers_are_registered(project):
    result = project.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.delivery:*", "@pytest.mark.ota:*", "@pytest.mark.proactive:*"])


def test_only_matching_files_are_collected_in_walks(project):
    (project.path / "sub").mkdir()
    (project.path / "sub" / "notes.json").write_text("{not json")
    (project.path / "sub" / "extra.vita.json").write_text((project.path / "tasks.json").read_text())
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "1")
    result.stdout.fnmatch_lines(["*6 tests collected*"])
    result.stdout.no_fnmatch_line("*notes.json*")


def test_a_json_file_named_explicitly_is_always_tried(project):
    (project.path / "mine.json").write_text((project.path / "tasks.json").read_text())
    result = project.runpytest("--collect-only", "-q", "--vita-trials", "1", "mine.json")
    result.stdout.fnmatch_lines(["mine.json::U1::s1[[]full_context-t0[]]", "3 tests collected*"])


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_bad_user_is_a_collection_error_with_its_json_path_and_others_still_run(project, concurrency):
    # The first collection validates each user once and caches the verdicts; the second reads them.
    data = broken(lambda d: d[1]["subtasks"][0].update(domain="pharmacy"))
    (project.path / "tasks.json").write_text(json.dumps(data))
    for _ in range(2):
        result = project.runpytest("--vita-trials", "1", "--continue-on-collection-errors",
                                   "--vita-concurrency", concurrency)
        result.stdout.fnmatch_lines([
            "*ERROR collecting tasks.json*",
            "*at [[]1[]].subtasks[[]0[]].domain: unknown domain 'pharmacy'; expected one of delivery, instore, ota",
            "ERROR tasks.json::U2",
            "*2 passed*1 error*",
        ])
        result.stdout.no_fnmatch_line("*Traceback*")
        assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_unreadable_file_is_one_clear_collection_error(project):
    (project.path / "tasks.json").unlink()
    (project.path / "tasks.vita.json").write_text("[{broken")  # a suite by name, found by the walk
    result = project.runpytest("--vita-trials", "1")
    result.stdout.fnmatch_lines(["*tasks.vita.json: invalid VitaBench suite*", "*not valid JSON: expecting property "
                                 "name enclosed in double quotes at line 1 column 3"])
    result.stdout.no_fnmatch_line("*Traceback*")
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_suite_warnings_surface_once(project):
    data = broken(lambda d: d[0]["subtasks"][0]["environment"].update(time=""))
    (project.path / "tasks.json").write_text(json.dumps(data))
    result = project.runpytest("--vita-trials", "1", "-q")
    result.stdout.fnmatch_lines(["*VitaSuiteWarning*environment.time is blank*"])


def test_strict_turns_chronology_warnings_into_errors(project):
    data = broken(lambda d: d[0]["subtasks"][1]["environment"].update(time="2025-05-01 11:00:00"))
    (project.path / "tasks.json").write_text(json.dumps(data))
    assert project.runpytest("--vita-trials", "1").ret == pytest.ExitCode.OK
    result = project.runpytest("--vita-trials", "1", "--vita-strict")
    result.stdout.fnmatch_lines(["*before the previous subtask*"])


@pytest.mark.parametrize("args, message", [
    (["--vita-memory", "vector"], "unknown memory backend 'vector'"),
    (["--vita-memory", "ful_context"],
     "--vita-memory: unknown memory backend 'ful_context' (did you mean 'full_context'?)*"),
    (["--vita-trials", "0"], "--vita-trials must be a whole number >= 1, got 0"),
    (["--vita-trials", "abc"], "--vita-trials must be a whole number >= 1, got 'abc'"),
    (["--vita-max-steps", "1"], "--vita-max-steps must be a whole number >= 2, got 1"),
    (["--vita-judge-args", "votes=two"], "--vita-judge-args votes must be a whole number >= 1, got 'two'"),
    (["--vita-language", "fr"], "--vita-language must be one of auto, en, zh; got 'fr'"),
    (["--vita-judge-args", "mode=windows"],
     "--vita-judge-args mode must be one of window, full; got 'windows' (did you mean 'window'?)"),
    (["--vita-cache", "jugde"], "--vita-cache must be one of all, judge, off; got 'jugde' (did you mean 'judge'?)"),
    (["--vita-limits", "circuit-breaker=-1"], "--vita-limits circuit-breaker must be a whole number >= 0, got -1"),
    (["--vita-progress", "often"], "--vita-progress must be auto, off or a number of seconds, got 'often'"),
    (["--vita-preflight", "yes"], "--vita-preflight must be one of on, off; got 'yes'"),
    (["--vita-fail-under", "avg@4"], "fail-under"),
])
def test_bad_options_are_usage_errors(project, args, message):
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_a_misspelled_built_in_is_an_unknown_model_not_a_missing_key(project, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = project.runpytest("--vita-model", "refrence")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown model 'refrence' for --vita-model: not a built-in (reference, literal, "
                                 "groundtruth-reader, answer, oracle); did you mean 'reference'?*"])
    # a name far from every built-in is a model at an endpoint: the message is about the key, no guess
    result = project.runpytest("--vita-model", "gpt-4o-mini")
    result.stderr.fnmatch_lines(["*no API key: set $OPENAI_API_KEY*"])
    result.stderr.no_fnmatch_line("*did you mean*")


def test_help_lists_the_options(project):
    result = project.runpytest("--help")
    result.stdout.fnmatch_lines(["*VitaBench 2.0 benchmark*", "*--vita-model=NAME*", "*--vita-fail-under*",
                                 "*VitaBench: models, memory and judge*", "*--vita-limits=KEY=VALUE*",
                                 "*vita_suite_patterns*"])
    lines = result.stdout.lines
    # Our part: the option groups (from the essentials' heading to the next plugin's) and the ini keys.
    start = lines.index("VitaBench 2.0 benchmark:")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].endswith(":") and not lines[i].startswith(
        ("VitaBench", " ")))
    ini = [i for i, line in enumerate(lines) if line.startswith("  vita_")]
    ini_lines = sum(1 + (lines[i + 1].startswith(" " * 24) and not lines[i + 1].startswith("  vita_"))
                    for i in ini)
    assert (end - start) + ini_lines <= 120
    assert not any("--vita-search-style" in line or "--vita-rpm" in line for line in lines)  # removed: hidden


@pytest.mark.parametrize("args, message", [
    (["--vita-search-style", "official"], "--vita-search-style was replaced: use --vita-deviation search=VALUE"),
    (["--vita-judge-batch"], "--vita-judge-batch was replaced: use --vita-judge-args batch=on"),
    (["-o", "vita_rpm=5"], "vita_rpm was replaced: use --vita-limits rpm=VALUE (ini key vita_limits)"),
])
def test_a_removed_spelling_is_a_usage_error_naming_the_new_one(project, args, message):
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_a_structured_option_takes_its_keys_from_the_command_line_and_the_ini_file(project):
    project.makeini("[pytest]\nvita_limits = rpm=5\n    tpm=2k\nvita_deviation = search=official\n")
    result = project.runpytest("--vita-limits", "rpm=7", "--vita-trials", "1", "--vita-report", "r.json")
    config = json.loads((project.path / "r.json").read_text())["config"]
    assert (config["rpm"], config["tpm"], config["search_style"]) == (7, 2000, "official")  # the command line wins
    bad = project.runpytest("--vita-limits", "rpms=7")
    bad.stderr.fnmatch_lines(["*--vita-limits: unknown key 'rpms'*(did you mean 'rpm'?)*"])
    assert result.ret in (0, 1) and bad.ret == pytest.ExitCode.USAGE_ERROR


def test_last_failed_reruns_only_the_failed_items(project):
    first = project.runpytest("-p", "cacheprovider", "--vita-trials", "2")
    first.assert_outcomes(passed=3, failed=3)
    again = project.runpytest("-p", "cacheprovider", "--vita-trials", "2", "--lf")
    again.assert_outcomes(failed=3)
    again.stdout.fnmatch_lines(["*run-last-failure: rerun previous 3 failures*"])
