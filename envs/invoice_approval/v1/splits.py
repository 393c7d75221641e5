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

from ..shared.company_cache import cached_seeds
from ..shared.splits import qualifying_seeds
from .bundle import VERSION, load_bundle

TRAIN_SEED_START: Final = 200_000


@cache
def train_company_seeds(count: int) -> list[int]:
    """The first ``count`` usable seeds from ``TRAIN_SEED_START`` (each company is generated once per process;
    a company the task builder refuses raises a RuntimeError and is skipped)."""
    return cached_seeds(  # once per machine: the search generates and refuses companies (~1 min for v1's first)
        VERSION,
        f"train start={TRAIN_SEED_START} count={count}",
        lambda: qualifying_seeds(load_bundle, TRAIN_SEED_START, count, RuntimeError),
    )
