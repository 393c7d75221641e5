"""The one loader of shipped data: every file under ``assets/`` is reached through here.

Assets are found through the installed package (``importlib.resources``), so editable and wheel installs both
work, and each domain names its files relative to its own folder
(``asset_path("invoice_approval", "shared", "names.json")``). JSON is parsed the same way everywhere, so a domain
never grows a loader of its own.
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any


def asset_path(*parts: str) -> Path:
    """The filesystem path of a shipped asset, e.g. ``asset_path("invoice_approval", "v0", "policy.md")``."""
    return Path(str(resources.files("officegym").joinpath("assets", *parts)))


def read_text(path: str | Path | Traversable) -> str:
    """A UTF-8 text file, from a filesystem path or a package resource."""
    source = path if isinstance(path, Traversable) else Path(path)
    return source.read_text(encoding="utf-8")


def read_json(path: str | Path | Traversable) -> Any:
    """One JSON file, from a filesystem path or a package resource."""
    return json.loads(read_text(path))
