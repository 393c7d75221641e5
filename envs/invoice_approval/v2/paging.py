"""Cursors bound to the listing they page, so that no page is ever skipped.

v1's cursor names an offset into a listing's filters. A decision between two pages can move documents out of a
filtered listing (``status="received"``): the offset then points past rows the agent never saw, and v1 answered
the next page as if nothing had happened, skipping them. Here a cursor also carries a digest of the listing's
membership and order (its row keys, in listing order) when the page was served. When the listing no longer has
that digest, the cursor is refused with an ``Error:`` that says to list again from the first page; while it has
it, the cursor pages on as in v1. Writes that leave a listing as it was (a capture, a decision on a row the
filters keep) do not invalidate its cursors.

Deterministic and opaque: SHA-256 of the scope, the listing digest and the offset, no clock, no counter.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from ...core import ToolError

_CURSOR = re.compile(r"([0-9a-f]{12})\.([0-9a-f]{12})\.([0-9a-f]{1,6})")
FOREIGN = "cursor is not valid for this listing; call the tool without a cursor to start over"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Listing:
    """One listing as it stands now: its scope (the tool and its filters), its row count and its digest."""

    scope: str
    total: int
    digest: str

    def cursor(self, offset: int) -> str:
        return f"{_sha(f'{self.scope}|{self.digest}|{offset}')}.{self.digest}.{offset:x}"

    def next_cursor(self, offset: int, page: int) -> str | None:
        return self.cursor(offset + page) if offset + page < self.total else None

    def offset(self, cursor: str, tool: str) -> int:
        """The offset a cursor stands for (0 for an empty one). Refused: a cursor not made for this scope, and
        a cursor made for this scope before the listing changed (``tool`` is named in how to start over)."""
        if not cursor:
            return 0
        match = _CURSOR.fullmatch(cursor)
        if match is None:
            raise ToolError(FOREIGN)
        seal, digest, offset = match.group(1), match.group(2), int(match.group(3), 16)
        if seal != _sha(f"{self.scope}|{digest}|{offset}"):
            raise ToolError(FOREIGN)
        if digest != self.digest:
            raise ToolError(
                "the listing has changed since this cursor was given (a decision moved documents into or out of "
                f"it), so its later pages would skip some; call {tool} again without a cursor and read it from "
                "the first page"
            )
        return offset  # a sealed offset of this very listing is below its total (``next_cursor``)


def listing(conn: sqlite3.Connection, scope: str, keys_sql: str, params: Sequence[object]) -> Listing:
    """The listing of ``keys_sql`` (a SELECT of the listing's row keys, in listing order) under ``scope``: its
    keys joined by newlines, in listing order, then hashed."""
    keys = [str(key) for (key,) in conn.execute(keys_sql, tuple(params))]
    return Listing(scope, len(keys), _sha("\n".join(keys)))
