"""Offline work every VendorReview version shares: the validator's checks and their phrase lists."""
