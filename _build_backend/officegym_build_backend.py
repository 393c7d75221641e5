"""officegym's build backend: setuptools' own (``setuptools.build_meta``), minus one notice on editable installs.

``pyproject.toml`` names this module with ``backend-path`` (PEP 517's in-tree backend, the wrapping that
setuptools documents for tweaks to ``build_meta``). Every hook is setuptools' own, re-exported unchanged, except
``build_editable``, which runs setuptools' hook with one notice filtered out.

Why: the checkout root is the package (``package-dir = {"officegym" = "."}``), so setuptools can make an
editable install only through an import hook, and it then always emits the information-only notice "Editable
installation. Please be careful with folders in your working directory with the same name as your package...".
pip (26 and later) prints it as a warning on every ``pip install -e .``. It does not apply to this layout and
asks for nothing, so it is filtered by its exact summary and category; every other warning, setuptools' own
deprecations included, still reaches the user.
"""

from __future__ import annotations

import warnings
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (the other hooks, unchanged)
from setuptools.warnings import InformationOnly

__all__ = [*build_meta.__all__]

EDITABLE_NOTICE = r"Editable installation\."


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' ``build_editable`` (PEP 660), without its information-only "Editable installation." notice."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=EDITABLE_NOTICE, category=InformationOnly)
        return str(build_meta.build_editable(wheel_directory, config_settings, metadata_directory))
