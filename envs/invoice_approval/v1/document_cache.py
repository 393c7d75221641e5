"""A company's documents parsed and rendered once, not on every call.

Why: ``get_document`` parsed the stored JSON and rendered the same text on every call (80 % of the step, 22x
its SELECT), and every approval parsed its document again for the PO line quantities. Both are pure functions
of the stored JSON text, so they are cached by that text: the bytes an agent sees are the same as before, and a
document whose row changed in an episode's books is parsed anew. One cache per company (``Bundle.documents``),
shared by the episodes of every env on it; it holds at most the company's documents (plus any an episode wrote).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .document import InvoiceDocument
from .document_json import document_from_json
from .document_text import render_text


@dataclass
class DocumentCache:
    """Parsed documents and their rendered texts, by stored JSON text."""

    parsed: dict[str, InvoiceDocument] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)

    def document(self, body: str) -> InvoiceDocument:
        """``document_from_json(body)`` (frozen, so one object can serve every episode)."""
        document = self.parsed.get(body)
        if document is None:
            document = self.parsed[body] = document_from_json(body)
        return document

    def text(self, body: str) -> str:
        """``render_text(document_from_json(body))``: what ``get_document`` returns."""
        text = self.texts.get(body)
        if text is None:
            text = self.texts[body] = render_text(self.document(body))
        return text
