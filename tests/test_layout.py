"""The architecture, checked: a domain is one folder, offline work stays out of the step path, no import cycles.

These read the source (``ast``), so a violation fails here with the file and line, before it spreads.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("invoice_approval", "vendor_review")
SHARED = ["cli.py", "vector.py", "wrappers", "policies", "evaluation", "spaces", "envs/core"]
ROLES = (
    "env.py",
    "episode.py",
    "tools.py",
    "rules.py",
    "tasks.py",
    "grading.py",
    "progress.py",
    "catalogue.py",
    "baselines.py",
    "authoring/__init__.py",
)


def _files(*parts: str) -> list[Path]:
    found: list[Path] = []
    for part in parts:
        path = ROOT / part
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


def _imports(path: Path, top_level_only: bool = False) -> list[tuple[int, str]]:
    """(line, absolute-ish module text) of every import; relative imports keep their dots."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            found.append((node.lineno, "." * node.level + (node.module or "")))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def test_no_shared_module_imports_a_domain() -> None:
    """``registration.py`` is the one exception: it names each env's entry point (as text, not an import)."""
    offenders = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in _files(*SHARED)
        for line, module in _imports(p)
        if any(d in module for d in DOMAINS)
    ]
    assert offenders == []


def test_no_shared_module_names_a_domain_class() -> None:
    offenders = [
        f"{p.relative_to(ROOT)}"
        for p in _files(*SHARED)
        if "InvoiceApprovalEnv" in p.read_text() or "VendorReviewEnv" in p.read_text()
    ]
    assert offenders == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_domain_has_the_same_files_for_the_same_roles(domain: str) -> None:
    missing = [role for role in ROLES if not (ROOT / "envs" / domain / role).is_file()]
    assert missing == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_runtime_code_does_not_import_offline_work_at_import_time(domain: str) -> None:
    runtime = [p for p in (ROOT / "envs" / domain).glob("*.py")]
    offenders = [
        f"{p.name}:{line} imports {module}"
        for p in runtime
        for line, module in _imports(p, top_level_only=True)
        if "authoring" in module
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("policies", "evaluation"),
        ("wrappers", "evaluation"),
        ("envs/core", "wrappers"),
        ("envs/core", "policies"),
        ("spaces", "envs"),
    ],
)
def test_lower_layers_do_not_import_upper_ones(lower: str, upper: str) -> None:
    name = upper.replace("/", ".")
    offenders = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in _files(lower)
        for line, module in _imports(p, top_level_only=True)
        if module.lstrip(".").startswith(name) or f"officegym.{name}" in module
    ]
    assert offenders == []


def test_the_ray_backend_does_not_import_the_runner() -> None:
    modules = [module for _, module in _imports(ROOT / "evaluation" / "ray_backend.py")]
    assert not any(module.endswith("runner") for module in modules)
