"""``write_atomic``: the one way the plugin replaces a file that others may be reading."""

from __future__ import annotations

import os
import stat

import pytest

from pytest_vitabench.store.atomic_file import write_atomic


@pytest.mark.parametrize("durable", [False, True])
def test_replaces_the_file_and_leaves_no_temporary(tmp_path, durable):
    target = tmp_path / "report.json"
    target.write_bytes(b"old")
    write_atomic(target, b"new", durable=durable)
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_takes_a_plain_str_path(tmp_path):
    write_atomic(os.path.join(tmp_path, "blob.json.gz"), b"\x1f\x8b")
    assert (tmp_path / "blob.json.gz").read_bytes() == b"\x1f\x8b"


def test_the_file_mode_follows_the_umask_not_tempfiles_private_mode(tmp_path):
    previous = os.umask(0o022)
    try:
        write_atomic(tmp_path / "shared", b"x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o644


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "index.json"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomic(target, "text, not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["index.json"]


def test_a_missing_folder_is_an_oserror_naming_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        write_atomic(tmp_path / "missing" / "file", b"x")
    assert list(tmp_path.iterdir()) == []
