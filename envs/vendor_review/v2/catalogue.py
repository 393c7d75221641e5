"""VendorReview-v2's discrete action catalogue is the shared ``VendorCatalogue`` (``shared/catalogue.py``) over
v2's deals, with v2's own 14 requirement types (``deals.taxonomy``, one per claim) in place of the shared
taxonomy; ``DealEnv.action_catalogue`` passes them."""

from __future__ import annotations

from ..shared.catalogue import VendorCatalogue

__all__ = ["VendorCatalogue"]
