"""VitaBench 1.0 domain labels: known labels map, unknown ones are inferred from the environment."""

from __future__ import annotations

import json

import pytest
from _official_shape import VB1_INSTORE

from pytest_vitabench.suite.domain_labels import vb1_domain
from pytest_vitabench.suite.loader import load_suite


@pytest.mark.parametrize("label, expected", [
    ("delivery", "delivery"), ("in-store consumption", "instore"), ("in-store", "instore"),
    ("In Store", "instore"), ("instore_consumption", "instore"), ("到店", "instore"), ("到店消费", "instore"),
    ("外卖", "delivery"), ("OTA", "ota"), ("travel", "ota"), ("delivery, in-store", "delivery,instore"),
])
def test_known_labels(label, expected):
    assert vb1_domain(label, {}) == expected


@pytest.mark.parametrize("environment, expected", [
    ({"shops": {"S": {}}}, "instore"), ({"stores": {"S": {}}}, "delivery"),
    ({"hotels": {"H": {}}, "trains": {}}, "ota"), ({"stores": {"S": {}}, "flights": {"F": {}}}, "delivery,ota"),
])
def test_unknown_labels_are_inferred_from_the_containers(environment, expected):
    assert vb1_domain("lifestyle services", environment) == expected
    assert vb1_domain(None, environment) == expected


def test_unknown_label_without_containers_is_an_error():
    with pytest.raises(ValueError, match="unknown VitaBench 1.0 domain label 'mystery'"):
        vb1_domain("mystery", {"stores": {}, "time": "2025-01-01 00:00:00"})


def test_every_label_of_the_instore_fixture_loads():
    raw = json.loads(VB1_INSTORE.read_text(encoding="utf-8"))
    assert [t["domain"] for t in raw] == ["in-store consumption", "in-store", "到店", "lifestyle services"]
    suite = load_suite(VB1_INSTORE)
    assert all(u.task is not None for u in suite.users), [u.error for u in suite.users]
    assert [u.task.subtasks[0].domain for u in suite.users] == ["instore"] * 4


def test_a_1_0_task_with_an_unusable_label_fails_at_its_domain(tmp_path):
    raw = json.loads(VB1_INSTORE.read_text(encoding="utf-8"))[:1]
    raw[0]["domain"] = "mystery"
    raw[0]["environment"].pop("shops")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    user = load_suite(path).users[0]
    assert user.task is None and user.error is not None
    assert user.error.problems[0][0] == "[0].domain" and "unknown domain 'mystery'" in user.error.problems[0][1]
