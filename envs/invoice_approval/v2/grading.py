"""v2 is graded as v1: the final books against the gold books (``v1/grading.py``), exactly."""

from __future__ import annotations

from ..v1.grading import BookState, book_delta, book_state, failure_report

__all__ = ["BookState", "book_delta", "book_state", "failure_report"]
