"""Per-step progress of a VendorReview episode, computed from the episode state.

The grade arrives only with the submission. These measures apply the grader itself
(:func:`grading.grade_review`) to the episode as it stands after any step, so they never disagree with the
final grade (on the last step they equal ``info["grade"]``), and add the process counters that explain it:
core documents read, searches, questions, turns and invalid calls. Before a submission every reward
component is 0, as the grade of an episode that ended then would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ...core.episode_stats import EpisodeStats
from .episode import VendorEpisode
from .grading import WEIGHTS, grade_review

PROGRESS_KEYS: Final[tuple[str, ...]] = (
    "turns",
    "invalid_calls",
    "core_docs",
    "core_docs_read",
    "docs_read",
    "searches",
    "questions",
    "submitted",
    *WEIGHTS,
    "reward",
)


def vendor_progress(episode: VendorEpisode, stats: EpisodeStats) -> dict[str, float]:
    """The measures under :data:`PROGRESS_KEYS`, in that order."""
    grade = grade_review(episode)
    diagnostics = grade.diagnostics
    measures = {
        "turns": float(stats.turns),
        "invalid_calls": float(stats.invalid_calls),
        "core_docs": float(diagnostics["core_docs"]),
        "core_docs_read": float(diagnostics["core_docs_read"]),
        "docs_read": float(diagnostics["docs_read"]),
        "searches": float(diagnostics["searches"]),
        "questions": float(diagnostics["questions"]),
        "submitted": 1.0 if diagnostics["submitted"] else 0.0,
    }
    measures.update({key: float(grade.components[key]) for key in WEIGHTS})
    measures["reward"] = float(grade.reward)
    return measures


def vendor_potential(measures: Mapping[str, float]) -> float:
    """The shaping potential ``Phi(s) = w_process * core_docs_read / core_docs``.

    The grade's process component is paid only for reading every core document before submitting; this
    spreads it over the reads. The gap and decision components exist only at submission, which ends the
    episode, so they have nothing to shape.
    """
    return WEIGHTS["reward_process"] * measures["core_docs_read"] / max(1.0, measures["core_docs"])
