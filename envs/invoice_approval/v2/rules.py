"""v2's policy as code is v1's: the rules did not change, only what the tools accept. v1's reference solver
(``v1/rules.solver_steps``) is v2's: it pages every listing to its end before its first decision, so it never
holds a cursor across a write, and it captures only the values a document prints, which always have the forms
v2's policy states."""

from __future__ import annotations

from ..v1.rules import decide, processing_key, solve, solver_steps

__all__ = ["decide", "processing_key", "solve", "solver_steps"]
