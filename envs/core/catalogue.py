"""What a fixed action catalogue is: the contract between ``wrappers.DiscreteToolCalls`` and each domain.

A classic-RL policy picks an integer; the catalogue says which tool call it means. The meaning of an index
is fixed for the env's lifetime ("decide the invoice in work-order slot 2: reject, VAT_ERROR"), never a
position in a per-state candidate list, or a policy could not learn what an index does. The arguments are
filled from what the episode has shown so far (the work order's invoice IDs, the supplier and PO numbers of
an invoice once it was read), exactly as an agent reading the observations would fill them, never from
hidden state. ``mask()`` marks the entries that make sense now; an unmasked-but-chosen entry still runs
(it yields an ``Error:`` observation, as the same call by any agent would).

A catalogue may also have entries that change only its own state (``Internal``), for choices that a domain
submits in one call but a discrete policy has to build up one step at a time (VendorReview's flagged
requirements).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .actions import Action

UNKNOWN = "<unknown>"  # argument of an entry whose target the episode has not shown: the tool refuses it


@dataclass(frozen=True)
class Internal:
    """An entry that changes only the catalogue's state: ``verb`` (e.g. "flag") applied to ``target``."""

    verb: str
    target: str


Resolved = Action | Internal


class Catalogue(Protocol):
    """A fixed list of ``labels`` (one per index) and the per-episode state that fills in their arguments."""

    labels: tuple[str, ...]
    numeric_size: int

    def start(self, observation: str, info: Mapping[str, Any]) -> None:
        """Forget the last episode; read the opening observation and reset info of a new one."""

    def resolve(self, index: int) -> Resolved:
        """What entry ``index`` means now (pure: nothing changes)."""

    def apply(self, internal: Internal) -> str:
        """Carry out an internal entry; returns the observation text."""

    def observe(self, index: int, observation: str, is_error: bool) -> None:
        """Learn from the result of entry ``index`` (IDs read, decisions made, ...)."""

    def mask(self) -> NDArray[np.bool_]:
        """Which entries make sense now (at least one always does)."""

    def numeric(self) -> NDArray[np.float32]:
        """Small numeric state in [0, 1], ``numeric_size`` values (what was read, decided, ...)."""
