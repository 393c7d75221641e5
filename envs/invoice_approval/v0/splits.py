"""InvoiceApproval's honest split: train on generated companies, evaluate on the shipped one.

A policy trained on the company it is evaluated on can learn the books instead of the job (which supplier is
blocked, which invoice is a duplicate). So the train split uses companies generated from other seeds, and a
seed is used only if its company shares nothing an agent could memorise with the shipped one: no supplier name,
VAT ID or IBAN, no invoice (the same supplier name, supplier invoice number and gross), no work-order text.
Internal IDs (``ER-2026-00001``, ``K-70001``) are numbered alike in every company and say nothing about a record,
so they are not compared. The choice of seeds is deterministic: the first ``count`` qualifying seeds from
``TRAIN_SEED_START`` (the search is ``shared/splits.py``).
"""

from __future__ import annotations

from functools import cache
from typing import Final

from ..shared.company_cache import cached_seeds
from ..shared.splits import qualifying_seeds
from .bundle import VERSION, UnusableCompany, load_bundle

TRAIN_SEED_START: Final = 100_000


@cache
def train_company_seeds(count: int) -> list[int]:
    """The first ``count`` company seeds from ``TRAIN_SEED_START`` whose companies share nothing memorable with
    the shipped (evaluation) company. Seeds whose company the task builder cannot finish are skipped too (a
    few seeds give a batch with too few distinct wrong paths; the builder refuses them rather than ship a
    weaker task)."""
    return cached_seeds(  # once per machine: the search generates and refuses companies (~1 min for v1's first)
        VERSION,
        f"train start={TRAIN_SEED_START} count={count}",
        lambda: qualifying_seeds(load_bundle, TRAIN_SEED_START, count, UnusableCompany),
    )
