"""A generated deal's choices, drawn from one seed: tier, decision, buyer, vendor, matrix, modes, promises, rumours,
dates.

Every random choice comes from ``random.Random(seed)`` in a fixed order over ordered sequences (never a set,
a ``hash()`` or the clock), so a seed names one deal on every machine. The rates are chosen so that nothing
but reading tells a gap from a distractor: promises, rumours and discrediting come at the same rates for both
(``authoring/set_checks.py`` measures it).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Final

from .library import GAP_MODES, MET_MODES, SOC2_OPINION, Library, Piece

TIER_WEIGHTS: Final = {"easy": 3, "medium": 4, "hard": 3}
DECISION_WEIGHTS: Final = {"go": 8, "conditional-go": 46, "no-go": 46}
"""Weights of the deal's decision, drawn before its matrix. Conditional-go and no-go come equally often, so no
fixed answer earns the decision component on most deals. Go stays rare because a go deal has no gap: there
"flag nothing" is the whole answer and earns the gap component too, so a policy that never flags (``lazy``,
``fixed_*``) would score ``0.1 + 0.9 * go_share`` or more; at 8 % the best fixed answer scores about 0.25."""
GAP_COUNT_WEIGHTS: Final = (15, 25, 25, 18, 10)
"""Weights of 1-5 planted gaps in a deal that has any."""
MAX_ATTEMPTS: Final = 400
"""Matrix plans drawn for a conditional-go or no-go deal until one has that decision (a few on average); the last
one is kept if none has, so generation always ends (not needed by any of seeds 0-99,999)."""
GAP_MODE_WEIGHTS: Final = {
    "easy": (32, 32, 0, 18, 18),
    "medium": (22, 22, 20, 18, 18),
    "hard": (12, 12, 40, 18, 18),
}
"""Weights of GAP_MODES by tier: 36 % of gaps carry a promise (signed or draft) in every tier, about 40 % of the
gaps of generated deals once conditional-go deals (whose MUST gaps are all signed) are drawn as often as no-go."""
MET_MODE_WEIGHTS: Final = {"easy": (45, 33, 22), "medium": (37, 38, 25), "hard": (29, 43, 28)}
"""Weights of MET_MODES by tier; decoys are 40 % of distractors (hidden + decoy), as promises are of gaps. Most
met rows are distractors, so a policy that flags whatever looks unmet (``paranoid``) pays for it, and a dated
promise beside a row says nothing about which kind it is."""
ANSWER_WORDS: Final = (22, 40)
"""Questionnaire answers are padded with the voice's neutral fillers to a length drawn from this range, the same
for every mode: without it a short answer would mean a vague one (met elsewhere) and a middling one a gap."""
MAX_DISTRACTORS: Final = 12
"""At most this many met requirements are hidden or decoys (the validator's bound); later ones are met plainly."""
RUMOUR_RATE: Final = 0.3
DISCREDIT_RATE: Final = 0.5
MATRIX_SIZES: Final = (13, 14, 15)
FIRST_DAY: Final = dt.date(2026, 1, 5)
DAYS_SPAN: Final = 540


@dataclass(frozen=True)
class ItemPlan:
    """One matrix row of the deal: priority, mode, the chosen piece, promise and rumour."""

    id: str
    priority: str
    mode: str
    piece: Piece
    promise: str  # "none", "signed" or "draft": where a commitment or decoy promise is written
    promise_text: str
    due: dt.date | None
    rumour: str  # "none", "raised" or "discredited"
    rumour_text: str
    discredit_text: str
    fillers: tuple[str, ...] = ()

    @property
    def is_gap(self) -> bool:
        return self.mode in GAP_MODES


@dataclass(frozen=True)
class DealPlan:
    """Everything ``compose.py`` needs to write the deal."""

    seed: int
    tier: str
    date: dt.date
    buyer: dict[str, str]
    voice: dict[str, str]
    items: tuple[ItemPlan, ...]
    dates: dict[str, dt.date]


def _matrix(rng: random.Random, library: Library) -> list[str]:
    """13-15 requirement IDs in taxonomy order, never two that ``never_together`` keeps apart."""
    size = rng.choice(MATRIX_SIZES)
    chosen: list[str] = []
    for item in rng.sample(list(library.items), len(library.items)):
        if len(chosen) == size:
            break
        if not any(pair <= {item.id, *chosen} for pair in library.never_together):
            chosen.append(item.id)
    order = [item.id for item in library.items]
    return sorted(chosen, key=order.index)


def _dates(rng: random.Random, date: dt.date) -> dict[str, dt.date]:
    """The deal's other dates, each at a plausible distance from the review date."""
    soc2_end = date - dt.timedelta(days=rng.randint(40, 200))
    return {
        "q_date": date - dt.timedelta(days=rng.randint(12, 25)),
        "update_date": date - dt.timedelta(days=rng.randint(3, 9)),
        "matrix_date": date - dt.timedelta(days=rng.randint(40, 80)),
        "soc2_end": soc2_end,
        "soc2_start": soc2_end - dt.timedelta(days=364),
        "soc2_signed": soc2_end + dt.timedelta(days=30),
        "pentest_date": date - dt.timedelta(days=rng.randint(30, 300)),
        "old_date": date - dt.timedelta(days=rng.randint(900, 1300)),
        "dr_date": date - dt.timedelta(days=rng.randint(30, 300)),
        "deadline": date + dt.timedelta(days=rng.randint(7, 14)),
        "start_date": date + dt.timedelta(days=rng.randint(30, 60)),
        "signed_date": date - dt.timedelta(days=rng.randint(2, 8)),
        "draft_date": date - dt.timedelta(days=rng.randint(1, 6)),
    }


def _piece(rng: random.Random, library: Library, req_id: str, mode: str, soc2_gap: bool) -> tuple[str, Piece]:
    """The mode actually planted and its piece (signed and draft stand on silence or a hedge, a decoy on a plain
    answer). When the SOC 2 report itself is unmet, no other requirement leans on it: a piece that would is
    replaced by silence (a gap) or a plain answer (met)."""
    source = {"signed": ("silence", "hedge"), "draft": ("silence", "hedge"), "decoy": ("met",)}.get(mode, (mode,))
    pieces = library.evidence[req_id].pieces[rng.choice(source)]
    usable = [p for p in pieces if not (soc2_gap and req_id != "REQ-SOC2" and p.doc in ("soc2", SOC2_OPINION))]
    if usable:
        return mode, rng.choice(usable)
    fallback = "silence" if mode in GAP_MODES else "met"
    return fallback, rng.choice(library.evidence[req_id].pieces[fallback])


def pad_fillers(rng: random.Random, answer: str | None, pool: tuple[str, ...]) -> tuple[str, ...]:
    """Neutral sentences to append to a questionnaire answer until it reaches a length drawn from
    ``ANSWER_WORDS`` (none for an item with no questionnaire answer)."""
    if answer is None:
        return ()
    target, words, chosen = rng.randint(*ANSWER_WORDS), len(answer.split()), []
    for filler in rng.sample(list(pool), len(pool)):
        if words >= target:
            break
        chosen.append(filler)
        words += len(filler.split())
    return tuple(chosen)


def _mode(rng: random.Random, tier: str, is_gap: bool) -> str:
    if is_gap:
        return rng.choices(GAP_MODES, GAP_MODE_WEIGHTS[tier])[0]
    return rng.choices(MET_MODES, MET_MODE_WEIGHTS[tier])[0]


def _soc2_first(ids: list[str]) -> list[str]:
    """REQ-SOC2 is decided first: whether the report is sound decides which pieces others may use."""
    return sorted(ids, key=lambda rid: rid != "REQ-SOC2")


def _item(
    rng: random.Random, library: Library, req_id: str, mode: str, soc2_gap: bool, date: dt.date, voice_id: str
) -> ItemPlan:
    evidence, item = library.evidence[req_id], library.item(req_id)
    priority = "MUST" if rng.random() < item.must_share else "SHOULD"
    mode, piece = _piece(rng, library, req_id, mode, soc2_gap)
    promise, promise_text, due = "none", "", None
    if mode in ("signed", "draft"):
        promise, promise_text = mode, rng.choice(evidence.commitment)
    elif mode == "decoy":
        promise, promise_text = rng.choice(("signed", "draft")), rng.choice(evidence.decoy)
    if promise != "none":
        due = date + dt.timedelta(days=rng.randint(45, 240))
    rumour = "raised" if rng.random() < RUMOUR_RATE else "none"
    if rumour == "raised" and rng.random() < DISCREDIT_RATE:
        rumour = "discredited"
    rumour_text = rng.choice(evidence.rumour)
    discredit = rng.choice(library.frames["discredits"])
    fillers = pad_fillers(rng, piece.questionnaire, library.fillers[voice_id])
    return ItemPlan(req_id, priority, mode, piece, promise, promise_text, due, rumour, rumour_text, discredit, fillers)


def decision_of(items: tuple[ItemPlan, ...]) -> str:
    """The decision rule (``rules.derive_decision``) on planned items; the validator checks the two agree."""
    gaps = [item for item in items if item.is_gap]
    if not gaps:
        return "go"
    if any(item.priority == "MUST" and item.mode != "signed" for item in gaps):
        return "no-go"
    return "conditional-go"


def _items(
    rng: random.Random, library: Library, ids: list[str], gap_count: int, tier: str, date: dt.date, voice_id: str
) -> tuple[ItemPlan, ...]:
    """One draw of the matrix's rows: which are unmet, then each row's priority, mode, piece, promise, rumour."""
    gaps = set(rng.sample(ids, gap_count))
    planned: dict[str, ItemPlan] = {}
    soc2_gap = False
    distractors = 0
    for req_id in _soc2_first(ids):
        mode = _mode(rng, tier, req_id in gaps)
        if mode in ("hidden", "decoy"):
            distractors += 1
            mode = mode if distractors <= MAX_DISTRACTORS else "met"
        planned[req_id] = _item(rng, library, req_id, mode, soc2_gap, date, voice_id)
        soc2_gap = soc2_gap or (req_id == "REQ-SOC2" and planned[req_id].is_gap)
    return tuple(planned[req_id] for req_id in ids)


def plan_deal(seed: int, library: Library) -> DealPlan:
    """The deal of ``seed``: the tier first (so it is cheap to learn), then the decision, then a matrix drawn
    until it has that decision. Within a decision the rows are drawn exactly as without one (rejection
    sampling), so only the mix of decisions changes, not what a conditional-go or no-go deal looks like."""
    rng = random.Random(seed)
    tier = rng.choices(list(TIER_WEIGHTS), list(TIER_WEIGHTS.values()))[0]
    decision = rng.choices(list(DECISION_WEIGHTS), list(DECISION_WEIGHTS.values()))[0]
    date = FIRST_DAY + dt.timedelta(days=rng.randint(0, DAYS_SPAN))
    buyer, voice = dict(rng.choice(library.buyers)), dict(rng.choice(library.voices))
    ids = _matrix(rng, library)
    if decision == "go":
        items = _items(rng, library, ids, 0, tier, date, voice["id"])
    else:
        for _ in range(MAX_ATTEMPTS):
            gap_count = rng.choices(range(1, len(GAP_COUNT_WEIGHTS) + 1), GAP_COUNT_WEIGHTS)[0]
            items = _items(rng, library, ids, gap_count, tier, date, voice["id"])
            if decision_of(items) == decision:
                break
    return DealPlan(seed, tier, date, buyer, voice, items, _dates(rng, date))


def tier_of_seed(seed: int) -> str:
    """The tier of a generated deal without generating it (the plan's first draw)."""
    rng = random.Random(seed)
    return rng.choices(list(TIER_WEIGHTS), list(TIER_WEIGHTS.values()))[0]
