"""The Environments Hub packages: one per env id, generated from one template, found by verifiers' own loader.

``integrations/hub/generate.py --check`` must pass (the packages are what the template and the envs make them
today); each package's ``pyproject.toml`` names its module and pins ``officegym[verifiers]`` to the checkout's
version; its module, put on ``sys.path`` as an install would, is what ``vf-eval``/``vf-validate`` resolve for
its id (one Taskset, Harness and Env subclass in ``__all__``, the taskset playing that env id), and its
``load_environment`` builds a verifiers ``Env`` of the asked split. ``test_verifiers_wheel.py`` installs one
as a wheel; ``test_verifiers_validate.py`` runs ``vf-validate`` on each.
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

import verifiers.v1 as vf
from verifiers.v1.utils.loaders import taskset_class

import officegym
from officegym.integrations import verifiers as ogv

from .conftest import HANG_GUARD, HUB, ROOT

ENV_IDS = sorted(officegym.ENV_IDS)


def generator() -> ModuleType:
    """``integrations/hub/generate.py`` (a script, not a module of the package) loaded from its path."""
    spec = importlib.util.spec_from_file_location("officegym_hub_generate", HUB / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hub_module(env_id: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The package's module, importable by its name as an installed package's is."""
    monkeypatch.syspath_prepend(str(HUB / ogv.package_module(env_id)))
    return importlib.import_module(ogv.package_module(env_id))


def test_the_packages_are_what_the_template_makes() -> None:
    command = [sys.executable, str(HUB / "generate.py"), "--check"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in HUB.glob("officegym_*")) == sorted(ogv.package_module(e) for e in ENV_IDS)


def test_the_check_names_each_stale_file_and_stray_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = generator()
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    monkeypatch.setattr(gen, "HUB", tmp_path / "hub")
    current, changed, missing = (tmp_path / "hub" / "officegym_a" / name for name in ("a.py", "b.py", "c.py"))
    current.parent.mkdir(parents=True)
    current.write_text("same")
    changed.write_text("old")
    (tmp_path / "hub" / "officegym_gone").mkdir()
    problems = gen.stale({current: "same", changed: "new", missing: "new"})
    assert problems == [
        "hub/officegym_a/b.py is out of date",
        "hub/officegym_a/c.py is missing",
        "hub/officegym_gone belongs to no registered env id",
    ]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_package_names_its_module_and_pins_officegym(env_id: str) -> None:
    folder = HUB / ogv.package_module(env_id)
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert project["project"]["name"] == ogv.package_id(env_id)
    assert project["project"]["version"] == version
    assert project["project"]["dependencies"] == [f"officegym[verifiers]=={version}"]
    assert project["tool"]["setuptools"]["py-modules"] == [ogv.package_module(env_id)]
    assert (folder / f"{ogv.package_module(env_id)}.py").is_file()
    card = (folder / project["project"]["readme"]).read_text()
    assert f"vf-eval {ogv.package_id(env_id)}" in card and f"`{env_id}`" in card


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_verifiers_resolves_each_package_id_to_its_env(env_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = hub_module(env_id, monkeypatch)
    package = ogv.package_id(env_id)
    named = {name: getattr(module, name) for name in ("ENV_ID", "PACKAGE_ID")}
    assert named == {"ENV_ID": env_id, "PACKAGE_ID": package}
    assert taskset_class(package) is ogv.env_taskset_type(env_id)
    assert vf.environment_class(package) is ogv.OfficeGymEnv
    assert vf.default_harness_id(package) == package
    config = vf.taskset_config_type(package)(id=package)
    assert (config.env_id, config.split, config.sources) == (env_id, "test", 2)


def test_load_environment_builds_the_split_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    module = hub_module("officegym/VendorReview-v2", monkeypatch)
    env: Any = module.load_environment(split="train", sources=1, tiers=["easy"])
    assert isinstance(env, ogv.OfficeGymEnv)
    config = env.config.taskset
    assert (config.id, config.env_id, config.split, config.sources, config.tiers) == (
        "officegym-vendor-review-v2",
        "officegym/VendorReview-v2",
        "train",
        1,
        ["easy"],
    )
    assert isinstance(env.taskset, ogv.VendorReviewV2Taskset)
    assert ogv.load_environment("officegym/VendorReview-v2").config.taskset.id == ogv.PLUGIN_ID


def test_importing_a_package_module_does_not_import_verifiers() -> None:
    """vf-eval imports every candidate module; a plain ``import`` (or ``hasattr``) must stay cheap and never fail."""
    folder = HUB / ogv.package_module("officegym/VendorReview-v0")
    probe = (
        f"import sys; sys.path.insert(0, {str(folder)!r}); import officegym_vendor_review_v0 as m; "
        "print(m.ENV_ID, hasattr(m, '__path__'), hasattr(m, 'nothing'), 'verifiers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.stdout.split() == ["officegym/VendorReview-v0", "False", "False", "False"], done.stderr
