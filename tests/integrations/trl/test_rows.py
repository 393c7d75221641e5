"""Every row of a split, played through TRL's environment factory, is the world a direct ``gym.make`` of the row
builds: the same opening message, and the row's own gold path scores full marks on it.

TRL pools instances and reuses each across rows of every company in the dataset, so one instance plays all rows
here, in dataset order and then shuffled against the test rows: a company's ``single-1`` must never be played in
another company's books.
"""

from __future__ import annotations

import inspect
import random
from functools import cache
from typing import Any

import pytest

import officegym
from officegym.integrations.trl import OfficeGymEnvironment, environment_factory, make_dataset
from officegym.splits import make_env, reset_row, task_rows

SPLITS = [
    (env_id, split)
    for env_id in officegym.ENV_IDS
    for split in ("train", "test")
    if not (env_id == "officegym/VendorReview-v0" and split == "train")
]
GOLD_SAMPLE = 4


@cache
def rows_of(env_id: str, split: str) -> list[dict[str, Any]]:
    return task_rows(env_id, split, sources=1)


def direct_opening(row: dict[str, Any]) -> str:
    env = make_env(row)
    opening, _ = reset_row(env, row)
    env.close()
    return str(opening)


def play_gold(instance: OfficeGymEnvironment, row: dict[str, Any]) -> float:
    env = make_env(row)
    reset_row(env, row)
    actions = env.unwrapped.gold_actions(row["task_id"])  # type: ignore[attr-defined]
    env.close()
    instance.reset(**row)
    tools = dict(inspect.getmembers(instance, predicate=inspect.ismethod))
    for action in actions:
        tools[action["name"]](**action["arguments"])
    return instance.get_reward()


@pytest.mark.parametrize(("env_id", "split"), SPLITS)
def test_every_row_of_a_split_plays_its_own_world(env_id: str, split: str) -> None:
    rows = rows_of(env_id, split)
    assert rows and {row["split"] for row in rows} == {split}
    instance = environment_factory(env_id)()
    for row in rows:
        instance.reset(**row)
        assert instance.opening == row["prompt"][1]["content"]
    for row in rows[:: max(1, len(rows) // GOLD_SAMPLE)][:GOLD_SAMPLE]:
        assert play_gold(instance, row) == 1.0
        assert instance.source == row["source"]


@pytest.mark.parametrize("env_id", ["officegym/InvoiceApproval-v0", "officegym/InvoiceApproval-v1"])
def test_train_and_test_rows_mixed_on_one_instance_never_swap_companies(env_id: str) -> None:
    """The same task id in two companies: the instance plays each in its own books, in any order."""
    train, test = rows_of(env_id, "train"), rows_of(env_id, "test")
    shared = sorted({row["task_id"] for row in train} & {row["task_id"] for row in test})
    assert shared  # ids repeat across companies: that is why a row names its company
    by_id = {(row["split"], row["task_id"]): row for row in train + test}
    mixed = [by_id[(split, task_id)] for task_id in shared[:6] for split in ("train", "test")]
    random.Random(0).shuffle(mixed)
    instance = environment_factory(env_id)()
    for row in mixed:
        instance.reset(**row)
        assert instance.opening == direct_opening(row) == row["prompt"][1]["content"]
    first = by_id[("train", shared[0])]
    assert first["prompt"][1]["content"] != by_id[("test", shared[0])]["prompt"][1]["content"]
    assert play_gold(instance, first) == 1.0


def test_the_dataset_is_the_rows_and_defaults_to_train() -> None:
    dataset = make_dataset("officegym/VendorReview-v2")
    assert dataset.to_list() == rows_of("officegym/VendorReview-v2", "train")
    assert set(dataset["source"]) == {"deals 0-199"}


def test_a_test_deal_is_not_a_train_deal() -> None:
    train = {row["task_id"] for row in rows_of("officegym/VendorReview-v2", "train")}
    test = {row["task_id"] for row in rows_of("officegym/VendorReview-v2", "test")}
    assert not train & test


def test_rows_of_another_env_or_world_are_refused_and_leave_no_episode() -> None:
    instance = environment_factory("officegym/VendorReview-v2")()
    instance.reset(**rows_of("officegym/VendorReview-v2", "test")[0])
    with pytest.raises(ValueError, match="environment_factory"):
        instance.reset(**rows_of("officegym/VendorReview-v1", "test")[0])
    assert instance.task_id is None  # the failed reset left nothing running
    with pytest.raises(RuntimeError, match="before reset"):
        instance.get_reward()
    with pytest.raises(Exception, match="env_kwargs"):
        instance.reset(env_id="officegym/VendorReview-v2", env_kwargs="{not json", task_id="vr2-easy-01")
    with pytest.raises(ValueError, match="unknown task_id"):
        instance.reset(**{**rows_of("officegym/VendorReview-v2", "train")[0], "env_kwargs": "{}"})


def test_a_row_without_a_world_plays_the_class_world() -> None:
    """A dataset made by hand with only ``task_id`` plays the world ``environment_factory`` names."""
    instance = environment_factory("officegym/InvoiceApproval-v0", company_seed=100000)()
    instance.reset(task_id="single-1")
    train = {row["task_id"]: row for row in rows_of("officegym/InvoiceApproval-v0", "train")}
    assert instance.opening == train["single-1"]["prompt"][1]["content"]
    with pytest.raises(ValueError, match="otherwise than environment_factory"):
        instance.reset(**rows_of("officegym/InvoiceApproval-v0", "test")[0] | {"env_kwargs": '{"company_seed":7}'})
