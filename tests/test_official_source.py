"""``--vita-official-source``: finding the user's copy of the official harness and reading its wording."""

from __future__ import annotations

import hashlib

import pytest
from _fake_official import make_checkout
from _side_by_side import OFFICIAL_SOURCE

from pytest_vitabench.official.source import (
    OfficialSourceError,
    literal_assignment,
    locate,
    read_prompt_file,
)


@pytest.fixture
def checkout(tmp_path):
    return make_checkout(tmp_path / "VitaBench-2.0")


def test_none_means_our_own_wording():
    assert locate("none") is None and locate(None) is None and locate(" NONE ") is None


@pytest.mark.parametrize("where", ["", "src", "src/vita"])
def test_a_checkout_its_src_or_its_package_directory_is_found(checkout, where):
    source = locate(str(checkout / where) if where else str(checkout))
    assert source is not None and source.package_dir == (checkout / "src" / "vita").resolve()
    assert source.found_as == ("package directory" if where == "src/vita" else "checkout")


def test_block_literals_are_read_as_yaml_reads_them(checkout):
    source = locate(str(checkout))
    assert source.prompt("full_trajectory_eval_template", "en") == ("English full judge {env_info} "
                                                                    "{user_instruction}\nsecond line\n")
    assert source.prompt("full_trajectory_eval_template", "zh") == ("中文 full judge {env_info} {user_instruction}"
                                                                    "\n\n  indented line")
    assert read_prompt_file(checkout / "src/vita/prompts/memory_update_prompt.yaml")["name"] == "memory_update_prompt"


def test_tool_descriptions_are_parsed_never_executed(checkout):
    source = locate(str(checkout))
    assert source.tool_descriptions("ota", "en")["find_things"]["description"] == "Find things"
    assert source.tool_descriptions("ota", "en")["find_things"]["args"] == {"keywords": "words"}
    assert source.tool_descriptions("delivery", "zh")["find_things"]["description"] == "找东西"
    assert not list(checkout.rglob("EXECUTED"))


def test_the_version_is_the_sha256_of_the_files_read_and_follows_them(checkout):
    source = locate(str(checkout))
    first = source.version
    assert first.startswith("sha256 ") and len(first.split()[1]) == 64
    assert locate(str(checkout)).version == first
    (checkout / "src/vita/prompts/memory_update_prompt.yaml").write_text("english: |-\n  changed\nchinese: x\n")
    assert locate(str(checkout)).version != first


def test_the_version_of_a_git_checkout_is_its_commit(checkout):
    commit = hashlib.sha1(b"x").hexdigest()
    git = checkout / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text(commit + "\n")
    assert locate(str(checkout)).version == f"git {commit}"
    (git / "refs" / "heads" / "main").unlink()
    (git / "packed-refs").write_text(f"# pack-refs\n{commit} refs/heads/main\n")
    assert locate(str(checkout)).describe()["version"] == f"git {commit}"


def test_auto_takes_the_environment_variable_first(checkout, monkeypatch):
    monkeypatch.setenv("VITA_OFFICIAL_SOURCE", str(checkout))
    assert locate("auto").package_dir == (checkout / "src" / "vita").resolve()
    monkeypatch.setenv("VITA_OFFICIAL_SOURCE", "none")
    assert locate("auto") is None
    monkeypatch.setenv("VITA_OFFICIAL_SOURCE", "auto")
    with pytest.raises(OfficialSourceError, match="VITA_OFFICIAL_SOURCE must be a directory or none"):
        locate("auto")


def test_auto_finds_the_installed_package_without_importing_it(checkout, monkeypatch):
    monkeypatch.delenv("VITA_OFFICIAL_SOURCE")
    monkeypatch.syspath_prepend(str(checkout / "src"))
    source = locate("auto")  # its __init__ raises SystemExit: finding it must not run it
    assert source.found_as == "installed package" and source.package_dir == (checkout / "src" / "vita").resolve()


def test_auto_without_an_installed_harness_says_what_it_looked_for(monkeypatch):
    monkeypatch.delenv("VITA_OFFICIAL_SOURCE")
    with pytest.raises(OfficialSourceError, match="no installed 'vita' package .*--vita-official-source DIR"):
        locate("auto")


def test_an_unrelated_vita_package_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("VITA_OFFICIAL_SOURCE")
    (tmp_path / "vita").mkdir()
    (tmp_path / "vita" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(OfficialSourceError, match="has no prompts/ and domains/: it is not the official"):
        locate("auto")


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(OfficialSourceError, match=f"{tmp_path / 'nowhere'}: no such directory"):
        locate(str(tmp_path / "nowhere"))


def test_a_directory_that_is_no_harness_says_where_it_looked(tmp_path):
    with pytest.raises(OfficialSourceError, match=r"not the official VitaBench 2.0 harness \(looked for prompts/"):
        locate(str(tmp_path))


def test_a_missing_prompt_file_is_named(checkout):
    (checkout / "src/vita/prompts/sliding_window_eval_template.yaml").unlink()
    with pytest.raises(OfficialSourceError, match="sliding_window_eval_template.yaml"):
        locate(str(checkout))


def test_a_prompt_without_the_language_is_named(checkout):
    (checkout / "src/vita/prompts/memory_update_prompt.yaml").write_text("english: |-\n  only english\n")
    with pytest.raises(OfficialSourceError, match="memory_update_prompt.yaml: no 'chinese' text"):
        locate(str(checkout))


@pytest.mark.parametrize("text, message", [
    ("name: [x\n", r"cannot read the official prompt file .*p.yaml"),
    ("- a list item\n", r"p.yaml: not a YAML mapping"),
])
def test_a_prompt_file_that_is_no_yaml_mapping_is_named(tmp_path, text, message):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(OfficialSourceError, match=message):
        read_prompt_file(path)


@pytest.mark.parametrize("text, message", [
    ("TOOL_DESCRIPTIONS_EN = {", "cannot read the official tool descriptions"),
    ("OTHER = {}\n", "no module-level TOOL_DESCRIPTIONS_EN"),
    ("TOOL_DESCRIPTIONS_EN = dict(a=1)\n", ":1: TOOL_DESCRIPTIONS_EN is not a literal dictionary"),
    ("TOOL_DESCRIPTIONS_EN = [1]\n", ":1: TOOL_DESCRIPTIONS_EN is not a dictionary"),
])
def test_unreadable_tool_descriptions_are_named(tmp_path, text, message):
    path = tmp_path / "tools_schema.py"
    path.write_text(text)
    with pytest.raises(OfficialSourceError, match=message):
        literal_assignment(path, "TOOL_DESCRIPTIONS_EN")


def test_the_official_checkout_is_read_whole():
    if not OFFICIAL_SOURCE.is_dir():
        pytest.skip(f"the official harness is not at {OFFICIAL_SOURCE} (needs ../shared beside the clone)")
    source = locate(str(OFFICIAL_SOURCE))
    assert source.found_as == "checkout"
    for domain in ("delivery", "instore", "ota"):
        descriptions = source.tool_descriptions(domain, "en")
        assert descriptions and all("description" in d for d in descriptions.values()), domain
    assert "{time}" in source.prompt("personalization_agent_system_prompt", "en")


@pytest.mark.parametrize("own_project_file", [True, False])
def test_a_repository_that_only_contains_the_copy_is_not_its_version(tmp_path, own_project_file):
    # The copy vendored inside some other project's git repository: that repository's commit changes with
    # commits that have nothing to do with the harness.
    enclosing = tmp_path / ".git"
    (enclosing / "refs" / "heads").mkdir(parents=True)
    (enclosing / "HEAD").write_text("ref: refs/heads/main\n")
    (enclosing / "refs" / "heads" / "main").write_text(hashlib.sha1(b"unrelated").hexdigest() + "\n")
    checkout = make_checkout(tmp_path / "vendor" / "VitaBench-2.0")
    if own_project_file:
        (checkout / "pyproject.toml").write_text('[project]\nname = "vita"\nversion = "0.0.1"\n')
    version = locate(str(checkout)).version
    assert version.startswith("sha256 ") and "unrelated" not in version
    assert version != f"git {hashlib.sha1(b'unrelated').hexdigest()}"


def test_a_package_without_its_files_has_an_unknown_version(checkout):
    source = locate(str(checkout))
    (checkout / "src/vita/domains/ota/tools_schema.py").unlink()
    assert source.version == "unknown"
