"""What ``capture_invoice`` may write in v2: dates and identifiers in the form the policy states, or nothing.

v1 stored whatever parsed: ``0001-01-01`` and ``9999-12-31`` as invoice dates, the ISO week date ``2026-W01-1``
(``date.fromisoformat`` accepts it since Python 3.11), and blank or whitespace PO numbers. A record like that
is lost data: no duplicate check, no aging, no PO match can use it. The policy (``assets/invoice_approval/v2/
policy.md``, "Step 0") states the forms, and these checks are that text as code:

- an invoice date is ``YYYY-MM-DD`` (strictly: four, two and two digits), a real calendar date, not after the day
  the document was received and not more than ``MAX_AGE_DAYS`` before it (every document the generator prints
  is dated 1 to 12 days before it arrived);
- a PO number is empty (the document prints none) or 10 digits starting with ``45`` (``4500123456``);
- the supplier's number and a corrected invoice's number are printed text: not blank, no spaces around them, no
  control characters (a corrected number may be empty: the document names none).

Each check raises a ``ToolError`` naming the field, the form and the value it got; the tool writes nothing then.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from ...core import ToolError

MAX_AGE_DAYS: Final = 366
DATE_FORM: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
PO_FORM: Final = re.compile(r"45\d{8}")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _shown(value: str) -> str:
    return repr(value[:40])


def invoice_date(value: str, received: str) -> str:
    """``value`` if it is a date as YYYY-MM-DD within [received - MAX_AGE_DAYS, received]."""
    parsed = _calendar_date(value)
    arrived = dt.date.fromisoformat(received)
    earliest = arrived - dt.timedelta(days=MAX_AGE_DAYS)
    if not earliest <= parsed <= arrived:
        raise ToolError(
            f"invoice_date {value} is outside the plausible window for this document, {earliest.isoformat()} to "
            f"its received date {arrived.isoformat()} (see the policy, step 0); capture the date its document prints"
        )
    return parsed.isoformat()


def _calendar_date(value: str) -> dt.date:
    if DATE_FORM.fullmatch(value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ToolError(
        f"invoice_date must be a calendar date as YYYY-MM-DD, e.g. 2026-03-14 (got {_shown(value)}); "
        "a printed 14.03.2026 is 2026-03-14"
    )


def po_number(value: str) -> str | None:
    """None for an empty PO number (none printed), else ``value`` if it has the policy's form."""
    if value == "":
        return None
    if not PO_FORM.fullmatch(value):
        raise ToolError(
            f"po_number must be empty (the document prints none) or 10 digits starting with 45, e.g. 4500123456 "
            f"(got {_shown(value)})"
        )
    return value


def printed_number(field: str, value: str, *, optional: bool = False) -> str | None:
    """``value`` if it is printed text (not blank, no surrounding spaces, no control characters); None for an
    empty ``optional`` one."""
    if optional and value == "":
        return None
    if not value.strip():
        raise ToolError(f"{field} must not be empty or blank; copy the number as the document prints it")
    if value != value.strip() or _CONTROL.search(value):
        raise ToolError(
            f"{field} must be the number as printed, without spaces around it or control characters "
            f"(got {_shown(value)})"
        )
    return value
