"""The split of a run into shards: which shard a process is, which chains it runs, its part of the limits."""

from __future__ import annotations

import pytest

from pytest_vitabench.llm.settings import settings_for_run
from pytest_vitabench.options.config import Shard, ShardError, resolve_shard
from pytest_vitabench.options.parts import EndpointSettings
from pytest_vitabench.options.values import shard as parse_shard
from pytest_vitabench.run.shard import Chain, assign_chains, shard_loads


def test_an_explicit_shard_wins_over_the_job_runner():
    env = {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8", "JOB_COMPLETION_INDEX": "0"}
    assert resolve_shard("2/4", env) == Shard(2, 4, "--vita-shard")
    assert resolve_shard("off", env) is None


def test_slurm_arrays_count_from_their_first_task():
    shard = resolve_shard("auto", {"SLURM_ARRAY_TASK_ID": "10", "SLURM_ARRAY_TASK_MIN": "10",
                                   "SLURM_ARRAY_TASK_COUNT": "4"})
    assert (shard.index, shard.count) == (1, 4) and "SLURM" in shard.source
    assert resolve_shard("auto", {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"}).index == 4
    assert resolve_shard("auto", {}) is None


def test_an_indexed_job_needs_its_count_and_counts_from_zero():
    assert resolve_shard("auto/3", {"JOB_COMPLETION_INDEX": "2"}) == Shard(3, 3, resolve_shard(
        "auto/3", {"JOB_COMPLETION_INDEX": "2"}).source)
    with pytest.raises(ShardError, match="auto/N"):
        resolve_shard("auto", {"JOB_COMPLETION_INDEX": "2"})
    with pytest.raises(ShardError, match="outside 1..3"):
        resolve_shard("auto/3", {"JOB_COMPLETION_INDEX": "3"})
    with pytest.raises(ShardError, match="JOB_COMPLETION_INDEX must be a whole number"):
        resolve_shard("auto/3", {"JOB_COMPLETION_INDEX": "two"})
    with pytest.raises(ShardError, match="no job runner index"):
        resolve_shard("auto/3", {})


@pytest.mark.parametrize("bad", ["1", "0/4", "5/4", "a/b", "1/2/3", "-1/2", "2/0"])
def test_bad_shard_values_name_the_option(bad):
    with pytest.raises(ValueError, match="--vita-shard"):
        parse_shard("--vita-shard", bad)


def test_every_chain_goes_to_exactly_one_shard_the_same_whatever_the_order():
    chains = [Chain(("s.json", f"U{u}", m), items=2 * (1 + u % 5), history_size=1000 * (1 + u % 3))
              for u in range(30) for m in ("none", "rag")]
    split = assign_chains(chains, 4)
    assert set(split) == {c.key for c in chains} and set(split.values()) == {1, 2, 3, 4}
    assert assign_chains(list(reversed(chains)), 4) == split  # no coordination: the order of arrival is moot
    loads = shard_loads(chains, 4)
    assert max(loads) / (sum(loads) / 4) < 1.05  # balanced by expected work


def test_a_longer_history_weighs_more():
    light, heavy = Chain(("s", "A", "m"), 10, 100), Chain(("s", "B", "m"), 10, 10_000)
    a, b = shard_loads([light, heavy], 2)
    assert sorted([a, b])[0] < sorted([a, b])[1]


def test_each_shard_gets_its_part_of_the_limits_unless_redis_holds_them(tmp_path):
    def part(shard: Shard | None, **limits: object):
        endpoint = EndpointSettings(**{"rpm": 100, "max_concurrency": 10, "tpm": 40_000, **limits})
        return settings_for_run(endpoint, rootdir=tmp_path, shard=shard)

    quarter = part(Shard(1, 4))
    assert (quarter.rpm, quarter.max_concurrency, quarter.tpm) == (25, 3, 10_000)  # rounded up: no shard gets nothing
    assert part(None).rpm == 100 and part(Shard(1, 1)).rpm == 100
    assert part(Shard(1, 4), rpm=0).rpm is None  # unlimited stays unlimited
    shared = part(Shard(1, 4), limits_url="redis://127.0.0.1:1/0")
    assert (shared.rpm, shared.max_concurrency) == (100, 10)
    assert shared.tpm == 10_000  # Redis does not hold the token budget


def test_a_share_keeps_whole_chains_and_other_tests_on_the_first_shard():
    from pytest_vitabench.run.shard import take_share

    items = [(user, memory, trial) for user in "ABCDE" for memory in ("none", "rag") for trial in range(3)]
    items.append(("other test", "", 0))

    def chain_of(item):
        return None if item[0] == "other test" else (("s.json", item[0], item[1]), 100)

    shares = [take_share(items, Shard(i, 3), chain_of) for i in (1, 2, 3)]
    kept = [item for share in shares for item in share.kept]
    assert sorted(kept) == sorted(items)  # every item on exactly one shard
    assert ("other test", "", 0) in shares[0].kept
    for share in shares:
        assert share.selected_in_run == 30 and share.selected_here == sum(1 for i in share.kept if i[1])
        chains = {(u, m) for u, m, _ in share.kept if m}
        assert all(sum(1 for i in share.kept if (i[0], i[1]) == c) == 3 for c in chains)  # all 3 trials together
