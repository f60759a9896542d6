"""China's public holidays from the ``holidays`` package: for 2023-2026 they reproduce, day for day, the
hand-made table (State Council notices) the tools answered from before; other years are answered too
instead of a silent "no holiday"."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from pytest_vitabench.domains import build_environment
from pytest_vitabench.domains.public_holidays import HolidayDataMissing, holiday_dates, holidays_on, periods

# The table the tools used until the holidays package replaced it: (English, Chinese, first day, last day) of
# each holiday period as the State Council announced it, with the adjusted weekend days off inside.
TABLE_2023_2026 = (
    ("New Year's Day", "元旦", "2023-01-01", "2023-01-02"),
    ("Spring Festival", "春节", "2023-01-21", "2023-01-27"),
    ("Qingming Festival", "清明节", "2023-04-05", "2023-04-05"),
    ("Labour Day", "劳动节", "2023-04-29", "2023-05-03"),
    ("Dragon Boat Festival", "端午节", "2023-06-22", "2023-06-24"),
    ("Mid-Autumn Festival", "中秋节", "2023-09-29", "2023-10-06"),
    ("National Day", "国庆节", "2023-09-29", "2023-10-06"),
    ("New Year's Day", "元旦", "2024-01-01", "2024-01-01"),
    ("Spring Festival", "春节", "2024-02-10", "2024-02-17"),
    ("Qingming Festival", "清明节", "2024-04-04", "2024-04-06"),
    ("Labour Day", "劳动节", "2024-05-01", "2024-05-05"),
    ("Dragon Boat Festival", "端午节", "2024-06-08", "2024-06-10"),
    ("Mid-Autumn Festival", "中秋节", "2024-09-15", "2024-09-17"),
    ("National Day", "国庆节", "2024-10-01", "2024-10-07"),
    ("New Year's Day", "元旦", "2025-01-01", "2025-01-01"),
    ("Spring Festival", "春节", "2025-01-28", "2025-02-04"),
    ("Qingming Festival", "清明节", "2025-04-04", "2025-04-06"),
    ("Labour Day", "劳动节", "2025-05-01", "2025-05-05"),
    ("Dragon Boat Festival", "端午节", "2025-05-31", "2025-06-02"),
    ("Mid-Autumn Festival", "中秋节", "2025-10-01", "2025-10-08"),
    ("National Day", "国庆节", "2025-10-01", "2025-10-08"),
    ("New Year's Day", "元旦", "2026-01-01", "2026-01-03"),
    ("Spring Festival", "春节", "2026-02-15", "2026-02-23"),
    ("Qingming Festival", "清明节", "2026-04-04", "2026-04-06"),
    ("Labour Day", "劳动节", "2026-05-01", "2026-05-05"),
    ("Dragon Boat Festival", "端午节", "2026-06-19", "2026-06-21"),
    ("Mid-Autumn Festival", "中秋节", "2026-09-25", "2026-09-27"),
    ("National Day", "国庆节", "2026-10-01", "2026-10-07"),
)


def table_names(day: date, language: str) -> list[str]:
    iso = day.isoformat()
    return [zh if language == "zh" else en for en, zh, first, last in TABLE_2023_2026 if first <= iso <= last]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_day_of_2023_to_2026_answers_as_the_table_did(language: str) -> None:
    day, different = date(2023, 1, 1), []
    while day <= date(2026, 12, 31):
        if holidays_on(day, language) != table_names(day, language):
            different.append((day.isoformat(), holidays_on(day, language), table_names(day, language)))
        day += timedelta(days=1)
    assert different == []


def test_every_period_of_the_table_is_a_period_of_the_package() -> None:
    for english, chinese, first, last in TABLE_2023_2026:
        year = int(first[:4])
        start, end = date.fromisoformat(first), date.fromisoformat(last)
        expected = [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
        assert holiday_dates(year, english) == expected == holiday_dates(year, chinese), (english, year)


def test_what_the_package_adds_over_the_table() -> None:
    # Adjusted working weekends are not days off (2024-02-04 and 2024-02-18 were Sundays at work) ...
    assert holidays_on(date(2024, 2, 4)) == [] == holidays_on(date(2024, 2, 18))
    # ... and a period is cut at the year: the notice for 2023 gave 31 Dec 2022 to 2 Jan 2023 off, the table
    # (and the tools now) list New Year's Day 2023 from 1 January; 31 December 2022 was a plain Saturday.
    assert holiday_dates(2023, "New Year's Day") == ["2023-01-01", "2023-01-02"]
    assert holidays_on(date(2022, 12, 31)) == []
    # Any year the package covers is answered (the table said "no holiday" for every day outside 2023-2026).
    assert holidays_on(date(2022, 10, 1)) == ["National Day"]
    assert (holiday_dates(2030, "Spring Festival") or [])[:1] == ["2030-02-02"]
    assert holiday_dates(2019, "Labour Day") == ["2019-05-01", "2019-05-02", "2019-05-03", "2019-05-04"]
    assert len(periods(2031)) == 7


def test_years_without_data_are_an_error_never_a_silent_no_holiday() -> None:
    with pytest.raises(HolidayDataMissing):
        holidays_on(date(1900, 10, 1))
    env = build_environment("delivery", {}, user_id="U1", time="2025-06-01 11:00:00", seed=0)
    refused = env.call("get_date_holiday_info", {"date": "1900-10-01"})
    assert refused.error and refused.content == "Error: No holiday calendar for 1900"
    refused = env.call("get_holiday_date", {"year": "1900", "holiday_name": "National Day"})
    assert refused.error and refused.content == "Error: No holiday calendar for 1900"
    unknown = env.call("get_holiday_date", {"year": "2025", "holiday_name": "Christmas"})
    assert unknown.error and unknown.content == "Error: No holiday named 'Christmas' found for 2025"
