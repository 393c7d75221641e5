"""The tool bodies every VendorReview version shares: search, read and ask, and the submission check each
version's submit tool calls. Each docstring is the description the model reads."""

from __future__ import annotations

import json
from typing import Annotated

from ...core import MaxLen, ToolError, tool
from .episode import VendorEpisode
from .scenario import Decision


@tool()
def search_docs(ctx: VendorEpisode, query: Annotated[str, MaxLen(300)]) -> str:
    """Search the deal's documents by keywords. Returns up to 5 documents, ranked by how many different query
    words each contains, then by how often they occur (ties keep the file's document order), each with the
    sentence that matches best. Search finds where to look; read the document before relying on it.

    Args:
        query: A few keywords, e.g. "offline cache days" or "breach notification hours".
    """
    if not query.strip():
        raise ToolError("search_docs: the query is empty; give a few keywords")
    ctx.searches += 1
    hits = ctx.index.search(query)
    if not hits:
        return json.dumps(
            {"query": query, "results": [], "note": "no document contains these words"}, ensure_ascii=False
        )
    return json.dumps(
        {
            "query": query,
            "results": [
                {
                    "doc_id": h.doc_id,
                    "title": h.title,
                    "matched_terms": h.matched_terms,
                    "occurrences": h.occurrences,
                    "snippet": h.snippet,
                }
                for h in hits
            ],
        },
        ensure_ascii=False,
    )


@tool()
def read_doc(ctx: VendorEpisode, doc_id: Annotated[str, MaxLen(100)]) -> str:
    """Read one document of the deal in full: its title, who wrote it (buyer, vendor or auditor) and its text.

    Args:
        doc_id: The document ID, as listed in the review request or returned by search_docs.
    """
    document = ctx.scenario.document(doc_id)
    if document is None:
        known = ", ".join(d.id for d in ctx.scenario.documents)
        raise ToolError(f"no document '{doc_id[:100]}' in this deal; its documents are: {known}")
    ctx.docs_read[doc_id] = None
    return document.page


@tool()
def ask_it_channel(ctx: VendorEpisode, question: Annotated[str, MaxLen(1000)]) -> str:
    """Ask the buyer's internal IT/procurement channel a question. Colleagues answer with what they know
    (business context, pilot experience, facts that are not in the documents); they do not review the
    vendor for you.

    Args:
        question: Your question, in plain words.
    """
    if not question.strip():
        raise ToolError("ask_it_channel: the question is empty")
    ctx.questions += 1
    return ctx.scenario.it_channel.reply_for(question)


def record_submission(ctx: VendorEpisode, decision: Decision, gap_ids: list[str], rationale: str) -> str:
    """Check a submission against the deal's matrix and record it (shared by every version's submit tool)."""
    matrix = [r.id for r in ctx.scenario.requirements]
    unknown = [g for g in gap_ids if g not in matrix]
    if unknown:
        raise ToolError(f"gap_ids {unknown} are not requirements of this deal's matrix ({', '.join(matrix)})")
    if len(set(gap_ids)) != len(gap_ids):
        raise ToolError("gap_ids lists a requirement twice; list each unmet requirement once")
    if not rationale.strip():
        raise ToolError("rationale is empty; say briefly why")
    ctx.submission = {
        "decision": decision,
        "gap_ids": list(gap_ids),
        "rationale": rationale,
        "docs_read_before": list(ctx.docs_read),
    }
    return f"Recommendation submitted: {decision}, {len(gap_ids)} unmet requirement(s) flagged."
