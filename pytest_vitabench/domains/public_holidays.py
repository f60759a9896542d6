"""China's public holidays, for any year, from the maintained ``holidays`` package.

The tools speak of holiday *periods* as the State Council announces them: a period is a maximal run of days
off (holiday, day off substituted for a working weekend day, or a weekend day that is not a working day) that
contains a holiday, cut at the calendar year. Years before the package's coverage raise
:class:`HolidayDataMissing` instead of answering "no holiday".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from .base import ToolError
from .fuzzy import fuzzy_score

#: The holidays the tools name, in calendar order: (English, Chinese, a word of the package's English name).
HOLIDAY_NAMES: tuple[tuple[str, str, str], ...] = (
    ("New Year's Day", "元旦", "new year's day"),
    ("Spring Festival", "春节", "chinese new year"),
    ("Qingming Festival", "清明节", "tomb-sweeping"),
    ("Labour Day", "劳动节", "labor day"),
    ("Dragon Boat Festival", "端午节", "dragon boat"),
    ("Mid-Autumn Festival", "中秋节", "mid-autumn"),
    ("National Day", "国庆节", "national day"),
)
ALIASES = {
    "Chinese New Year": "Spring Festival",
    "Lunar New Year": "Spring Festival",
    "Tomb-Sweeping Day": "Qingming Festival",
    "Tomb Sweeping Day": "Qingming Festival",
    "Labor Day": "Labour Day",
    "May Day": "Labour Day",
    "Moon Festival": "Mid-Autumn Festival",
    "New Year": "New Year's Day",
    "Duanwu Festival": "Dragon Boat Festival",
}
#: Fuzzy score a holiday name must reach to be recognised.
NAME_MATCH = 80.0

_SUBSTITUTED = re.compile(r"substituted from (\d{2})/(\d{2})/(\d{4})")


class HolidayDataMissing(ToolError):
    """The ``holidays`` package has no Chinese calendar for this year (the tools answer it as an error)."""


@dataclass(frozen=True)
class HolidayPeriod:
    """One holiday's days off in one year; two holidays may share a period (Mid-Autumn and National Day)."""

    english: str
    chinese: str
    days: tuple[date, ...]

    def name(self, language: str) -> str:
        """The holiday's name in ``language`` (``zh`` or anything else for English)."""
        return self.chinese if language == "zh" else self.english


def _canonical(package_name: str) -> tuple[str, str] | None:
    lowered = package_name.lower()
    for english, chinese, marker in HOLIDAY_NAMES:
        if marker in lowered:
            return english, chinese
    return None


def periods(year: int) -> tuple[HolidayPeriod, ...]:
    """The holiday periods of ``year`` in calendar order (one per holiday; a shared run appears twice).

    Raises:
        HolidayDataMissing: The package does not cover ``year``.
    """
    import holidays  # imported on the first holiday question: collection never pays for it

    calendar = holidays.country_holidays("CN", years=range(year - 1, year + 2), language="en_US")
    if not any(day.year == year for day in calendar):
        raise HolidayDataMissing(f"No holiday calendar for {year}")
    named: dict[date, tuple[str, str]] = {}
    working: set[date] = set()
    for day, text in calendar.items():
        for part in str(text).split("; "):
            found = _SUBSTITUTED.search(part)
            if found:
                month, dom, yr = (int(x) for x in found.groups())
                working.add(date(yr, month, dom))
            canonical = _canonical(part)
            if canonical is not None and day not in named:
                named[day] = canonical
    days_off = set(calendar) | set(named)

    def off(day: date) -> bool:
        return day in days_off or (day.weekday() >= 5 and day not in working)

    found_periods: list[HolidayPeriod] = []
    first_of_year, last_of_year = date(year, 1, 1), date(year, 12, 31)
    seen: set[date] = set()
    for day in sorted(d for d in named if d.year == year):
        if day in seen:
            continue
        start, end = day, day
        while start - timedelta(days=1) >= first_of_year and off(start - timedelta(days=1)):
            start -= timedelta(days=1)
        while end + timedelta(days=1) <= last_of_year and off(end + timedelta(days=1)):
            end += timedelta(days=1)
        run = tuple(start + timedelta(days=i) for i in range((end - start).days + 1))
        seen.update(run)
        for english, chinese, _ in HOLIDAY_NAMES:
            if any(named.get(d) == (english, chinese) for d in run):
                found_periods.append(HolidayPeriod(english, chinese, run))
    order = [english for english, _, _ in HOLIDAY_NAMES]
    return tuple(sorted(found_periods, key=lambda p: (p.days[0], order.index(p.english))))


def holidays_on(day: date, language: str = "en") -> list[str]:
    """Names of the public holidays whose period contains ``day``, in calendar order of the holidays.

    Raises:
        HolidayDataMissing: The package does not cover ``day``'s year.
    """
    order = [english for english, _, _ in HOLIDAY_NAMES]
    hits = sorted((p for p in periods(day.year) if day in p.days), key=lambda p: order.index(p.english))
    return [p.name(language) for p in hits]


def holiday_dates(year: int, name: str) -> list[str] | None:
    """The dates of the named holiday (English or Chinese name, fuzzy) in ``year``; None if no such holiday.

    Raises:
        HolidayDataMissing: The package does not cover ``year``.
    """
    query = name.strip()
    query = ALIASES.get(query, query)
    best: tuple[float, HolidayPeriod] | None = None
    for period in periods(year):
        score = max(fuzzy_score(query, period.english), fuzzy_score(query, period.chinese))
        if score >= NAME_MATCH and (best is None or score > best[0]):
            best = (score, period)
    return None if best is None else [day.isoformat() for day in best[1].days]
