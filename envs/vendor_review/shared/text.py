"""Filling placeholders in every version's generated documents: dates in the documents' own style and one checked
``format_map``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def long_date(day: dt.date) -> str:
    """``14 March 2026``, without the locale (``strftime('%B')`` follows it)."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def month_year(day: dt.date) -> str:
    return f"{MONTHS[day.month - 1]} {day.year}"


def fill(template: str, values: Mapping[str, str]) -> str:
    """The template with every ``{name}`` filled; an unknown name raises ``KeyError`` naming it, so a typo in
    the library fails the generator's tests instead of shipping braces."""
    return template.format_map(values)
