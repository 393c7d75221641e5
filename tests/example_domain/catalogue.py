"""The fixed discrete action catalogue of PettyCash, for ``wrappers.DiscreteToolCalls``.

Layout (E employee places, R receipt places): ``0`` finish, ``1`` close_request, ``2 + e`` list the receipts of
the e-th employee the opening names, ``2 + E + r`` reimburse the r-th receipt ID seen. An index always means
the same place; its argument comes only from what the episode has shown (never from hidden state).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from officegym.envs.core.actions import FINISH_ACTION, Action
from officegym.envs.core.catalogue import UNKNOWN, Internal

from .tasks import EMPLOYEE_ID, RECEIPT_ID

CLOSE: Action = {"name": "close_request", "arguments": {"note": "Paid the eligible receipts."}}


class PettyCashCatalogue:
    """The layout above plus what fills it in per episode: the IDs seen and the entries that succeeded."""

    def __init__(self, *, horizon: int, employee_places: int = 4, receipt_places: int = 8) -> None:
        self.horizon, self.places = horizon, (employee_places, receipt_places)
        self.labels = (
            "finish",
            "close_request",
            *(f"list employee {e}" for e in range(employee_places)),
            *(f"reimburse receipt {r}" for r in range(receipt_places)),
        )
        self.numeric_size = 2 + len(self.labels)
        self.start("", {})

    def start(self, observation: str, info: Mapping[str, Any]) -> None:
        self.ids: tuple[list[str], list[str]] = ([], [])  # employees, receipts: in the order first seen
        self.done: set[int] = set()
        self.steps, self.last_error = 0, False
        self._harvest(observation)

    def _harvest(self, text: str) -> None:
        for ids, pattern, places in zip(self.ids, (EMPLOYEE_ID, RECEIPT_ID), self.places, strict=True):
            ids.extend(i for i in dict.fromkeys(pattern.findall(text)) if i not in ids)
            del ids[places:]

    def _slot(self, index: int) -> tuple[int, int]:
        """(0 employees | 1 receipts, place) of an index >= 2."""
        return (0, index - 2) if index < 2 + self.places[0] else (1, index - 2 - self.places[0])

    def resolve(self, index: int) -> Action | Internal:
        if index < 2:
            return FINISH_ACTION if index == 0 else CLOSE
        kind, place = self._slot(index)
        value = self.ids[kind][place] if place < len(self.ids[kind]) else UNKNOWN
        name, key = ("list_receipts", "employee_id") if kind == 0 else ("mark_reimbursed", "receipt_id")
        return {"name": name, "arguments": {key: value}}

    def apply(self, internal: Internal) -> str:
        return f"Error: this catalogue has no internal entries ({internal.verb})"

    def observe(self, index: int, observation: str, is_error: bool) -> None:
        self.steps, self.last_error = self.steps + 1, is_error
        if not is_error:
            self.done.add(index)
            self._harvest(observation)

    def mask(self) -> NDArray[np.bool_]:
        """finish and close always; a list or reimburse entry once its ID is seen, until it succeeded."""
        known = [i < 2 or self._slot(i)[1] < len(self.ids[self._slot(i)[0]]) for i in range(len(self.labels))]
        return np.array([k and (i < 2 or i not in self.done) for i, k in enumerate(known)], dtype=bool)

    def numeric(self) -> NDArray[np.float32]:
        """The turn share, the last error, then per entry: 1 if it already succeeded."""
        used = [float(i in self.done) for i in range(len(self.labels))]
        return np.array([min(1.0, self.steps / self.horizon), float(self.last_error), *used], dtype=np.float32)
