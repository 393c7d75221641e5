"""Typed VendorReview scenarios: the JSON shape of a deal and its frozen dataclasses.

Scenarios are authored by hand as JSON under ``assets/vendor_review/v0/scenarios`` (v1's deals: under
``assets/vendor_review/v1/deals``). This module is the one place that knows their shape: ``FIELDS`` describes
every object, ``shape_problems`` checks raw JSON against it, and ``scenario_from_dict`` turns checked JSON into
frozen dataclasses. The validators reuse ``shape_problems`` so that the loaders (``v0/tasks.py``,
``v1/deals.py``) and the validators can never disagree about what a well-formed scenario is. The decision
rule is in ``rules.py``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, Literal, TypeVar

Tier = Literal["easy", "medium", "hard"]
Priority = Literal["MUST", "SHOULD"]
Author = Literal["buyer", "vendor", "auditor"]
Decision = Literal["go", "conditional-go", "no-go"]

ID_PATTERNS: Final = {
    "doc_id": re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b"),
    "gap_ids": re.compile(r"REQ-[A-Z0-9]+(?:-[A-Z0-9]+)*"),
}
"""The IDs the observations show, by the argument that takes them (a document ID; a list of requirement IDs)."""
TIERS: Final[tuple[Tier, ...]] = ("easy", "medium", "hard")
PRIORITIES: Final[tuple[Priority, ...]] = ("MUST", "SHOULD")
AUTHORS: Final[tuple[Author, ...]] = ("buyer", "vendor", "auditor")
DECISIONS: Final[tuple[Decision, ...]] = ("go", "conditional-go", "no-go")
DOC_KINDS: Final[tuple[str, ...]] = (
    "requirements_matrix",
    "questionnaire",
    "soc2",
    "it_thread",
    "pricing",
    "dpa",
    "architecture",
    "admin_guide",
    "subprocessors",
    "trust_center",
    "order_form",
)

# Field kinds: "str", "date" (ISO yyyy-mm-dd string), "str_list", "obj:<name>", "obj_list:<name>".
FIELDS: Final[Mapping[str, Mapping[str, str]]] = {
    "scenario": {
        "id": "str",
        "tier": "str",
        "date": "date",
        "buyer": "str",
        "vendor": "str",
        "product": "str",
        "title": "str",
        "request": "str",
        "requirements": "obj_list:requirement",
        "documents": "obj_list:document",
        "core_documents": "str_list",
        "planted_gaps": "obj_list:finding",
        "distractors": "obj_list:finding",
        "commitments": "obj_list:commitment",
        "it_channel": "obj:it_channel",
        "decision": "str",
    },
    "requirement": {"id": "str", "priority": "str", "pass_bar": "str"},
    "document": {"id": "str", "title": "str", "kind": "str", "author": "str", "text": "str"},
    "finding": {"id": "str", "doc_ids": "str_list", "evidence": "str_list", "explanation": "str"},
    "commitment": {"id": "str", "due": "date", "doc_id": "str", "evidence": "str"},
    "it_channel": {"routes": "obj_list:it_route", "default_reply": "str"},
    "it_route": {"keywords": "str_list", "reply": "str"},
}

# Closed vocabularies, keyed by (object name, field).
ENUMS: Final[Mapping[tuple[str, str], tuple[str, ...]]] = {
    ("scenario", "tier"): TIERS,
    ("scenario", "decision"): DECISIONS,
    ("requirement", "priority"): PRIORITIES,
    ("document", "kind"): DOC_KINDS,
    ("document", "author"): AUTHORS,
}


_E = TypeVar("_E", bound=str)


class ScenarioFormatError(ValueError):
    """Raised when scenario JSON does not have the documented shape."""


@dataclass(frozen=True)
class TaxonomyItem:
    """One of the 24 fixed requirement types; scenarios may only use these IDs."""

    id: str
    name: str
    pass_bar: str
    where_evidence_usually_is: str


@dataclass(frozen=True)
class Requirement:
    """A row of the buyer's requirements matrix: the taxonomy ID, its priority and the buyer's own bar."""

    id: str
    priority: Priority
    pass_bar: str


@dataclass(frozen=True)
class Document:
    """One file in the deal's document store; ``author`` decides which leak checks apply to it."""

    id: str
    title: str
    kind: str
    author: Author
    text: str

    @property
    def words(self) -> int:
        """Word count as the spec's length budget counts it (whitespace split)."""
        return len(self.text.split())

    @cached_property
    def page(self) -> str:
        """The document as ``read_doc`` shows it: title, ID and author, then the text. Built once per
        process, so reading a document in a step copies nothing."""
        return f"# {self.title}\n(document {self.id}, written by the {self.author})\n\n{self.text}"


@dataclass(frozen=True)
class Finding:
    """A planted gap (requirement unmet) or a distractor (looks unmet, is met), with verbatim evidence."""

    id: str
    doc_ids: tuple[str, ...]
    evidence: tuple[str, ...]
    explanation: str


@dataclass(frozen=True)
class Commitment:
    """A written, dated vendor commitment that remediates one planted gap; roadmap talk never becomes one."""

    id: str
    due: dt.date
    doc_id: str
    evidence: str


@dataclass(frozen=True)
class ItRoute:
    """A canned colleague reply, chosen when the question contains the most of these keywords."""

    keywords: tuple[str, ...]
    reply: str


def _at_word_start(keyword: str, text: str) -> bool:
    """True if ``keyword`` occurs in ``text`` where no letter or digit precedes it."""
    start = text.find(keyword)
    while start != -1:
        if start == 0 or not text[start - 1].isalnum():
            return True
        start = text.find(keyword, start + 1)
    return False


@dataclass(frozen=True)
class ItChannel:
    """The internal IT channel: deterministic keyword routing to canned colleague replies."""

    routes: tuple[ItRoute, ...]
    default_reply: str

    def reply_for(self, question: str) -> str:
        """Answer a question the way the spec routes it.

        The question is lower-cased; the route with the most keywords found in it at the start of a word wins
        (a keyword is a word prefix: "seat" matches "seats", but "sso" does not match "subprocessor"), ties go
        to the earlier route, and a question that matches no keyword gets the default reply.
        """
        text = question.lower()
        best_reply, best_hits = self.default_reply, 0
        for route in self.routes:
            hits = sum(1 for keyword in route.keywords if _at_word_start(keyword, text))
            if hits > best_hits:
                best_reply, best_hits = route.reply, hits
        return best_reply


@dataclass(frozen=True)
class Scenario:
    """One vendor deal: the request, the buyer's requirements, the document store and the answer key."""

    id: str
    tier: Tier
    date: dt.date
    buyer: str
    vendor: str
    product: str
    title: str
    request: str
    requirements: tuple[Requirement, ...]
    documents: tuple[Document, ...]
    core_documents: tuple[str, ...]
    planted_gaps: tuple[Finding, ...]
    distractors: tuple[Finding, ...]
    commitments: tuple[Commitment, ...]
    it_channel: ItChannel
    decision: Decision

    def document(self, doc_id: str) -> Document | None:
        """Look a document up by ID (None if absent), for tools and checks alike."""
        return self._documents_by_id.get(doc_id)

    @cached_property
    def _documents_by_id(self) -> dict[str, Document]:
        return {doc.id: doc for doc in self.documents}

    def priority_of(self, req_id: str) -> Priority | None:
        """The matrix priority of a requirement, or None when it is not in the matrix."""
        return next((req.priority for req in self.requirements if req.id == req_id), None)

    @property
    def gap_ids(self) -> tuple[str, ...]:
        """The requirement IDs a perfect reviewer flags (the grading truth)."""
        return tuple(gap.id for gap in self.planted_gaps)

    @property
    def total_words(self) -> int:
        """Total document words, the quantity the 700-1,200 budget constrains."""
        return sum(doc.words for doc in self.documents)


# ---------------------------------------------------------------------------------------------------------
# Shape checking (shared with the validator)


def _is_iso_date(value: object) -> bool:
    """True for a yyyy-mm-dd string; other ISO variants are refused so files stay uniform."""
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _field_problems(value: object, kind: str, where: str) -> list[str]:
    """Problems of one field value against its declared kind (recursing into nested objects)."""
    if kind == "str":
        return [] if isinstance(value, str) and value.strip() else [f"{where} must be a non-empty string"]
    if kind == "date":
        return [] if _is_iso_date(value) else [f"{where} must be an ISO date (yyyy-mm-dd), got {value!r}"]
    if kind == "str_list":
        ok = isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value)
        return [] if ok else [f"{where} must be a list of non-empty strings"]
    shape, _, name = kind.partition(":")
    if shape == "obj":
        return shape_problems(value, name, where)
    if not isinstance(value, list):
        return [f"{where} must be a list"]
    problems: list[str] = []
    for index, item in enumerate(value):
        problems += shape_problems(item, name, f"{where}[{index}]")
    return problems


def shape_problems(data: object, name: str = "scenario", where: str = "") -> list[str]:
    """Every shape problem of ``data`` read as object ``name``: missing, unknown or mistyped keys, bad enums.

    Unknown keys are errors on purpose: a typo such as ``"distractor"`` would otherwise silently drop content.
    """
    label = where or name
    if not isinstance(data, dict):
        return [f"{label} must be a JSON object"]
    fields = FIELDS[name]
    problems = [f"{label}: missing key {key!r}" for key in fields if key not in data]
    problems += [f"{label}: unknown key {key!r}" for key in data if key not in fields]
    for key, kind in fields.items():
        if key not in data:
            continue
        path = f"{where}.{key}" if where else key
        problems += _field_problems(data[key], kind, path)
        allowed = ENUMS.get((name, key))
        if allowed is not None and isinstance(data[key], str) and data[key] not in allowed:
            problems.append(f"{path} must be one of {', '.join(allowed)}; got {data[key]!r}")
    return problems


# ---------------------------------------------------------------------------------------------------------
# Typed construction


def _str(obj: Mapping[str, object], key: str) -> str:
    """A string field. shape_problems has already run, so a failure here is a bug that deserves a raise."""
    value = obj[key]
    if not isinstance(value, str):
        raise ScenarioFormatError(f"{key} must be a string")
    return value


def _strs(obj: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = obj[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ScenarioFormatError(f"{key} must be a list of strings")
    return tuple(str(item) for item in value)


def _objs(obj: Mapping[str, object], key: str) -> list[Mapping[str, object]]:
    value = obj[key]
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ScenarioFormatError(f"{key} must be a list of objects")
    return [item for item in value if isinstance(item, dict)]


def _obj(obj: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = obj[key]
    if not isinstance(value, dict):
        raise ScenarioFormatError(f"{key} must be an object")
    return value


def _finding(obj: Mapping[str, object]) -> Finding:
    return Finding(_str(obj, "id"), _strs(obj, "doc_ids"), _strs(obj, "evidence"), _str(obj, "explanation"))


def _channel(obj: Mapping[str, object]) -> ItChannel:
    routes = tuple(ItRoute(_strs(route, "keywords"), _str(route, "reply")) for route in _objs(obj, "routes"))
    return ItChannel(routes, _str(obj, "default_reply"))


def _enum(value: str, allowed: Sequence[_E]) -> _E:
    """Narrow a checked string to its Literal type without a cast."""
    for option in allowed:
        if option == value:
            return option
    raise ScenarioFormatError(f"{value!r} is not one of {', '.join(allowed)}")


def scenario_from_dict(data: Mapping[str, object]) -> Scenario:
    """Build a Scenario from parsed JSON; raises ScenarioFormatError listing every shape problem."""
    problems = shape_problems(dict(data))
    if problems:
        raise ScenarioFormatError("; ".join(problems))
    return Scenario(
        id=_str(data, "id"),
        tier=_enum(_str(data, "tier"), TIERS),
        date=dt.date.fromisoformat(_str(data, "date")),
        buyer=_str(data, "buyer"),
        vendor=_str(data, "vendor"),
        product=_str(data, "product"),
        title=_str(data, "title"),
        request=_str(data, "request"),
        requirements=tuple(
            Requirement(_str(r, "id"), _enum(_str(r, "priority"), PRIORITIES), _str(r, "pass_bar"))
            for r in _objs(data, "requirements")
        ),
        documents=tuple(
            Document(
                _str(d, "id"),
                _str(d, "title"),
                _str(d, "kind"),
                _enum(_str(d, "author"), AUTHORS),
                _str(d, "text"),
            )
            for d in _objs(data, "documents")
        ),
        core_documents=_strs(data, "core_documents"),
        planted_gaps=tuple(_finding(f) for f in _objs(data, "planted_gaps")),
        distractors=tuple(_finding(f) for f in _objs(data, "distractors")),
        commitments=tuple(
            Commitment(_str(c, "id"), dt.date.fromisoformat(_str(c, "due")), _str(c, "doc_id"), _str(c, "evidence"))
            for c in _objs(data, "commitments")
        ),
        it_channel=_channel(_obj(data, "it_channel")),
        decision=_enum(_str(data, "decision"), DECISIONS),
    )


def taxonomy_from_json(data: object) -> tuple[TaxonomyItem, ...]:
    """The requirement taxonomy from the JSON list of ``taxonomy.json``, in its order."""
    if not isinstance(data, list):
        raise ScenarioFormatError("taxonomy.json must hold a JSON list")
    return tuple(
        TaxonomyItem(
            _str(item, "id"),
            _str(item, "name"),
            _str(item, "pass_bar"),
            _str(item, "where_evidence_usually_is"),
        )
        for item in data
        if isinstance(item, dict)
    )


@dataclass(frozen=True)
class CastIds:
    """The buyer and vendor IDs of cast.json, which scenarios must reference."""

    buyers: frozenset[str]
    vendors: frozenset[str]


def cast_ids_from_json(data: object) -> CastIds:
    """Only the IDs of ``cast.json``: the rest of the cast is prose for authors, not for code."""
    if not isinstance(data, dict):
        raise ScenarioFormatError("cast.json must hold a JSON object")
    return CastIds(
        buyers=frozenset(_str(b, "id") for b in _objs(data, "buyers")),
        vendors=frozenset(_str(v, "id") for v in _objs(data, "vendors")),
    )


def split_record(record: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A deal record's scenario part and its annotations (what only authoring checks and tests read:
    each requirement's mode or values, promise, rumour), as the generated deals of every version carry them."""
    scenario = {key: value for key, value in record.items() if key != "annotations"}
    annotations = record.get("annotations", {})
    if not isinstance(annotations, dict):
        raise ScenarioFormatError("annotations must be an object")
    return scenario, annotations
