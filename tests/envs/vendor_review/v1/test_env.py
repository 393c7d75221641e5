"""VendorReview-v1 as an env: splits, arguments, and the cheap policies' ceilings."""

from __future__ import annotations

import re
from statistics import mean
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401  (registers the ids)
from officegym.envs.core.arguments import ArgumentError
from officegym.envs.vendor_review.shared.baselines import FIXED_DECISIONS
from officegym.envs.vendor_review.v1.deals import TEST_SEEDS, generated_id, handwritten
from officegym.envs.vendor_review.v1.env import VendorReviewV1Env
from officegym.policies.registry import make_policy
from officegym.splits import task_rows

from ..episodes import scores

V1 = "officegym/VendorReview-v1"
CHEAP = 0.30
CEILINGS = {
    "lazy": 0.10,
    "paranoid": 0.52,
    "negation": CHEAP,
    "flag_all": CHEAP,
    "search_hits": CHEAP,
    "dated_promises": CHEAP,
    **dict.fromkeys(FIXED_DECISIONS, CHEAP),
}
"""Each set's mean reward ceiling: paranoid keeps the right decision but over-flags; every other policy does
not read for meaning, and the fixed-decision ones (every core document read, no flag, one answer) are the
best a non-reader can do."""
SETS: dict[str, dict[str, Any]] = {
    "hand-written": {"task_ids": list(handwritten())},
    "held-out": {"task_ids": [generated_id(seed) for seed in TEST_SEEDS]},
    "train": {"split": "train", "first_seed": 5000, "deals": 150},
}


@pytest.mark.parametrize("deal_set", list(SETS))
def test_oracle_is_perfect_and_cheap_policies_stay_under_their_ceilings(deal_set: str) -> None:
    env = gym.make(V1, **SETS[deal_set])
    assert min(scores(env, "oracle")) == 1.0
    means = {policy: mean(scores(env, policy)) for policy in CEILINGS}
    assert {p: s for p, s in means.items() if s > CEILINGS[p]} == {}, deal_set


def test_a_fixed_decision_policy_reads_everything_and_flags_nothing() -> None:
    env = gym.make(V1, task_ids=["vr1-easy-06", "vr1-medium-01"])
    for task_id, expected in (("vr1-easy-06", 1.0), ("vr1-medium-01", 0.1)):
        observation, info = env.reset(options={"task_id": task_id})
        agent = make_policy("fixed_go", env, 0)
        agent.reset(observation, info)
        while True:
            observation, reward, terminated, truncated, _ = env.step(agent.act(observation))
            if terminated or truncated:
                break
        assert reward == pytest.approx(expected), task_id


def test_the_test_split_holds_the_held_out_seeds_and_the_train_split_never_does() -> None:
    test_ids = VendorReviewV1Env().task_ids
    assert {generated_id(seed) for seed in TEST_SEEDS} <= set(test_ids)
    train = VendorReviewV1Env.split_sources("train", 10_000)
    assert all(s["first_seed"] + s["deals"] <= TEST_SEEDS[0] for s in train)
    rows = task_rows(V1, "train", sources=1)
    assert len(rows) == 200 and not {r["task_id"] for r in rows} & set(test_ids)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"split": "dev"}, "split must be 'test' or 'train'"),
        ({"split": "train", "deals": 0}, "deals must be between 1 and"),
        ({"split": "train", "first_seed": 899_999, "deals": 5}, "first_seed + deals must stay below"),
        ({"task_ids": ["vr1-gen-000001"]}, "unknown deal id(s)"),
    ],
)
def test_bad_arguments_name_the_fix(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgumentError, match=re.escape(message)):
        gym.make(V1, **kwargs)


def test_the_prompt_and_the_submit_tool_agree_on_what_counts() -> None:
    env = VendorReviewV1Env()
    prompt = env.system_prompt()
    assert "signed by the vendor" in prompt and "draft" in prompt
    submit = next(s for s in env.tool_schemas if s["function"]["name"] == "submit_recommendation")
    assert "drafts and unsigned promises do not count" in submit["function"]["parameters"]["properties"]["decision"][
        "description"
    ].replace("\n", " ")
