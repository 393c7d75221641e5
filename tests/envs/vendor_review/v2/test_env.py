"""VendorReview-v2 as an env: the contract's arguments, splits, and the scripted policies' ceilings."""

from __future__ import annotations

from statistics import mean
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401  (registers the ids)
from officegym.envs.core.arguments import ArgumentError
from officegym.envs.vendor_review.shared.baselines import FIXED_DECISIONS
from officegym.envs.vendor_review.v2.deals import TEST_SEEDS, generated_id, handwritten
from officegym.registration import env_class

from ..episodes import scores

V2 = "officegym/VendorReview-v2"
CHEAP = 0.30
CEILINGS = {"lazy": CHEAP, "flag_all": CHEAP, **dict.fromkeys(FIXED_DECISIONS, CHEAP)}
SETS: dict[str, dict[str, Any]] = {
    "test": {"split": "test"},
    "train": {"split": "train", "first_seed": 5000, "deals": 150},
}


@pytest.mark.parametrize("deal_set", list(SETS))
def test_oracle_is_perfect_and_cheap_policies_stay_under_their_ceilings(deal_set: str) -> None:
    env = gym.make(V2, **SETS[deal_set])
    assert min(scores(env, "oracle")) == 1.0
    means = {policy: mean(scores(env, policy)) for policy in CEILINGS}
    assert {p: s for p, s in means.items() if s > CEILINGS[p]} == {}, deal_set
    assert mean(scores(env, "paranoid")) < 1.0  # flags every row it has no reason to trust


def test_the_test_split_is_the_hand_written_deals_and_the_held_out_seeds() -> None:
    env = gym.make(V2)
    expected = [*handwritten(), *(generated_id(seed) for seed in TEST_SEEDS)]
    assert len(handwritten()) == 20
    assert list(env.unwrapped.task_ids) == expected  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"split": "eval"}, "split must be 'test' or 'train'"),
        ({"split": "train", "first_seed": 899_999, "deals": 2}, "must stay below 900,000"),
        ({"split": "train", "deals": 0}, "deals"),
        ({"task_ids": ["vr1-gen-000001"]}, "vr2-gen-900000"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_arguments_name_the_fix(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((ArgumentError, ValueError, TypeError), match=message):
        gym.make(V2, **kwargs)


def test_train_sources_never_reach_the_test_seeds() -> None:
    sources = env_class(V2).split_sources("train", 10_000)
    assert max(s["first_seed"] + s["deals"] for s in sources) <= TEST_SEEDS[0]
