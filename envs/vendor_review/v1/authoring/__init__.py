"""Offline work for VendorReview-v1: validating hand-written and generated deals, the checks over many deals, and
the README table."""
