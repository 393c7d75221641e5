"""VendorReview-v2's scripted policies: ``reader`` (``reader.py``: reads the documents and compares values with
bars, from the text alone), the shared ``paranoid`` and ``lazy`` (which read the answer key or nothing),
``flag_all``, and the fixed-decision policies. The cheap policies that try to score without reading (overlap,
cue words, structure, learned classifiers) are the battery in ``benchmarks/vendor_battery.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from ....policies.scripted import ScriptedPolicy
from ...core.actions import Action
from ...core.tool_env import PolicyFactory
from ..shared.baselines import FIXED_DECISIONS, fixed_path, flag_all_path, lazy_path, paranoid_path
from ..shared.scenario import Scenario
from .deals import scenario_of
from .reader import ReaderPolicy

PATHS: Final[Mapping[str, Callable[[Scenario], list[Action]]]] = {
    "paranoid": paranoid_path,
    "lazy": lazy_path,
    "flag_all": flag_all_path,
    **{name: fixed_path(decision) for name, decision in FIXED_DECISIONS.items()},
}


def _factory(name: str, path: Callable[[Scenario], list[Action]]) -> PolicyFactory:
    return lambda env, seed: ScriptedPolicy(name, lambda task_id: path(scenario_of(task_id)))


BASELINES: Final[Mapping[str, PolicyFactory]] = {
    "reader": lambda env, seed: ReaderPolicy(),
    **{name: _factory(name, path) for name, path in PATHS.items()},
}
