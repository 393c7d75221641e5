"""Registration of every shipped officegym env id with gymnasium, done on ``import officegym``.

Adding a domain is one line here (its id and entry point); everything else it needs lives in its folder.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

if TYPE_CHECKING:
    from .envs.core.tool_env import ToolEnv

ENV_IDS = {
    "officegym/InvoiceApproval-v0": "officegym.envs.invoice_approval.v0.env:InvoiceApprovalEnv",
    "officegym/InvoiceApproval-v1": "officegym.envs.invoice_approval.v1.env:InvoiceApprovalV1Env",
    "officegym/InvoiceApproval-v2": "officegym.envs.invoice_approval.v2.env:InvoiceApprovalV2Env",
    "officegym/VendorReview-v0": "officegym.envs.vendor_review.v0.env:VendorReviewEnv",
    "officegym/VendorReview-v1": "officegym.envs.vendor_review.v1.env:VendorReviewV1Env",
    "officegym/VendorReview-v2": "officegym.envs.vendor_review.v2.env:VendorReviewV2Env",
}

OUT_OF_DATE = r".*The environment officegym/\S+ is out of date"


def register_envs() -> None:
    """Register each id once (re-importing or reloading the package must not warn or fail).

    Gymnasium warns on every ``make`` of an id that has a later version ("... is out of date. You should
    consider upgrading"). An officegym v0 is not out of date: it is a frozen evaluation set that stays
    byte-identical beside v1, so that warning is silenced for officegym's own ids, and only for them."""
    warnings.filterwarnings("ignore", message=OUT_OF_DATE, category=DeprecationWarning)
    for env_id, entry_point in ENV_IDS.items():
        register_env(env_id, entry_point)


def register_env(env_id: str, entry_point: str) -> None:
    """Register one id, with the wrapper that grades an episode cut by ``max_episode_steps``
    (``envs/core/time_limit.py``). Also for domains registered outside the shipped list.

    Without Gymnasium's ``PassiveEnvChecker``: Gymnasium 1.4's checker marks the first reset as checked before
    running it, so when that reset raises (an unknown ``task_id``, a mistyped option) it keeps no reset data
    and its first ``step`` then fails with ``TypeError: cannot unpack non-iterable NoneType``: one bad reset
    made the env unusable. The full ``gymnasium.utils.env_checker.check_env``, which the passive checker
    samples, runs on every id in ``tests/contract``; ``gym.make(id, disable_env_checker=False)`` still adds it."""
    from .envs.core.time_limit import SPEC

    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point=entry_point, additional_wrappers=(SPEC,), disable_env_checker=True)


def env_class(env_id: str) -> type[ToolEnv[Any]]:
    """The class a registered id makes, without making an env (to read its contract's class members)."""
    entry_point = gym.spec(env_id).entry_point
    found = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    return cast("type[ToolEnv[Any]]", found)
