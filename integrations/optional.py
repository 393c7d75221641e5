"""Importing a bridge's optional dependency: one message shape for every extra, naming the command that installs it.

Each module under ``integrations/`` needs packages the base install does not bring (TRL, OpenEnv, verifiers), and
imports them only when used, so ``import officegym`` and the doctest walk never need them.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def install_hint(extra: str) -> str:
    """The command that installs an extra."""
    return f"pip install 'officegym[{extra}]'"


def import_optional(module: str, needs: str, extra: str) -> ModuleType:
    """``module``, or an ``ImportError`` saying what needs it and which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{needs} ({module} is missing): {install_hint(extra)}") from error
