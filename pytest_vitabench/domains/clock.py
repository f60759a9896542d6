"""The domains' clock: parsing and formatting the simulated times and dates tools read and write.

"Now" is always the environment's ``db.time``, never the wall clock, so an episode replays the same.
"""

from __future__ import annotations

from datetime import date, datetime

from .base import ToolError

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
DATE_FORMAT = "%Y-%m-%d"


def parse_time(value: str, what: str = "time") -> datetime:
    """Parse ``YYYY-MM-DD HH:MM:SS`` (seconds optional, ``T`` accepted); ToolError otherwise."""
    text = str(value).strip().replace("T", " ")
    for fmt in (TIME_FORMAT, "%Y-%m-%d %H:%M"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ToolError(f"Invalid {what} {value!r}: expected format YYYY-MM-DD HH:MM:SS")


def parse_date(value: str, what: str = "date") -> date:
    """Parse ``YYYY-MM-DD``; ToolError otherwise."""
    try:
        return datetime.strptime(str(value).strip()[:10], DATE_FORMAT).date()
    except ValueError:
        raise ToolError(f"Invalid {what} {value!r}: expected format YYYY-MM-DD") from None


def format_time(value: datetime) -> str:
    """``value`` as ``YYYY-MM-DD HH:MM:SS``."""
    return value.strftime(TIME_FORMAT)
