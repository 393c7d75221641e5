"""Offline work for VendorReview: validating authored scenarios and generating the README table."""
