"""The package as the API reference reads it: ``build/docs-src/officegym``, a folder of links to the shipped modules.

The repository root is the package ``officegym``, so the package's folder also holds ``.venv``, ``tests``,
``build`` and ``site``. The API reference's loader (griffe, through mkdocstrings) loads a package with every
module below its folder, links followed: from the root it would parse the whole virtual environment, and
``make typecheck``'s link ``.venv/typecheck/officegym`` (back to the root) sends it round in a circle for ever.
So before the build this hook lays out a view of just the package's own modules (the root's ``*.py`` files and
the folders that are Python packages, minus ``benchmarks`` and ``examples``), and ``mkdocs.yml`` points
mkdocstrings' search path at it (``paths: [build/docs-src]``). The view holds links, not copies, so it cannot go
stale, and ``build/`` is ignored by git, ruff and mypy.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]
VIEW = ROOT / "build" / "docs-src"
NOT_API = frozenset({"benchmarks", "examples"})
"""Packages of the checkout that the reference leaves out: the benchmark suite and the runnable examples."""


def api_entries(root: Path = ROOT) -> list[Path]:
    """The root's modules and subpackages that belong in the API reference, sorted by name."""
    entries = [
        path
        for path in root.iterdir()
        if path.name not in NOT_API
        and ((path.is_file() and path.suffix == ".py") or (path.is_dir() and (path / "__init__.py").is_file()))
    ]
    return sorted(entries, key=lambda path: path.name)


def lay_out_view(view: Path = VIEW, root: Path = ROOT) -> Path:
    """Make ``view/officegym`` hold exactly one link per API entry, and return that folder.

    Idempotent and without a moment where the view is gone: links already right stay, missing ones are added,
    stale ones removed. So two builds at once (a test's and ``make docs-build``) cannot break each other."""
    package = view / "officegym"
    package.mkdir(parents=True, exist_ok=True)
    wanted = {entry.name: entry for entry in api_entries(root)}
    for link in package.iterdir():
        if link.name not in wanted or not link.is_symlink() or link.resolve() != wanted[link.name].resolve():
            shutil.rmtree(link) if link.is_dir() and not link.is_symlink() else link.unlink(missing_ok=True)
    for name, entry in wanted.items():
        with contextlib.suppress(FileExistsError):  # another build made the same link meanwhile
            (package / name).symlink_to(entry, target_is_directory=entry.is_dir())
    return package


@event_priority(100)  # before mkdocstrings' own on_config, which may already set up its Python handler
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """MkDocs hook: lay out the view before mkdocstrings looks for the package."""
    lay_out_view()
    return config
