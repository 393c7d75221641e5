"""officegym: Gymnasium environments in which agents do real back-office work with tools.

Importing the package registers every environment id with gymnasium (gymnasium 1.x loads no plugin entry
points), so ``gym.make("officegym/InvoiceApproval-v0")`` works after ``import officegym`` and
``gym.make("officegym:officegym/InvoiceApproval-v0")`` works from a fresh process.
"""

from __future__ import annotations

# Absolute imports on purpose: pytest imports this file on its own when it collects the tests below it, under
# a name taken from the checkout's folder ("officegym-main", "my-fork", ...); absolute imports then bind to the
# installed package instead of failing (or loading a second copy of it).
from officegym.registration import ENV_IDS, register_envs
from officegym.vector import make_vec

__version__ = "0.1.0"

register_envs()

__all__ = ["ENV_IDS", "__version__", "make_vec", "register_envs"]
