"""Vector envs for officegym: ``make_vec`` (``make.py``) over Gymnasium's sync and async vector envs with the
defaults text envs need, and officegym's own ``"batched"`` mode (``batched.py``: worker processes that each host
a slice of envs and step it in one round trip), whose infos are folded by ``batched_infos.py`` and
``info_fold.py`` exactly as Gymnasium's sync vector env folds them. Importing this package registers
``sendable_calls.SendableCalls`` as the batched tool-call space, so no vector env ever sends a partial step.

``officegym.make_vec`` and ``officegym.vector.make_vec`` are the public entry points.
"""

from __future__ import annotations

from . import sendable_calls as _sendable_calls  # registers batch_space/iterate for ToolCall
from .make import MODES, make_vec

del _sendable_calls

__all__ = ["MODES", "make_vec"]
