"""Compatibility only: ``officegym.envs.invoice_approval.env:InvoiceApprovalEnv`` is the entry point v0 was
registered under before the versions became sibling folders. The env lives in ``v0/env.py``; this name stays
so that entry points, pickles and imports written before keep working. Nothing in the package imports it.
"""

from __future__ import annotations

from .v0.env import InvoiceApprovalEnv

__all__ = ["InvoiceApprovalEnv"]
