"""The disk cache: a cached re-run makes zero requests; keys follow role, model, request and trial seed."""

from __future__ import annotations

import json

import pytest
from _stub_llm import StubLLM

from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.llm.cache import DiskCache, cache_key

SECRET = "sk-test-SECRET-cache-0123456789"
KEY_ENV = "VITA_LLM_TEST_KEY"
MSGS = [{"role": "user", "content": "Is the rubric met?"}]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def make(stub: StubLLM, cache_dir, mode: str = "judge", **overrides) -> LLMClient:
    return LLMClient(LLMSettings(base_url=stub.base_url, api_key_env=KEY_ENV, cache=mode, cache_dir=cache_dir,
                                 backoff_base_s=0.01, backoff_max_s=0.02, **overrides))


def test_a_cached_rerun_makes_zero_requests(stub, tmp_path):
    stub.replies += [{"content": "verdict A"}, {"content": "memory B"}]
    first = make(stub, tmp_path)
    calls = [("judge", 1), ("memory", 1)]
    answers = [first.complete(role, model="m", messages=MSGS, seed=seed, send_seed=False).text
               for role, seed in calls]
    assert answers == ["verdict A", "memory B"] and len(stub.requests) == 2

    rerun = make(stub, tmp_path)  # a new process resuming the run: same directory, fresh client
    again = [rerun.complete(role, model="m", messages=MSGS, seed=seed, send_seed=False) for role, seed in calls]
    assert [c.text for c in again] == answers and all(c.cached for c in again)
    assert len(stub.requests) == 2  # nothing new reached the endpoint
    judge = rerun.ledger.by_role()["judge"]
    # Tokens say what the answer consumed; cost and requests say what this run paid: nothing.
    assert (judge.prompt_tokens, judge.requests, judge.cached_requests, judge.cost) == (11, 0, 1, 0.0)


def test_the_trial_seed_role_model_and_request_all_key_the_cache(stub, tmp_path):
    client = make(stub, tmp_path, mode="all")
    base = dict(model="m", messages=MSGS, seed=1)
    client.complete("judge", **base)
    variants = [dict(base, seed=2), dict(base, model="m2"), dict(base, messages=[{"role": "user", "content": "x"}]),
                dict(base, temperature=0.7)]
    for variant in variants:
        assert not client.complete("judge", **variant).cached
    assert not client.complete("agent", **base).cached  # same request, other role
    assert len(stub.requests) == 6
    assert client.complete("judge", **base).cached and len(stub.requests) == 6


def test_the_trial_seed_keys_the_cache_even_when_not_sent(stub, tmp_path):
    client = make(stub, tmp_path)
    client.complete("judge", model="m", messages=MSGS, seed=1, send_seed=False)
    client.complete("judge", model="m", messages=MSGS, seed=2, send_seed=False)
    assert len(stub.requests) == 2 and "seed" not in stub.requests[0]


@pytest.mark.parametrize("mode, cached_roles", [("judge", {"judge", "memory", "embeddings"}),
                                                ("all", {"agent", "user", "judge", "memory", "embeddings"}),
                                                ("off", set())])
def test_cache_modes(stub, tmp_path, mode, cached_roles):
    client = make(stub, tmp_path, mode=mode)
    hits = set()
    for role in ("agent", "user", "judge", "memory"):
        client.complete(role, model="m", messages=MSGS, seed=0)
        if client.complete(role, model="m", messages=MSGS, seed=0).cached:
            hits.add(role)
    client.embed(model="e", texts=["t"])
    before = len(stub.requests)
    client.embed(model="e", texts=["t"])
    if len(stub.requests) == before:
        hits.add("embeddings")
    assert hits == cached_roles


def test_no_cache_dir_means_no_cache(stub):
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env=KEY_ENV, cache="all"))
    client.complete("judge", model="m", messages=MSGS)
    assert not client.complete("judge", model="m", messages=MSGS).cached and len(stub.requests) == 2


def test_errors_are_never_cached(stub, tmp_path):
    stub.replies += [(400, {"error": {"message": "bad"}}), {"content": "good"}]
    client = make(stub, tmp_path)
    with pytest.raises(Exception, match="HTTP 400"):
        client.complete("judge", model="m", messages=MSGS)
    assert not list(tmp_path.rglob("*.json"))
    assert client.complete("judge", model="m", messages=MSGS).text == "good"
    assert client.complete("judge", model="m", messages=MSGS).cached and len(stub.requests) == 2


def test_a_corrupted_entry_is_a_miss_and_is_replaced(stub, tmp_path):
    stub.replies += [{"content": "one"}, {"content": "two"}]
    client = make(stub, tmp_path)
    client.complete("judge", model="m", messages=MSGS)
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text('{"v": 1, "value": {"mess')  # a torn write from some other tool
    assert client.complete("judge", model="m", messages=MSGS).text == "two" and len(stub.requests) == 2
    assert json.loads(entry.read_text())["value"]["message"]["content"] == "two"
    assert client.complete("judge", model="m", messages=MSGS).cached


def test_entries_are_sharded_atomic_explainable_and_keyless(stub, tmp_path):
    client = make(stub, tmp_path)
    client.complete("judge", model="m", messages=MSGS, seed=5, extra_headers={"api-key": SECRET})
    (entry,) = tmp_path.rglob("*.json")
    key = entry.stem
    assert entry.parent.name == key[2:4] and entry.parent.parent.name == key[:2]
    assert entry.parent.parent.parent == tmp_path / "llm"  # the store's llm namespace
    data = json.loads(entry.read_text())
    assert data["meta"]["role"] == "judge" and data["meta"]["trial_seed"] == 5 and data["key"] == key
    assert not list(tmp_path.rglob("*.tmp"))
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text()


def test_key_ignores_transport_settings_and_is_stable():
    kwargs = dict(kind="chat", role="judge", endpoint="http://h/v1", model="m", trial_seed=3)
    plain = cache_key(request={"model": "m", "messages": MSGS}, **kwargs)
    assert plain == cache_key(request={"messages": MSGS, "model": "m", "timeout": 5,
                                       "extra_headers": {"api-key": "x"}}, **kwargs)
    assert plain != cache_key(request={"model": "m", "messages": MSGS, "extra_body": {"a": 1}}, **kwargs)
    # The same on every run, process and Python version: a resumed run must find yesterday's entries.
    assert plain == "b31f6c8e4c87d353c647d86ad7d21e55573c38f3deddfce365947ce91139c511"


def test_disk_cache_roundtrip_and_garbage(tmp_path):
    cache = DiskCache(tmp_path)
    assert cache.get_dict("ab" * 32) is None
    cache.put_json("ab" * 32, {"x": 1}, meta={"role": "judge"})
    assert cache.get_dict("ab" * 32) == {"x": 1}
    cache.path("cd" * 32).parent.mkdir(parents=True)
    cache.path("cd" * 32).write_text("[1, 2]")
    assert cache.get_dict("cd" * 32) is None
