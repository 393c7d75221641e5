"""VendorReview-v2's decision rule is the shared one (``shared/rules.py``). What v2 adds is what makes a row a
gap and a promise a commitment, both from values: a row is unmet when the value in force misses the bar, and a
promise counts when it is signed, dated and promises a value that meets the bar (``plan.RowPlan``).
``plan.decision_of`` applies the rule to planned rows, and the validator checks that it agrees with
``derive_decision`` on every composed deal."""

from __future__ import annotations

from ..shared.rules import derive_decision

__all__ = ["derive_decision"]
