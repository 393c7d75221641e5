"""The buyer's internal IT thread and IT channel of a generated deal.

Colleagues open with the business context, raise rumours about some requirements and take some of them back.
Which requirements get a rumour, and which rumour is discredited, is drawn at the same rate whether the
requirement is met or not (``plan.py``), so the thread tells the reader what colleagues believe, never what is
true. The IT channel answers each requirement's keywords with business context only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from ..shared.text import fill
from .library import Library
from .plan import DealPlan

MIN_KEYWORD = 3


def _stamp(day: dt.date, minute: int) -> str:
    return f"[{day.day:02d}.{day.month:02d}. {9 + minute // 60:02d}:{minute % 60:02d}]"


def thread_text(plan: DealPlan, library: Library, values: Mapping[str, str]) -> str:
    """The channel export: openers, then rumours in matrix order, then the discredits, each stamped."""
    start = plan.date - dt.timedelta(days=6)
    messages = [fill(line, values) for line in library.frames["thread_openers"]]
    speakers = (values["security"], values["business"], values["procurement"])
    rumoured = [item for item in plan.items if item.rumour != "none"]
    for index, item in enumerate(rumoured):
        messages.append(f"{speakers[index % 2]}: {fill(item.rumour_text, values)}")
    for index, item in enumerate(rumoured):
        if item.rumour == "discredited":
            topic = library.item(item.id).topic
            speaker = speakers[index % 2]
            messages.append(fill(item.discredit_text, {**values, "speaker": speaker, "topic": topic}))
    lines = [fill(library.frames["heads"]["it_thread"], values), ""]
    for index, message in enumerate(messages):
        day = start + dt.timedelta(days=min(5, index // 3))
        lines.append(f"{_stamp(day, 7 * index)} {message}")
    return "\n".join(lines)


def it_channel(plan: DealPlan, library: Library, values: Mapping[str, str]) -> dict[str, Any]:
    """Keyword routes to each matrix requirement's business context, plus the deadline; a default reply."""
    routes = []
    for item in plan.items:
        keywords = [k for k in library.item(item.id).keywords if len(k) >= MIN_KEYWORD]
        reply = f"{values['security']}: {library.evidence[item.id].context}"
        routes.append({"keywords": keywords, "reply": reply})
    routes.append(
        {
            "keywords": ["deadline", "budget", "price", "pilot", "timeline"],
            "reply": fill(library.frames["deadline_reply"], values),
        }
    )
    return {"routes": routes, "default_reply": fill(library.frames["default_reply"], values)}
