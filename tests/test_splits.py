"""Task rows and the honest split: the train split shares nothing memorable with the test split."""

from __future__ import annotations

import json

import pytest

from officegym.envs.core.arguments import ArgumentError
from officegym.envs.invoice_approval.shared.db import CANONICAL_SEED
from officegym.envs.invoice_approval.shared.splits import memorable, shared_with
from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.envs.invoice_approval.v0.splits import TRAIN_SEED_START, train_company_seeds
from officegym.splits import RowEnvs, make_env, reset_row, row_world, source_label, split_name, task_rows

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"


def test_invoice_rows_train_on_generated_companies_and_evaluate_on_the_shipped_one() -> None:
    train, evaluation = task_rows(INVOICE, "train", sources=1), task_rows(INVOICE, "test")
    assert len(evaluation) == 60 and all(row["env_kwargs"] == "{}" for row in evaluation)
    seeds = {json.loads(row["env_kwargs"])["company_seed"] for row in train}
    assert len(train) == 60 and seeds == set(train_company_seeds(1))
    assert {row["split"] for row in train} == {"train"} and {row["split"] for row in evaluation} == {"test"}
    assert {row["source"] for row in train} == {f"company {seed}" for seed in seeds}
    assert {row["source"] for row in evaluation} == {"shipped"}
    row = evaluation[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and row["tier"] == "single"
    assert not {r["prompt"][1]["content"] for r in train} & {r["prompt"][1]["content"] for r in evaluation}


def test_no_supplier_invoice_or_work_order_of_the_eval_split_appears_in_the_train_split() -> None:
    evaluation = load_bundle(CANONICAL_SEED)
    for seed in train_company_seeds(2):
        shared = shared_with(load_bundle(seed), evaluation)
        assert shared == {kind: set() for kind in shared}, f"company {seed} shares {shared}"


def test_the_check_would_catch_a_company_that_shares_something() -> None:
    """A seed the split skipped (or the shipped company itself) shares what the check looks for."""
    evaluation = load_bundle(CANONICAL_SEED)
    assert all(memorable(evaluation).values())
    assert all(shared_with(evaluation, evaluation).values())
    skipped = [s for s in range(TRAIN_SEED_START, TRAIN_SEED_START + 10) if s not in train_company_seeds(2)]
    assert not skipped or any(shared_with(load_bundle(skipped[0]), evaluation).values())


def test_vendor_review_v0_is_test_only_and_says_so() -> None:
    assert len(task_rows(VENDOR, "test")) == 20
    assert task_rows(VENDOR, "eval") == task_rows(VENDOR, "test")  # "eval": the older name of the test split
    with pytest.raises(ArgumentError, match="20 hand-written deals are for evaluation only"):
        task_rows(VENDOR, "train")


@pytest.mark.parametrize(
    ("split", "sources", "message"),
    [
        ("dev", 1, "split must be 'train' or 'test'"),
        ("Test", 1, "split must be 'train' or 'test'"),
        ("test", 0, "sources must be between 1 and"),
        ("test", True, "sources must be"),
    ],
)
def test_bad_split_arguments_name_the_fix(split: str, sources: int, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        task_rows(VENDOR, split, sources)


def test_extra_env_kwargs_reach_every_row_but_may_not_pick_the_source() -> None:
    rows = task_rows(INVOICE, "train", sources=1, tier="batch")
    assert {row["tier"] for row in rows} == {"batch"} and all('"tier":"batch"' in row["env_kwargs"] for row in rows)
    env = make_env(rows[0])
    assert reset_row(env, rows[0])[0] == rows[0]["prompt"][1]["content"]
    with pytest.raises(ArgumentError, match="company_seed select the split's task sources"):
        task_rows(INVOICE, "train", sources=1, company_seed=3)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("single-1", "must be a dict"),
        ({"task_id": "single-1"}, "lacks env_id, env_kwargs"),
        ({"env_id": INVOICE, "env_kwargs": "{}", "task_id": 7}, "must be strings"),
        ({"env_id": INVOICE, "env_kwargs": "[1]", "task_id": "single-1"}, "must be a JSON object"),
        ({"env_id": INVOICE, "env_kwargs": "{", "task_id": "single-1"}, "not JSON text"),
        ({"env_id": INVOICE, "env_kwargs": "[" * 100_000, "task_id": "single-1"}, "not JSON text"),
    ],
)
def test_a_malformed_row_is_refused_with_the_fix(row: object, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        row_world(row)


def test_an_env_made_for_one_world_refuses_another_worlds_row() -> None:
    train, test = task_rows(INVOICE, "train", sources=1), task_rows(INVOICE, "test")
    env = make_env(test[0])
    with pytest.raises(ArgumentError, match=r"make the env with officegym\.splits\.make_env"):
        reset_row(env, train[0])
    other = make_env({**test[0], "env_id": VENDOR})
    with pytest.raises(ArgumentError, match="the row's world is officegym/InvoiceApproval-v0"):
        reset_row(other, test[0])


def test_row_envs_keep_one_env_per_world_and_close_the_oldest() -> None:
    pool = RowEnvs(limit=1)
    train, test = task_rows(INVOICE, "train", sources=1), task_rows(INVOICE, "test")
    first, opening, _ = pool.reset(train[0])
    assert opening == train[0]["prompt"][1]["content"] and pool.env_for(train[1]) is first
    second, opening, _ = pool.reset(test[0])
    assert second is not first and opening == test[0]["prompt"][1]["content"]
    assert pool.env_for(train[0]) is not first  # the limit closed it; the world is made again
    pool.close()


def test_split_names_and_source_labels() -> None:
    assert split_name("eval") == "test" and split_name("train") == "train"
    assert source_label({}) == "shipped" and source_label({"company_seed": 5}) == "company 5"
    assert source_label({"split": "train", "first_seed": 200, "deals": 200}) == "deals 200-399"
