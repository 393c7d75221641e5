"""The v1 evidence library, typed: what ``assets/vendor_review/v1`` holds, loaded once per process.

Authors edit JSON, never Python: ``taxonomy.json`` (pass bars, MUST shares, keywords), ``library/<id>.json``
(evidence pieces per requirement, one file each), ``voices.json`` (vendors), ``buyers.json`` and
``frames.json`` (the document frames around the evidence). A piece is a questionnaire line, a line in another
document, or both; a requirement has pieces for every mode the generator can plant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from ...core.assets import asset_path, read_json

MET_MODES: Final = ("met", "hidden", "decoy")
"""Modes of a requirement that the file meets: plainly; only in another document; with a decoy promise."""
GAP_MODES: Final = ("silence", "hedge", "contradiction", "signed", "draft")
"""Modes of an unmet requirement: by silence, behind a hedge, by a contradiction; with a signed or a draft promise."""
PIECE_MODES: Final = ("met", "hidden", "silence", "hedge", "contradiction")
"""The modes that have evidence pieces of their own (signed and draft reuse silence or hedge, decoy reuses met)."""
DOC_SLOTS: Final = ("soc2", "dpa", "admin_guide", "architecture", "subprocessors", "trust_center", "order_form")
"""Documents a piece may put a line into besides the questionnaire (``soc2_opinion`` replaces the opinion)."""
SOC2_OPINION: Final = "soc2_opinion"


def v1_dir() -> Path:
    """The v1 assets folder."""
    return asset_path("vendor_review", "v1")


@dataclass(frozen=True)
class Piece:
    """One piece of evidence: a questionnaire answer, a line in another document (``doc``), or both."""

    questionnaire: str | None
    doc: str | None
    text: str | None


@dataclass(frozen=True)
class Evidence:
    """Everything the generator can say about one requirement, in every mode."""

    id: str
    pieces: Mapping[str, tuple[Piece, ...]]
    commitment: tuple[str, ...]
    decoy: tuple[str, ...]
    rumour: tuple[str, ...]
    context: str


@dataclass(frozen=True)
class Item:
    """A v1 taxonomy row: the pass bar every v1 deal uses, and what colleagues and searches call it."""

    id: str
    name: str
    topic: str
    code: str
    must_share: float
    keywords: tuple[str, ...]
    pass_bar: str


@dataclass(frozen=True)
class Library:
    """The whole editable library."""

    items: tuple[Item, ...]
    evidence: Mapping[str, Evidence]
    never_together: tuple[frozenset[str], ...]
    voices: tuple[Mapping[str, str], ...]
    fillers: Mapping[str, tuple[str, ...]]
    buyers: tuple[Mapping[str, str], ...]
    frames: Mapping[str, Any]

    def item(self, req_id: str) -> Item:
        return next(item for item in self.items if item.id == req_id)


def piece_from_json(raw: object) -> Piece:
    """A plain string is a questionnaire answer; an object names the other document and its line."""
    if isinstance(raw, str):
        return Piece(raw, None, None)
    if not isinstance(raw, dict):
        raise ValueError(f"an evidence piece must be a string or an object, got {raw!r}")
    return Piece(raw.get("questionnaire"), raw["doc"], raw["text"])


def evidence_from_json(data: Mapping[str, Any]) -> Evidence:
    pieces = {mode: tuple(piece_from_json(raw) for raw in data[mode]) for mode in PIECE_MODES}
    return Evidence(
        id=data["id"],
        pieces=pieces,
        commitment=tuple(data["commitment"]),
        decoy=tuple(data["decoy"]),
        rumour=tuple(data["rumour"]),
        context=data["context"],
    )


def item_from_json(data: Mapping[str, Any]) -> Item:
    return Item(
        id=data["id"],
        name=data["name"],
        topic=data["topic"],
        code=data["code"],
        must_share=float(data["must_share"]),
        keywords=tuple(data["keywords"]),
        pass_bar=data["pass_bar"],
    )


@cache
def load_library() -> Library:
    """The library from the assets (once per process)."""
    folder = v1_dir()
    taxonomy = read_json(folder / "taxonomy.json")
    items = tuple(item_from_json(row) for row in taxonomy["requirements"])
    evidence = {item.id: evidence_from_json(read_json(folder / "library" / f"{item.id}.json")) for item in items}
    vendors = read_json(folder / "voices.json")["vendors"]
    return Library(
        items=items,
        evidence=evidence,
        never_together=tuple(frozenset(pair) for pair in taxonomy["never_together"]),
        voices=tuple({key: value for key, value in v.items() if key != "fillers"} for v in vendors),
        fillers={v["id"]: tuple(v["fillers"]) for v in vendors},
        buyers=tuple(read_json(folder / "buyers.json")["buyers"]),
        frames=read_json(folder / "frames.json"),
    )
