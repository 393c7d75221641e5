"""VendorReview-v2's tools: the shared search, read and ask, and a submit tool whose description says what v2's
system prompt says: a requirement is unmet when the value in force misses the buyer's bar, and a commitment counts
when it is signed, dated and promises a value that meets the bar."""

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
        decision: "go" (no requirement unmet), "no-go" (a MUST requirement is unmet and the vendor has not
            signed a dated commitment to a value that meets the bar; drafts and unsigned promises do not count),
            or "conditional-go" (there are unmet requirements and every unmet MUST has such a signed commitment).
        gap_ids: The ID of every unmet requirement from the requirements matrix (e.g. ["REQ-RPO"]): those whose
            value in force misses the buyer's pass bar, committed or not; an empty list if all are met. Flag
            only requirements that are really unmet: false flags cost points.
        rationale: Why, briefly, citing the documents.
    """
    return record_submission(ctx, decision, gap_ids, rationale)


TOOLS: tuple[Tool, ...] = (search_docs, read_doc, ask_it_channel, submit_recommendation)
