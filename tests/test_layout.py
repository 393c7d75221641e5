"""The architecture, checked: a domain is one folder of sibling versions over its shared runtime, offline work
stays out of the step path, and no module of the package imports itself through others.

These read the source (``ast``), so a violation fails here with the file and line, before it spreads.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("invoice_approval", "vendor_review")
SHARED = ["cli.py", "vector", "wrappers", "policies", "evaluation", "spaces", "envs/core"]
ROLES = (
    "env.py",
    "tools.py",
    "rules.py",
    "tasks.py",
    "grading.py",
    "catalogue.py",
    "baselines.py",
    "authoring/__init__.py",
)
COMPAT = "env.py"
"""The one module a domain's root keeps beside ``shared/`` and its versions: the v0 entry point of the time before
versions were sibling folders (``officegym.envs.<domain>.env``), which only re-exports ``v0/env.py``."""
PACKAGE_SKIP = {"tests", "benchmarks", "build", ".venv", ".venv-ray", ".git"}


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


def _versions(domain: str) -> list[Path]:
    return sorted(p for p in (ROOT / "envs" / domain).iterdir() if p.is_dir() and _is_version(p.name))


def _is_version(name: str) -> bool:
    return name[:1] == "v" and name[1:].isdigit()


VERSION_DIRS = [(domain, folder.name) for domain in DOMAINS for folder in _versions(domain)]


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(["officegym", *(parts[:-1] if parts[-1] == "__init__" else parts)])


def _package(path: Path) -> str:
    module = _module(path)
    return module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


def _resolve(node: ast.ImportFrom, package: str) -> str:
    """The absolute module of ``from ... import``, a relative one resolved against ``package``."""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1] if node.level else []
    return ".".join([*base, *([node.module] if node.module else [])])


def _absolute_imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``, anywhere in the file (TYPE_CHECKING blocks and
    function bodies included); for ``from m import n`` both ``m`` and ``m.n`` (``n`` may be a submodule)."""
    package = _package(path)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(node, package)
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_domain_root_holds_shared_code_its_versions_and_the_old_entry_point(domain: str) -> None:
    folder = ROOT / "envs" / domain
    entries = sorted(p.name for p in folder.iterdir() if p.name != "__pycache__")
    versions = [p.name for p in _versions(domain)]
    assert entries == sorted(["__init__.py", COMPAT, "shared", *versions])
    assert versions[:2] == ["v0", "v1"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_old_entry_point_only_re_exports_v0(domain: str) -> None:
    tree = ast.parse((ROOT / "envs" / domain / COMPAT).read_text(encoding="utf-8"))
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert [(node.module, node.level) for node in imports if node.module != "__future__"] == [("v0.env", 1)]
    assert not [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)]


@pytest.mark.parametrize(("domain", "version"), VERSION_DIRS)
def test_every_version_has_the_same_files_for_the_same_roles(domain: str, version: str) -> None:
    missing = [role for role in ROLES if not (ROOT / "envs" / domain / version / role).is_file()]
    assert missing == []


BUILDS_ON = {("invoice_approval", "v2"): "v1"}
"""The one exception: a version that is a released one with a few tools fixed imports that one (and no other),
since a copy of its world and generator would be a second thing to keep byte-identical (InvoiceApproval-v2)."""


@pytest.mark.parametrize(("domain", "version"), VERSION_DIRS)
def test_a_version_imports_shared_code_and_never_another_version(domain: str, version: str) -> None:
    package = f"officegym.envs.{domain}"
    allowed = (version, BUILDS_ON.get((domain, version)))
    others = [f"{package}.{v}" for _, v in VERSION_DIRS if v not in allowed] + [f"{package}.env"]
    offenders = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in _files(f"envs/{domain}/{version}")
        for line, module in _absolute_imports(p)
        if any(module == other or module.startswith(other + ".") for other in others)
    ]
    assert offenders == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_shared_code_imports_no_version(domain: str) -> None:
    package = f"officegym.envs.{domain}"
    versions = [f"{package}.{v}" for d, v in VERSION_DIRS if d == domain] + [f"{package}.env"]
    offenders = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in _files(f"envs/{domain}/shared")
        for line, module in _absolute_imports(p)
        if any(module == v or module.startswith(v + ".") for v in versions)
    ]
    assert offenders == []


def test_nothing_in_the_package_imports_an_old_entry_point() -> None:
    old = {f"officegym.envs.{domain}.env" for domain in DOMAINS}
    offenders = [
        f"{p.relative_to(ROOT)}:{line}"
        for p in _package_files()
        for line, module in _absolute_imports(p)
        if module in old
    ]
    assert offenders == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_assets_follow_the_same_shape(domain: str) -> None:
    """``assets/<domain>/`` holds ``shared/`` (files more than one version reads) and one folder per version."""
    folder = ROOT / "assets" / domain
    entries = sorted(p.name for p in folder.iterdir())
    assert all(name == "shared" or _is_version(name) for name in entries), entries
    assert {"v0", "v1"} <= set(entries)


@pytest.mark.parametrize("domain", DOMAINS)
def test_runtime_code_does_not_import_offline_work_at_import_time(domain: str) -> None:
    runtime = [p for p in _files(f"envs/{domain}") if "authoring" not in p.relative_to(ROOT).parts]
    offenders = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in runtime
        for line, module in _imports(p, top_level_only=True)
        if "authoring" in module
    ]
    assert offenders == []


def _package_files() -> list[Path]:
    return [p for p in ROOT.rglob("*.py") if not set(p.relative_to(ROOT).parts) & PACKAGE_SKIP]


def test_no_import_circles_anywhere_in_the_package() -> None:
    """Every import counts, TYPE_CHECKING and function-level ones too: a circle through a lazy import is still
    two modules that cannot be read (or moved) one without the other."""
    modules = {_module(p): p for p in _package_files()}
    graph = {name: sorted(_edges(path, modules) - {name}) for name, path in modules.items()}
    assert _circles(graph) == []


def _edges(path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports. ``from m import n`` depends on ``m.n`` when ``n`` is a module
    (``from . import arguments`` needs ``arguments``, not the package's ``__init__``), else on ``m``."""
    package = _package(path)
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(node, package)
            submodules = {f"{target}.{alias.name}" for alias in node.names} & set(modules)
            targets |= submodules
            if len(submodules) < len(node.names) and target in modules:
                targets.add(target)
        elif isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names} & set(modules)
    return targets


def _circles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert _circles(graph) == [["a", "b", "c"]]


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
