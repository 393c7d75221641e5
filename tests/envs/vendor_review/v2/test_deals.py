"""VendorReview-v2's deals: valid, deterministic, labelled by values, and written so that only reading tells a gap.

The set checks bound every surface feature's tell; the split checks show the test split shares no sentence with
training deals; the reader (``v2/reader.py``), which sees only the documents' text, scores full marks on both
splits, so every label follows from the text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import gymnasium as gym
import pytest

import officegym  # noqa: F401  (registers the ids)
from officegym.envs.vendor_review.v2.authoring.set_checks import TELL_BOUND, set_problems, tells
from officegym.envs.vendor_review.v2.authoring.validate import validate_record
from officegym.envs.vendor_review.v2.claims import claims, render
from officegym.envs.vendor_review.v2.deals import TEST_SEEDS, generate_record, handwritten_records
from officegym.envs.vendor_review.v2.plan import plan_deal
from officegym.envs.vendor_review.v2.reader import ReaderPolicy

from ..episodes import play

V2 = "officegym/VendorReview-v2"
TRAIN = [generate_record(seed) for seed in range(600)]
TEST = [generate_record(seed) for seed in TEST_SEEDS]
HANDWRITTEN = list(handwritten_records().values())
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def test_every_deal_is_valid() -> None:
    assert [p for record in HANDWRITTEN + TRAIN[:200] + TEST for p in validate_record(record)] == []


def test_the_hand_written_deals_cover_every_tier_decision_and_mechanism() -> None:
    assert len(HANDWRITTEN) == 20
    assert {r["tier"] for r in HANDWRITTEN} == {"easy", "medium", "hard"}
    assert {r["decision"] for r in HANDWRITTEN} == {"go", "conditional-go", "no-go"}
    notes = [note for r in HANDWRITTEN for note in r["annotations"].values()]
    assert {n["mechanism"] for n in notes} == {"plain", "plans", "superseded"}
    assert {n["promise"] for n in notes} == {"none", "signed", "draft"}


def test_the_hand_written_deals_share_no_surface_tell_beyond_noise() -> None:
    """Twenty deals are too few for the generated sets' bound; no feature may earn a tenth of the gaps."""
    assert max(tells(HANDWRITTEN).values()) <= HANDWRITTEN_TELL_BOUND


HANDWRITTEN_TELL_BOUND = 0.10


@pytest.mark.parametrize("records", ["train", "test"])
def test_no_surface_feature_tells_a_gap(records: str) -> None:
    chosen = TRAIN if records == "train" else TEST
    assert set_problems(chosen) == []
    assert max(tells(chosen).values()) <= TELL_BOUND


def test_a_deal_is_the_same_every_time() -> None:
    assert generate_record(7) == generate_record(7)
    assert plan_deal(900_003) == plan_deal(900_003)


def test_the_same_value_meets_one_bar_and_misses_another() -> None:
    """Labels follow from values: for every claim, one vendor value is met under some deals' bars and missed
    under others', in both splits."""
    seen: dict[tuple[str, float], set[bool]] = {}
    for record in TRAIN + TEST:
        for rid, note in record["annotations"].items():
            seen.setdefault((rid, note["value"]), set()).add(bool(note["gap"]))
    both = {key for key, labels in seen.items() if labels == {True, False}}
    assert {rid for rid, _ in both} == {c.id for c in claims()}


def _sentences(records: list[dict[str, object]]) -> Counter[str]:
    found: Counter[str] = Counter()
    for record in records:
        for doc in record["documents"]:  # type: ignore[attr-defined]
            if doc["kind"] != "requirements_matrix":
                found.update(s.strip() for s in SENTENCE.split(doc["text"]) if len(s.split()) >= 5)
    return found


@pytest.mark.parametrize("records", ["generated", "hand-written"])
def test_the_test_split_shares_no_sentence_with_training_deals(records: str) -> None:
    chosen = TEST if records == "generated" else HANDWRITTEN
    shared = set(_sentences(TRAIN)) & set(_sentences(chosen))
    assert sorted(shared) == []


def test_value_forms_differ_between_the_splits() -> None:
    import random

    rng = random.Random(0)
    for c in claims():
        train = {render(c.unit, level, "train", rng) for level in c.levels}
        test = {render(c.unit, level, "test", rng) for level in c.levels for _ in range(4)}
        assert not train & test, c.id


def test_training_deals_rarely_repeat_an_evidence_sentence() -> None:
    statements = Counter(
        phrase for record in TRAIN for finding in [*record["planted_gaps"], *record["distractors"]]
        for phrase in finding["evidence"]
    )  # fmt: skip
    repeated = sum(n for n in statements.values() if n > 1)
    assert repeated / sum(statements.values()) < 0.10


@pytest.mark.parametrize("split", ["train", "test"])
def test_a_reader_of_the_text_alone_scores_full_marks(split: str) -> None:
    kwargs = {"split": "train", "first_seed": 0, "deals": 150} if split == "train" else {"split": "test"}
    # the test split holds the hand-written deals too
    env = gym.make(V2, **kwargs)
    rewards = [play(env, task_id, ReaderPolicy()) for task_id in env.unwrapped.task_ids]  # type: ignore[attr-defined]
    assert min(rewards) == 1.0


def test_the_test_split_is_pinned() -> None:
    """v2's test deals (hand-written and generated) are a released evaluation set: any change is a new version."""
    digest = hashlib.sha256(json.dumps(HANDWRITTEN + TEST, sort_keys=True).encode()).hexdigest()
    assert digest == RELEASED_TEST_DIGEST


RELEASED_TEST_DIGEST = "135bcf1645b8e656c6fce0c9041da86eadca308911c4ad95ce110cb7c61ef73b"
