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


def test_a_v0_env_is_made_without_gymnasiums_out_of_date_warning() -> None:
    """v0 is a frozen evaluation set beside v1, not out of date: ``gym.make`` of it must not tell users to
    upgrade (Gymnasium does for any id with a later version). Run in a fresh interpreter with every warning
    shown, since pytest re-enables deprecation warnings inside tests."""
    import subprocess
    import sys

    code = (
        "import gymnasium as gym, officegym\n"
        "for env_id in officegym.ENV_IDS: gym.make(env_id).close()\n"
        "import warnings; warnings.warn('The environment other/Thing-v0 is out of date.', DeprecationWarning)\n"
    )
    result = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, check=True)
    assert "officegym/" not in result.stderr
    assert "other/Thing-v0 is out of date" in result.stderr  # only officegym's own ids are silenced
