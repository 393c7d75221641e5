"""VendorReview-v1's discrete action catalogue is the shared ``VendorCatalogue`` (``shared/catalogue.py``) over
v1's deals, with the shared taxonomy's 24 requirement types; v1 adds nothing to it."""

from __future__ import annotations

from ..shared.catalogue import VendorCatalogue

__all__ = ["VendorCatalogue"]
