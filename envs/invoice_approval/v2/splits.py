"""InvoiceApproval-v2's honest split is v1's: the same train companies (v2 runs on v1's companies), found by
v1's search and its caches, so v2 costs no second search (``v1/splits.py``)."""

from __future__ import annotations

from ..v1.splits import TRAIN_SEED_START, train_company_seeds

__all__ = ["TRAIN_SEED_START", "train_company_seeds"]
