"""VendorReview-v2 grades exactly as the shared grader does (``shared/grading.py``: gaps, decision, process, and
the failure report); v2 adds nothing to it."""

from __future__ import annotations

from ..shared.grading import WEIGHTS, failure_report, gap_score, grade_review

__all__ = ["WEIGHTS", "failure_report", "gap_score", "grade_review"]
