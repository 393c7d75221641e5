"""The adversarial battery on VendorReview-v2's test split: no policy that does not read for meaning may score
above max(best fixed-decision policy + 0.05, 0.30).

The battery (``benchmarks/vendor_battery.py``) plays every policy through ``env.step`` with agent-visible text
only: bar-wording overlap, hedge / promise / draft cue lexicons, rumours, which and how many documents name a
row, answer-length windows, and learned policies trained on 2,000 training deals (a bag-of-words and bigram
logistic regression per requirement row, over the row's sentences and over the whole deal, and three
sentence-lookup tables). ``benchmarks/results/vendor_battery_v2.json`` holds the full table.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.vendor_battery import CONTROLS, run_battery

TRAIN_DEALS = 2000


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    found: dict[str, Any] = run_battery("officegym/VendorReview-v2", train_deals=TRAIN_DEALS, holdout_deals=10)
    return found


def test_no_cheap_policy_beats_the_bound_on_the_test_split(result: dict[str, Any]) -> None:
    bound = result["bound"]
    assert bound == pytest.approx(max(result["best_fixed"] + 0.05, 0.30))
    above = {
        name: scores["test"]
        for name, scores in result["policies"].items()
        if name not in CONTROLS and scores["test"] > bound
    }
    assert above == {}


def test_the_controls_behave(result: dict[str, Any]) -> None:
    assert result["policies"]["oracle"]["test"] == 1.0
    assert result["deals"] == {"test": 220, "test_handwritten": 20, "test_generated": 200, "train_holdout": 10}


@pytest.mark.parametrize("part", ["test_handwritten", "test_generated"])
def test_no_cheap_policy_beats_the_bound_on_either_part_of_the_test_split(result: dict[str, Any], part: str) -> None:
    assert result["parts"][part]["exceeding"] == []
