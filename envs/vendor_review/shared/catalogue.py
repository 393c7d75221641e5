"""The fixed action catalogue of VendorReview for discrete-action learners (``wrappers.DiscreteToolCalls``).

Index layout (``docs`` = D document places, default 12; R = the 24 requirement types of the taxonomy, in
its order; K = 1 + D + 4R + 3 = 112 by default):

    0                   finish (ends the review unsubmitted: it scores 0)
    1 + k               read document k of the deal file                      read_doc
    1 + D + j           search the canned query of requirement type j         search_docs
    1 + D + R + j       ask the IT channel the canned question of type j      ask_it_channel
    1 + D + 2R + j      flag requirement j as unmet                           (internal)
    1 + D + 3R + j      unflag requirement j                                  (internal)
    1 + D + 4R + d      submit decision d (go, conditional-go, no-go)         submit_recommendation
                        with the flagged requirements as gap_ids

A submission carries its whole gap list, but a discrete policy builds it one choice per step: flag and unflag
change only the catalogue's own list (no tool call, no env turn), and submit sends it. Requirement j always
means the same requirement type (``REQ-SSO``, ...), whatever the deal; it can be flagged only when the
deal's matrix lists it (the buyer's own matrix: it names what is asked, not what is met). Document k is the
k-th document of the deal file as the opening message lists it. The canned query of a type is its taxonomy
name; the canned question asks what the team knows about it, naming its ID.

Masked: document places beyond the deal file, documents already read, queries and questions already asked,
flags that would change nothing. Finish and the three submissions are always available.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.actions import FINISH, FINISH_ACTION, Action
from ...core.catalogue import UNKNOWN, Internal
from .scenario import DECISIONS, Scenario, TaxonomyItem
from .tasks import load_taxonomy

GLOBAL_FEATURES = 4


@dataclass(frozen=True)
class Entry:
    """One catalogue entry: ``verb`` with its fixed ``arg`` (document place, requirement ID or decision)."""

    verb: str
    arg: str = ""

    @property
    def label(self) -> str:
        return f"{self.verb} {self.arg}".strip()


def canned_query(item: TaxonomyItem) -> str:
    return item.name


def canned_question(item: TaxonomyItem) -> str:
    return f"What do we know about {item.name} ({item.id}) for this vendor?"


class VendorCatalogue:
    """The catalogue above, with the per-episode state (documents read, flags) that fills in its arguments."""

    def __init__(
        self,
        scenario_of: Callable[[str], Scenario],
        *,
        horizon: int,
        docs: int = 12,
        taxonomy: Sequence[TaxonomyItem] | None = None,
    ) -> None:
        """``taxonomy``: the requirement types a version's matrices use (default: the shared 24-item taxonomy)."""
        self.scenario_of = scenario_of
        self.horizon = horizon  # scales the step feature
        self.taxonomy = tuple(taxonomy) if taxonomy is not None else load_taxonomy()
        self.requirement_ids = tuple(item.id for item in self.taxonomy)
        self.doc_places = docs
        self.entries = [Entry(FINISH), *(Entry("read", str(k)) for k in range(docs))]
        for verb in ("search", "ask", "flag", "unflag"):
            self.entries += [Entry(verb, rid) for rid in self.requirement_ids]
        self.entries += [Entry("submit", decision) for decision in DECISIONS]
        self.labels = tuple(e.label for e in self.entries)
        self.numeric_size = GLOBAL_FEATURES + 2 * docs + 2 * len(self.requirement_ids)
        self._items = {item.id: item for item in self.taxonomy}
        self._reset_state((), ())

    def _reset_state(self, documents: tuple[str, ...], matrix: tuple[str, ...]) -> None:
        self.documents = documents
        self.matrix = frozenset(matrix)
        self.read = [False] * len(documents)
        self.done: dict[tuple[str, str], bool] = {}
        self.flagged: dict[str, bool] = dict.fromkeys(self.requirement_ids, False)
        self.steps = 0
        self.last_error = False

    def start(self, observation: str, info: Mapping[str, Any]) -> None:
        scenario = self.scenario_of(str(info["task_id"]))
        if len(scenario.documents) > self.doc_places:
            raise ValueError(f"{scenario.id} has {len(scenario.documents)} documents; use docs >= that")
        self._reset_state(tuple(d.id for d in scenario.documents), tuple(r.id for r in scenario.requirements))

    # ------------------------------------------------------------------ meaning of an index
    def resolve(self, index: int) -> Action | Internal:
        entry = self.entries[index]
        if entry.verb == FINISH:
            return FINISH_ACTION
        if entry.verb == "read":
            k = int(entry.arg)
            return {
                "name": "read_doc",
                "arguments": {"doc_id": self.documents[k] if k < len(self.documents) else UNKNOWN},
            }
        if entry.verb == "search":
            return {"name": "search_docs", "arguments": {"query": canned_query(self._items[entry.arg])}}
        if entry.verb == "ask":
            return {"name": "ask_it_channel", "arguments": {"question": canned_question(self._items[entry.arg])}}
        if entry.verb in ("flag", "unflag"):
            return Internal(entry.verb, entry.arg)
        return self._submission(entry.arg)

    def gap_ids(self) -> list[str]:
        """The flagged requirements, in taxonomy order."""
        return [rid for rid in self.requirement_ids if self.flagged[rid]]

    def _submission(self, decision: str) -> Action:
        gaps = self.gap_ids()
        rationale = f"Unmet: {', '.join(gaps)}." if gaps else "Every requirement of the matrix is met."
        return {
            "name": "submit_recommendation",
            "arguments": {"decision": decision, "gap_ids": gaps, "rationale": rationale},
        }

    def apply(self, internal: Internal) -> str:
        self.steps += 1
        rid, flag = internal.target, internal.verb == "flag"
        problem = (
            "is not a requirement of this deal's matrix"
            if rid not in self.matrix
            else f"is already {'flagged' if flag else 'not flagged'}"
            if self.flagged[rid] == flag
            else ""
        )
        self.last_error = bool(problem)
        if problem:
            return f"Error: {rid} {problem}; nothing changed."
        self.flagged[rid] = flag
        listed = ", ".join(self.gap_ids()) or "none"
        return f"{'Flagged' if self.flagged[rid] else 'Unflagged'} {rid}. Flagged now: {listed}."

    # ------------------------------------------------------------------ learning from results
    def observe(self, index: int, observation: str, is_error: bool) -> None:
        self.steps += 1
        self.last_error = is_error
        entry = self.entries[index]
        if is_error or entry.verb not in ("read", "search", "ask"):
            return
        if entry.verb == "read":
            self.read[int(entry.arg)] = True
        else:
            self.done[(entry.verb, entry.arg)] = True

    # ------------------------------------------------------------------ masks and features
    def mask(self) -> NDArray[np.bool_]:
        return np.array([self._allowed(e) for e in self.entries], dtype=bool)

    def _allowed(self, entry: Entry) -> bool:
        if entry.verb == "read":
            k = int(entry.arg)
            return k < len(self.documents) and not self.read[k]
        if entry.verb in ("search", "ask"):
            return not self.done.get((entry.verb, entry.arg), False)
        if entry.verb == "flag":
            return entry.arg in self.matrix and not self.flagged[entry.arg]
        if entry.verb == "unflag":
            return self.flagged[entry.arg]
        return True

    def numeric(self) -> NDArray[np.float32]:
        searches = sum(1 for verb, _ in self.done if verb == "search")
        questions = len(self.done) - searches
        values = [
            min(1.0, self.steps / self.horizon),
            float(self.last_error),
            searches / len(self.requirement_ids),
            questions / len(self.requirement_ids),
        ]
        for k in range(self.doc_places):
            values += [float(k < len(self.documents)), float(k < len(self.read) and self.read[k])]
        for rid in self.requirement_ids:
            values += [float(rid in self.matrix), float(self.flagged[rid])]
        return np.array(values, dtype=np.float32)
