"""Property: whatever defect a suite has, loading and running it gives a clear error or an unchanged score.

Hypothesis draws cases (a mutation, a random JSON path, a parameter) over two users of the demo suite;
:mod:`_fuzz` sorts each into ``error`` / ``unchanged`` / ``traceback`` / ``silent``; the last two fail.
``VITA_FUZZ_EXAMPLES`` sets the number of drawn cases (default 25, a few seconds); run long with e.g.
``VITA_FUZZ_EXAMPLES=5000 pytest tests/suite/test_fuzz.py``. ``benchmarks/fuzz_suites.py`` prints counts.

Every case the fuzzer ever found is kept in :data:`FOUND` and runs on every test run.
"""

from __future__ import annotations

import os

import pytest
from _fuzz import MUTATIONS, Case, Judge
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("VITA_FUZZ_EXAMPLES", "25"))

#: Cases the fuzzer found while this rule was being built (before each fix), kept as regressions.
FOUND = [
    # a subtask's domain renamed to another domain: its entities silently ignored (score 0)
    Case("bad_domain", steps=(376, 346, 348, 116, 298), pick=246614),
    # the profile's user_id replaced: the agent calls every tool for someone else
    Case("zero", steps=(502, 430, 876, 124, 787, 213), pick=598259),
    Case("negative", steps=(703, 226, 576, 136, 928), pick=118238),
    Case("bad_time", steps=(91, 350, 192, 252, 724), pick=251750),
    # profile addresses retyped, emptied or repeated with another value: deliveries go nowhere
    Case("retype", steps=(632, 90, 247, 273, 894, 126, 293), pick=741330),
    Case("zero", steps=(9, 242, 222, 907, 166, 925, 633), pick=751260),
    Case("empty", steps=(102, 254, 343, 998), pick=345032),
    Case("repeat_key", steps=(961, 526, 294, 757, 430), pick=724902),
    Case("duplicate", steps=(43, 970, 271, 964, 377, 188, 439), pick=951654),
    # the whole profile emptied or deleted
    Case("empty", steps=(648, 602), pick=468930),
    Case("delete", steps=(377, 990), pick=339051),
    # a subtask or an interaction deleted: a valid edit, must run without a traceback
    Case("delete", steps=(553, 119, 252), pick=113493),
    Case("delete", steps=(615, 75, 517, 232, 666), pick=407280),
    # an environment time of " ": the loader fell back to current_time, vitabench validate's leak rule did not
    Case("bad_time", steps=(588, 776), pick=462572),
    # user_intention deleted from a proactive subtask: the user cannot answer the agent's question
    Case("delete", steps=(734, 127, 384, 862, 834, 362), pick=928238),
    # one case of each mutation class the issue reports
    Case("huge_int", steps=(3, 2, 1, 9, 5), pick=1),
    Case("deep_text", pick=1),
    Case("deep", steps=(3, 2, 1, 9), pick=2),
    Case("bad_time", steps=(3, 2, 0, 0), pick=0),
    Case("nonfinite", steps=(3, 2, 1, 9, 4, 0, 3), pick=5),
    Case("corrupt_gzip", pick=77),
    Case("bad_utf8", pick=1234),
    Case("truncate", pick=999),
]


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    return Judge(tmp_path_factory.mktemp("fuzz"))


def _check(judge: Judge, case: Case) -> str:
    verdict = judge.judge_case(case)
    assert verdict.outcome in ("error", "unchanged"), (
        f"{case.command()} at {case.where or 'the file'}: {verdict.outcome}\n{verdict.detail}")
    return verdict.outcome


@pytest.mark.parametrize("case", FOUND, ids=lambda c: f"{c.mutation}-{c.pick}")
def test_found_cases_stay_fixed(judge, case):
    _check(judge, case)


cases = st.builds(
    Case,
    mutation=st.sampled_from(MUTATIONS),
    steps=st.lists(st.integers(0, 999), min_size=1, max_size=8).map(tuple),
    pick=st.integers(0, 10**6),
)


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=cases)
def test_no_defect_gives_a_traceback_or_a_silent_score_change(judge, case):
    _check(judge, case)


def test_the_oracle_would_catch_a_silent_change(judge, monkeypatch):
    """Without the profile check, a replaced user id must be reported as a silent score change."""
    from pytest_vitabench.suite import integrity

    monkeypatch.setattr(integrity, "check_profile", lambda *args: None)
    verdict = judge.judge_case(Case("zero", steps=(502, 430, 876, 124, 787, 213), pick=598259))
    assert verdict.outcome == "silent", verdict
