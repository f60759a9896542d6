"""One rule for whether two runs' settings differ: resume, merge and compare all ask runs.identity."""

from __future__ import annotations

import hashlib
import json

from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.options.settings import specs
from pytest_vitabench.runs.identity import DERIVED, settings_differences
from pytest_vitabench.runs.manifest import config_sha256

BASE = {"model": "a", "trials": 4, "plugin_version": "1", "base_url": "http://a/v1", "api_key_env": "K",
        "rpm": 0, "report": "a.json"}


def test_the_declared_scope_decides():
    for item in specs():
        changed = {**BASE, item.name: object()}
        expected = [item.name] if item.meta.scope == "score" else []
        assert settings_differences(BASE, changed) == expected, item.name


def test_the_plugin_version_counts_unless_left_out_and_derived_blocks_never():
    other = {**BASE, "plugin_version": "2", **{key: {"x": 1} for key in DERIVED}}
    assert settings_differences(BASE, other) == ["plugin_version"]
    assert settings_differences(BASE, other, version=False) == []


def test_a_key_this_version_does_not_declare_is_compared():
    assert settings_differences({**BASE, "old_style": "x"}, BASE) == ["old_style"]


def test_the_run_identity_hash_is_the_one_written_before():
    # The hash of a manifest block (score and endpoint settings, the plugin version) leaves out the endpoint:
    # run directories written before keep their identity.
    block = RunConfig.from_options({}).manifest()
    before = {key: value for key, value in block.items() if key not in ("base_url", "api_key_env")}
    canonical = json.dumps(before, sort_keys=True, ensure_ascii=False, default=str)
    assert config_sha256(block) == hashlib.sha256(canonical.encode()).hexdigest()
