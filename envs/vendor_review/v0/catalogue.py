"""VendorReview-v0's discrete action catalogue is the shared ``VendorCatalogue`` (``shared/catalogue.py``) over
v0's scenarios; v0 adds nothing to it."""

from __future__ import annotations

from ..shared.catalogue import VendorCatalogue

__all__ = ["VendorCatalogue"]
