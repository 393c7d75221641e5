"""Constraints over the whole shipped scenario set (the spec's, beyond what each file can show alone).

20 scenarios (6 easy, 9 medium, 5 hard); exactly two with no gap; every taxonomy requirement used somewhere;
every buyer and every vendor of the cast in at least two deals; all three decisions present; at least one
deal whose only gaps are SHOULDs (conditional-go on a SHOULD alone) and at least one no-go.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...shared.scenario import CastIds, Scenario, TaxonomyItem

TIER_COUNTS = {"easy": 6, "medium": 9, "hard": 5}
ZERO_GAP_SCENARIOS = 2
MIN_APPEARANCES = 2


def set_problems(scenarios: Sequence[Scenario], taxonomy: Sequence[TaxonomyItem], cast: CastIds) -> list[str]:
    """Every violated set-level constraint, one sentence each; empty means the set is complete."""
    problems: list[str] = []
    tiers = Counter(s.tier for s in scenarios)
    if dict(tiers) != TIER_COUNTS:
        problems.append(f"set: tiers are {dict(sorted(tiers.items()))}, expected {TIER_COUNTS}")
    zero = [s.id for s in scenarios if not s.planted_gaps]
    if len(zero) != ZERO_GAP_SCENARIOS:
        problems.append(f"set: {len(zero)} scenarios have no gap ({zero}), expected exactly {ZERO_GAP_SCENARIOS}")
    used = {r.id for s in scenarios for r in s.requirements}
    unused = [t.id for t in taxonomy if t.id not in used]
    if unused:
        problems.append(f"set: taxonomy requirements used by no scenario: {unused}")
    for role, ids, counts in (
        ("buyer", cast.buyers, Counter(s.buyer for s in scenarios)),
        ("vendor", cast.vendors, Counter(s.vendor for s in scenarios)),
    ):
        rare = sorted(i for i in ids if counts[i] < MIN_APPEARANCES)
        if rare:
            problems.append(f"set: {role}s in fewer than {MIN_APPEARANCES} scenarios: {rare}")
    decisions = {s.decision for s in scenarios}
    if decisions != {"go", "conditional-go", "no-go"}:
        problems.append(f"set: decisions present are {sorted(decisions)}, expected all three")
    if not any(s.planted_gaps and all(s.priority_of(g.id) == "SHOULD" for g in s.planted_gaps) for s in scenarios):
        problems.append("set: no scenario whose only gaps are SHOULD requirements")
    return problems
