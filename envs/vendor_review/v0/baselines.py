"""VendorReview-v0's own scripted policies, and the gold path they vary: ``paranoid`` and ``lazy``.

Each is a fixed path per deal (read some documents, then submit; the paths are in ``shared/baselines.py``),
played by ``policies.ScriptedPolicy``. They measure what a shortcut is worth: flagging everything (paranoid) or
reading nothing and saying go (lazy).
"""

from __future__ import annotations

from collections.abc import Mapping

from ....policies.scripted import ScriptedPolicy
from ...core.tool_env import PolicyFactory
from ..shared.baselines import lazy_path, paranoid_path
from .tasks import scenarios

BASELINES: Mapping[str, PolicyFactory] = {
    "paranoid": lambda env, seed: ScriptedPolicy("paranoid", lambda task_id: paranoid_path(scenarios()[task_id])),
    "lazy": lambda env, seed: ScriptedPolicy("lazy", lambda task_id: lazy_path(scenarios()[task_id])),
}
