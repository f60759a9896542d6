"""The vitabench command."""

from __future__ import annotations

import json

import pytest
from _suites import broken, tiny_suite, write_suite

from pytest_vitabench.commands.cli import main


def test_validate_prints_counts(tmp_path, capsys):
    assert main(["validate", str(write_suite(tmp_path / "tasks.json", tiny_suite()))]) == 0
    out = capsys.readouterr().out
    assert "vitabench2, 2/2 users valid, 3 subtasks (delivery 3; personalize 2, proactive 1), 6 rubrics, " \
           "6 with machine checks" in out


def test_validate_reports_errors_and_fails(tmp_path, capsys):
    path = write_suite(tmp_path / "tasks.json", broken(lambda d: d[1]["subtasks"][0].pop("domain")))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "at [1].subtasks[0].domain: required field is missing" in out and "1/2 users valid" in out
    (tmp_path / "bad.json").write_text("nope")
    assert main(["validate", str(tmp_path / "bad.json")]) == 1


def test_show_rejects_a_file_that_is_not_a_report(tmp_path, capsys):
    (tmp_path / "r.json").write_text(json.dumps({"schema": "other"}))
    assert main(["show", str(tmp_path / "r.json")]) == 2
    assert "vitabench show:" in capsys.readouterr().err


def test_show_prints_the_table_of_a_saved_report(tmp_path, capsys):
    from pytest_vitabench.judges.rules import RulesJudge
    from pytest_vitabench.metrics import compute_metrics
    from pytest_vitabench.options.config import RunConfig
    from pytest_vitabench.report.json_report import build_report, write_report
    from pytest_vitabench.run.runner import ItemRunner
    from pytest_vitabench.users import make_user_simulator

    class Quitter:
        def respond(self, setup, messages):
            from pytest_vitabench.messages import Message

            return Message(role="assistant", content="Sorry. ###STOP###")

    runner = ItemRunner(RunConfig(trials=1))
    suite = runner.suite(write_suite(tmp_path / "tasks.json", tiny_suite()))
    results = [runner.run(nodeid=f"n{i}", suite=suite, user=user, index=0, memory_name="full_context", trial=0,
                          agent=Quitter(), user_simulator=make_user_simulator("scripted"), judge=RulesJudge())
               for i, user in enumerate(suite.users)]
    path = write_report(tmp_path / "run.json", build_report({}, compute_metrics(results), results))
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "full_context  subtask" in out and "0 passed, 2 failed" in out


def test_the_demo_suite_passes_its_own_validation_and_strict_names_the_papers_scale(capsys):
    from _paths import REPO_ROOT

    demo = str(REPO_ROOT / "suites" / "demo" / "tasks.json")
    assert main(["validate", demo, "--no-stats", "--no-answers"]) == 0
    out = capsys.readouterr().out
    assert "distractors  below the paper's scale (132 findings in 20 checked)" in out and "FAIL" not in out
    assert out.rstrip().endswith("passes validation (without --strict)")
    assert main(["validate", demo, "--no-stats", "--no-answers", "--strict"]) == 1
    out = capsys.readouterr().out
    assert "distractors  FAIL (132 problems in 20 checked)" in out and out.rstrip().endswith("FAILS validation")


def test_validate_without_a_path_takes_the_suites_under_the_current_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 2
    assert "no suite files under" in capsys.readouterr().err
    (tmp_path / "suites").mkdir()
    write_suite(tmp_path / "suites" / "tasks.json", tiny_suite())
    (tmp_path / "notes.json").write_text('{"not": "a suite"}')
    (tmp_path / ".venv").mkdir()
    write_suite(tmp_path / ".venv" / "tasks.json", tiny_suite())  # tool folders are not searched
    assert main(["validate", "--no-stats"]) == 0
    out = capsys.readouterr().out
    assert "validating the 1 suite file(s) under" in out and "suites/tasks.json: passes validation" in out


def test_version():
    import subprocess
    import sys

    from pytest_vitabench.version import __version__

    done = subprocess.run([sys.executable, "-m", "pytest_vitabench.commands.cli", "--version"], capture_output=True,
                          text=True, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"vitabench {__version__}")


@pytest.mark.parametrize("argv", [["validate", "{demo}"], ["estimate", "{demo}", "--vita-memory", "none"],
                                  ["--version"], ["--help"]])
def test_a_closed_pipe_ends_any_command_quietly(argv):
    """The reader goes away before the first line (``| head -0``): exit 141 as a shell reports SIGPIPE, or 0, and
    no traceback."""
    import subprocess
    import sys

    from _paths import REPO_ROOT

    args = [a.format(demo=REPO_ROOT / "suites" / "demo" / "tasks.json") for a in argv]
    proc = subprocess.Popen([sys.executable, "-m", "pytest_vitabench.commands.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) in (0, 141)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_corrupt_json_message_is_whole_and_names_the_file(tmp_path, capsys):
    path = tmp_path / "tasks.json"
    path.write_text('[{"user_profile": {"x": "ab', encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: invalid VitaBench suite\n  at <root>: not valid JSON: unterminated string starting at line 1 " \
           "column 25\n" in out
    report = tmp_path / "run.json"
    report.write_text('{"schema": "x", "a": "ab\n', encoding="utf-8")
    assert main(["show", str(report)]) == 2
    assert capsys.readouterr().err.strip() == \
        f"vitabench show: {report} is not valid JSON: invalid control character at line 1 column 25"
