"""``vitabench synth`` and the rules and statistics of ``vitabench validate``."""

from __future__ import annotations

import json

from _paths import REPO_ROOT

from pytest_vitabench.commands.cli import main

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


def test_synth_writes_the_same_bytes_twice_and_validates(tmp_path, capsys):
    first, second = tmp_path / "a.vita.json.gz", tmp_path / "b.vita.json.gz"
    assert main(["synth", "--preset", "small", "--seed", "5", "-o", str(first)]) == 0
    assert main(["synth", "--preset", "small", "--seed", "5", "-o", str(second), "--validate"]) == 0
    assert first.read_bytes() == second.read_bytes()
    out = capsys.readouterr().out
    assert "wrote" in out and "4 users, 20 subtasks" in out
    assert "target       ok (20 checked)" in out and "statistics (ours vs the paper" in out


def test_synth_knob_flags_change_the_suite(tmp_path, capsys):
    path = tmp_path / "s.json"
    assert main(["synth", "--preset", "small", "--users", "2", "--subtasks-min", "3", "--subtasks-max", "3",
                 "-o", str(path)]) == 0
    data = json.loads(path.read_text())
    assert len(data) == 2 and all(len(u["subtasks"]) == 3 for u in data)
    assert main(["synth", "--preset", "small", "--merchants-min", "3", "-o", str(path)]) == 2
    assert "merchants_min" in capsys.readouterr().err


def test_synth_demo_preset_is_the_curated_demo(tmp_path, capsys):
    path = tmp_path / "demo.json"
    assert main(["synth", "--preset", "demo", "-o", str(path)]) == 0
    assert path.read_bytes() == DEMO.read_bytes()
    assert main(["synth", "--preset", "demo", "--seed", "3", "-o", str(path)]) == 2
    assert "takes no knobs" in capsys.readouterr().err


def test_validate_prints_rules_and_statistics_and_writes_json(tmp_path, capsys):
    path = tmp_path / "s.vita.json"
    main(["synth", "--preset", "small", "-o", str(path)])
    capsys.readouterr()
    report = tmp_path / "report.json"
    assert main(["validate", str(path), "--strict", "--json", str(report)]) == 0
    out = capsys.readouterr().out
    for rule in ("schema", "chronology", "target", "distractors", "evidence", "leaks", "profile"):
        assert f"  {rule}" in out
    assert "events_per_user" in out and "noise_share" in out
    payload = json.loads(report.read_text())
    assert payload["ok"] and payload["statistics"]["users"] == 4 and not payload["findings"]


def test_validate_fails_a_broken_suite_and_strict_adds_the_complexity_controls(tmp_path, capsys):
    path = tmp_path / "s.vita.json"
    main(["synth", "--preset", "small", "-o", str(path)])
    data = json.loads(path.read_text())
    data[0]["subtasks"][0]["instruction"] += " " + data[0]["subtasks"][0]["target_product_ids"][0]
    path.write_text(json.dumps(data))
    assert main(["validate", str(path), "--no-stats"]) == 1
    assert "target id" in capsys.readouterr().out
    # The curated demo is smaller than the paper's complexity controls: fine, unless --strict.
    assert main(["validate", str(DEMO), "--no-stats"]) == 0
    assert main(["validate", str(DEMO), "--no-stats", "--strict"]) == 1
