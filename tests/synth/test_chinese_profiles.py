"""The validator and the statistics on Chinese data in the VitaBench 2.0 schema (issue 32, point 8).

``tests/data/zh_official_schema.json`` is written for these tests: three users with the profile keys of the
official data (性别, 出生日期, 长期疾病/过敏史 ...) plus city tier, collar and consumption labels, each with a
hotel and a delivery subtask in the plain 2.0 shape (no machine checks).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.synth.profile_fields import allergens, is_none, profile_label
from pytest_vitabench.synth.stats import suite_stats

ZH = REPO_ROOT / "tests" / "data" / "zh_official_schema.json"


def _validate(path, *extra):
    done = subprocess.run([sys.executable, "-m", "pytest_vitabench.commands.cli", "validate", str(path), "--strict",
                           *extra], capture_output=True, text=True, check=False, timeout=300)
    return done.returncode, done.stdout


def _write(tmp_path, mutate):
    data = json.loads(ZH.read_text(encoding="utf-8"))
    mutate(data)
    path = tmp_path / "zh.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("key", ["长期疾病/过敏史", "allergies", "过敏史"])
def test_a_none_allergy_in_chinese_is_no_allergen_and_a_non_smoking_room_contradicts_nothing(tmp_path, key):
    def rename(data):
        for user in data:
            user["user_profile"][key] = user["user_profile"].pop("长期疾病/过敏史")
    status, out = _validate(_write(tmp_path, rename), "--no-stats")
    assert status == 0, out
    assert "profile      ok (2 checked)" in out  # only the peanut-allergic user has an allergen
    assert "contradicts" not in out and "passes validation" in out


def test_a_real_chinese_allergen_is_still_caught_in_orders_and_in_the_ground_truth(tmp_path):
    def peanuts(data):
        user = data[2]  # 花生过敏
        first = user["subtasks"][0]
        first["interactions"][0]["behavior"][0]["content"]["items"][0]["product_name"] = "花生米拌面"
        user["subtasks"][1]["user_scenario"]["personalized_preference_memory"]["current"]["饮食"] = ["喜欢花生酱"]
    status, out = _validate(_write(tmp_path, peanuts), "--no-stats")
    assert status == 1
    assert "the user orders '花生' for themself" in out
    assert "ground truth '喜欢花生酱' contradicts the '花生' allergy" in out
    assert "不吃花生" not in out  # a tag that keeps the allergen away is no contradiction


def test_profile_statistics_count_the_chinese_labels():
    stats = suite_stats(json.loads(ZH.read_text(encoding="utf-8")))
    third = pytest.approx(1 / 3)
    assert stats["female_share"] == pytest.approx(2 / 3)
    assert stats["tier_share"] == {"emerging first-tier": third, "first-tier": third, "lower-tier": third}
    assert stats["collar_share"] == {"white-collar": third, "blue-collar": third, "gray-collar": third}
    assert stats["consumption_share"] == {"high": third, "medium": third, "low": third}
    assert stats["born_after_1990_share"] == 1.0 and stats["mean_age"] > 20
    # "无" and "没有" in the ground truth are no preferences (11 when they counted); of the 4 tags held, 无烟房 is
    # everyone's
    assert stats["preferences"] == 9 and stats["user_specific_share"] == pytest.approx(3 / 4)


def test_a_field_no_profile_states_is_absent_not_zero():
    data = json.loads(ZH.read_text(encoding="utf-8"))
    for user in data:
        for key in ("城市等级", "职业类型", "消费水平", "出生日期"):
            user["user_profile"].pop(key)
    stats = suite_stats(data)
    assert set(stats["tier_share"].values()) == {None} and stats["mean_age"] is None
    assert stats["female_share"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("value", [
    "无", "没有", "暂无", "none", "None.", "N/A", "n/a", "不适用", "No known allergies", "无过敏史", "没有任何过敏",
    "暂无过敏", "无（已知）", "nil", "Not applicable", "未发现过敏", "无特殊", ["暂无"], [], "", None, "否", "unknown",
])
def test_none_in_either_language_phrased_many_ways(value):
    assert is_none(value)
    assert allergens({"长期疾病/过敏史": copy.deepcopy(value)}) == []


@pytest.mark.parametrize("value", ["无烟房", "无糖", "no sugar", "花生过敏", "peanut allergy", "gout", "company",
                                   "芒果"])
def test_a_value_that_states_something_is_not_none(value):
    assert not is_none(value)


@pytest.mark.parametrize("field, profile, label", [
    ("gender", {"性别": "女"}, "female"), ("gender", {"性别": "男性"}, "male"), ("gender", {"gender": "male"}, "male"),
    ("gender", {"gender": "Female"}, "female"), ("gender", {"性别": "无"}, None),
    ("city_tier", {"城市等级": "新一线城市"}, "emerging first-tier"), ("city_tier", {"城市级别": "一线"}, "first-tier"),
    ("city_tier", {"城市线级": "四线城市"}, "lower-tier"), ("city_tier", {"city_tier": "first-tier"}, "first-tier"),
    ("occupation_type", {"职业类型": "白领"}, "white-collar"), ("occupation_type", {"职业类别": "灰领"}, "gray-collar"),
    ("consumption_level", {"消费水平": "低"}, "low"), ("consumption_level", {"消费等级": "中等"}, "medium"),
    ("consumption_level", {"consumption_level": "high"}, "high"),
])
def test_profile_labels_in_either_language(field, profile, label):
    assert profile_label(profile, field) == label
