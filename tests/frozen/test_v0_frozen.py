"""v0 never changes: everything it shows a user hashes to what was recorded when the record was written.

The parts and how to re-record are in ``behaviour.py``. Re-record only for a change that is meant to alter v0's
observable behaviour, which the project's rules forbid (such a change is a new env version).
"""

from __future__ import annotations

import json

import pytest

from .behaviour import RECORD, parts

RECORDED: dict[str, str] = json.loads(RECORD.read_text())


def test_the_record_covers_every_part() -> None:
    assert sorted(RECORDED) == sorted(parts())


@pytest.mark.parametrize("part", sorted(RECORDED))
def test_part_is_unchanged(part: str) -> None:
    assert parts()[part]() == RECORDED[part], f"v0 behaviour changed in part {part!r}"
