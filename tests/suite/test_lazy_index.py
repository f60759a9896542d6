"""Lazy loading: users indexed at collection (spans and outlines, cached per file version), validated on
first use with the same errors and warnings as an eager load."""

from __future__ import annotations

import json

import pytest
from _suites import broken, tiny_suite, write_suite

from pytest_vitabench.suite.index import index_path
from pytest_vitabench.suite.loader import SuiteError, ensure_user, index_variant, load_suite, pack_spans


def test_lazy_outline_equals_the_eager_one_and_the_index_is_cached(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    cache = tmp_path / "cache"
    eager = load_suite(path)
    lazy = load_suite(path, lazy=True, index_dir=cache)
    assert index_path(cache, eager.sha256, index_variant(strict=False)).is_file()
    assert [(u.key, u.outline) for u in lazy.users] == [(u.key, u.outline) for u in eager.users]
    assert all(u.task is None and u.span for u in lazy.users)
    again = load_suite(path, lazy=True, index_dir=cache)  # from the cache: the same outline
    assert [(u.key, u.outline) for u in again.users] == [(u.key, u.outline) for u in eager.users]
    for user in again.users:
        assert ensure_user(again, user) == [] and user.task is not None
    assert [u.task for u in again.users] == [u.task for u in eager.users]
    assert [u.times for u in again.users] == [u.times for u in eager.users]


def test_a_corrupt_or_stale_cache_is_ignored(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    cache = tmp_path / "cache"
    sha = load_suite(path).sha256
    cache.mkdir()
    index_path(cache, sha, index_variant(strict=False)).write_text("{not json", encoding="utf-8")
    lazy = load_suite(path, lazy=True, index_dir=cache)
    assert [u.key for u in lazy.users] == ["U1", "U2"]
    path.write_text(json.dumps(tiny_suite()[:1]), encoding="utf-8")  # a new version of the file: a new key
    assert [u.key for u in load_suite(path, lazy=True, index_dir=cache).users] == ["U1"]


def test_a_bad_user_fails_at_load_with_the_eager_error_and_the_verdict_is_cached(tmp_path):
    data = broken(lambda d: d[1]["subtasks"][0].update(domain="pharmacy"))
    path = write_suite(tmp_path / "tasks.json", data)
    eager_error = load_suite(path).users[1].error
    for _ in range(2):  # validated the first time, read from the cached verdicts the second
        lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
        assert lazy.users[0].error is None and lazy.users[0].task is None  # a valid user: not built yet
        assert lazy.users[1].error is not None and lazy.users[1].error.render() == eager_error.render()
        assert "[1].subtasks[0].domain" in lazy.users[1].error.render()


def test_strictness_has_its_own_cached_verdicts(tmp_path):
    data = tiny_suite()
    data[0]["subtasks"].reverse()  # out of order: a warning, or an error under --vita-strict
    path = write_suite(tmp_path / "tasks.json", data)
    lenient = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    strict = load_suite(path, lazy=True, index_dir=tmp_path / "cache", strict=True)
    assert (lenient.users[0].error is None) != (strict.users[0].error is None) or not lenient.warnings


@pytest.mark.parametrize("text, message", [("[{broken", "not valid JSON (line 1 column 3)"),
                                           ("{}", "expected a JSON list of tasks"), ("[]", "holds no tasks")])
def test_whole_file_problems_are_the_eager_errors(tmp_path, text, message):
    path = tmp_path / "tasks.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SuiteError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_suite(path, lazy=True, index_dir=tmp_path / "cache")


def test_irregular_users_and_duplicates_are_validated_at_load(tmp_path):
    data = tiny_suite()
    data[1]["id"] = "U1"  # a duplicate id
    data.append({"id": "U3", "subtasks": "not a list"})
    path = write_suite(tmp_path / "tasks.json", data)
    lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    assert "duplicate user id 'U1'" in lazy.users[1].error.render()
    assert lazy.users[2].error is not None and "[2]" in lazy.users[2].error.render()


def test_validated_users_beyond_the_limit_are_dropped_unless_pinned(tmp_path):
    from pytest_vitabench.suite.loader import pinned_user

    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    lazy.keep_validated = 1
    first, second = lazy.users
    with pinned_user(lazy, first):
        ensure_user(lazy, second)
        assert first.task is not None  # in flight: kept although over the limit
    ensure_user(lazy, second)
    assert second.task is not None
    ensure_user(lazy, first)  # validating it again drops the least recently used unpinned user
    assert first.task is not None and second.task is None
    ensure_user(lazy, second)
    assert second.task == load_suite(path).users[1].task


def test_a_user_with_a_clean_cached_verdict_is_rebuilt_fast_and_the_same(tmp_path):
    data = tiny_suite()
    data[1]["surprise"] = 1  # an unknown key: a warning, so U2 keeps the full checks
    path = write_suite(tmp_path / "tasks.json", data)
    eager = load_suite(path)
    load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    assert [u.verified for u in lazy.users] == [True, False]
    pack_spans(lazy)
    assert lazy.text == "" and all(u.packed for u in lazy.users)  # spans kept compressed, not the file
    for user in lazy.users:
        ensure_user(lazy, user)
    assert [u.task for u in lazy.users] == [u.task for u in eager.users]
    assert [u.times for u in lazy.users] == [u.times for u in eager.users]


def test_the_language_is_cached_with_the_index(tmp_path):
    from pytest_vitabench.config import RunConfig
    from pytest_vitabench.runner import ItemRunner

    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    first = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    again = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    assert first.language == again.language == "en"
    runner = ItemRunner(RunConfig())
    runner.index_dir = tmp_path / "cache"
    suite = runner.suite(path, lazy=True)
    assert runner.language_for(suite) == "en"
    assert all(u.task is None for u in suite.users)  # told without validating any user


def test_a_held_user_is_pinned_before_it_is_validated(tmp_path):
    # held_user pins first (without the suite lock an event loop must not wait on), then the block validates:
    # a validation of another user in between cannot drop it.
    from pytest_vitabench.suite.loader import held_user, needs_validation

    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    lazy.keep_validated = 1
    first, second = lazy.users
    assert needs_validation(first) and needs_validation(second)
    with held_user(lazy, first):
        ensure_user(lazy, first)
        assert not needs_validation(first)
        ensure_user(lazy, second)  # over the limit: only an unpinned user is dropped
        assert first.task is not None and needs_validation(second)
    assert first.pins == 0
    ensure_user(lazy, second)
    assert needs_validation(first) and not needs_validation(second)  # unpinned now, so it could go


@pytest.mark.parametrize("mutate", [
    lambda data: data[0]["subtasks"][1].update(domain=7),  # in the second subtask
    lambda data: data[0].update(user_profile="not an object"),  # beside the subtasks
    lambda data: (data[0]["subtasks"][0].pop("instruction"), data[0].update(user_profile=[])),  # both
], ids=["subtask", "top-level", "both"])
def test_validating_subtask_by_subtask_reports_pydantic_s_own_problems(tmp_path, mutate):
    # Users are validated a subtask at a time (pydantic holds the interpreter lock per call); bad data is
    # validated again in one piece, so the problems and their JSON paths are those of a whole validation.
    from pydantic import ValidationError

    from pytest_vitabench.suite.loader import _validate_user_task
    from pytest_vitabench.suite.schema import UserTask

    good = tiny_suite()[0]
    assert _validate_user_task(good) == UserTask.model_validate(good)
    bad = broken(mutate)[0]
    with pytest.raises(ValidationError) as whole:
        UserTask.model_validate(bad)
    with pytest.raises(ValidationError) as pieces:
        _validate_user_task(bad)
    assert pieces.value.errors() == whole.value.errors()
    user = load_suite(write_suite(tmp_path / "tasks.json", broken(mutate))).users[0]
    assert user.task is None and user.error is not None


def test_packed_spans_read_back_the_same_users_and_the_file_text_is_dropped(tmp_path):
    import threading

    path = write_suite(tmp_path / "tasks.json", tiny_suite() * 3)  # duplicates: errors, and no span to pack
    eager = load_suite(path)
    lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    assert lazy.text and all(u.packed is None for u in lazy.users)  # collection leaves the packing for later
    lazy.keep_validated = 1  # validated users are dropped and read again from their span: packed or not
    ready = threading.Barrier(2)

    def validate_all() -> None:
        ready.wait()
        for _ in range(20):
            for user in lazy.users:
                ensure_user(lazy, user)

    reader = threading.Thread(target=validate_all)
    reader.start()
    ready.wait()
    pack_spans(lazy)
    reader.join()
    pack_spans(lazy)  # a second call does nothing
    assert lazy.text == ""
    spans = [u.span is not None for u in lazy.users]
    assert [u.packed is not None for u in lazy.users] == spans == [True, True] + [False] * 4
    for user, expected in zip(lazy.users[:2], eager.users[:2], strict=True):
        ensure_user(lazy, user)
        assert user.task == expected.task and user.times == expected.times
