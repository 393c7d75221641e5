"""Offline work for VendorReview-v0: validating authored scenarios and generating the README table."""
