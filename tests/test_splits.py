"""Task rows and the honest split: the train split shares nothing memorable with the eval split."""

from __future__ import annotations

import pytest

from officegym.envs.core.arguments import ArgumentError
from officegym.envs.invoice_approval.shared.db import CANONICAL_SEED
from officegym.envs.invoice_approval.shared.splits import memorable, shared_with
from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.envs.invoice_approval.v0.splits import TRAIN_SEED_START, train_company_seeds
from officegym.splits import task_rows

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"


def test_invoice_rows_train_on_generated_companies_and_evaluate_on_the_shipped_one() -> None:
    train, evaluation = task_rows(INVOICE, "train", sources=1), task_rows(INVOICE, "eval")
    assert len(evaluation) == 60 and all(row["env_kwargs"] == {} for row in evaluation)
    assert len(train) == 60 and {row["env_kwargs"]["company_seed"] for row in train} == set(train_company_seeds(1))
    assert {row["split"] for row in train} == {"train"} and {row["split"] for row in evaluation} == {"eval"}
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


def test_vendor_review_is_evaluation_only_and_says_so() -> None:
    assert len(task_rows(VENDOR, "eval")) == 20
    with pytest.raises(ArgumentError, match="20 hand-written deals are for evaluation only"):
        task_rows(VENDOR, "train")


@pytest.mark.parametrize(
    ("split", "sources", "message"),
    [("test", 1, "split must be 'train' or 'eval'"), ("eval", 0, "sources must be between 1 and")],
)
def test_bad_split_arguments_name_the_fix(split: str, sources: int, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        task_rows(VENDOR, split, sources)
