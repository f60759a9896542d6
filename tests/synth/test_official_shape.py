"""Suites written by ``vitabench synth`` load in the official harness unchanged (our extension fields ignored).

Every generated field the official data model knows is checked against its type there
(``tests/_official_model.py``): the user, each subtask, its user scenario and criteria, and
the domain database after the official allow-list.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from _official_model import DOMAIN_DB, PersonalizationTask, UserScenario, load_like_official
from _paths import REPO_ROOT
from pydantic import ValidationError

from pytest_vitabench.synth.curated import build_demo_suite

PAPER = REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz"


def test_small_generated_suite_loads_in_the_official_model(small_suite: list[dict[str, Any]]) -> None:
    tasks = load_like_official(small_suite)
    assert len(tasks) == len(small_suite)
    subtasks = [sub for task in tasks for sub in task.subtasks]
    assert subtasks and all(sub.user_scenario is not None for sub in subtasks)
    assert {sub.domain for sub in subtasks} == set(DOMAIN_DB)


def test_profile_values_are_strings_lists_or_objects(small_suite: list[dict[str, Any]]) -> None:
    for user in small_suite:
        for sub in user["subtasks"]:
            for key, value in sub["user_scenario"]["user_profile"].items():
                assert isinstance(value, (str, list, dict)), (user["id"], key, value)
        assert user["user_profile"]["owns_car"] in ("yes", "no")


def test_demo_suite_loads_in_the_official_model() -> None:
    assert load_like_official(build_demo_suite())


def test_shipped_paper_suite_loads_in_the_official_model() -> None:
    users = json.loads(gzip.decompress(PAPER.read_bytes()))
    assert len(load_like_official(users)) == 56


def test_the_official_model_rejects_what_the_official_loader_rejects(small_copy: list[dict[str, Any]]) -> None:
    """The checker is not vacuous: a boolean profile value (what used to break the paper suite), a
    string where a list belongs, and an extra database key all fail as they do in the official harness."""
    with pytest.raises(ValidationError, match="user_profile"):
        UserScenario.model_validate({"user_profile": {"owns_car": False}})
    user = small_copy[0]
    user["subtasks"][0]["skill_tested"] = "proactive"
    with pytest.raises(ValidationError, match="skill_tested"):
        PersonalizationTask.model_validate(user)
    sub = small_copy[1]["subtasks"][0]
    env = {k: v for k, v in sub["environment"].items() if k in DOMAIN_DB[sub["domain"]].model_fields}
    env["time"] = 20250101
    with pytest.raises(ValidationError, match="time"):
        DOMAIN_DB[sub["domain"]].model_validate(env)
