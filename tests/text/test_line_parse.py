"""A memory line's parse depends on its record, never on its date."""

from __future__ import annotations

import pytest

from pytest_vitabench.text.clauses import parse_line, parse_statement


@pytest.mark.parametrize("record", [
    '[review] {"rating": 1, "text": "the spicy noodles upset my stomach"}',
    "[dialogue] user: I can't stand coriander, keep it under 40 yuan | assistant: Noted.",
    '[order] {"store": "Blue Cup", "items": "oat latte, no sugar"}',
    '[complaint] {"issue": "cold coffee again"}',
    "[Dialogue] user: only shops rated at least 4.5 | assistant: OK.",
])
def test_the_same_record_on_another_day_reads_the_same(record):
    first = parse_line(f"- [2025-01-02] {record}")
    second = parse_line(f"  -  [2026-07-30 18:00] {record}  ")
    assert first == second and first.clauses  # equal, and about something


def test_lines_that_state_nothing_read_as_nothing():
    for line in ["", "   ", "# heading", "[Dining history]", "【历史记录】",
                 '- [2025-01-05] [search] {"keyword": "no pork"}', '- [2025-01-05] [Browse] {"keyword": "no sugar"}']:
        parsed = parse_line(line)
        assert parsed.clauses == () and parsed.thresholds == (), line


def test_free_text_lines_read_like_statements():
    assert parse_line("- I hate coriander but love beef") == parse_statement("I hate coriander but love beef")
    assert parse_line("* budget is 40 yuan").thresholds[0].value == 40.0
    # A bracket that is not a heading, and a typed line without its dash, are free text.
    assert [c.text for c in parse_line("[a] no pork [b] please").clauses] == ["[a] no pork [b] please"]
    assert parse_line("[2025-01-02] [review] awful").clauses
