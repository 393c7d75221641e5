"""officegym installs like a library: ``python -m build`` makes a clean wheel and sdist, and the wheel works in a
fresh virtual environment outside the checkout, as a user's ``pip install`` gives it.

The long test builds, installs and plays in one sequence, because every step needs the wheel: as one test it is
built once, even when pytest-xdist spreads this file's tests over workers. Network waits overlap: the extras'
dependency resolution (``pip install --dry-run``, tens of seconds of index requests) and the editable install run
in the background while the wheel is installed and played. Subprocess timeouts are hang guards, never limits.

The fresh venv gets the newest releases of officegym's dependencies (gymnasium, numpy, sqlite-utils, rich), as
``pip install`` resolves them today, not the versions the test venv holds.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD = 900
"""Seconds before a build or pip run counts as hung; a loaded two-core machine needs a fraction of it."""

NOT_PACKAGES = ("tests", "benchmarks")
"""Top-level folders with an ``__init__.py`` that stay out of the wheel on purpose."""

WARNING = re.compile(r"(?i:\bwarning\b)|\w+Warning\b")
"""A warning line: ``WARNING ...``, ``warning: ...`` (distutils) or a warning class (``...DeprecationWarning``)."""

MACHINE_NOTICE = re.compile(r"WARNING: Location '[^']*' is ignored: it is neither a file nor a directory\.")
"""pip's notice that this machine's pip configuration names an index folder that does not exist: it comes from
the machine, on every pip run, and says nothing about officegym."""

DEV_EXTRA = "dev"
"""Left out of the extras' dry run: ``make test`` installs it for real."""

IMPORT_NAMES = {"fpdf2": "fpdf", "openenv-core": "openenv"}
"""Distributions whose import name is not their normalised distribution name."""


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def user_extras() -> list[str]:
    """Every extra ``pyproject.toml`` declares but the dev one, so a new extra is checked as soon as it exists."""
    return sorted(set(pyproject()["project"]["optional-dependencies"]) - {DEV_EXTRA})


def package_folders() -> dict[str, Path]:
    """Every regular package in the checkout by its import name: folders with an ``__init__.py`` all the way
    up from the root (which is ``officegym``), less ``NOT_PACKAGES``."""
    found = {"officegym": ROOT}
    pending = [ROOT]
    while pending:
        folder = pending.pop()
        for child in sorted(folder.iterdir()):
            top_level_exclusion = folder == ROOT and child.name in NOT_PACKAGES
            if child.is_dir() and (child / "__init__.py").is_file() and not top_level_exclusion:
                found[".".join(["officegym", *child.relative_to(ROOT).parts])] = child
                pending.append(child)
    return found


def expected_wheel_files() -> set[str]:
    """What the wheel must hold besides its ``.dist-info``: every module of every package, every file under
    ``assets/``, and the PEP 561 marker. Nothing else (no tests, benchmarks, notes, venvs or build output)."""
    files = {"officegym/py.typed"}
    for name, folder in package_folders().items():
        files |= {f"{name.replace('.', '/')}/{module.name}" for module in folder.glob("*.py")}
    assets = ROOT / "assets"
    files |= {
        f"officegym/{path.relative_to(ROOT).as_posix()}"
        for path in assets.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    return files


def warning_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if WARNING.search(line) and not MACHINE_NOTICE.search(line)]


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would let the checkout or the test venv leak into a run.

    ``PYTHONDONTWRITEBYTECODE`` goes too: with it set, setuptools prints "warning: byte-compiling is disabled",
    a remark on the environment, not on the project."""
    leaks = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE", "PYTHONSTARTUP")
    env = {key: value for key, value in os.environ.items() if key not in leaks}
    return env | extra


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """The command's stdout and stderr together; a non-zero exit fails the test with the command and its end."""
    result = subprocess.run(
        command, cwd=cwd, env=env or clean_env(), capture_output=True, text=True, timeout=HANG_GUARD
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{shlex.join(command)} exited {result.returncode}:\n{output[-6000:]}"
    return output


def pip(venv: Path, *arguments: str) -> list[str]:
    """The test venv's pip acting on ``venv`` (``pip --python``), so the fresh venvs need no pip of their own."""
    return [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "--no-input", *arguments]


class Background:
    """A command running while the test goes on; ``output()`` waits for it and fails the test if it failed."""

    def __init__(self, command: list[str], cwd: Path, log: Path, started: list[Background]) -> None:
        self.command, self.log = command, log
        self._file: IO[str] = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            command, cwd=cwd, env=clean_env(), stdout=self._file, stderr=subprocess.STDOUT, text=True
        )
        started.append(self)

    def output(self) -> str:
        code = self.process.wait(timeout=HANG_GUARD)
        self._file.close()
        output = self.log.read_text(encoding="utf-8")
        assert code == 0, f"{shlex.join(self.command)} exited {code}:\n{output[-6000:]}"
        return output

    def stop(self) -> None:
        """Kills the command if it still runs (the test failed before waiting for it)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=HANG_GUARD)
        self._file.close()


@pytest.fixture
def started() -> Iterator[list[Background]]:
    """The background commands this test started, each stopped when the test ends, however it ends."""
    commands: list[Background] = []
    yield commands
    for command in commands:
        command.stop()


def test_the_package_list_names_every_package_folder() -> None:
    """``[tool.setuptools] packages`` is written out (the root is the package, so discovery would find ``envs``
    and ``tests`` as top-level packages): a new folder missing from it would silently be left out of the wheel."""
    listed = set(pyproject()["tool"]["setuptools"]["packages"])
    found = set(package_folders())
    assert not found - listed, f"add these to [tool.setuptools] packages in pyproject.toml: {sorted(found - listed)}"
    assert not listed - found, (
        f"pyproject.toml lists packages that have no folder with an __init__.py: {sorted(listed - found)}"
    )


def build(out: Path) -> tuple[Path, Path]:
    """``python -m build`` of the checkout (the sdist, then the wheel built from the sdist), with no warnings."""
    output = run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=out.parent)
    assert not warning_lines(output), "python -m build warned:\n" + "\n".join(warning_lines(output))
    (wheel,), (sdist,) = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    return wheel, sdist


def check_wheel(wheel: Path) -> None:
    """The wheel holds exactly the package's modules, its assets and ``py.typed``, and says what it is."""
    names = zipfile.ZipFile(wheel).namelist()
    info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
    held = {name for name in names if not name.startswith(f"{info}/")}
    expected = expected_wheel_files()
    assert not expected - held, f"missing from the wheel: {sorted(expected - held)[:20]}"
    assert not held - expected, f"in the wheel but not part of the package: {sorted(held - expected)[:20]}"
    assert f"{info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    for line in ("License-Expression: Apache-2.0", "License-File: LICENSE", "Requires-Python: >=3.11"):
        assert line in metadata.splitlines(), f"METADATA lacks {line!r}"
    declared = set(pyproject()["project"]["optional-dependencies"])
    assert {line.split(": ")[1] for line in metadata.splitlines() if line.startswith("Provides-Extra: ")} == declared
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert "officegym = officegym.cli:main" in entry_points


def check_sdist(sdist: Path) -> None:
    """The sdist holds what the wheel is built from (the build above built the wheel from it) and the project
    files, but not the test suite, the benchmarks or anything a checkout accumulates."""
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "CITATION.cff", "PKG-INFO"):
        assert needed in members, f"the sdist lacks {needed}"
    assert "_build_backend/officegym_build_backend.py" in members  # the in-tree backend pyproject.toml names
    tops = {member.split("/")[0] for member in members}
    unwanted = sorted(
        t for t in tops if t in ("tests", "benchmarks", "build", "dist") or t.startswith((".venv", ".git"))
    )
    assert not unwanted, f"the sdist holds {unwanted}"


PLAY = """
import json
import gymnasium as gym
import officegym

played = {}
for env_id in officegym.ENV_IDS:
    env = gym.make(env_id)
    observation, info = env.reset(seed=0)
    env.action_space.seed(0)
    action = env.action_space.sample()
    while action["name"] == "finish":  # one real tool call first, then finish
        action = env.action_space.sample()
    observation, reward, terminated, truncated, info = env.step(action)
    if not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step({"name": "finish", "arguments": {}})
    played[env_id] = {"task_id": info.get("task_id"), "ended": terminated or truncated, "grade": info.get("grade")}
    env.close()
print(json.dumps({"officegym": officegym.__file__, "played": played}))
"""
"""Every registered id: ``gym.make``, a seeded reset, one sampled tool call, then ``finish`` and its grade."""

FRESH_MAKE = "import gymnasium as gym; gym.make('officegym:officegym/VendorReview-v0').reset(seed=0); print('made')"
"""``gym.make("officegym:...")`` from a process that never imported officegym."""

IMPORTS = """
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:
        failed[name] = error.name
    except Exception as error:
        failed[name] = f"{type(error).__name__}: {error}"
print(json.dumps(failed))
"""
"""Imports every module the wheel holds; prints the ones that fail and what they miss."""


def wheel_modules(wheel: Path) -> list[str]:
    names = [name for name in zipfile.ZipFile(wheel).namelist() if name.endswith(".py")]
    return sorted(name.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for name in names)


def extra_imports() -> dict[str, str]:
    """The top-level import name of every distribution the user extras declare, with the extra that brings it."""
    found: dict[str, str] = {}
    for extra in user_extras():
        for requirement in pyproject()["project"]["optional-dependencies"][extra]:
            match = re.match(r"[A-Za-z0-9._-]+", requirement)
            assert match is not None, requirement
            name = match.group(0).lower()
            found.setdefault(IMPORT_NAMES.get(name, name.replace("-", "_")), extra)
    return found


def check_play(venv: Path, work: Path) -> list[str]:
    """The installed package (not the checkout) makes, resets, steps and grades every registered id (returned)."""
    python = str(venv / "bin" / "python")
    report = json.loads(run([python, "-c", PLAY], cwd=work).strip().splitlines()[-1])
    assert Path(report["officegym"]).is_relative_to(venv), f"imported officegym from {report['officegym']}"
    assert report["played"], "officegym.ENV_IDS is empty"
    for env_id, episode in report["played"].items():
        assert episode["ended"] and "reward" in episode["grade"], f"{env_id}: {episode}"
    assert run([python, "-c", FRESH_MAKE], cwd=work).strip().endswith("made")
    return list(report["played"])


def check_demo(venv: Path, work: Path, env_ids: list[str]) -> None:
    """``officegym demo --no-render`` exits 0 and prints a score table for every registered id."""
    output = run([str(venv / "bin" / "officegym"), "demo", "--no-render"], cwd=work, env=clean_env(COLUMNS="200"))
    missing = [env_id for env_id in env_ids if f"{env_id}: scripted policies" not in output]
    assert not missing, f"the demo printed no score table for {missing}:\n{output[-3000:]}"
    assert len(re.findall(r"oracle\s*│\s*1\.000", output)) >= len(env_ids), f"an oracle scored below 1:\n{output}"


def check_imports(venv: Path, work: Path, wheel: Path) -> None:
    """Every module imports with the base install, or misses only a package that one of the extras brings (the
    examples and integrations import their stacks lazily, so ``officegym.examples.rllib_ppo`` imports here)."""
    failed = json.loads(run([str(venv / "bin" / "python"), "-c", IMPORTS, json.dumps(wheel_modules(wheel))], cwd=work))
    brought = extra_imports()
    wrong = {module: missing for module, missing in failed.items() if missing.split(".")[0] not in brought}
    assert not wrong, f"modules that fail to import with no extra to fix it: {wrong}"
    assert "officegym.examples.rllib_ppo" not in failed


def check_quiet(output: str, what: str) -> None:
    assert not warning_lines(output), f"{what} warned:\n" + "\n".join(warning_lines(output))


def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path, started: list[Background]) -> None:
    """Build, check both archives, then in fresh venvs outside the checkout: install the wheel, play every id,
    run the demo and import every module; resolve every user extra at once through a wheel path with extras
    (``dist/officegym-0.1.0-py3-none-any.whl[sb3,llm,...]``: a joint resolution is one for each extra alone);
    resolve the checkout as a direct reference with an extra (``'officegym[llm] @ file:///path/to/checkout'``);
    and install the checkout editable. Every build and install prints no warning. The wheel is installed with
    ``--no-compile``, which skips only the byte-compiling, to spare CPU time."""
    wheel, sdist = build(tmp_path / "dist")
    check_wheel(wheel)
    check_sdist(sdist)

    # three empty venvs: the user's, one that only resolves (never written while the user's is), the editable one
    work, user, resolver, editable = (tmp_path / name for name in ("work", "user", "resolver", "editable"))
    work.mkdir()
    for venv in (user, resolver, editable):
        run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    relative_wheel = f"{wheel.relative_to(tmp_path).as_posix()}[{','.join(user_extras())}]"
    extras = Background(
        pip(resolver, "install", "--dry-run", "--quiet", relative_wheel), tmp_path, tmp_path / "extras.log", started
    )
    from_path = Background(
        pip(resolver, "install", "--dry-run", "--quiet", f"officegym[llm] @ {ROOT.as_uri()}"),
        tmp_path,
        tmp_path / "from-path.log",
        started,
    )
    editable_install = Background(
        pip(editable, "install", "--quiet", "--no-deps", "--editable", str(ROOT)),
        tmp_path,
        tmp_path / "editable.log",
        started,
    )

    check_quiet(run(pip(user, "install", "--quiet", "--no-compile", str(wheel)), cwd=work), "installing the wheel")
    run(pip(user, "check"), cwd=work)
    check_demo(user, work, check_play(user, work))
    check_imports(user, work, wheel)

    check_quiet(editable_install.output(), "pip install -e")
    from_path.output()
    try:
        extras.output()
    except AssertionError as joint:
        culprits = [extra for extra in user_extras() if not resolves(resolver, wheel, extra, tmp_path)]
        alone = f"these extras do not resolve on their own: {culprits}" if culprits else "each resolves alone"
        raise AssertionError(f"the extras do not resolve together ({alone}):\n{joint}") from None


def resolves(venv: Path, wheel: Path, extra: str, cwd: Path) -> bool:
    """Whether ``WHEEL[extra]`` resolves alone: only asked after the joint resolution failed, to name the extra."""
    command = pip(venv, "install", "--dry-run", "--quiet", f"{wheel}[{extra}]")
    return subprocess.run(command, cwd=cwd, env=clean_env(), capture_output=True, timeout=HANG_GUARD).returncode == 0
