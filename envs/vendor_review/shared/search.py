"""Deterministic keyword search over one deal's document store.

Ranking, stated so that an agent (and a reader of a transcript) can predict it: a document scores by how many
*different* query words it contains, then by how often those words occur in it; ties keep the document
order of the file. Words are lower-cased runs of letters and digits; a short list of English function words
is ignored. The snippet is the sentence of the document that contains the most different query words
(the earliest on a tie), clipped to 240 characters.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .scenario import Document

WORD = re.compile(r"[^\W_]+")
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "they",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
    )
)
MAX_RESULTS = 5
SNIPPET_CHARS = 240


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS]


@dataclass(frozen=True)
class Hit:
    doc_id: str
    title: str
    matched_terms: int
    occurrences: int
    snippet: str


@dataclass(frozen=True)
class DocumentIndex:
    """Term counts per document, built once per scenario."""

    documents: tuple[Document, ...]
    counts: tuple[Counter[str], ...]

    @classmethod
    def build(cls, documents: tuple[Document, ...]) -> DocumentIndex:
        return cls(documents, tuple(Counter(words(f"{d.title}\n{d.text}")) for d in documents))

    def search(self, query: str) -> list[Hit]:
        terms = list(dict.fromkeys(words(query)))
        scored = []
        for order, (doc, counts) in enumerate(zip(self.documents, self.counts, strict=True)):
            matched = [t for t in terms if counts[t]]
            if matched:
                scored.append((-len(matched), -sum(counts[t] for t in matched), order, doc))
        scored.sort(key=lambda s: s[:3])
        return [Hit(doc.id, doc.title, -m, -o, snippet(doc.text, terms)) for m, o, _, doc in scored[:MAX_RESULTS]]


def snippet(text: str, terms: list[str]) -> str:
    """The sentence with the most different query words (earliest on a tie), clipped around its first one."""
    wanted = set(terms)
    best, best_hits = "", 0
    for sentence in SENTENCE.split(text):
        hits = len(wanted & set(words(sentence)))
        if hits > best_hits:
            best, best_hits = sentence.strip(), hits
    if len(best) <= SNIPPET_CHARS:
        return best
    first = min((best.lower().find(t) for t in wanted if t in best.lower()), default=0)
    start = max(0, first - SNIPPET_CHARS // 3)
    clipped = best[start : start + SNIPPET_CHARS]
    return ("..." if start else "") + clipped + ("..." if start + SNIPPET_CHARS < len(best) else "")
