"""Offline checks of VendorReview-v2's generated deals: the validator and the set-level checks."""
