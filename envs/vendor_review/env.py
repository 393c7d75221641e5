"""Compatibility only: ``officegym.envs.vendor_review.env:VendorReviewEnv`` is the entry point v0 was registered
under before the versions became sibling folders. The env lives in ``v0/env.py``; this name stays so that entry
points, pickles and imports written before keep working. Nothing in the package imports it.
"""

from __future__ import annotations

from .v0.env import VendorReviewEnv

__all__ = ["VendorReviewEnv"]
