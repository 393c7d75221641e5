"""VendorReview-v0's four tools: the shared search, read and ask, and v0's submit tool. Each docstring is the
description the model reads."""

from __future__ import annotations

from typing import Annotated

from ...core import MaxLen, Tool, tool
from ..shared.episode import VendorEpisode
from ..shared.scenario import Decision
from ..shared.tools import ask_it_channel, read_doc, record_submission, search_docs


@tool(terminal=True)
def submit_recommendation(
    ctx: VendorEpisode,
    decision: Decision,
    gap_ids: Annotated[list[Annotated[str, MaxLen(40)]], MaxLen(30)],
    rationale: Annotated[str, MaxLen(4000)],
) -> str:
    """Submit your recommendation. This ends the review.

    Args:
        decision: "go" (no requirement unmet), "no-go" (a MUST requirement is unmet without a written, dated
            remediation commitment from the vendor), or "conditional-go" (there are unmet requirements and
            every unmet MUST has such a commitment).
        gap_ids: The ID of every unmet requirement from the requirements matrix (e.g. ["REQ-SCIM"]); an
            empty list if all are met. Flag only requirements that are really unmet: false flags cost points.
        rationale: Why, briefly, citing the documents.
    """
    return record_submission(ctx, decision, gap_ids, rationale)


TOOLS: tuple[Tool, ...] = (search_docs, read_doc, ask_it_channel, submit_recommendation)
