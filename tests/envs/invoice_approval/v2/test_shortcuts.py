"""v1's shortcut battery (``v1/shortcuts.py``) played through v2's tools on the shipped company: the solver
passes everything, no cheap policy passes anything, and skipping a check fails most hard tasks, as on v1 (v2
changes no rule). ``python -m officegym.tests.envs.invoice_approval.v2.test_shortcuts 7 3`` plays the whole
battery on generated companies too (measured: the same counts as v1's, in the report of this change)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any
from unittest import mock

from officegym.envs.invoice_approval.v2.bundle import load_bundle
from officegym.envs.invoice_approval.v2.sandbox import call
from officegym.tests.envs.invoice_approval.v1 import shortcuts


@contextmanager
def through_v2() -> Iterator[None]:
    """The battery's tool calls go to v2's toolbox; its bundles are v2's."""
    with mock.patch.object(shortcuts, "call", call), mock.patch.object(shortcuts, "load_bundle", load_bundle):
        yield


def played(bundle: Any) -> dict[tuple[str, str], bool]:
    """Every cheap policy on every task, and the solver and its variants on the hard tier (a solver plays a
    whole task, so all tiers of them would cost the suite a minute; ``test_tasks.py`` plays the solver on all)."""
    out = {}
    for name, policy in shortcuts.policies(bundle).items():
        for task in bundle.tasks.values():
            if not name.startswith("solver") or task.tier == "hard":
                out[(name, task.id)] = shortcuts.passes(bundle, task, policy)
    return out


@cache
def results() -> dict[tuple[str, str], bool]:
    with through_v2():
        return played(load_bundle())


def test_the_solver_passes_every_task_and_no_cheap_policy_passes_any() -> None:
    passed = {name for (name, _), ok in results().items() if ok}
    assert all(ok for (name, _), ok in results().items() if name == "solver")
    assert not {name for name in passed if not name.startswith("solver")}


def test_skipping_a_check_fails_at_least_half_the_hard_tasks() -> None:
    for name in ("solver_no_capture_fix", "solver_no_tax_check"):
        hard = [ok for (policy, _), ok in results().items() if policy == name]
        assert len(hard) == 12 and sum(hard) <= 6, name


def battery(seeds: list[int]) -> dict[str, Any]:
    with through_v2():
        found: dict[str, Any] = shortcuts.battery(seeds)
    return found


if __name__ == "__main__":
    print(json.dumps(battery([42, *(int(s) for s in sys.argv[1:])]), indent=1))
