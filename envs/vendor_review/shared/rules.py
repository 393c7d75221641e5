"""The decision rule of a vendor review, in code: the validator applies it to every authored deal, so an
authored decision is checked against the rule instead of trusted."""

from __future__ import annotations

from .scenario import Decision, Scenario


def derive_decision(scenario: Scenario) -> Decision:
    """Apply the spec's decision rule to the answer key.

    No planted gap means go. A planted MUST gap without a written, dated commitment means no-go. Anything else
    (only SHOULD gaps, or MUST gaps that all carry a commitment) is conditional-go.
    """
    if not scenario.planted_gaps:
        return "go"
    committed = {commitment.id for commitment in scenario.commitments}
    for gap in scenario.planted_gaps:
        if scenario.priority_of(gap.id) == "MUST" and gap.id not in committed:
            return "no-go"
    return "conditional-go"
