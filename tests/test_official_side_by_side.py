"""Side by side with the official harness: our requests under ``--vita-profile official`` equal the official ones.

Runs the official VitaBench 2.0 harness (a temporary copy of ``../shared/official/VitaBench-2.0``, with the
python in ``VITA_OFFICIAL_PYTHON``) and our plugin on the same slice of ``suites/paper`` against one role stub
(``tests/_side_by_side.py``) and compares every request role by role. Every request of these roles is identical,
tool result strings included (the official tool answers and search order: ``--vita-deviation tool-results`` and
``--vita-deviation search``). rag's embeddings requests are compared as sets of distinct bodies
(:func:`_side_by_side.compare_embeddings`: the official harness sends a record's chunks concurrently and repeats
requests for texts it embedded before).
"""

from __future__ import annotations

import pytest
from _side_by_side import (
    JUDGE,
    MODEL_ENTRIES,
    compare,
    coverage_slice,
    paper_slice,
    run_official,
    run_ours,
    skip_reason,
    table,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]

#: The official ``--evaluation-type`` of our ``--vita-judge-args mode``.
EVALUATION = {"window": "trajectory", "full": "trajectory_full_traj_rubric"}
#: Roles whose requests are identical, tool result strings included, per memory backend.
IDENTICAL_ROLES = {"full_context": ("agent", "judge", "user"), "none": ("agent", "judge", "user"),
                   "agentic": ("agent", "judge", "user", "memory"), "groundtruth": ("agent", "judge", "user"),
                   "rag": ("agent", "judge", "user", "memory", "embeddings")}


@pytest.mark.parametrize("memory, language, coverage, judge", [
    ("full_context", "en", False, "window"),  # in-store and delivery, the paper suite's first subtasks
    ("none", "zh", False, "window"),
    ("agentic", "en", True, "window"),  # in-store, travel, proactive, a message_history; the memory updates
    ("groundtruth", "zh", True, "window"),
    # --vita-judge-args mode=full against the official --evaluation-type trajectory_full_traj_rubric
    ("full_context", "zh", True, "full"),
    ("rag", "zh", True, "window"),  # embeddings at the stub, the summary requests, the retrieved memory in the prompt
])
def test_requests_equal_the_official_harness(tmp_path, memory, language, coverage, judge):
    """Every request of each role identical, each role's models.yaml settings (max_tokens ...) included."""
    tasks = coverage_slice() if coverage else paper_slice(users=2, subtasks=2)
    official = run_official(tasks, tmp_path, memory=memory, language=language, evaluation=EVALUATION[judge])
    ours = run_ours(tasks, tmp_path, memory=memory, language=language, extra=["--vita-judge-args", f"mode={judge}"])
    assert official.returncode == 0, official.output
    assert ours.returncode in (0, 1), ours.output  # 1: some items failed, as scored
    comparisons = compare(ours, official)
    report = table(comparisons)
    print(f"\n{memory}/{language}: official {official.seconds:.1f} s, ours {ours.seconds:.1f} s\n{report}")
    for role in IDENTICAL_ROLES[memory]:
        result = comparisons[role]
        assert result.ours == result.theirs > 0, report
        assert result.identical == result.identical_but_tool_results == result.total, report
    judged = [r.body for r in official.requests if r.role == "judge"]
    assert all(r["max_tokens"] == MODEL_ENTRIES[JUDGE]["max_tokens"] for r in judged)  # the settings were sent
    if judge == "full":  # one call per item, with the whole conversation
        assert len(judged) == sum(len(user["subtasks"]) for user in tasks)
    if memory == "rag":  # ours asks for each distinct text once; the official harness for some several times
        assert comparisons["embeddings"].theirs < len(official.by_role()["embeddings"]), report
