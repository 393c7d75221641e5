"""The hand-written v1 test deals: valid, and written in words the generator's library never uses, so that a
policy trained on generated deals cannot have memorised their evidence."""

from __future__ import annotations

import json
import re

from officegym.envs.vendor_review.v1.authoring.set_checks import decision_shares, set_problems_v1
from officegym.envs.vendor_review.v1.authoring.validate import validate_many
from officegym.envs.vendor_review.v1.deals import deal_files, handwritten, handwritten_records
from officegym.envs.vendor_review.v1.library import v1_dir

SHINGLE = 7
"""Word n-grams this long shared with the library count as evidence taken from it."""
MIN_DEALS = 20


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def library_shingles() -> set[tuple[str, ...]]:
    """Every 7-word run of the library's literal text (placeholders split it)."""
    found: set[tuple[str, ...]] = set()
    for path in sorted((v1_dir() / "library").iterdir()):
        for text in _strings(json.loads(path.read_text(encoding="utf-8"))):
            for literal in re.split(r"\{[a-z0-9_]+\}", text):
                found |= _shingles(literal)
    return found


def test_there_are_hand_written_deals_and_every_one_is_valid() -> None:
    assert len(deal_files()) >= MIN_DEALS
    assert validate_many(list(handwritten_records().values())) == []
    assert {deal.tier for deal in handwritten().values()} == {"easy", "medium", "hard"}
    assert {deal.decision for deal in handwritten().values()} == {"go", "conditional-go", "no-go"}


def test_the_hand_written_set_passes_the_generators_set_checks() -> None:
    """As many conditional-go as no-go deals and few go, so no fixed answer earns the decision component on most;
    promises, rumours and answer lengths at the same rates for gaps and distractors, as in generated deals."""
    records = list(handwritten_records().values())
    shares = decision_shares(records)
    assert shares["conditional-go"] == shares["no-go"]
    assert set_problems_v1(records) == []


def test_no_evidence_of_a_hand_written_deal_comes_from_the_library() -> None:
    library = library_shingles()
    for deal in handwritten().values():
        phrases = [p for f in (*deal.planted_gaps, *deal.distractors) for p in f.evidence]
        phrases += [c.evidence for c in deal.commitments]
        shared = [p for p in phrases if _shingles(p) & library]
        assert shared == [], f"{deal.id} reuses library text: {shared}"


def test_the_check_would_catch_library_text() -> None:
    sample = max(_strings(json.loads((v1_dir() / "library" / "REQ-SSO.json").read_text())), key=len)
    assert _shingles(sample) & library_shingles()
