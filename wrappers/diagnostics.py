"""``ProgressDiagnostics``: the grade's components and progress measures in ``info`` on every step.

The grade of InvoiceApproval is all-or-nothing and VendorReview's arrives only with the submission, so a
learning curve of rewards says little about *what* an agent learns. This wrapper puts the domain's progress
measures (``env.unwrapped.progress()``: e.g. invoices decided and decided correctly so far, collateral
changes, PO and ledger mismatches, invalid calls; core documents read, searches, questions) into
``info["progress"]`` after ``reset`` and after every step, always under the same keys.

When an episode ends it adds ``info["episode_diagnostics"]``: ``r`` (return) and ``l`` (length) as
Gymnasium's ``RecordEpisodeStatistics`` reports them, ``success`` (1.0 when the final grade is full marks)
and the final progress measures. It uses its own key, so it stacks with ``RecordEpisodeStatistics`` and
SB3's ``Monitor`` (both write ``info["episode"]``) in any order, and like them it keeps the last
``buffer_length`` summaries in a deque (``summaries``). Wall-clock time is left out on purpose: it is the one
field that would make two identical episodes differ.
"""

from __future__ import annotations

from collections import deque
from typing import Any, SupportsFloat

import gymnasium as gym

from ..envs.core import arguments
from .progress import is_success, progress_of, progress_reporter

PROGRESS_KEY = "progress"
SUMMARY_KEY = "episode_diagnostics"


class ProgressDiagnostics(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Per-step progress measures and an end-of-episode summary in ``info``; ``reset`` clears the episode."""

    def __init__(
        self,
        env: gym.Env[Any, Any],
        *,
        buffer_length: int = 100,
        info_key: str = PROGRESS_KEY,
        summary_key: str = SUMMARY_KEY,
    ) -> None:
        buffer_length = arguments.whole_number(
            "buffer_length", buffer_length, minimum=1, maximum=1_000_000, example=100
        )
        info_key, summary_key = arguments.key_name("info_key", info_key), arguments.key_name("summary_key", summary_key)
        gym.utils.RecordConstructorArgs.__init__(
            self, buffer_length=buffer_length, info_key=info_key, summary_key=summary_key
        )
        gym.Wrapper.__init__(self, env)
        progress_reporter(env)  # fail at construction, not mid-training, if the env reports no progress
        self.info_key = info_key
        self.summary_key = summary_key
        self.summaries: deque[dict[str, float]] = deque(maxlen=buffer_length)
        self.episode_return = 0.0
        self.episode_length = 0
        self._ended = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = super().reset(seed=seed, options=options)
        self.episode_return, self.episode_length, self._ended = 0.0, 0, False
        info[self.info_key] = progress_of(self.env)
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        measures = progress_of(self.env)
        info[self.info_key] = measures
        if self._ended:  # stepping a finished episode: the env answers with an error; nothing to summarise
            return observation, reward, terminated, truncated, info
        self.episode_return += float(reward)
        self.episode_length += 1
        if terminated or truncated:
            self._ended = True
            summary = {
                "r": self.episode_return,
                "l": self.episode_length,
                "success": 1.0 if is_success(measures) else 0.0,
                **measures,
            }
            self.summaries.append(summary)
            info[self.summary_key] = summary
        return observation, reward, terminated, truncated, info

    def action_masks(self) -> Any:
        """The mask of the action adapter beneath (``DiscreteToolCalls``), so that ``MaskablePPO`` and
        ``env.action_masks()`` reach it through this wrapper; an ``AttributeError`` if there is none."""
        return self.env.get_wrapper_attr("action_masks")()
