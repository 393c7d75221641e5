"""The checks every VendorReview version's validator shares: the quality gate an authored or generated deal
must pass where the versions' rules agree (taxonomy, documents, core files, matrix text, evidence, decision rule,
giveaway phrasing, the IT channel). Each version's ``authoring/validate.py`` adds its own (identity, size,
commitments) and runs them (``v0/authoring/validate.py``, ``v1/authoring/validate.py``).

Why so strict: the grade is deterministic and content is the product. A scenario whose answer key disagrees
with the decision rule, whose evidence is not in the file, or whose documents or colleagues give the answer
away silently corrupts every score computed on it. Each check below exists because a hurried author makes
exactly that mistake.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from ..rules import derive_decision
from ..scenario import CastIds, Document, Finding, Scenario

# Phrases that hand the answer to the agent, forbidden in every document. A lazy author writes a status
# column into the matrix, lets the vendor concede a failure in so many words, or has the thread announce the
# decision; real files never read like that.
GIVEAWAY_PATTERNS: Final[tuple[str, ...]] = (
    r"(?i)\b(this|that|the|each|every) requirement (is|was|isn't|wasn't) (not )?(met|satisfied|fulfilled)\b",
    r"(?i)\b(is|are|was|were|isn't|aren't) (not |only partially |partially )?met\b",
    r"(?i)\bunmet\b",
    r"(?i)\b(does|do|did) not (meet|satisfy|fulfil)",
    r"(?i)\b(doesn't|don't|didn't) (meet|satisfy|fulfil)",
    r"(?i)\bfails? (to (meet|satisfy) )?(the|your|our|this|its) (requirement|bar|criteri|threshold)",
    r"(?i)\bpass(es)? (the|your|our) (bar|requirement|threshold)",
    r"(?i)\bred flags?\b",
    r"(?i)\bdeal-?breakers?\b",
    r"(?i)\bshow-?stoppers?\b",
    r"(?i)\b(no-?go|conditional-?go)\b",
    r"(?i)\b(planted|distractors?|traps?)\b",
    r"(?i)\bnon-?compliant\b",
    r"(?i)\b(contradicts?|contradiction|contradictory|inconsistent with)\b",
    r"(?i)\b(note|hint) (to|for) (the )?(reviewer|analyst|agent|reader)\b",
    r"(?i)\b(fine|small) print\b",
    r"(?i)\bstatus:\s*(met|not met|gap|pass|fail|ok)\b",
)

# Extra phrases forbidden only in vendor- and auditor-authored documents: vendors do not call their own
# shortcomings gaps or apologise for them; they hedge. (Bridge letters must be called bridge letters.)
VENDOR_GIVEAWAY_PATTERNS: Final[tuple[str, ...]] = (
    r"(?i)\bgaps?\b",
    r"(?i)\bunfortunately\b",
    r"(?i)\b(cannot|can ?not|can't|unable to|are not able to|is not able to) (meet|comply|satisfy|fulfil)",
    r"(?i)\bwe (do not|don't) comply\b",
)

# Phrases forbidden in colleague replies (IT-channel routes and the default reply). Colleagues give business
# pressure, pilot observations and facts absent from the file; they never adjudicate a requirement and never
# point at where a trap lives. Pinned by tests: change it deliberately, together with the test.
VERDICT_LEAK_PATTERNS: Final[tuple[str, ...]] = (
    r"(?i)\b(is|are|was|were|isn't|aren't) (not )?met\b",
    r"(?i)\bunmet\b",
    r"\bMUST\b",
    r"\bSHOULD\b",
    r"(?i)\bREQ-",
    r"(?i)\b(flag|flagging|flagged) (it|this|that|them|those)\b",
    r"(?i)\b(don't|do not|no need to) flag\b",
    r"(?i)\b(no-?go|conditional-?go)\b",
    r"(?i)\bI(?:'d| would) (reject|approve|sign|block|veto|accept)\b",
    r"(?i)\b(reject|approve|accept) (it|this|them|the deal|the vendor)\b",
    r"(?i)\b(passes|pass|fails|fail|meets|meet|satisfies|misses) (the|our|their|your) "
    r"(bar|requirement|threshold)",
    r"(?i)\b(does|do|doesn't|don't) (not )?(meet|satisfy)\b",
    r"(?i)\b(non-?compliant|compliant)\b",
    r"(?i)\b(red flag|deal-?breaker|show-?stopper|blocker)s?\b",
    r"(?i)\b(that one|this one|that|it)(?:'s| is) (fine|ok|okay|covered|acceptable|a problem|an issue)\b",
    r"(?i)\b(all good|looks fine|looks good|nothing to worry)\b",
    r"(?i)\bgaps?\b",
    r"(?i)\bcheck (their|the|its) (q\d|question|section|appendix|annex|page|schedule|clause|footnote)",
    r"(?i)\b(check|look at|read|see|open) (their|the|its) (dpa|soc ?2|admin guide|order form"
    r"|questionnaire|subprocessor|trust cent|pricing|architecture|bridge letter|fine print|small print)",
    r"(?i)\blook (at|into) (section|page|annex|appendix|schedule|clause|q\d)",
    r"(?i)\b(section|annex|appendix|schedule|clause|page) \d",
    r"(?i)§ ?\d",
    r"\bQ(?:\d+\.\d+|[5-9]|\d{2,})\b",  # questionnaire items; a bare Q1-Q4 is a calendar quarter
    r"(?i)\b(question|item|row) \d",
    r"(?i)\b(compare|cross-?check|reconcile)\b",
    r"(?i)\b(hidden|buried|tucked away|trap|trick|gotcha)\b",
)

REQ_ID_PATTERN: Final = re.compile(r"\bREQ-[A-Z0-9-]+")


class Sizes(NamedTuple):
    """A version's size budget for a deal: (low, high) of each count, inclusive."""

    requirements: tuple[int, int]
    documents: tuple[int, int]
    words: tuple[int, int]
    planted: tuple[int, int]
    distractors: tuple[int, int]


MIN_EVIDENCE_WORDS: Final = 3
MIN_KEYWORD_CHARS: Final = 3

# Every deal file has these; the spec's oracle reads the core ones.
REQUIRED_KINDS: Final = ("requirements_matrix", "questionnaire", "soc2", "it_thread")
# Who may author each kind: internal files are the buyer's, the SOC 2 report is the auditor's, the rest is
# vendor paper (a contract such as the DPA or order form may also be on the buyer's paper).
KIND_AUTHORS: Final[Mapping[str, frozenset[str]]] = {
    "requirements_matrix": frozenset({"buyer"}),
    "it_thread": frozenset({"buyer"}),
    "soc2": frozenset({"auditor"}),
    "dpa": frozenset({"vendor", "buyer"}),
    "order_form": frozenset({"vendor", "buyer"}),
}


def _compile(patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in patterns)


_GIVEAWAY: Final = _compile(GIVEAWAY_PATTERNS)
_VENDOR_GIVEAWAY: Final = _compile(VENDOR_GIVEAWAY_PATTERNS)
_VERDICT_LEAK: Final = _compile(VERDICT_LEAK_PATTERNS)


def normalize(text: str) -> str:
    """Case-fold and collapse whitespace: the sense in which evidence must appear "verbatim"."""
    return " ".join(text.split()).lower()


@dataclass(frozen=True)
class Context:
    """What a scenario is checked against besides itself."""

    taxonomy_ids: frozenset[str]
    cast: CastIds


Check = Callable[[Scenario, Context], list[str]]


def _count_problem(label: str, count: int, bounds: tuple[int, int]) -> list[str]:
    low, high = bounds
    return [] if low <= count <= high else [f"{label}: {count}, expected {low}-{high}"]


def _duplicates(items: Iterable[str]) -> list[str]:
    return sorted(item for item, n in Counter(items).items() if n > 1)


def _first_match(patterns: Sequence[re.Pattern[str]], text: str) -> re.Match[str] | None:
    return next((m for p in patterns if (m := p.search(text)) is not None), None)


# ---------------------------------------------------------------------------------------------------------
# Checks: each returns problem strings without the scenario-id prefix.


def size_problems(s: Scenario, sizes: Sizes) -> list[str]:
    """Each count of the deal outside its version's budget, one sentence each."""
    return (
        _count_problem("requirement count", len(s.requirements), sizes.requirements)
        + _count_problem("document count", len(s.documents), sizes.documents)
        + _count_problem("total document words", s.total_words, sizes.words)
        + _count_problem("planted gap count", len(s.planted_gaps), sizes.planted)
        + _count_problem("distractor count", len(s.distractors), sizes.distractors)
    )


def check_requirements(s: Scenario, ctx: Context) -> list[str]:
    """Requirement IDs come from the fixed taxonomy and appear once, so grading compares like with like."""
    ids = [req.id for req in s.requirements]
    problems = [f"requirement {rid} appears more than once" for rid in _duplicates(ids)]
    problems += [f"requirement {rid} is not in the taxonomy" for rid in ids if rid not in ctx.taxonomy_ids]
    return problems


def _matrix(s: Scenario) -> list[Document]:
    return [doc for doc in s.documents if doc.kind == "requirements_matrix"]


def check_documents(s: Scenario, ctx: Context) -> list[str]:
    """Unique ids, the four standard files present, and authors plausible for each kind."""
    dup_ids = _duplicates(d.id for d in s.documents)
    problems = [f"document id {did!r} appears more than once" for did in dup_ids]
    kinds = {doc.kind for doc in s.documents}
    problems += [f"missing a document of kind {kind!r}" for kind in REQUIRED_KINDS if kind not in kinds]
    if len(_matrix(s)) > 1:
        problems.append("more than one requirements_matrix document")
    for doc in s.documents:
        allowed = KIND_AUTHORS.get(doc.kind, frozenset({"vendor"}))
        if doc.author not in allowed:
            problems.append(f"document {doc.id!r} of kind {doc.kind!r} cannot be authored by {doc.author!r}")
    return problems


def check_core(s: Scenario, ctx: Context) -> list[str]:
    """Core documents exist and cover the matrix and every planted gap, so the oracle can reach the truth."""
    ids = {doc.id for doc in s.documents}
    problems = [f"core document {cid!r} does not exist" for cid in s.core_documents if cid not in ids]
    problems += [f"core document {cid!r} listed twice" for cid in _duplicates(s.core_documents)]
    problems += [f"requirements matrix {m.id!r} must be core" for m in _matrix(s) if m.id not in s.core_documents]
    for gap in s.planted_gaps:
        for did in gap.doc_ids:
            if did in ids and did not in s.core_documents:
                problems.append(f"planted gap {gap.id}: document {did!r} holds evidence but is not core")
    return problems


def check_matrix_text(s: Scenario, ctx: Context) -> list[str]:
    """The matrix the agent reads must list exactly the scenario's requirements, each with its priority."""
    problems: list[str] = []
    for matrix in _matrix(s):
        lines = matrix.text.splitlines()
        for req in s.requirements:
            if not any(req.id in line and req.priority in line for line in lines):
                problems.append(f"requirements matrix does not list {req.id} with priority {req.priority}")
        wanted = {req.id for req in s.requirements}
        for extra in sorted(set(REQ_ID_PATTERN.findall(matrix.text)) - wanted):
            problems.append(f"requirements matrix mentions {extra}, which is not a scenario requirement")
    return problems


def _finding_problems(kind: str, finding: Finding, s: Scenario) -> list[str]:
    """Evidence of one finding: inside the matrix, in the named documents, and substantial enough to match."""
    label = f"{kind} {finding.id}"
    problems = [] if s.priority_of(finding.id) else [f"{label} is not a requirement in the matrix"]
    if not finding.doc_ids or not finding.evidence:
        return [*problems, f"{label} needs at least one doc_id and one evidence phrase"]
    docs = [doc for did in finding.doc_ids if (doc := s.document(did)) is not None]
    problems += [f"{label}: document {did!r} does not exist" for did in finding.doc_ids if s.document(did) is None]
    texts = {doc.id: normalize(doc.text) for doc in docs}
    for phrase in finding.evidence:
        if len(phrase.split()) < MIN_EVIDENCE_WORDS:
            problems.append(f"{label}: evidence {phrase!r} is shorter than {MIN_EVIDENCE_WORDS} words")
        if docs and not any(normalize(phrase) in text for text in texts.values()):
            problems.append(f"{label}: evidence {phrase!r} not found in {', '.join(finding.doc_ids)}")
    for did, text in texts.items():
        if not any(normalize(phrase) in text for phrase in finding.evidence):
            problems.append(f"{label}: document {did!r} is named but contains none of the evidence")
    return problems


def check_findings(s: Scenario, ctx: Context) -> list[str]:
    """Planted gaps and distractors: disjoint, unique, inside the matrix, evidenced verbatim."""
    planted = [gap.id for gap in s.planted_gaps]
    distractors = [d.id for d in s.distractors]
    problems = [f"planted gap {rid} listed twice" for rid in _duplicates(planted)]
    problems += [f"distractor {rid} listed twice" for rid in _duplicates(distractors)]
    both = sorted(set(planted) & set(distractors))
    problems += [f"{rid} is both a planted gap and a distractor" for rid in both]
    for gap in s.planted_gaps:
        problems += _finding_problems("planted gap", gap, s)
    for distractor in s.distractors:
        problems += _finding_problems("distractor", distractor, s)
    return problems


def check_decision(s: Scenario, ctx: Context) -> list[str]:
    """The authored decision must be the one the rule derives from the answer key."""
    derived = derive_decision(s)
    if derived == s.decision:
        return []
    return [f"decision {s.decision!r} is inconsistent with the decision rule, which gives {derived!r}"]


def check_document_leaks(s: Scenario, ctx: Context) -> list[str]:
    """No REQ IDs in vendor/auditor text and no giveaway phrasing anywhere in the document store."""
    problems: list[str] = []
    for doc in s.documents:
        external = doc.author in ("vendor", "auditor")
        if external and (m := REQ_ID_PATTERN.search(doc.text)):
            problems.append(f"document {doc.id!r} ({doc.author}) contains requirement ID {m.group(0)!r}")
        patterns = _GIVEAWAY + (_VENDOR_GIVEAWAY if external else ())
        if (m := _first_match(patterns, doc.text)) is not None:
            problems.append(f"document {doc.id!r} has giveaway phrasing {m.group(0)!r}")
    return problems


def _replies(s: Scenario) -> list[tuple[str, str]]:
    routes = s.it_channel.routes
    labelled = [(f"IT route {i} ({', '.join(r.keywords)})", r.reply) for i, r in enumerate(routes)]
    return [*labelled, ("IT default reply", s.it_channel.default_reply)]


def _keyword_problems(index: int, keyword: str) -> list[str]:
    """A keyword that can never match (upper case) or matches almost anything (too short) breaks routing."""
    problems: list[str] = []
    if keyword != keyword.lower():
        problems.append(f"IT route {index}: keyword {keyword!r} must be lower-case (questions are lower-cased)")
    if len(keyword.strip()) < MIN_KEYWORD_CHARS:
        problems.append(f"IT route {index}: keyword {keyword!r} is too short for prefix routing")
    return problems


def check_it_channel(s: Scenario, ctx: Context) -> list[str]:
    """Colleague replies carry no verdicts or locators, and routes can actually be hit."""
    problems: list[str] = []
    for index, route in enumerate(s.it_channel.routes):
        if not route.keywords:
            problems.append(f"IT route {index} has no keywords")
        for keyword in route.keywords:
            problems += _keyword_problems(index, keyword)
    for label, reply in _replies(s):
        if (m := _first_match(_VERDICT_LEAK, reply)) is not None:
            problems.append(f"{label} leaks a verdict or locator: {m.group(0)!r}")
    return problems


def check_evidence_not_leaked(s: Scenario, ctx: Context) -> list[str]:
    """Evidence must be found by reading the file, not handed over by a colleague or the request."""
    problems: list[str] = []
    sources = [*_replies(s), ("the request", s.request)]
    for kind, findings in (("planted gap", s.planted_gaps), ("distractor", s.distractors)):
        for finding in findings:
            for phrase in finding.evidence:
                for label, text in sources:
                    if normalize(phrase) in normalize(text):
                        problems.append(f"{kind} {finding.id}: evidence {phrase!r} appears in {label}")
    return problems
