"""An adversarial battery for VendorReview envs: the project rule is "a shortcut is a bug".

Every policy here decides a review from surface features of what the agent sees, not from reading for meaning,
and is played through the real env (``gym.make``, ``env.step``) and graded by the env's own reward. An episode
goes: ``reset`` (the opening request lists the documents), ``read_doc`` of every listed document (so every
policy earns the process component), then one ``submit_recommendation``. A policy sees only that text
(:class:`Deal`); the learned ones also see the training labels (planted gap ids and decision) of *train* deals,
read from ``env.unwrapped.scenario(task_id)``, never those of test deals. The two controls (``oracle``, which
plays ``env.unwrapped.gold_actions``, and ``paranoid``, the env's own scripted baseline if it has one) do read
the answer key; they check the plumbing and are not shortcuts.

What a policy can parse from the text:

- the requirements matrix (:func:`parse_matrix`): rows ``ID | MUST/SHOULD | pass bar``;
- for each row, the sentences "about" it (:func:`analyse`): a sentence that shares at least two content words
  with the row's pass bar or names every topic word of its ID (``REQ-ENC-REST``: "enc..." and "rest");
- which documents look signed (``signed`` in the title or text and no ``draft``/``unsigned``/``not signed``),
  which look like drafts, which is the chat thread (``[date time] Name:`` lines) and which the questionnaire.

The decision rule shared by the non-learned policies (:func:`rule_decision`): nothing flagged -> go; a flagged
MUST row with no promise-looking sentence about it ("shall ... by <date>", "no later than", "commit...") in a
signed-looking document -> no-go; otherwise conditional-go.

``run_battery`` returns each policy's mean reward on the test split (overall, and its hand-written and
generated parts) and on a held-out slice of the train split (deals after the training ones, never trained on),
plus the best fixed-decision score and the bound ``max(best_fixed + 0.05, 0.30)`` per part: a policy above the
bound has found a tell in the deals.

``python -m benchmarks.vendor_battery officegym/VendorReview-v1 [--train-deals N] [--holdout-deals N]
[--out benchmarks/results/vendor_battery_v1.json]`` prints the table and writes the JSON (sorted keys, no
timings, so two runs write the same bytes).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any, Final

import gymnasium as gym
import numpy as np
import numpy.typing as npt

import officegym  # noqa: F401  (registers the env ids)
from officegym.envs.vendor_review.shared.grading import WEIGHTS, gap_score

Array = npt.NDArray[np.float64]
Answer = tuple[list[str], str]
"""What a policy submits: the flagged requirement ids and the decision."""

DECISIONS: Final = ("go", "conditional-go", "no-go")
BOUND_MARGIN: Final = 0.05
BOUND_FLOOR: Final = 0.30
PARTS: Final = ("test", "test_handwritten", "test_generated", "train_holdout")
GENERATED_ID: Final = re.compile(r"-gen-\d+$")
RESULTS: Final = Path(__file__).parent / "results"

STOP_TEXT: Final = (
    "the and for with from that this every least within than only each into their must should all any are not "
    "its per our ours we us you your yours is be been by of to in on or an a as at it has have had was were "
    "will can also which who when where how what there these those such other more most then them they "
    "one two out over under about after before via does do done so if but no nor yes"
)
STOP_WORDS: Final = frozenset(STOP_TEXT.split())
WORD: Final = re.compile(r"[a-z0-9]+")
TOKEN: Final = re.compile(r"[A-Za-z0-9]+")
SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[(\"'])")
DOC_LINE: Final = re.compile(r"^\s*[-*]\s+([A-Za-z0-9][\w.\-]*)\s*:\s*(.*)$", re.M)
AUTHOR: Final = re.compile(r"^\(document [^,]*, written by (?:the )?([^)]+)\)\s*$")
ID_CELL: Final = re.compile(r"^[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)+$")
PRIORITY_CELL: Final = re.compile(r"^(MUST|SHOULD)(?:[- ]?have)?$", re.I)
LOOSE_ROW: Final = re.compile(r"^\W*([A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)+)\W+(MUST|SHOULD)\b[\W_]*(.+)$", re.I)
THREAD_LINE: Final = re.compile(r"^\s*\[[^\]]{3,30}\]\s*[^:]{2,60}:", re.M)
DRAFT: Final = re.compile(r"\b(draft|unsigned|not signed|for discussion)\b", re.I)
SIGNED: Final = re.compile(r"\bsigned\b", re.I)
DATE: Final = r"(\d{1,2}\s+[a-z]+\s+\d{4}|[a-z]+\s+\d{1,2},?\s+\d{4}|\d{4}-\d{2}-\d{2}|q[1-4]\s+\d{4})"
PROMISE: Final = re.compile(
    rf"\bno later than\b|\bcommit\w*|\bundertake\w*|\bshall\b.*\b(by|before)\s+{DATE}|\bby\s+{DATE}.*\bshall\b"
)
HEDGE: Final = re.compile(
    r"\b(typically|roadmap|planned|plans? to|on request|upon request|industry[- ]standard|may|might|can be|"
    r"where possible|aims?|best[- ]effort|generally|designed to|in beta|beta|not yet|under review|"
    r"next (major )?release|later this year|expected|intends?|discuss\w*|standard integrations|supported)\b"
)


# ------------------------------------------------------------------------------------ what the agent sees
@dataclass(frozen=True)
class Row:
    """One requirement of the matrix as its text gives it."""

    id: str
    priority: str
    bar: str


@dataclass(frozen=True)
class Document:
    """One document as ``read_doc`` returned it: the page's title, author and body, split into lines and
    sentences (each sentence keeps the index of its line)."""

    id: str
    title: str
    author: str
    body: str
    lines: tuple[str, ...]
    sentences: tuple[tuple[int, str], ...]

    @cached_property
    def looks_draft(self) -> bool:
        return bool(DRAFT.search(self.title) or DRAFT.search(self.body[:400]))

    @cached_property
    def looks_signed(self) -> bool:
        return not self.looks_draft and bool(SIGNED.search(self.title) or SIGNED.search(self.body))

    @cached_property
    def looks_thread(self) -> bool:
        return len(THREAD_LINE.findall(self.body)) >= 2

    @cached_property
    def looks_questionnaire(self) -> bool:
        return "questionnaire" in f"{self.id} {self.title}".lower()


@dataclass(frozen=True)
class Deal:
    """Everything a policy sees of one deal: the documents the opening message listed, as read, and the
    requirement rows parsed from the matrix document (the one with the most rows)."""

    task_id: str
    documents: tuple[Document, ...]
    rows: tuple[Row, ...]
    matrix: int
    """Index of the requirements matrix in ``documents`` (-1 when no document parses as one)."""


def listed_documents(observation: str) -> list[tuple[str, str]]:
    """The ``(doc_id, title)`` pairs of the opening message's document list (``- id: title`` lines)."""
    return [(m.group(1), m.group(2).strip()) for m in DOC_LINE.finditer(observation)]


def parse_matrix(text: str) -> list[Row]:
    """The rows of a requirements matrix, tolerant of the layout.

    A row is a line of ``|``- (or tab-) separated cells, one of which looks like an ID (``REQ-SCIM``, ``SEC-01``:
    capitals and digits with a dash, dot or underscore), one is a priority (``MUST``/``SHOULD``, any case,
    optionally ``-have``) and the rest, joined, is the pass bar; Markdown table borders are fine and column order
    does not matter. Header and separator lines have no ID cell and are skipped. If no line has cells, lines like
    ``REQ-X (MUST): bar`` or ``REQ-X - MUST - bar`` are read instead. The first row of an ID wins.
    """
    rows: dict[str, Row] = {}
    for line in text.splitlines():
        sep = "|" if "|" in line else "\t" if "\t" in line else None
        if sep is None:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(sep)]
        ids = [i for i, c in enumerate(cells) if ID_CELL.match(c)]
        priorities = [i for i, c in enumerate(cells) if PRIORITY_CELL.match(c)]
        if not ids or not priorities:
            continue
        bar = " ".join(c for i, c in enumerate(cells) if i not in (ids[0], priorities[0]) and c)
        priority = PRIORITY_CELL.match(cells[priorities[0]])
        assert priority is not None
        rows.setdefault(cells[ids[0]], Row(cells[ids[0]], priority.group(1).upper(), bar))
    if not rows:
        for line in text.splitlines():
            match = LOOSE_ROW.match(line.strip())
            if match:
                rows.setdefault(match.group(1), Row(match.group(1), match.group(2).upper(), match.group(3).strip()))
    return list(rows.values())


def parse_page(doc_id: str, title: str, page: str) -> Document:
    """A ``read_doc`` page: ``# title``, ``(document id, written by the author)``, then the body (each header
    line optional)."""
    lines = page.splitlines()
    author = "unknown"
    if lines and lines[0].startswith("#"):
        title = lines.pop(0).lstrip("#").strip() or title
    if lines and (match := AUTHOR.match(lines[0].strip())):
        author = match.group(1).strip().lower()
        lines.pop(0)
    body = "\n".join(lines).strip()
    body_lines = tuple(line.strip() for line in body.splitlines() if line.strip())
    sentences = tuple(
        (i, s.strip()) for i, line in enumerate(body_lines) for s in SENTENCE_END.split(line) if s.strip()
    )
    return Document(doc_id, title, author, body, body_lines, sentences)


def build_deal(task_id: str, listing: Sequence[tuple[str, str]], pages: Mapping[str, str]) -> Deal:
    documents = tuple(parse_page(doc_id, title, pages[doc_id]) for doc_id, title in listing if doc_id in pages)
    parsed = [parse_matrix(d.body) for d in documents]
    matrix = max(range(len(documents)), key=lambda i: len(parsed[i]), default=-1)
    if matrix >= 0 and not parsed[matrix]:
        matrix = -1
    return Deal(task_id, documents, tuple(parsed[matrix]) if matrix >= 0 else (), matrix)


def content_words(text: str) -> list[str]:
    """Lower-case words of three letters or more (or numbers of two digits or more) that are not stop words, in
    order, with a plural ``s`` cut (``providers`` -> ``provider``)."""
    words = (
        w for w in WORD.findall(text.lower()) if (w.isdigit() and len(w) > 1) or (len(w) >= 3 and w not in STOP_WORDS)
    )
    return [w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def id_topics(row_id: str, prefix: str) -> tuple[str, ...]:
    """The topic words of a requirement ID: its parts after the matrix's common prefix (``REQ-ENC-REST`` ->
    ``enc``, ``rest``)."""
    parts = [p.lower() for p in re.split(r"[-_.]", row_id) if p]
    if parts and parts[0] == prefix:
        parts = parts[1:]
    return tuple(parts)


def word_string(text: str) -> str:
    """A text's lower-case words joined by single spaces, with a space at each end (for topic look-ups)."""
    return f" {' '.join(WORD.findall(text.lower()))} "


def topic_needles(topics: Sequence[str]) -> tuple[str, ...]:
    """What :func:`names_topics` looks for: a topic of three letters or more as the start of a word (``enc`` in
    "encrypted"), a shorter one as a whole word (``ai``)."""
    return tuple(f" {t}" if len(t) >= 3 else f" {t} " for t in topics)


def names_topics(words: str, needles: Sequence[str]) -> bool:
    """Whether a sentence (as a :func:`word_string`) names every topic word of a row (``needles``)."""
    return bool(needles) and all(n in words for n in needles)


# -------------------------------------------------------------------------------------- per-row analysis
@dataclass(frozen=True)
class RowView:
    """What the surface policies measure about one row."""

    row: Row
    about: tuple[tuple[int, int, str], ...]
    """(document index, line index, sentence) of every sentence about the row outside the matrix and thread."""
    owned: tuple[tuple[int, int, str], ...]
    """The sentences (outside the matrix and thread) this row is *most* about (bar words shared + 2 if they name
    its topic words; at least 2, ties kept), and every sentence of its questionnaire answer line."""
    thread: tuple[str, ...]
    """Sentences of the chat thread about the row."""
    coverage: float
    """The largest share of the bar's content words that one sentence of a non-matrix document repeats."""
    clean_coverage: float
    """The same over sentences that could meet the bar: outside the thread and draft-looking documents, with no
    hedge or promise cue."""
    answer_words: int
    """Words of the questionnaire line most about the row (0 if none is)."""
    in_appendix: bool
    """Whether a sentence about the row sits after a line starting with "Appendix"."""
    promised: bool
    """Whether a promise-looking sentence about the row sits in a signed-looking document."""


@dataclass(frozen=True)
class DealView:
    """A deal with its rows measured (computed once per deal text)."""

    deal: Deal
    rows: tuple[RowView, ...]
    evidence: tuple[int, ...]
    """Indices of the documents that are neither the matrix nor the thread."""

    def doc(self, index: int) -> Document:
        return self.deal.documents[index]


@lru_cache(maxsize=1024)
def analyse(deal: Deal) -> DealView:
    """Measure every row of a deal (a pure function of the text, kept for the deals a run plays repeatedly)."""
    docs = deal.documents
    thread = {i for i, d in enumerate(docs) if i != deal.matrix and d.looks_thread}
    evidence = tuple(i for i in range(len(docs)) if i != deal.matrix and i not in thread)
    split = [[(line, s, frozenset(content_words(s)), word_string(s)) for line, s in d.sentences] for d in docs]
    appendix = [
        next((k for k, line in enumerate(d.lines) if line.lower().startswith("appendix")), len(d.lines)) for d in docs
    ]
    first = Counter(re.split(r"[-_.]", r.id)[0].lower() for r in deal.rows).most_common(1)
    prefix = first[0][0] if first and first[0][1] * 2 > len(deal.rows) else ""
    flat = [(i, *sentence) for i, sentences in enumerate(split) if i != deal.matrix for sentence in sentences]
    rows = [(frozenset(content_words(r.bar)), topic_needles(id_topics(r.id, prefix))) for r in deal.rows]
    coverage, clean = [0.0] * len(rows), [0.0] * len(rows)
    scores = []
    promises = [bool(PROMISE.search(s.lower())) for _, _, s, _, _ in flat]
    for k, (i, _, s, content, words) in enumerate(flat):
        plain = not (i in thread or docs[i].looks_draft or promises[k] or HEDGE.search(s.lower()))
        sentence_scores = []
        for j, (bar, needles) in enumerate(rows):
            shared = len(bar & content)
            if shared and shared / len(bar) > coverage[j]:
                coverage[j] = shared / len(bar)
            if plain and shared and shared / len(bar) > clean[j]:
                clean[j] = shared / len(bar)
            sentence_scores.append(shared + 2 if needles and all(n in words for n in needles) else shared)
        scores.append(sentence_scores)
    best = [max(row_scores, default=0) for row_scores in scores]
    views = []
    for j, row in enumerate(deal.rows):
        about, thread_about, owned = [], [], []
        promised = False
        answer: tuple[int, int] | None = None
        answer_score = 0
        for k, (i, line, s, _, _) in enumerate(flat):
            if scores[k][j] < 2:
                continue
            if i in thread:
                thread_about.append(s)
                continue
            about.append((i, line, s))
            promised = promised or (promises[k] and docs[i].looks_signed)
            if scores[k][j] == best[k]:
                owned.append((i, line, s))
            if docs[i].looks_questionnaire and scores[k][j] > answer_score:
                answer, answer_score = (i, line), scores[k][j]
        answer_words = 0
        if answer is not None:
            i, line = answer
            answer_words = len(WORD.findall(docs[i].lines[line].lower()))
            owned += [(i, line, s) for ln, s in docs[i].sentences if ln == line]
        in_appendix = any(line > appendix[i] for i, line, _ in about)
        views.append(
            RowView(
                row,
                tuple(about),
                tuple(dict.fromkeys(owned)),
                tuple(thread_about),
                coverage[j],
                clean[j],
                answer_words,
                in_appendix,
                promised,
            )
        )
    return DealView(deal, tuple(views), evidence)


def rule_decision(view: DealView, flagged: Sequence[str]) -> str:
    """The shared decision rule: nothing flagged -> go; a flagged MUST without a promise-looking sentence about it
    in a signed-looking document -> no-go; otherwise conditional-go."""
    if not flagged:
        return "go"
    chosen = set(flagged)
    for row in view.rows:
        if row.row.id in chosen and row.row.priority == "MUST" and not row.promised:
            return "no-go"
    return "conditional-go"


def ruled(flags: Callable[[RowView, DealView], bool]) -> Callable[[DealView], Answer]:
    """A policy that flags the rows ``flags`` picks and decides by :func:`rule_decision`."""

    def policy(view: DealView) -> Answer:
        flagged = [r.row.id for r in view.rows if flags(r, view)]
        return flagged, rule_decision(view, flagged)

    return policy


# ---------------------------------------------------------------------------------------- training data
@dataclass(frozen=True)
class Example:
    """A train deal as the agent saw it, with its labels (planted gap ids, decision) from the env."""

    view: DealView
    gaps: frozenset[str]
    decision: str


def estimated_reward(flagged: Sequence[str], decision: str, example: Example) -> float:
    """The env's grade of an answer on a train deal, process credit included (grading.py's formula), for tuning."""
    gaps = gap_score(set(flagged), set(example.gaps))[0]
    return (
        WEIGHTS["reward_gaps"] * gaps
        + WEIGHTS["reward_decision"] * (decision == example.decision)
        + WEIGHTS["reward_process"]
    )


def mean_estimate(policy: Callable[[DealView], Answer], examples: Sequence[Example]) -> float:
    return sum(estimated_reward(*policy(e.view), e) for e in examples) / max(1, len(examples))


def grid_search(
    make: Callable[[float], Callable[[DealView], Answer]], grid: Sequence[float], examples: Sequence[Example]
) -> float:
    """The grid value whose policy scores best on the train deals (the first of equals)."""
    scores = [mean_estimate(make(value), examples) for value in grid]
    return grid[int(np.argmax(scores))]


BREAK_EVEN: Final = 1 / 3
"""The gap rate above which flagging pays: a hit is worth one find, a false flag costs half of one."""


def gap_table(pairs: Iterable[tuple[Any, bool]]) -> dict[Any, bool]:
    """Key -> whether more than a third of its train rows were gaps (the grade's break-even; a plain majority
    would never flag, as fewer than a fifth of the rows are gaps)."""
    counts: dict[Any, list[int]] = {}
    for key, gap in pairs:
        cell = counts.setdefault(key, [0, 0])
        cell[0] += gap
        cell[1] += 1
    return {key: gaps > BREAK_EVEN * total for key, (gaps, total) in counts.items()}


def labelled_rows(examples: Sequence[Example]) -> Iterable[tuple[RowView, bool, Example]]:
    for e in examples:
        for r in e.view.rows:
            yield r, r.row.id in e.gaps, e


# ------------------------------------------------------------------------------------ the fixed policies
def fixed(decision: str, flag: str = "none") -> Callable[[DealView], Answer]:
    """Always ``decision``, flagging nothing (``"none"``), every row (``"all"``) or every MUST (``"must"``)."""

    def policy(view: DealView) -> Answer:
        flagged = [r.row.id for r in view.rows if flag == "all" or (flag == "must" and r.row.priority == "MUST")]
        return flagged, decision

    return policy


# ----------------------------------------------------------------------------------- bar overlap and cues
def bar_overlap(threshold: float) -> Callable[[DealView], Answer]:
    """Flag a row when no single sentence outside the matrix repeats ``threshold`` of its bar's content words."""
    return ruled(lambda r, v: r.coverage < threshold)


def clean_bar_overlap(threshold: float) -> Callable[[DealView], Answer]:
    """Three rules: flag a row when no sentence that could meet it (not hedged, not a promise, not in a draft or
    the thread) repeats ``threshold`` of its bar's content words; decide by the rule."""
    return ruled(lambda r, v: r.clean_coverage < threshold)


OVERLAP_GRID: Final = tuple(round(0.025 * k, 3) for k in range(41))


def tuned_bar_overlap(examples: Sequence[Example]) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """:func:`bar_overlap` with the threshold that scores best on the train deals (grid of 0.025 steps)."""
    threshold = grid_search(bar_overlap, OVERLAP_GRID, examples)
    return bar_overlap(threshold), {"threshold": threshold}


def tuned_clean_bar_overlap(examples: Sequence[Example]) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """:func:`clean_bar_overlap` with the threshold that scores best on the train deals."""
    threshold = grid_search(clean_bar_overlap, OVERLAP_GRID, examples)
    return clean_bar_overlap(threshold), {"threshold": threshold}


def cue(kind: str) -> Callable[[DealView], Answer]:
    """Flag a row when a sentence about it holds a cue: a hedge word (``"hedge"``), a promise phrase
    (``"promise"``), or sits in a draft-looking document or says draft/unsigned (``"draft"``); ``"any"`` is all
    three."""

    def hit(r: RowView, v: DealView) -> bool:
        for i, _, s in r.about:
            text = s.lower()
            if kind in ("hedge", "any") and HEDGE.search(text):
                return True
            if kind in ("promise", "any") and PROMISE.search(text):
                return True
            if kind in ("draft", "any") and (v.doc(i).looks_draft or DRAFT.search(text)):
                return True
        return False

    return ruled(hit)


def rumours() -> Callable[[DealView], Answer]:
    """Flag every row the chat thread has a sentence about."""
    return ruled(lambda r, v: bool(r.thread))


# ------------------------------------------------------------------------------------ structure and length
def mention_docs(r: RowView) -> tuple[int, ...]:
    """The ids of the documents (outside the matrix and thread) with a sentence about the row, in file order."""
    return tuple(dict.fromkeys(i for i, _, _ in r.about))


def doc_signature(r: RowView, v: DealView) -> tuple[Any, ...]:
    """Which documents mention the row (by id), and whether an appendix does."""
    return (tuple(sorted({v.doc(i).id for i, _, _ in r.about})), r.in_appendix)


def mention_count(examples: Sequence[Example]) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """Flag a row mentioned in at most (or at least) k documents; k and the direction tuned on the train deals."""

    def make(k: float) -> Callable[[DealView], Answer]:
        if k >= 0:
            return ruled(lambda r, v: len(mention_docs(r)) <= k)
        return ruled(lambda r, v: len(mention_docs(r)) >= -k)

    grid = [float(k) for k in [*range(0, 8), *range(-1, -10, -1)]]
    k = grid_search(make, grid, examples)
    return make(k), {"at_most" if k >= 0 else "at_least": abs(int(k))}


def second_document(examples: Sequence[Example]) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """Flag a row that only one document mentions, or one that a second document mentions too (whichever scores
    better on the train deals)."""
    single = ruled(lambda r, v: len(mention_docs(r)) <= 1)
    several = ruled(lambda r, v: len(mention_docs(r)) >= 2)
    if mean_estimate(single, examples) >= mean_estimate(several, examples):
        return single, {"flag": "mentioned by one document or none"}
    return several, {"flag": "mentioned by two documents or more"}


def mention_kinds(examples: Sequence[Example]) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """Flag a row when more than a third of the train rows with the same mentioning documents (and appendix
    placement) were gaps."""
    table = gap_table((doc_signature(r, e.view), gap) for r, gap, e in labelled_rows(examples))
    return ruled(lambda r, v: table.get(doc_signature(r, v), False)), {"signatures": len(table)}


LENGTH_BIN: Final = 6


def length_window(examples: Sequence[Example], by_row: bool) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """Flag a row when more than a third of the train rows whose questionnaire answer has the same length (bins of
    six words; per requirement id if ``by_row``) were gaps."""

    def key(r: RowView) -> tuple[str, int]:
        return (r.row.id if by_row else "", min(r.answer_words // LENGTH_BIN, 20))

    table = gap_table((key(r), gap) for r, gap, _ in labelled_rows(examples))
    return ruled(lambda r, v: table.get(key(r), False)), {"bins": len(table), "gap_bins": sum(table.values())}


# -------------------------------------------------------------------------------------- learned: features
HASH_BITS_ROW: Final = 18
HASH_BITS_DEAL: Final = 14
L2: Final = 1e-4
ITERATIONS: Final = 300
MIN_ROW_EXAMPLES: Final = 20


def ngrams(text: str) -> list[str]:
    """Lower-case unigrams and bigrams (all words, stop words included: "not", "only" matter)."""
    words = TOKEN.findall(text.lower())
    return [*words, *(f"{a} {b}" for a, b in pairwise(words))]


def hashed(text: str, bits: int) -> list[int]:
    """The sorted distinct hash buckets (crc32, so the same in every process) of a text's unigrams and bigrams."""
    mask = (1 << bits) - 1
    return sorted({zlib.crc32(g.encode()) & mask for g in ngrams(text)})


def row_text(r: RowView) -> str:
    """The sentences a row owns (:attr:`RowView.owned`)."""
    return "\n".join(s for _, _, s in r.owned)


def deal_text(v: DealView) -> str:
    """Every document of the deal, titles included."""
    return "\n".join(f"{d.title}\n{d.body}" for d in v.deal.documents)


def dense(features: Sequence[Sequence[int]], columns: npt.NDArray[np.int64], dtype: Any = np.float64) -> Any:
    """Binary bag-of-buckets rows over ``columns`` (sorted bucket ids), each scaled to unit length by its
    number of buckets; buckets outside ``columns`` are dropped. An array of ``dtype``."""
    x = np.zeros((len(features), len(columns)), dtype=dtype)
    for i, f in enumerate(features):
        buckets = np.asarray(f, dtype=np.int64)
        idx = np.minimum(np.searchsorted(columns, buckets), len(columns) - 1)
        idx = idx[columns[idx] == buckets]
        x[i, idx] = 1.0 / np.sqrt(max(1, len(f)))
    return x


def centred(gram: Array) -> Array:
    """The Gram matrix of the centred rows, from the Gram matrix of the rows."""
    out: Array = gram - gram.mean(axis=0) - gram.mean(axis=1)[:, None] + gram.mean()
    return out


def fit_logistic(
    apply: Callable[[Array], Array],
    adjoint: Callable[[Array], Array],
    size: int,
    y: Array,
    softmax: bool,
    mask: Array | None = None,
) -> tuple[Array, Array]:
    """L2-regularised logistic regression (one sigmoid per column of ``y``, or a softmax over its one-hot
    columns) by Nesterov's accelerated gradient descent, ``ITERATIONS`` steps of 1/L.

    The features enter only through ``apply(coef)`` (the logits without bias, n x k, of coefficients
    ``size`` x k) and ``adjoint(residual)`` (the loss gradient in coefficient space), so the same loop runs on
    primal weights (``apply = X w``, ``adjoint = X^T r``) or on dual coefficients of ``w = X^T a`` (``apply =
    X X^T a``, ``adjoint = r``: with ``w = X^T a`` every primal step is ``a <- a - step (r + L2 a)``, exactly
    gradient descent on ``w`` at the cost of an n x n product). With a 0/1 ``mask`` (sigmoids), column j is a
    regression on the rows ``mask[:, j]`` selects, each column's loss averaged over its own rows. Returns
    (coefficients, biases)."""
    weights = np.ones(y.shape) if mask is None else mask
    n = np.maximum(weights.sum(axis=0), 1.0)
    v = np.ones((size, 1)) / np.sqrt(max(1, size))
    top = 0.0
    for _ in range(50):
        u = adjoint(apply(v))
        top = float(np.linalg.norm(u))
        if top == 0.0:
            break
        v = u / top
    step = 1.0 / ((0.5 if softmax else 0.25) * (top + n) / n + L2)
    coef, b = np.zeros((size, y.shape[1])), np.zeros(y.shape[1])
    coef_prev, b_prev = coef, b
    for t in range(1, ITERATIONS + 1):
        momentum = (t - 1) / (t + 2)
        coef_look, b_look = coef + momentum * (coef - coef_prev), b + momentum * (b - b_prev)
        z = apply(coef_look) + b_look
        if softmax:
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
        else:
            p = 0.5 * (1.0 + np.tanh(0.5 * z))
        residual = weights * (p - y) / n
        coef_prev, b_prev = coef, b
        coef = coef_look - step * (adjoint(residual) + L2 * coef_look)
        b = b_look - step * residual.sum(axis=0)
    return coef, b


@dataclass(frozen=True)
class SparseRows:
    """Rows of hashed buckets (compacted to ``columns``, each row scaled to unit length) as coordinate lists,
    centred implicitly on ``mean``: ``apply``/``adjoint`` are ``(X - mean) w`` and ``(X - mean)^T r``."""

    columns: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int64]
    cols: npt.NDArray[np.int64]
    values: Array
    mean: Array
    n: int

    @classmethod
    def build(cls, features: Sequence[Sequence[int]]) -> SparseRows:
        columns = np.array(sorted({c for f in features for c in f}), dtype=np.int64)
        rows = np.array([i for i, f in enumerate(features) for _ in f], dtype=np.int64)
        flat = np.array([c for f in features for c in f], dtype=np.int64)
        values = np.array([1.0 / np.sqrt(len(f)) for f in features for _ in f], dtype=np.float64)
        cols = np.searchsorted(columns, flat).astype(np.int64)
        mean = np.bincount(cols, weights=values, minlength=len(columns)) / max(1, len(features))
        return cls(columns, rows, cols, values, mean.astype(np.float64), len(features))

    def apply(self, w: Array) -> Array:
        out: Array = np.bincount(self.rows, weights=self.values * w[self.cols, 0], minlength=self.n).astype(np.float64)
        return (out - float(self.mean @ w[:, 0]))[:, None]

    def adjoint(self, r: Array) -> Array:
        out = np.bincount(self.cols, weights=self.values * r[self.rows, 0], minlength=len(self.columns))
        return (out - self.mean * float(r[:, 0].sum()))[:, None]


@dataclass(frozen=True)
class Linear:
    """A trained linear model over hashed buckets: ``scores = (x - mean) @ w + b``."""

    columns: npt.NDArray[np.int64]
    mean: Array
    w: Array
    b: Array

    def scores(self, buckets: Sequence[int]) -> Array:
        out: Array = (dense([buckets], self.columns)[0] - self.mean) @ self.w + self.b
        return out


def row_sentence_models(examples: Sequence[Example]) -> dict[str, Linear]:
    """Per requirement id (with 20 train rows or more): an LR on the hashed n-grams of the row's sentences,
    over the buckets its train rows use."""
    by_id: dict[str, list[tuple[list[int], bool]]] = {}
    for r, gap, _ in labelled_rows(examples):
        by_id.setdefault(r.row.id, []).append((hashed(row_text(r), HASH_BITS_ROW), gap))
    models = {}
    for rid, pairs in sorted(by_id.items()):
        if len(pairs) < MIN_ROW_EXAMPLES:
            continue
        x = SparseRows.build([f for f, _ in pairs])
        y = np.array([[float(g)] for _, g in pairs])
        w, b = fit_logistic(x.apply, x.adjoint, len(x.columns), y, softmax=False)
        models[rid] = Linear(x.columns, x.mean, w, b)
    return models


@dataclass(frozen=True)
class DealFeatures:
    """The whole-deal hashed n-grams of the train deals (dense over all 2^14 buckets, float32) and their Gram
    matrix, shared by the per-id gap models and the decision model."""

    columns: npt.NDArray[np.int64]
    x: npt.NDArray[np.float32]
    gram: Array

    @classmethod
    def build(cls, examples: Sequence[Example]) -> DealFeatures:
        columns = np.arange(1 << HASH_BITS_DEAL, dtype=np.int64)
        x = dense([hashed(deal_text(e.view), HASH_BITS_DEAL) for e in examples], columns, np.float32)
        return cls(columns, x, (x @ x.T).astype(np.float64))

    def models(self, y: Array, softmax: bool, mask: Array | None = None) -> Linear:
        """LRs on every train deal (centred on their mean), one per column of ``y`` (on the deals ``mask``
        selects), as one linear model with a column of scores per LR."""
        gram = self.centred_gram
        a, b = fit_logistic(lambda c: gram @ c, lambda r: r, len(gram), y, softmax, mask)
        mean_row = self.x.mean(axis=0, dtype=np.float64)
        w = (self.x.T @ a.astype(np.float32)).astype(np.float64) - np.outer(mean_row, a.sum(axis=0))
        return Linear(self.columns, mean_row, w, b)

    @cached_property
    def centred_gram(self) -> Array:
        return centred(self.gram)


def deal_gap_models(examples: Sequence[Example], features: DealFeatures) -> tuple[list[str], Linear]:
    """Per requirement id (with 20 train rows or more): an LR on the hashed n-grams of the whole deal, trained on
    the deals whose matrix has that id (all fitted at once). Returns the ids and the model (one score column
    per id)."""
    counts = Counter(r.row.id for e in examples for r in e.view.rows)
    ids = sorted(rid for rid, n in counts.items() if n >= MIN_ROW_EXAMPLES)
    y, mask = np.zeros((len(examples), len(ids))), np.zeros((len(examples), len(ids)))
    for k, e in enumerate(examples):
        present = {r.row.id for r in e.view.rows}
        for j, rid in enumerate(ids):
            mask[k, j] = rid in present
            y[k, j] = rid in e.gaps
    return ids, features.models(y, softmax=False, mask=mask)


def decision_model(examples: Sequence[Example], features: DealFeatures) -> Linear:
    """A three-class LR (go / conditional-go / no-go) on the hashed n-grams of the whole deal."""
    y = np.zeros((len(examples), len(DECISIONS)))
    y[np.arange(len(examples)), [DECISIONS.index(e.decision) for e in examples]] = 1.0
    return features.models(y, softmax=True)


class Training:
    """The train deals, with the learned models built on first use and shared by the policies that use them."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self.examples = list(examples)

    @cached_property
    def deal_features(self) -> DealFeatures:
        return DealFeatures.build(self.examples)

    @cached_property
    def row_models(self) -> dict[str, Linear]:
        return row_sentence_models(self.examples)

    @cached_property
    def deal_models(self) -> tuple[list[str], Linear]:
        return deal_gap_models(self.examples, self.deal_features)

    @cached_property
    def decision(self) -> Linear:
        return decision_model(self.examples, self.deal_features)


def learned_lr(training: Training, source: str, decide: str) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """Flag a row when its id's LR (on the row's sentences, ``source="row"``, or on the whole deal, ``"deal"``)
    says gap (ids never seen in training: not flagged); decide by the deal LR (``decide="lr"``) or the rule."""
    decision = training.decision if decide == "lr" else None

    def gap_scores(v: DealView, deal_buckets: list[int]) -> dict[str, float]:
        if source == "row":
            models = training.row_models
            return {
                r.row.id: float(models[r.row.id].scores(hashed(row_text(r), HASH_BITS_ROW))[0])
                for r in v.rows
                if r.row.id in models
            }
        ids, model = training.deal_models
        scores = model.scores(deal_buckets)
        return {rid: float(scores[j]) for j, rid in enumerate(ids)}

    def policy(v: DealView) -> Answer:
        deal_buckets = hashed(deal_text(v), HASH_BITS_DEAL) if source == "deal" or decision else []
        scores = gap_scores(v, deal_buckets)
        flagged = [r.row.id for r in v.rows if scores.get(r.row.id, 0.0) > 0.0]
        if decision is None:
            return flagged, rule_decision(v, flagged)
        return flagged, DECISIONS[int(np.argmax(decision.scores(deal_buckets)))]

    count = len(training.row_models) if source == "row" else len(training.deal_models[0])
    return policy, {"row_models": count}


# ----------------------------------------------------------------------------------- learned: lookup table
CAPITALISED: Final = re.compile(r"\b[A-Z][a-z][\w'’]*")
DIGITS: Final = re.compile(r"\d+")


def sentence_key(sentence: str) -> str:
    """A sentence with names, months and numbers masked (capitalised words -> ``_``, digit runs -> ``0``)."""
    return " ".join(DIGITS.sub("0", CAPITALISED.sub("_", sentence)).lower().split())


def sentence_lookup(examples: Sequence[Example], vote: str) -> tuple[Callable[[DealView], Answer], dict[str, Any]]:
    """Every train sentence a row owns, keyed by (row id, masked sentence), with how many of its train rows were
    gaps; unseen sentences say nothing, and a row with none matched is not flagged. ``vote`` turns a row's
    matched sentences into a flag:

    - ``"majority"``: most matched sentences were mostly gaps;
    - ``"strict"``: a matched sentence was a gap in every one of at least two train rows;
    - ``"bayes"``: naive Bayes, the requirement id's prior log-odds plus each sentence's log-odds (add-0.5
      smoothed) minus the prior, above 0.
    """
    counts: dict[tuple[str, str], list[int]] = {}
    priors: dict[str, list[int]] = {}
    for r, gap, _ in labelled_rows(examples):
        prior = priors.setdefault(r.row.id, [0, 0])
        prior[0] += gap
        prior[1] += 1
        for key in dict.fromkeys(sentence_key(s) for _, _, s in r.owned):
            cell = counts.setdefault((r.row.id, key), [0, 0])
            cell[0] += gap
            cell[1] += 1

    def log_odds(gaps: int, total: int) -> float:
        return math.log((gaps + 0.5) / (total - gaps + 0.5))

    def flag(r: RowView, v: DealView) -> bool:
        keys = dict.fromkeys((r.row.id, sentence_key(s)) for _, _, s in r.owned)
        cells = [counts[k] for k in keys if k in counts]
        if not cells:
            return False
        if vote == "strict":
            return any(g == n and n >= 2 for g, n in cells)
        if vote == "bayes":
            prior = log_odds(*priors[r.row.id])
            return prior + sum(log_odds(g, n) - prior for g, n in cells) > 0.0
        return 2 * sum(2 * g > n for g, n in cells) > len(cells)

    return ruled(flag), {"sentences": len(counts)}


# -------------------------------------------------------------------------------------------- the battery
Trainer = Callable[[Training], tuple[Callable[[DealView], Answer], dict[str, Any]]]


@dataclass(frozen=True)
class BatteryPolicy:
    """A named policy: ``kind`` is fixed, rule or learned; ``train`` builds it from the train deals and returns
    it with what it learned (thresholds, table sizes)."""

    name: str
    kind: str
    description: str
    train: Trainer


def untrained(policy: Callable[[DealView], Answer]) -> Trainer:
    return lambda training: (policy, {})


def on_examples(
    tune: Callable[[Sequence[Example]], tuple[Callable[[DealView], Answer], dict[str, Any]]],
) -> Trainer:
    return lambda training: tune(training.examples)


POLICIES: Final[tuple[BatteryPolicy, ...]] = (
    BatteryPolicy("fixed_go", "fixed", "flag nothing, go", untrained(fixed("go"))),
    BatteryPolicy("fixed_conditional", "fixed", "flag nothing, conditional-go", untrained(fixed("conditional-go"))),
    BatteryPolicy("fixed_no_go", "fixed", "flag nothing, no-go", untrained(fixed("no-go"))),
    BatteryPolicy("flag_all_no_go", "fixed", "flag every row, no-go", untrained(fixed("no-go", "all"))),
    BatteryPolicy("flag_must_no_go", "fixed", "flag every MUST row, no-go", untrained(fixed("no-go", "must"))),
    BatteryPolicy(
        "bar_overlap_tuned",
        "rule",
        "flag rows whose bar no one sentence repeats enough of (threshold tuned on train); rule decision",
        on_examples(tuned_bar_overlap),
    ),
    BatteryPolicy(
        "bar_overlap_clean",
        "rule",
        "as bar_overlap_tuned, counting only sentences not hedged, not promises, not in a draft or the thread",
        on_examples(tuned_clean_bar_overlap),
    ),
    BatteryPolicy(
        "bar_overlap_0.2",
        "rule",
        "flag rows whose bar no one sentence repeats 20% of; rule decision",
        untrained(bar_overlap(0.2)),
    ),
    BatteryPolicy("cue_hedge", "rule", "flag rows a hedging sentence is about; rule decision", untrained(cue("hedge"))),
    BatteryPolicy(
        "cue_promise", "rule", "flag rows a promise-phrase sentence is about; rule decision", untrained(cue("promise"))
    ),
    BatteryPolicy(
        "cue_draft", "rule", "flag rows a draft/unsigned sentence or document is about; rule", untrained(cue("draft"))
    ),
    BatteryPolicy("cue_any", "rule", "flag rows any hedge/promise/draft cue is about; rule", untrained(cue("any"))),
    BatteryPolicy("rumours", "rule", "flag rows the IT thread talks about; rule decision", untrained(rumours())),
    BatteryPolicy(
        "mention_count",
        "rule",
        "flag rows mentioned by <= k (or >= k) documents, k tuned on train",
        on_examples(mention_count),
    ),
    BatteryPolicy(
        "second_document",
        "rule",
        "flag rows with (or without) a second mentioning document, direction tuned on train",
        on_examples(second_document),
    ),
    BatteryPolicy(
        "mention_kinds",
        "learned",
        "train gap rate > 1/3 per set of mentioning documents (+ appendix placement); rule decision",
        on_examples(mention_kinds),
    ),
    BatteryPolicy(
        "length_window",
        "learned",
        "train gap rate > 1/3 per questionnaire-answer length bin (6 words); rule decision",
        on_examples(lambda ex: length_window(ex, by_row=False)),
    ),
    BatteryPolicy(
        "length_window_by_row",
        "learned",
        "train gap rate > 1/3 per (requirement id, answer length bin); rule decision",
        on_examples(lambda ex: length_window(ex, by_row=True)),
    ),
    BatteryPolicy(
        "lr_row_sentences",
        "learned",
        "per-id LR on hashed uni+bigrams of the row's sentences; 3-class deal LR decision",
        lambda t: learned_lr(t, "row", "lr"),
    ),
    BatteryPolicy(
        "lr_row_sentences_rule",
        "learned",
        "per-id LR on hashed uni+bigrams of the row's sentences; rule decision",
        lambda t: learned_lr(t, "row", "rule"),
    ),
    BatteryPolicy(
        "lr_whole_deal",
        "learned",
        "per-id LR on hashed uni+bigrams of the whole deal; 3-class deal LR decision",
        lambda t: learned_lr(t, "deal", "lr"),
    ),
    BatteryPolicy(
        "lr_whole_deal_rule",
        "learned",
        "per-id LR on hashed uni+bigrams of the whole deal; rule decision",
        lambda t: learned_lr(t, "deal", "rule"),
    ),
    BatteryPolicy(
        "sentence_lookup",
        "learned",
        "masked train sentences -> majority label; flag rows most of whose matched sentences were gaps; rule",
        on_examples(lambda ex: sentence_lookup(ex, "majority")),
    ),
    BatteryPolicy(
        "sentence_lookup_strict",
        "learned",
        "masked train sentences; flag rows with a matched sentence that was always a gap (>= 2 rows); rule",
        on_examples(lambda ex: sentence_lookup(ex, "strict")),
    ),
    BatteryPolicy(
        "sentence_lookup_bayes",
        "learned",
        "masked train sentences; naive-Bayes vote of the matched sentences' gap log-odds; rule",
        on_examples(lambda ex: sentence_lookup(ex, "bayes")),
    ),
)
CONTROLS: Final = {
    "oracle": "control: plays env.unwrapped.gold_actions (the answer key)",
    "paranoid": "control: the env's scripted paranoid baseline (answer key plus every distractor)",
}


def tool_env(env: gym.Env[Any, Any]) -> Any:
    """The officegym env under Gymnasium's wrappers (task ids, gold actions, scenarios of train deals)."""
    return env.unwrapped


def open_deal(env: gym.Env[Any, Any], task_id: str) -> Deal:
    """Reset on ``task_id`` and read every document the opening message lists, through ``env.step``."""
    observation, _ = env.reset(options={"task_id": task_id})
    listing = listed_documents(str(observation))
    pages = {}
    for doc_id, _ in listing:
        page, *_ = env.step({"name": "read_doc", "arguments": {"doc_id": doc_id}})
        pages[doc_id] = str(page)
    return build_deal(task_id, listing, pages)


def play(env: gym.Env[Any, Any], task_id: str, policy: Callable[[DealView], Answer]) -> float:
    """One episode: read every document, then submit the policy's answer; the env's reward."""
    view = analyse(open_deal(env, task_id))
    flagged, decision = policy(view)
    flagged = sorted(dict.fromkeys(flagged))
    rationale = "Flagged from surface features: " + (", ".join(flagged) or "none")
    arguments = {"decision": decision, "gap_ids": flagged, "rationale": rationale}
    _, reward, terminated, truncated, _ = env.step({"name": "submit_recommendation", "arguments": arguments})
    if not (terminated or truncated):
        raise RuntimeError(f"{task_id}: the submission did not end the episode")
    return float(reward)


def play_agent(env: gym.Env[Any, Any], task_id: str, agent: Any) -> float:
    """One episode of an officegym policy object (``reset(observation, info)``, ``act(observation)``)."""
    observation, info = env.reset(options={"task_id": task_id})
    agent.reset(observation, info)
    while True:
        observation, reward, terminated, truncated, _ = env.step(agent.act(observation))
        if terminated or truncated:
            return float(reward)


def control_agent(env: gym.Env[Any, Any], name: str) -> Any | None:
    """The ``oracle`` (the gold path) or the env's own scripted ``paranoid`` baseline (None if it has none)."""
    from officegym.policies.scripted import ScriptedPolicy

    if name == "oracle":
        return ScriptedPolicy("oracle", tool_env(env).gold_actions)
    factories = type(tool_env(env)).scripted_policies()
    return factories[name](tool_env(env), 0) if name in factories else None


def select_test_ids(task_ids: Sequence[str], limit: int | None) -> list[str]:
    """The test deals: all, or at most ``limit``, half hand-written and half generated where both suffice (each
    part in task order)."""
    if limit is None:
        return list(task_ids)
    generated = [t for t in task_ids if GENERATED_ID.search(t)]
    handwritten = [t for t in task_ids if not GENERATED_ID.search(t)]
    take_hand = min(len(handwritten), max(limit - len(generated), (limit + 1) // 2))
    chosen = {*handwritten[:take_hand], *generated[: max(0, limit - take_hand)]}
    return [t for t in task_ids if t in chosen]


def mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def run_battery(
    env_id: str,
    *,
    train_deals: int = 2000,
    test_kwargs: dict[str, Any] | None = None,
    train_kwargs: dict[str, Any] | None = None,
    test_limit: int | None = None,
    holdout_deals: int = 200,
) -> dict[str, Any]:
    """Play every policy of the battery on ``env_id`` and return the scores (JSON-ready and deterministic).

    The train env is ``gym.make(env_id, **train_kwargs)`` (default ``split="train", first_seed=0,
    deals=train_deals + holdout_deals``): its first ``train_deals`` task ids train the learned policies and tune
    the tuned ones, the next ``holdout_deals`` are the held-out train slice. The test env is
    ``gym.make(env_id, **test_kwargs)`` (default ``split="test"``), cut to ``test_limit`` deals if given. Test
    deals whose id ends in ``-gen-<digits>`` are the generated part, the others the hand-written part.

    Returns ``{"env_id", "train_deals", "holdout_deals", "deals": {part: count}, "policies": {name: {"kind",
    "description", "learned", <part>: mean reward or None}}, "parts": {part: {"best_fixed", "bound",
    "exceeding"}}, "best_fixed", "bound", "exceeding"}``; the parts are ``test``, ``test_handwritten``,
    ``test_generated`` and ``train_holdout``, and the top-level ``best_fixed``/``bound``/``exceeding`` are the
    ``test`` part's. The bound is ``max(best_fixed + 0.05, 0.30)``; ``exceeding`` lists the non-control policies
    whose mean reward is above it.
    """
    train_env = gym.make(
        env_id, **(train_kwargs or {"split": "train", "first_seed": 0, "deals": train_deals + holdout_deals})
    )
    test_env = gym.make(env_id, **(test_kwargs or {"split": "test"}))
    try:
        train_ids = list(tool_env(train_env).task_ids)
        holdout = train_ids[train_deals : train_deals + holdout_deals]
        test_ids = select_test_ids(list(tool_env(test_env).task_ids), test_limit)
        leaked = sorted(set(train_ids[:train_deals]) & {*holdout, *test_ids})
        if leaked:
            raise ValueError(f"training deals are also evaluated: {leaked[:5]}; choose disjoint train and test deals")
        training = Training([read_example(train_env, tid) for tid in train_ids[:train_deals]])
        played = {"test": (test_env, test_ids), "train_holdout": (train_env, holdout)}
        rewards: dict[str, dict[str, float]] = {}
        policies: dict[str, dict[str, Any]] = {}
        for spec in POLICIES:
            policy, learned = spec.train(training)
            rewards[spec.name] = {tid: play(env, tid, policy) for env, ids in played.values() for tid in ids}
            policies[spec.name] = {"kind": spec.kind, "description": spec.description, "learned": learned}
        for name, description in CONTROLS.items():
            agents = {part: control_agent(env, name) for part, (env, _) in played.items()}
            if any(agent is None for agent in agents.values()):
                continue
            rewards[name] = {
                tid: play_agent(env, tid, agents[part]) for part, (env, ids) in played.items() for tid in ids
            }
            policies[name] = {"kind": "control", "description": description, "learned": {}}
    finally:
        train_env.close()
        test_env.close()
        analyse.cache_clear()
    parts = {
        "test": test_ids,
        "test_handwritten": [t for t in test_ids if not GENERATED_ID.search(t)],
        "test_generated": [t for t in test_ids if GENERATED_ID.search(t)],
        "train_holdout": holdout,
    }
    for name, scores in rewards.items():
        for part, ids in parts.items():
            policies[name][part] = mean([scores[t] for t in ids])
    summary = {part: bound_of(policies, part) for part in PARTS}
    return {
        "env_id": env_id,
        "train_deals": len(training.examples),
        "holdout_deals": len(holdout),
        "deals": {part: len(ids) for part, ids in parts.items()},
        "bound_rule": f"max(best_fixed + {BOUND_MARGIN}, {BOUND_FLOOR})",
        "policies": policies,
        "parts": summary,
        **summary["test"],
    }


def bound_of(policies: Mapping[str, Mapping[str, Any]], part: str) -> dict[str, Any]:
    """A part's best fixed-decision score, the bound ``max(best_fixed + 0.05, 0.30)`` and the policies above it."""
    fixed_scores = [p[part] for p in policies.values() if p["kind"] == "fixed" and p[part] is not None]
    best = max(fixed_scores) if fixed_scores else None
    bound = None if best is None else round(max(best + BOUND_MARGIN, BOUND_FLOOR), 4)
    exceeding = sorted(
        name
        for name, p in policies.items()
        if p["kind"] != "control" and bound is not None and p[part] is not None and p[part] > bound
    )
    return {"best_fixed": best, "bound": bound, "exceeding": exceeding}


def read_example(env: gym.Env[Any, Any], task_id: str) -> Example:
    """A train deal read through the env, with its labels from the env's scenario (train deals only)."""
    view = analyse(open_deal(env, task_id))
    scenario = tool_env(env).scenario(task_id)
    return Example(view, frozenset(scenario.gap_ids), str(scenario.decision))


# --------------------------------------------------------------------------------------------------- CLI
def format_table(result: Mapping[str, Any]) -> str:
    """One line per policy: its mean reward per part, ``*`` where it exceeds that part's bound."""
    heads = {
        "test": "test",
        "test_handwritten": "hand-written",
        "test_generated": "generated",
        "train_holdout": "holdout",
    }
    lines = [f"{'policy':<24}{'kind':<9}" + "".join(f"{h:>14}" for h in heads.values())]
    for name, p in result["policies"].items():
        cells = []
        for part in heads:
            value = p[part]
            mark = "*" if name in result["parts"][part]["exceeding"] else " "
            cells.append(f"{'-' if value is None else f'{value:.3f}'}{mark}".rjust(14))
        lines.append(f"{name:<24}{p['kind']:<9}" + "".join(cells))
    for key in ("best_fixed", "bound"):
        cells = [f"{result['parts'][part][key]}".rjust(14) for part in heads]
        lines.append(f"{key:<33}" + "".join(cells))
    counts = ", ".join(f"{heads[p]} {n}" for p, n in result["deals"].items())
    lines.append(f"deals: {counts}; trained on {result['train_deals']}; * = above the bound")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("env_id", help="e.g. officegym/VendorReview-v1")
    parser.add_argument("--train-deals", type=int, default=2000)
    parser.add_argument("--holdout-deals", type=int, default=200)
    parser.add_argument("--test-limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON (default: not written)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run_battery(
        args.env_id, train_deals=args.train_deals, holdout_deals=args.holdout_deals, test_limit=args.test_limit
    )
    print(format_table(result))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"written to {args.out}")
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
