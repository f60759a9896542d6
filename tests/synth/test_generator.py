"""The suite generator: deterministic, official-shaped, at the paper's scale and statistics."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from collections import Counter

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.suite.checks import RubricCheck
from pytest_vitabench.suite.loader import load_suite
from pytest_vitabench.suite.schema import UserTask
from pytest_vitabench.synth.config import PAPER, preset
from pytest_vitabench.synth.generator import dumps, generate, gzip_bytes, write
from pytest_vitabench.synth.stats import CORE, comparison, suite_stats
from pytest_vitabench.synth.validator import validate_loaded

PAPER_SUITE = REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz"


def test_the_same_seed_gives_the_same_bytes_and_another_seed_does_not(small_suite):
    again = generate(preset("small"))
    assert dumps(again) == dumps(small_suite)
    assert dumps(generate(preset("small", seed=1))) != dumps(small_suite)


def test_output_does_not_depend_on_the_hash_seed():
    script = ("import hashlib; from pytest_vitabench.synth.config import preset; "
              "from pytest_vitabench.synth.generator import generate, dumps; "
              "print(hashlib.sha256(dumps(generate(preset('small', seed=3)))).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", script], env={"PYTHONHASHSEED": seed, "PATH": ""},
                              capture_output=True, text=True, check=True, cwd=REPO_ROOT).stdout
               for seed in ("1", "2")}
    assert len(digests) == 1


def test_gzip_output_has_a_fixed_header(tmp_path, small_suite):
    path = write(small_suite, tmp_path / "s.vita.json.gz")
    data = path.read_bytes()
    assert data[:3] == b"\x1f\x8b\x08" and data[3] & 0x08 == 0, "no file name in the header"
    assert data[4:8] == b"\x00\x00\x00\x00", "mtime must be 0"
    assert gzip.decompress(data) == dumps(small_suite)
    assert gzip_bytes(dumps(small_suite)) == data


def test_small_preset_shape(small_suite):
    assert len(small_suite) == 4 and all(len(u["subtasks"]) == 5 for u in small_suite)
    domains = Counter(s["domain"] for u in small_suite for s in u["subtasks"])
    assert set(domains) == {"delivery", "instore", "ota"}
    for user in small_suite:
        task = UserTask.model_validate(user)
        assert any(s.is_proactive for s in task.subtasks), f"{task.id} has no proactive subtask"
        for sub in task.subtasks:
            assert sub.rubric_checks and [c.rubric for c in sub.rubric_checks] == sub.rubrics()
            assert sub.environment["user_id"] == task.user_id and sub.env_time.startswith(sub.current_time)
            memory = sub.groundtruth_preferences()
            assert memory and memory["current"] and isinstance(memory["preference_tag_change_history"], list)
            assert sub.is_proactive == bool(sub.user_intention)


def test_interactions_use_both_official_shapes():
    suite = generate(preset("small", users=8, event_shape_share=0.5))
    shapes = Counter("date" in r for u in suite for s in u["subtasks"] for r in s["interactions"])
    assert shapes[True] and shapes[False]
    for user in suite:
        for sub in user["subtasks"]:
            for record in sub["interactions"]:
                assert set(record) in ({"date", "behavior", "dialogue"}, {"type", "timestamp", "content"})


def test_every_check_parses_and_every_target_is_marked(small_suite):
    for user in small_suite:
        for sub in user["subtasks"]:
            for item in sub["rubric_checks"]:
                RubricCheck.model_validate(item)
            env = sub["environment"]
            marked = [e for c in ("stores", "shops", "hotels", "trains", "flights", "attractions")
                      for e in (env.get(c) or {}).values() if any(v == "target" for k, v in e.items()
                                                                  if k.endswith("_type"))]
            assert len(marked) == 1, sub["subtask_id"]


def test_knobs_change_sizes_and_bad_knobs_are_refused():
    suite = generate(preset("small", users=2, subtasks_min=6, subtasks_max=6, merchants_min=12, merchants_max=12))
    assert len(suite) == 2 and all(len(u["subtasks"]) == 6 for u in suite)
    sizes = {len(s["environment"].get(c) or {}) for u in suite for s in u["subtasks"]
             for c in ("stores", "shops", "hotels", "trains", "flights", "attractions") if s["environment"].get(c)}
    assert sizes <= {12, 13, 14, 15}
    with pytest.raises(ValueError, match="merchants_min"):
        preset("small", merchants_min=5)
    with pytest.raises(ValueError, match="unknown synth knob"):
        preset("small", colour="blue")
    with pytest.raises(ValueError, match="unknown preset"):
        preset("huge")


def test_paper_preset_matches_the_papers_statistics(paper_bytes):
    stats = suite_stats(json.loads(paper_bytes))
    rows = {row.name: row for row in comparison(stats)}
    for name in CORE:
        assert rows[name].within, f"{name}: ours {rows[name].ours} vs paper {rows[name].paper}"
    assert stats["subtasks"] >= 770 and all(10 <= n <= 20 for n in _subtask_counts(paper_bytes))
    assert stats["proactive_share"] >= 0.15
    for domain, count in PAPER["domain_mix"].items():
        assert abs(stats["domain_mix"][domain] / stats["subtasks"] - count / 771) < 0.02
    for key in ("female_share", "age_20_29_share", "moved_share", "user_specific_share"):
        assert abs(stats[key] - PAPER[key]) / PAPER[key] <= 0.10, key
    for group in ("category_share", "tier_share", "collar_share"):
        for key, value in PAPER[group].items():
            assert abs(stats[group][key] - value) <= 0.02, (group, key)


def _subtask_counts(data: bytes) -> list[int]:
    return [len(u["subtasks"]) for u in json.loads(data)]


def test_shipped_paper_suite_is_the_generators_output(paper_bytes):
    if not PAPER_SUITE.exists():
        pytest.skip("suites/paper/tasks.vita.json.gz is not shipped in this checkout")
    shipped = gzip.decompress(PAPER_SUITE.read_bytes())
    assert hashlib.sha256(shipped).hexdigest() == hashlib.sha256(paper_bytes).hexdigest(), (
        "regenerate: vitabench synth --preset paper --seed 0 -o suites/paper/tasks.vita.json.gz")


def test_shipped_paper_suite_passes_every_rule_strictly():
    if not PAPER_SUITE.exists():
        pytest.skip("suites/paper/tasks.vita.json.gz is not shipped in this checkout")
    report = validate_loaded(load_suite(PAPER_SUITE, strict=True))
    assert report.ok and not report.unchecked, "\n".join(report.summary())
    assert report.subtasks >= 770 and report.checked["target"] == report.subtasks
