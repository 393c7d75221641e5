"""The package's ``__init__`` works however it is reached, including the way pytest reaches it from a checkout."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym

import officegym


def test_init_loaded_under_a_checkout_folder_name_binds_to_the_installed_package() -> None:
    """pytest imports the root ``__init__.py`` on its own, named after the clone's folder ("officegym-main",
    "ci-check", ...): it must neither fail on relative imports nor register or load the package twice."""
    before = len(gym.registry)
    init = Path(officegym.__file__)
    spec = importlib.util.spec_from_file_location("officegym-main", init)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.make_vec is officegym.make_vec
    assert module.ENV_IDS is officegym.ENV_IDS
    assert len(gym.registry) == before
