"""InvoiceApproval-v1's honest split: train on generated companies that share nothing memorable with the shipped one.

The same rule as v0's (``envs/invoice_approval/splits.py``: no supplier name, VAT ID or IBAN, no invoice, no
work-order text in common), because a policy trained on names it meets again at evaluation can learn the books
instead of the job. v1's generator draws from the same name pools, so a seed's company does share a supplier
name now and then (seed 200,000 shares two); such seeds, and seeds whose tasks the builder refuses, are skipped.
Deterministic: the first ``count`` qualifying seeds from ``TRAIN_SEED_START``.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from ..splits import shared_with
from .bundle import load_bundle
from .db import CANONICAL_SEED

TRAIN_SEED_START: Final = 200_000
MAX_TRIES: Final = 1_000


@cache
def train_company_seeds(count: int) -> list[int]:
    """The first ``count`` usable seeds from ``TRAIN_SEED_START`` (each company is generated once per process)."""
    evaluation = load_bundle(CANONICAL_SEED)
    seeds: list[int] = []
    for seed in range(TRAIN_SEED_START, TRAIN_SEED_START + MAX_TRIES):
        if len(seeds) == count:
            break
        try:
            candidate = load_bundle(seed)
        except RuntimeError:  # the task builder refuses this company
            continue
        if not any(shared_with(candidate, evaluation).values()):
            seeds.append(seed)
    return seeds
