"""Retry lines: one at once, then at most one every ``every_s``, the retries in between counted."""

from __future__ import annotations

from pytest_vitabench.llm.notices import Notices


def test_retry_lines_are_rate_limited_and_count_what_they_held_back():
    now = [0.0]
    lines: list[str] = []
    notices = Notices(every_s=10, clock=lambda: now[0])
    retry = dict(role="agent", model="m", what="HTTP 503", retries=6, wait=1.0, timed_out=False, timeout_s=120)
    notices.retrying(host="api.example.com", attempt=1, **retry)  # nothing attached: nothing written
    notices.attach(lines.append)
    for second, attempt in ((0, 1), (1, 2), (2, 3), (11, 4)):
        now[0] = second
        notices.retrying(host="api.example.com", attempt=attempt, **retry)
    assert lines == ["vitabench: agent call to api.example.com (model m): HTTP 503; retry 1/6 in 1.0 s",
                     "vitabench: agent call to api.example.com (model m): HTTP 503; retry 4/6 in 1.0 s "
                     "(+2 more retried since the last line)"]


def test_a_local_server_that_times_out_gets_one_hint():
    lines: list[str] = []
    notices = Notices(every_s=0)
    notices.attach(lines.append)
    for _ in range(2):
        notices.retrying(role="judge", host="127.0.0.1:8080", model="m", what="timed out", attempt=1, retries=6,
                         wait=0.5, timed_out=True, timeout_s=120)
    assert sum("hint:" in line for line in lines) == 1 and "past the 120 s timeout" in lines[0]
