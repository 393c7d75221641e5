"""Draws every version's invoice factory makes alike: business days, fresh PO numbers, a clean invoice's net."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable


def business_days(start: dt.date, end: dt.date) -> list[dt.date]:
    days = []
    day = start
    while day <= end:
        if day.weekday() < 5:
            days.append(day)
        day += dt.timedelta(days=1)
    return days


def fresh_po_number(rng: random.Random, taken: set[str]) -> str:
    """An SAP-style PO number (4500 and six digits) not in ``taken``, which it joins: every version's POs."""
    while True:
        number = f"4500{rng.randint(0, 999999):06d}"
        if number not in taken:
            taken.add(number)
            return number


def clean_net(rng: random.Random, net: Callable[..., int], category: str) -> int:
    """A clean invoice's net for every version (``net``: the version's draw for a category and an optional euro
    range): mostly below the Teamleiter limit; some need an Abteilungs- or Bereichsleiter."""
    draw = rng.random()
    if draw < 0.08:
        return net(category, 4500, 19000)
    if draw < 0.11:
        return net(category, 22000, 80000)
    return net(category)
