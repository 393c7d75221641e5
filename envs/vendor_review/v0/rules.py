"""VendorReview-v0's decision rule is the shared one (``shared/rules.py``): v0 adds nothing to it. The
validator applies it to every authored deal, so an authored decision is checked against the rule instead of
trusted."""

from __future__ import annotations

from ..shared.rules import derive_decision

__all__ = ["derive_decision"]
