"""The v1 test-deal table for the README: ``python -m officegym.envs.vendor_review.v1.authoring.table``."""

from __future__ import annotations

from collections.abc import Sequence

from ...shared.scenario import Scenario
from ..deals import handwritten, handwritten_records
from ..library import load_library


def _ids(scenario: Scenario, findings: Sequence[str]) -> str:
    return ", ".join(f"{i} ({scenario.priority_of(i)})" for i in findings) or "none"


def markdown_table() -> str:
    library = load_library()
    buyers = {b["id"]: b["name"] for b in library.buyers}
    vendors = {v["id"]: v["name"] for v in library.voices}
    lines = [
        "| id | tier | buyer | vendor | requirements | planted gaps (mode) | distractors | decision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    order = {"easy": 0, "medium": 1, "hard": 2}
    for s in sorted(handwritten().values(), key=lambda s: (order[s.tier], s.id)):
        notes = handwritten_records()[s.id]["annotations"]
        gaps = ", ".join(f"{g} ({s.priority_of(g)}, {notes[g]['mode']})" for g in s.gap_ids) or "none"
        lines.append(
            f"| {s.id} | {s.tier} | {buyers[s.buyer]} | {vendors[s.vendor]} | {len(s.requirements)} | {gaps} | "
            f"{_ids(s, [d.id for d in s.distractors])} | {s.decision} |"
        )
    return "\n".join(lines)


def main() -> int:
    print(markdown_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
