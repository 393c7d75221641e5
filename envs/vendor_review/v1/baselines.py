"""VendorReview-v1's scripted policies: v0's ``paranoid`` and ``lazy`` (their paths are in ``shared/baselines.py``),
and the cheap policies the v0 audit measured, which decide from surface features instead of reading for meaning.

Each is a fixed path per deal computed from what the agent would see (document texts, search results),
played by ``policies.ScriptedPolicy``. ``tests/envs/vendor_review/v1/test_baselines.py`` pins their ceilings:
if one scores well, the deals have a tell.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from ....policies.scripted import ScriptedPolicy
from ...core.actions import Action
from ...core.tool_env import PolicyFactory
from ..shared.baselines import FIXED_DECISIONS, fixed_path, flag_all_path, lazy_path, paranoid_path, review_path
from ..shared.scenario import Scenario
from .deals import document_index, scenario_of
from .library import load_library

NEGATION: Final = re.compile(r"\b(not|no|never|only|without|cannot|can't|limited|planned|roadmap|beta|request)\b")
PROMISE: Final = re.compile(r"\bshall\b.*\b(by|no later than)\s+\d{1,2} [A-Z][a-z]+ \d{4}")
SENTENCE: Final = re.compile(r"(?<=[.!?])\s+|\n+")


def _keywords(req_id: str) -> tuple[str, ...]:
    return load_library().item(req_id).keywords


def _mentions(sentence: str, req_id: str) -> bool:
    text = sentence.lower()
    return any(re.search(rf"(?<![a-z0-9]){re.escape(k)}", text) for k in _keywords(req_id))


def _sentences(scenario: Scenario, authors: tuple[str, ...]) -> list[str]:
    docs = [d for d in scenario.documents if d.author in authors and d.kind != "requirements_matrix"]
    return [s for d in docs for s in SENTENCE.split(d.text) if s.strip()]


def _naive_decision(scenario: Scenario, flagged: list[str]) -> str:
    """The decision rule without reading commitments: any flagged MUST is a no-go."""
    if not flagged:
        return "go"
    return "no-go" if any(scenario.priority_of(rid) == "MUST" for rid in flagged) else "conditional-go"


def _read_all(scenario: Scenario) -> list[str]:
    return [d.id for d in scenario.documents]


def negation_path(scenario: Scenario) -> list[Action]:
    """Flags a requirement when a sentence that names one of its keywords also holds a negation."""
    sentences = _sentences(scenario, ("vendor", "auditor", "buyer"))
    flagged = [
        r.id for r in scenario.requirements if any(_mentions(s, r.id) and NEGATION.search(s.lower()) for s in sentences)
    ]
    return review_path(scenario, flagged, _naive_decision(scenario, flagged), _read_all(scenario))


def search_path(scenario: Scenario) -> list[Action]:
    """Searches each requirement's name; flags it when no vendor document is among the hits."""
    index = document_index(scenario.id)
    authors = {d.id: d.author for d in scenario.documents}
    names = {r.id: load_library().item(r.id).name for r in scenario.requirements}
    flagged = [rid for rid, name in names.items() if not any(authors[h.doc_id] == "vendor" for h in index.search(name))]
    searches: list[Action] = [{"name": "search_docs", "arguments": {"query": name}} for name in names.values()]
    return [*searches, *review_path(scenario, flagged, _naive_decision(scenario, flagged), [])]


def promise_path(scenario: Scenario) -> list[Action]:
    """Flags every requirement a dated vendor promise mentions; conditional-go if any, else no-go."""
    promises = [s for s in _sentences(scenario, ("vendor",)) if PROMISE.search(s)]
    flagged = [r.id for r in scenario.requirements if any(_mentions(s, r.id) for s in promises)]
    decision = "conditional-go" if flagged else "no-go"
    return review_path(scenario, flagged, decision, _read_all(scenario))


PATHS: Final[Mapping[str, Callable[[Scenario], list[Action]]]] = {
    "paranoid": paranoid_path,
    "lazy": lazy_path,
    "negation": negation_path,
    "flag_all": flag_all_path,
    "search_hits": search_path,
    "dated_promises": promise_path,
    **{name: fixed_path(decision) for name, decision in FIXED_DECISIONS.items()},
}


def _factory(name: str, path: Callable[[Scenario], list[Action]]) -> PolicyFactory:
    return lambda env, seed: ScriptedPolicy(name, lambda task_id: path(scenario_of(task_id)))


BASELINES: Final[Mapping[str, PolicyFactory]] = {name: _factory(name, path) for name, path in PATHS.items()}
