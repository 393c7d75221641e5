"""InvoiceApproval-v1's train split shares nothing memorable with the shipped (evaluation) company."""

from __future__ import annotations

from officegym.envs.invoice_approval.shared.splits import shared_with
from officegym.envs.invoice_approval.v1.bundle import load_bundle
from officegym.envs.invoice_approval.v1.env import InvoiceApprovalV1Env
from officegym.envs.invoice_approval.v1.splits import TRAIN_SEED_START, train_company_seeds


def test_the_first_train_company_shares_nothing_and_a_skipped_one_did() -> None:
    """Seed 200,000 shares two supplier names with the shipped company, so the split skips it; the seed it takes
    shares no supplier name, VAT ID, IBAN, invoice or work order. (Generating a company takes seconds: one seed.)"""
    evaluation = load_bundle()
    (seed,) = train_company_seeds(1)
    assert seed > TRAIN_SEED_START
    assert not any(shared_with(load_bundle(seed), evaluation).values())
    assert shared_with(load_bundle(TRAIN_SEED_START), evaluation)["supplier names"]
    assert InvoiceApprovalV1Env.split_sources("train", 1) == [{"company_seed": seed}]
