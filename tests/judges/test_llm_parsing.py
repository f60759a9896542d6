"""The tolerant parser of judge replies, window arithmetic, transcript rendering and vote counting (offline)."""

from __future__ import annotations

import pytest

from pytest_vitabench.judges.base import RubricVerdict
from pytest_vitabench.judges.llm_rubric import majority, vote_seeds
from pytest_vitabench.judges.parsing import JudgeParseError, match_items, parse_reply, rubric_items
from pytest_vitabench.judges.render import render_messages, windows
from pytest_vitabench.messages import Message, ToolCall

RUBRICS = ["The order is for P2", "The order is paid"]


@pytest.mark.parametrize("reply", [
    '[{"rubric_idx": 1, "met": true, "justification": "ok"}, {"rubric_idx": 2, "met": false}]',
    'Sure!\n```json\n[{"rubric_idx": 1, "met": true, "justification": "ok"},\n {"rubric_idx": 2, "met": false},]\n```',
    "<think>rubric 1 looks [met]</think>[{'rubric_idx': 1, 'met': True, 'justification': 'ok'}, "
    "{'rubric_idx': 2, 'met': False}]",
    '{"rubrics": [{"rubric_idx": "rubric_1", "meetExpectation": "yes", "reason": "ok"}, '
    '{"rubric_idx": "rubric_2", "meetExpectation": "no"}]}',
    '{"rubric_1": {"met": true, "justification": "ok"}, "rubric_2": {"met": false}}',
    '[{rubric_idx: 1, met: true, justification: \u201cok\u201d}, {rubric_idx: 2, met: false}]',
    '[{"rubric_idx": 0, "met": true, "justification": "ok"}, {"rubric_idx": 1, "met": false}]',  # numbered from 0
])
def test_common_reply_faults_are_read(reply):
    value, _ = parse_reply(reply, lambda v: v)
    matched = match_items(rubric_items(value), RUBRICS)
    assert {pos: item.met for pos, item in matched.items()} == {0: True, 1: False}
    assert matched[0].reason == "ok"


def test_a_cut_off_reply_keeps_its_complete_items():
    value, notes = parse_reply('[{"rubric_idx": 1, "met": true, "justification": "ok"}, {"rubric_idx": 2, "met": fa',
                               lambda v: v)
    matched = match_items(rubric_items(value), RUBRICS)
    assert list(matched) == [0] and matched[0].met is True
    assert notes and "cut off" in notes[0]


@pytest.mark.parametrize("reply", ["", "All rubrics are met.", '[{"rubric_idx": 1, "comment": "fine"}]', "[1, 2]"])
def test_unreadable_replies_raise(reply):
    with pytest.raises(JudgeParseError):
        rubric_items(parse_reply(reply, lambda v: v)[0])


def test_items_match_by_text_when_the_index_is_missing_or_wrong():
    items = rubric_items([{"rubric": "The order is paid", "met": True}, {"rubric_idx": 7, "met": True}])
    assert list(match_items(items, RUBRICS)) == [1]


def test_windows_follow_the_reference():
    assert windows(0) == [(0, 0)]
    assert windows(10) == [(0, 10)]
    assert windows(11) == [(0, 10), (8, 11)]
    assert windows(25) == [(0, 10), (8, 18), (16, 25)]
    assert len(windows(40)) == 5 == 1 + -(-(40 - 10) // 8)


def test_rendering_numbers_globally_and_shows_tool_calls():
    messages = [
        Message(role="assistant", content="Hello"),
        Message(role="user", content=""),  # skipped, but keeps number 2
        Message(role="assistant", content="Let me look.", tool_calls=[
            ToolCall(id="c1", name="search", arguments={"keywords": ["noodles"]}),
            ToolCall(id="c2", name="broken", arguments='{"a": ')]),
        Message(role="tool", tool_call_id="c1", name="search", content="[]"),
        Message(role="tool", tool_call_id="c2", name="broken", content="Error: bad", error=True),
    ]
    text = render_messages(messages)
    assert text.splitlines() == [
        "[1] assistant: Hello",
        '[3] assistant: Let me look. [calls] search(keywords=["noodles"]); broken(<malformed arguments: {"a": >)',
        "[4] tool search: []",
        "[5] tool broken (error): Error: bad",
    ]
    assert render_messages(messages, 2, 4).splitlines()[0].startswith("[3] ")
    assert render_messages(messages, language="zh").startswith("[1] 助手: Hello")


def _v(met):
    return RubricVerdict(text="r", met=met, reason=f"said {met}")


def test_majority_ties_and_unjudged_votes_count_as_unmet():
    assert majority([[_v(True)], [_v(False)], [_v(True)]])[0].met is True
    assert majority([[_v(True)], [_v(False)]])[0].met is False
    assert "tie" in majority([[_v(True)], [_v(False)]])[0].reason
    assert majority([[_v(True)], [_v(None)], [_v(None)]])[0].met is False
    assert majority([[_v(None)], [_v(None)]])[0].met is None
    assert vote_seeds(5, 1) == [5] and vote_seeds(5, 3) == [5000, 5001, 5002]
