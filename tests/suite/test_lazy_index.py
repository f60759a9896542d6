"""Lazy loading: users indexed at collection (spans and outlines, cached per file version), validated on
first use with the same errors and warnings as an eager load."""

from __future__ import annotations

import copy
import json

import pytest
from _suites import broken, tiny_suite, write_suite

from pytest_vitabench.suite.index import index_path
from pytest_vitabench.suite.loader import (
    KEPT_USERS,
    SuiteError,
    _validate,
    ensure_user,
    held_user,
    index_variant,
    load_suite,
)


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
        ensure_user(again, user)
        assert user.task is not None and user.warnings == []
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


@pytest.mark.parametrize("text, message", [("[{broken", "not valid JSON: expecting property name enclosed in double "
                                                        "quotes at line 1 column 3"),
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


def test_a_user_with_a_cached_verdict_is_rebuilt_the_same(tmp_path):
    data = tiny_suite()
    data[1]["surprise"] = 1  # an unknown key: a warning
    path = write_suite(tmp_path / "tasks.json", data)
    eager = load_suite(path)
    load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    for user in lazy.users:
        ensure_user(lazy, user)
    assert [u.task for u in lazy.users] == [u.task for u in eager.users]
    assert [u.times for u in lazy.users] == [u.times for u in eager.users]


def test_the_language_is_cached_with_the_index(tmp_path):
    from pytest_vitabench.options.config import RunConfig
    from pytest_vitabench.run.runner import ItemRunner

    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    first = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    again = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    assert first.language == again.language == "en"
    runner = ItemRunner(RunConfig())
    runner.index_dir = tmp_path / "cache"
    suite = runner.suite(path, lazy=True)
    assert runner.language_for(suite) == "en"
    assert all(u.task is None for u in suite.users)  # told without validating any user


def test_unheld_users_beyond_the_bound_go_back_to_their_span_and_come_back_the_same(tmp_path):
    data = []
    for n in range(KEPT_USERS + 3):
        user = copy.deepcopy(tiny_suite()[0])
        user["id"], user["surprise"] = f"U{n}", n  # an unknown key: each user has a warning
        data.append(user)
    path = write_suite(tmp_path / "tasks.json", data)
    eager = load_suite(path)
    suite = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    warned = list(suite.warnings)
    first, *others = suite.users
    with held_user(suite, first) as held:
        for user in others:  # every other user held and released in turn: the held one stays parsed
            with held_user(suite, user) as task:
                assert task == eager.users[user.index].task
            assert first.task is held
    # the least recently held went back to their span (the first was released last)
    assert [u.task is not None for u in suite.users] == [True] + [False] * 3 + [True] * (KEPT_USERS - 1)
    second = suite.users[1]
    with held_user(suite, second) as again:  # validated again from its span: the same task and warnings
        assert again == eager.users[1].task and second.warnings == [w for w in warned if "[1] " in w] != []
    assert suite.warnings == warned  # reported once, at load


def test_a_suite_keeps_as_many_unheld_users_as_it_is_told(tmp_path):
    # the engine raises kept_users to its episodes in flight: chains released between items are not parsed again
    data = []
    for n in range(KEPT_USERS + 3):
        user = copy.deepcopy(tiny_suite()[0])
        user["id"] = f"U{n}"
        data.append(user)
    suite = load_suite(write_suite(tmp_path / "tasks.json", data), lazy=True, index_dir=tmp_path / "cache")
    suite.kept_users = KEPT_USERS + 3
    for user in suite.users:
        with held_user(suite, user):
            pass
    assert all(u.task is not None for u in suite.users)


def test_users_the_index_found_valid_come_back_as_the_eager_load_has_them(tmp_path):
    # parsed again without the integrity checks: the same models, times, outline and warnings
    import gzip

    from _paths import REPO_ROOT

    data = json.loads(gzip.open(REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz").read())[:3]
    data[1]["subtasks"][0]["environment"]["time"] = ""  # falls back on current_time, with a warning
    data[2]["surprise"] = 1  # an unknown key, with a warning
    path = write_suite(tmp_path / "tasks.json", data)
    eager = load_suite(path)
    for attempt in ("fresh index", "cached index"):
        lazy = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
        for user, expected in zip(lazy.users, eager.users, strict=True):
            assert user.checked, attempt
            ensure_user(lazy, user)
            assert (user.task, user.times, user.outline, user.error) == \
                (expected.task, expected.times, expected.outline, None), attempt
            checked_alone = _validate(path, user.index, data[user.index], False)[1]
            assert user.warnings == checked_alone and (user.index == 0 or checked_alone), attempt
