"""VendorReview-v1's decision rule is the shared one (``shared/rules.py``); v1 adds nothing to it. What v1 changes
is what counts as a commitment (signed and dated; a draft counts for nothing), and its deals encode that: only a
signed promise becomes a commitment of the answer key. ``plan.decision_of`` applies the same rule to planned
items, and the validator checks that the two agree."""

from __future__ import annotations

from ..shared.rules import derive_decision

__all__ = ["derive_decision"]
