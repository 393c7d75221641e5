"""Pages and cursors of the list tools.

A cursor is opaque to the agent and deterministic: the position of the next page, bound to the listing's
filters by a SHA-256 digest, so the same listing always gives the same cursors and a cursor of one listing
(or a made-up one) is refused instead of silently returning the wrong page.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from ...core import ToolError

_CURSOR = re.compile(r"([0-9a-f]{12})\.([0-9a-f]{1,6})")


@lru_cache(maxsize=4096)
def _digest(scope: str, offset: int) -> str:
    """Cached: a listing's pages ask for the same few digests again and again (a pure function of its input)."""
    return hashlib.sha256(f"{scope}|{offset}".encode()).hexdigest()[:12]


def make_cursor(scope: str, offset: int) -> str:
    return f"{_digest(scope, offset)}.{offset:x}"


def read_cursor(scope: str, cursor: str) -> int:
    """The offset a cursor stands for (0 for an empty cursor); a ToolError for any cursor not made here."""
    if not cursor:
        return 0
    match = _CURSOR.fullmatch(cursor)
    if match is None or match.group(1) != _digest(scope, int(match.group(2), 16)):
        raise ToolError("cursor is not valid for this listing; call the tool without a cursor to start over")
    return int(match.group(2), 16)


def next_cursor(scope: str, offset: int, page: int, total: int) -> str | None:
    return make_cursor(scope, offset + page) if offset + page < total else None
