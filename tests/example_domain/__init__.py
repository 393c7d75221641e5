"""A minimal example domain (petty cash), laid out like a shipped one, that the contract tests register and run.

``register_example()`` is its registration line; it stays out of ``officegym.ENV_IDS`` (not shipped).
"""

from __future__ import annotations

from officegym.registration import register_env

EXAMPLE_ID = "officegym-example/PettyCash-v0"


ENTRY_POINT = "officegym.tests.example_domain.env:PettyCashEnv"
"""A module path, as the shipped ids have: it resolves in any process that imports ``officegym`` from this
checkout (the editable install the suite runs on), so forked and spawned vector-env workers can make the env."""


def register_example() -> None:
    """Register the example id once (conftest calls it), the way every officegym id is registered."""
    register_env(EXAMPLE_ID, ENTRY_POINT)
