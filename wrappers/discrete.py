"""``DiscreteToolCalls``: an officegym env as Stable-Baselines3 and sb3-contrib can consume it.

SB3 handles neither text observations nor structured tool-call actions. This adapter exposes

- actions as ``Discrete(K)`` over a fixed catalogue of tool calls (the domain's ``action_catalogue``, see
  ``envs/core/catalogue.py``), with ``action_masks()`` for sb3-contrib's ``MaskablePPO``;
- observations as ``Box(0, 1, (3 * dim + n,), float32)``: hashed bags of words (``features.py``) of the
  opening work order, of the last tool result, and of every result of the episode so far (a memory: the
  decision on an invoice depends on its supplier and PO, read on earlier steps), then the catalogue's ``n``
  numeric values (turn, what was read, what was decided, ...).

Rewards, termination and truncation are the env's. Catalogue entries that change only the adapter's state
(a flag on a requirement to report, say) take no env turn, so the adapter has its own limit, ``max_steps``
(default twice the env's ``max_turns``): when it is reached the adapter sends ``finish``, so the episode is
graded as it stands, and reports truncation (with ``info["step_limit"]``). ``info`` adds ``text`` (the raw observation),
``tool_call`` (what ran, or None for an internal entry) and ``action_label``.

Typical stack for SB3 (diagnostics and shaping read the unwrapped env, so they may sit outside), built by
``officegym.wrappers.sb3_env`` with SB3's ``Monitor`` and ``info["is_success"]`` on episode ends, which SB3 turns
into ``rollout/ep_rew_mean`` and ``rollout/success_rate`` (this adapter leaves ``is_success`` out: its infos are
pinned by ``tests/frozen/``):

    env = sb3_env("officegym/InvoiceApproval-v0", tier="single", max_turns=20)   # shaping with gamma=0.99
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: env]), gamma=0.99)
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..envs.core import arguments
from ..envs.core.actions import FINISH_ACTION, Action
from ..envs.core.catalogue import Catalogue, Internal
from ..envs.core.tool_env import ToolEnv
from .features import HashedBagOfWords

Features = NDArray[np.float32]


def catalogue_for(env: gym.Env[Any, Any], horizon: int) -> Catalogue:
    """The default catalogue of the env's domain (its ``action_catalogue``)."""
    inner = env.unwrapped
    if not isinstance(inner, ToolEnv):
        raise TypeError(f"no action catalogue for {type(inner).__name__}; pass catalogue=...")
    return inner.action_catalogue(horizon)


class DiscreteToolCalls(gym.Wrapper[Features, np.int64, Any, Any], gym.utils.RecordConstructorArgs):
    """``Discrete(K)`` actions over a fixed tool-call catalogue, ``Box`` text features, ``action_masks()``."""

    def __init__(
        self,
        env: gym.Env[Any, Any],
        *,
        dim: int = 256,
        max_steps: int | None = None,
        catalogue: Catalogue | None = None,
    ) -> None:
        dim = arguments.whole_number("dim", dim, minimum=1, maximum=1 << 20, example=256)
        if max_steps is not None:
            max_steps = arguments.whole_number("max_steps", max_steps, minimum=1, maximum=10**6, example=400)
        gym.utils.RecordConstructorArgs.__init__(self, dim=dim, max_steps=max_steps)
        gym.Wrapper.__init__(self, env)
        self.max_steps = max_steps if max_steps is not None else 2 * int(env.unwrapped.max_turns)  # type: ignore[attr-defined]
        self.catalogue = catalogue if catalogue is not None else catalogue_for(env, self.max_steps)
        self.bag = HashedBagOfWords(dim)
        self.action_space = spaces.Discrete(len(self.catalogue.labels))
        size = 3 * dim + self.catalogue.numeric_size
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self._opening = np.zeros(dim, dtype=np.float32)
        self._last = np.zeros(dim, dtype=np.float32)
        self._memory = np.zeros(dim, dtype=np.float32)
        self._steps = 0

    @property
    def _text_env(self) -> gym.Env[Any, Any]:
        """The wrapped env with its own (text, tool call) spaces: Gymnasium types ``self.env`` with ours."""
        return self.env

    def action_masks(self) -> NDArray[np.bool_]:
        """Which catalogue entries make sense now (sb3-contrib's ``MaskablePPO`` calls this every step)."""
        return self.catalogue.mask()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Features, dict[str, Any]]:
        text, info = self._text_env.reset(seed=seed, options=options)
        self.catalogue.start(text, info)
        self._opening = self.bag.encode(text)
        self._last = np.zeros_like(self._opening)
        self._memory = np.zeros_like(self._opening)
        self._steps = 0
        return self._features(), {**info, "text": text}

    def step(self, action: Any) -> tuple[Features, SupportsFloat, bool, bool, dict[str, Any]]:
        index = int(action)
        if not 0 <= index < len(self.catalogue.labels):
            raise ValueError(f"action {action!r} is outside Discrete({len(self.catalogue.labels)})")
        resolved = self.catalogue.resolve(index)
        text, reward, terminated, truncated, info = self._execute(index, resolved)
        self._steps += 1
        if not (terminated or truncated) and self._steps >= self.max_steps:
            text, reward, _, _, info = self._text_env.step(FINISH_ACTION)  # graded as it stands
            terminated, truncated, info["step_limit"] = False, True, True
        self._last = self.bag.encode(text)
        np.maximum(self._memory, self._last, out=self._memory)
        info.setdefault("is_error", text.startswith("Error:"))
        info.update(
            text=text,
            tool_call=None if isinstance(resolved, Internal) else resolved,
            action_label=self.catalogue.labels[index],
        )
        return self._features(), reward, terminated, truncated, info

    def _execute(
        self, index: int, resolved: Action | Internal
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run a tool call through the env, or an internal entry through the catalogue (no env turn)."""
        if isinstance(resolved, Internal):
            text = self.catalogue.apply(resolved)
            return text, 0.0, False, False, {"is_error": text.startswith("Error:")}
        text, reward, terminated, truncated, info = self._text_env.step(resolved)
        self.catalogue.observe(index, text, bool(info.get("is_error", text.startswith("Error:"))))
        return text, reward, terminated, truncated, info

    def index_of(self, call: dict[str, Any] | Internal) -> int | None:
        """The first unmasked entry that means ``call`` now, or None (e.g. to replay a reference path)."""
        mask = self.catalogue.mask()
        for index in np.flatnonzero(mask):
            if self.catalogue.resolve(int(index)) == call:
                return int(index)
        return None

    def _features(self) -> Features:
        return np.concatenate([self._opening, self._last, self._memory, self.catalogue.numeric()])
