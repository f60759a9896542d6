"""Prefix rebuilding: a late subtask selected alone gets its memory from checkpoints, not replays."""

from __future__ import annotations

from _fake_embedder import BagOfWords
from _paths import REPO_ROOT

from pytest_vitabench.embeddings import CachedEmbedder, EmbeddingCache
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.memory.agentic import AgenticMemory
from pytest_vitabench.memory.base import MemoryContext, is_checkpointable
from pytest_vitabench.memory.full_context import FullContextMemory
from pytest_vitabench.memory.rag import RagMemory
from pytest_vitabench.memory.snapshots import SnapshotStore, advance, settings_of, snapshot_key
from pytest_vitabench.suite.loader import load_suite

SUITE = load_suite(REPO_ROOT / "suites" / "demo" / "tasks.json")
USER = SUITE.users[0]


def build(memory, index: int, store: SnapshotStore | None, backend: str, trial: int = 0) -> None:
    """What ``ItemRunner.memory_for`` does for a fresh chain, with the checkpoint store."""
    task = USER.task

    def step(j: int) -> None:
        sub = task.subtasks[j]
        memory.update(list(sub.interactions), MemoryContext(user_id=task.user_id, subtask_id=sub.subtask_id,
                                                            now=USER.times[j], trial=trial, seed=trial))

    def key_for(j: int) -> str:
        return snapshot_key(suite_sha256=SUITE.sha256, user_id=USER.key, index=j, backend=backend, trial=trial,
                            settings=settings_of(memory))

    assert advance(memory, next_index=0, index=index, update=step, store=store, key_for=key_for) == index + 1


def test_late_subtask_alone_costs_nothing_the_second_time(stub, tmp_path):
    assert all(sub.interactions for sub in USER.task.subtasks)
    client = LLMClient(LLMSettings(base_url=stub.base_url, max_retries=0))  # LLM cache off: only checkpoints help
    stub.replies += [{"content": f"memory after subtask {j}"} for j in range(5)]
    store = SnapshotStore(tmp_path / "memory")

    first = AgenticMemory(llm_client=client, memory_model="m")
    build(first, 3, store, "agentic")  # "-k s4" in a cold run: the prefix is rebuilt from the interactions
    assert len(stub.requests) == 4 and first.read() == "memory after subtask 3" and store.saves == 4

    again = AgenticMemory(llm_client=client, memory_model="m")
    build(again, 3, store, "agentic")  # the same selection again: one checkpoint read, no call
    assert len(stub.requests) == 4 and again.read() == first.read() and store.loads == 1

    later = AgenticMemory(llm_client=client, memory_model="m")
    build(later, 4, store, "agentic")  # the next subtask: resumes from subtask 3, one update
    assert len(stub.requests) == 5 and later.read() == "memory after subtask 4"
    assert "memory after subtask 3" in stub.requests[4]["messages"][1]["content"]

    earlier = AgenticMemory(llm_client=client, memory_model="m")
    build(earlier, 1, store, "agentic")
    assert earlier.read() == "memory after subtask 1" and len(stub.requests) == 5


def test_checkpoints_are_per_trial_model_and_suite(stub, tmp_path):
    client = LLMClient(LLMSettings(base_url=stub.base_url, max_retries=0))
    store = SnapshotStore(tmp_path)
    build(AgenticMemory(llm_client=client, memory_model="m"), 0, store, "agentic", trial=0)
    build(AgenticMemory(llm_client=client, memory_model="m"), 0, store, "agentic", trial=1)
    build(AgenticMemory(llm_client=client, memory_model="other"), 0, store, "agentic", trial=0)
    assert len(stub.requests) == 3
    base = {"suite_sha256": SUITE.sha256, "user_id": USER.key, "index": 0, "backend": "agentic", "trial": 0,
            "settings": {"model": "m"}}
    changed = [{**base, "suite_sha256": "0" * 64}, {**base, "index": 1}, {**base, "trial": 1},
               {**base, "settings": {"model": "n"}}, {**base, "backend": "rag"}]
    assert len({snapshot_key(**base), *(snapshot_key(**c) for c in changed)}) == 6


def test_rag_restores_from_checkpoints_and_the_embedding_cache(tmp_path):
    def rag(encoder):
        return RagMemory(embedder=CachedEmbedder(encoder, EmbeddingCache(tmp_path / "emb")), threshold=0.1)

    store = SnapshotStore(tmp_path / "memory")
    instruction = USER.task.subtasks[4].instruction
    cold_encoder = BagOfWords()
    cold = rag(cold_encoder)
    build(cold, 4, store, "rag")
    expected = cold.read(instruction)
    warm_encoder = BagOfWords()
    warm = rag(warm_encoder)
    build(warm, 4, store, "rag")
    assert warm.read(instruction) == expected and warm_encoder.embedded == 0 and store.loads == 1


def test_store_edge_cases(tmp_path):
    store = SnapshotStore(tmp_path)
    updates: list[int] = []
    assert not is_checkpointable(FullContextMemory())
    assert advance(FullContextMemory(), next_index=2, index=5, update=updates.append, store=store,
                   key_for=lambda j: "k") == 6  # not checkpointable: replayed, nothing saved
    assert updates == [2, 3, 4, 5] and store.saves == 0
    store.path("ab" * 32).parent.mkdir(parents=True)
    store.path("ab" * 32).write_text("{not json")

    class Checkpointable:
        def state(self) -> dict:
            return {}

        def load_state(self, state: dict) -> None:
            raise AssertionError("an unreadable checkpoint is a miss")

    assert advance(Checkpointable(), next_index=0, index=0, update=updates.append, store=store,
                   key_for=lambda j: "ab" * 32) == 1 and store.loads == 0 and store.saves == 1
