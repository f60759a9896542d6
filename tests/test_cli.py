"""The vitabench command."""

from __future__ import annotations

import json

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
