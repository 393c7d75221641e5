"""The v1 deal generator: deterministic by seed, at least 10,000 distinct deals, every one valid."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from officegym.envs.vendor_review.shared.text import fill
from officegym.envs.vendor_review.v1.authoring.set_checks import (
    DECISION_SHARES,
    LENGTH_TELL,
    decision_shares,
    group_rates,
    length_tell,
    set_problems_v1,
)
from officegym.envs.vendor_review.v1.authoring.validate import validate_many, validate_record
from officegym.envs.vendor_review.v1.deals import generate_record, tier_of
from officegym.envs.vendor_review.v1.library import GAP_MODES, MET_MODES, PIECE_MODES, load_library

DISTINCT = 10_000
MIN_PIECES = 4
"""Evidence pieces each requirement has in each piece mode, at least."""
VOICE_TERMS = ("console", "security_team")
GENERIC_VALUES = {"vendor": "V", "product": "P", "tenant": "t", "cloud": "C", "update_date": "1 May 2026"}


def _digest(record: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def test_a_seed_names_one_deal_in_any_process() -> None:
    """No hash(), set order or clock: another interpreter (another PYTHONHASHSEED) writes the same deal."""
    here = _digest(generate_record(4242))
    code = (
        "import hashlib, json; from officegym.envs.vendor_review.v1.deals import generate_record; "
        "print(hashlib.sha256(json.dumps(generate_record(4242), sort_keys=True).encode()).hexdigest())"
    )
    env = {"PYTHONHASHSEED": "123"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert other.stdout.strip() == here
    assert _digest(generate_record(4242)) == here


def test_ten_thousand_seeds_give_ten_thousand_distinct_deals() -> None:
    digests = {_digest(generate_record(seed)) for seed in range(DISTINCT)}
    assert len(digests) == DISTINCT


def test_every_generated_deal_passes_the_validator() -> None:
    records = [generate_record(seed) for seed in range(600)]
    assert validate_many(records) == []


def test_the_validator_catches_a_broken_deal() -> None:
    record = generate_record(7)
    gap_deal = next(generate_record(s) for s in range(100) if generate_record(s)["planted_gaps"])
    record["requirements"] = record["requirements"][:5]
    assert any("requirement count" in p for p in validate_record(record))
    flipped = json.loads(json.dumps(gap_deal))
    first = flipped["planted_gaps"][0]["id"]
    flipped["annotations"][first]["mode"] = "met"
    assert any(f"annotation {first}" in p for p in validate_record(flipped))


def test_a_commitment_in_a_draft_is_refused() -> None:
    record = next(generate_record(s) for s in range(300) if generate_record(s)["commitments"])
    order_form = next(d for d in record["documents"] if d["id"] == "order-form")
    order_form["text"] = "DRAFT, not signed.\n" + order_form["text"].replace("Signed for", "To be signed for")
    assert any("is not a document the vendor signed" in p for p in validate_record(record))


def test_tiers_are_known_before_generating() -> None:
    for seed in range(50):
        assert tier_of(f"vr1-gen-{seed:06d}") == generate_record(seed)["tier"]


def test_every_mode_occurs_and_nothing_tells_gaps_from_distractors() -> None:
    records = [generate_record(seed) for seed in range(3000)]
    modes = {note["mode"] for r in records for note in r["annotations"].values()}
    assert modes == {*MET_MODES, *GAP_MODES}
    assert set_problems_v1(records) == []
    gaps, distractors = group_rates(records)
    assert gaps.count > 1000 and distractors.count > 1000


def test_decisions_are_balanced_and_the_set_check_pins_them() -> None:
    """Conditional-go and no-go come about equally often and go rarely (see ``DECISION_SHARES`` for why); a set
    drifting back to mostly no-go fails the check."""
    records = [generate_record(seed) for seed in range(3000)]
    shares = decision_shares(records)
    assert all(low <= shares[d] <= high for d, (low, high) in DECISION_SHARES.items())
    assert abs(shares["conditional-go"] - shares["no-go"]) < 0.08
    for record in records[: len(records) * 3 // 4]:
        record["decision"] = "no-go"
    assert any("no-go" in p for p in set_problems_v1(records))


def test_the_set_check_catches_a_tell() -> None:
    records = [generate_record(seed) for seed in range(300)]
    for record in records:
        for note in record["annotations"].values():
            if note["mode"] == "hidden":
                note["rumour"] = "discredited"
    assert any("rate" in p for p in set_problems_v1(records))


def test_the_library_has_every_mode_for_every_taxonomy_item() -> None:
    library = load_library()
    assert len(library.items) == 24
    for item in library.items:
        evidence = library.evidence[item.id]
        assert all(len(evidence.pieces[mode]) >= MIN_PIECES for mode in PIECE_MODES), item.id
        assert evidence.commitment and evidence.decoy and evidence.rumour and evidence.context


def test_each_vendor_words_the_shared_pieces_its_own_way() -> None:
    """Pieces name the admin console and the security owner through the voice's own terms (``voices.json``), so
    the same piece reads differently from each vendor."""
    library = load_library()
    pieces = [
        text
        for evidence in library.evidence.values()
        for mode in PIECE_MODES
        for piece in evidence.pieces[mode]
        for text in (piece.questionnaire, piece.text)
        if text and any(f"{{{term}}}" in text for term in VOICE_TERMS)
    ]
    assert len(pieces) >= 20
    for term in VOICE_TERMS:
        assert len({voice[term] for voice in library.voices}) == len(library.voices), term
    sample = next(text for text in pieces if "{console}" in text and "{security_team}" not in text)
    rendered = {fill(sample, {**GENERIC_VALUES, **voice}) for voice in library.voices}
    assert len(rendered) == len(library.voices)


def test_the_length_check_passes_generated_deals_and_catches_short_gap_answers() -> None:
    """Generated answers are padded to one length range whatever their mode; a set whose unmet answers are
    shorter than the met ones fails the check."""
    records = [generate_record(seed) for seed in range(300)]
    assert length_tell(records) <= LENGTH_TELL
    codes = {item.id: item.code for item in load_library().items}
    for record in records:
        questionnaire = next(d for d in record["documents"] if d["id"] == "security-questionnaire")
        lines = questionnaire["text"].splitlines()
        for gap in record["planted_gaps"]:
            lines = [
                f"{codes[gap['id']]} Answer." if line.startswith(codes[gap["id"]] + " ") else line for line in lines
            ]
        questionnaire["text"] = "\n".join(lines)
    assert length_tell(records) > LENGTH_TELL
