"""What the Gymnasium faces of every VendorReview version share: the opening message of an episode."""

from __future__ import annotations

from .scenario import Scenario


def opening_message(scenario: Scenario) -> str:
    """The review request, followed by the list of documents in the deal file (IDs for ``read_doc``)."""
    listing = "\n".join(f"- {d.id}: {d.title}" for d in scenario.documents)
    return f"{scenario.request}\n\nDocuments in this deal file:\n{listing}"
