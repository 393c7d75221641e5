"""The OpenEnv environment project in ``integrations/openenv_space/`` (``openenv.yaml``, ``server/app.py`` with
``main()``, Dockerfile, ``uv.lock``): ``openenv validate`` passes on the folder and against the server the
Dockerfile's command starts (run here without Docker, from the folder, as the image runs it); the lock file
agrees with the project's pins; the environment variables a container is configured with are checked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from officegym.integrations.openenv_server import SPACE_DEFAULT_ENV_ID, SpaceConfig

from .conftest import HANG_GUARD, gold_path, one_task_per_tier

SPACE = Path(__file__).resolve().parents[3] / "integrations" / "openenv_space"
OPENENV_CLI = shutil.which("openenv", path=str(Path(sys.executable).parent)) or shutil.which("openenv")


def openenv_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """OpenEnv's own command line (installed with openenv-core)."""
    assert OPENENV_CLI, "openenv-core installs the openenv command"
    return subprocess.run([OPENENV_CLI, *args], capture_output=True, text=True, timeout=HANG_GUARD, check=False)


def docker_cmd() -> list[str]:
    """The Dockerfile's CMD (its exec form)."""
    line = next(line for line in (SPACE / "Dockerfile").read_text().splitlines() if line.startswith("CMD "))
    command: list[str] = json.loads(line.removeprefix("CMD "))
    return command


def test_openenv_validate_passes_on_the_space_folder() -> None:
    done = openenv_cli("validate", str(SPACE), "--json", "--verbose")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["passed"] is True, report["issues"]
    assert all(report["deployment_modes"].values()), report["deployment_modes"]


@contextmanager
def space_process(log: Path, variables: Mapping[str, str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The Dockerfile's command, run from the Space folder with this Python, on a free loopback port (the
    image binds 0.0.0.0:8000), with ``variables`` added to the environment, as a container is told; yields
    its URL and process, and stops it with SIGTERM (as ``docker stop`` does) when the block ends."""
    command = docker_cmd()
    assert command[:3] == ["python", "-m", "server.app"]
    command = [sys.executable, *command[1 : command.index("--host")], "--host", "127.0.0.1", "--port", "0"]
    with log.open("w") as out:
        process = subprocess.Popen(
            command, cwd=SPACE, env={**os.environ, **variables}, stdout=out, stderr=subprocess.STDOUT, text=True
        )
    try:
        yield await_url(process, log), process
    finally:
        process.terminate()
        process.wait(timeout=HANG_GUARD)


@pytest.fixture(scope="module")
def space_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Space's server for the env id named by ``OFFICEGYM_ENV_ID``."""
    log = tmp_path_factory.mktemp("space") / "server.log"
    variables = {"OFFICEGYM_ENV_ID": "officegym/VendorReview-v0", "OFFICEGYM_MAX_SESSIONS": "4"}
    with space_process(log, variables) as (url, _):
        yield url


def await_url(process: subprocess.Popen[str], log: Path) -> str:
    """The URL of the server's start line, once the log holds it."""
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        found = re.search(r"on (http://127\.0\.0\.1:\d+) ", log.read_text())
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"server/app.py exited with {process.returncode}:\n{log.read_text()}")
        time.sleep(0.2)
    raise RuntimeError(f"server/app.py did not announce its address:\n{log.read_text()}")


def test_openenv_validate_passes_against_the_running_server(space_server: str) -> None:
    done = openenv_cli("validate", "--url", space_server, "--timeout", str(HANG_GUARD))
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["passed"] is True, report["summary"]
    assert report["mode"] == "simulation"


def test_the_space_server_plays_the_env_of_its_variables_with_openenvs_tool_client(space_server: str) -> None:
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.mcp_client import MCPToolClient

    env_id = "officegym/VendorReview-v0"
    task_id = one_task_per_tier(env_id)[0]
    with MCPToolClient(base_url=space_server, message_timeout_s=HANG_GUARD).sync() as client:
        assert [tool.name for tool in client.list_tools()][-1] == "finish"
        client.reset(task_id=task_id)
        for call in gold_path(env_id, task_id):
            result = client.step(CallToolAction(tool_name=call["name"], arguments=call["arguments"]))
            if result.done:
                break
    assert result.reward == 1.0


def lock_packages() -> dict[str, dict[str, Any]]:
    lock = tomllib.loads((SPACE / "uv.lock").read_text())
    return {package["name"]: package for package in lock["package"]}


def test_the_lock_file_installs_officegym_from_the_checkout_and_the_pinned_openenv() -> None:
    project = tomllib.loads((SPACE / "pyproject.toml").read_text())
    officegym = tomllib.loads((SPACE.parents[1] / "pyproject.toml").read_text())
    packages = lock_packages()
    assert packages["officegym"]["source"]["directory"].rstrip("/") == "../.."
    pinned = next(dep for dep in officegym["project"]["optional-dependencies"]["openenv"] if "openenv-core" in dep)
    assert packages["openenv-core"]["version"] == pinned.split("==")[1]
    for constraint in project["tool"]["uv"]["constraint-dependencies"]:
        name, version = constraint.split("==")
        assert packages[name]["version"] == version, constraint
    manifest = tomllib.loads((SPACE / "uv.lock").read_text())["manifest"]["constraints"]
    assert sorted(f"{c['name']}{c['specifier']}" for c in manifest) == sorted(
        project["tool"]["uv"]["constraint-dependencies"]
    ), "uv.lock is older than pyproject.toml: run uv lock in integrations/openenv_space"


def test_the_lock_file_knows_officegyms_requirements_as_pyproject_states_them() -> None:
    """uv.lock records officegym's requirements (its base and every extra); once pyproject.toml changes them,
    ``uv sync --frozen`` in the image would install what the lock says instead: the lock must be made again.
    Whole requirements are compared (name, extras, marker, specifier): ``ray[rllib]`` for ``ray[rllib,serve]``
    is as stale as a changed version."""
    officegym = tomllib.loads((SPACE.parents[1] / "pyproject.toml").read_text())["project"]
    groups = {"": officegym["dependencies"], **officegym["optional-dependencies"]}
    stated = {stated_requirement(text, extra) for extra, texts in groups.items() for text in texts}
    recorded = {recorded_requirement(item) for item in lock_packages()["officegym"]["metadata"]["requires-dist"]}
    assert recorded == stated, (
        f"uv.lock is older than officegym's pyproject.toml: run uv lock in its folder (only in the lock: "
        f"{shown(recorded - stated)}; only in pyproject.toml: {shown(stated - recorded)})"
    )


Recorded = tuple[str, frozenset[str], str, str, SpecifierSet]
"""A requirement as both files can say it: name, extras, the extra it belongs to ("" for the base), its own
marker (without the ``extra == ...`` clause), its specifier (a set: the order of its parts is free)."""


def stated_requirement(text: str, extra: str) -> Recorded:
    """A requirement of pyproject.toml's ``dependencies`` (``extra`` "") or of an optional-dependencies group."""
    requirement = Requirement(text)
    marker = str(requirement.marker) if requirement.marker else ""
    return _requirement(requirement.name, requirement.extras, extra, marker, str(requirement.specifier))


def recorded_requirement(item: dict[str, Any]) -> Recorded:
    """One ``requires-dist`` entry of uv.lock: uv folds the group into the marker, as ``extra == 'name'``."""
    marker = item.get("marker", "")
    extra = re.search(r"extra == '([^']+)'", marker)
    own = re.sub(r"(^| and )extra == '[^']+'", "", marker).removeprefix(" and ").strip()
    group = extra.group(1) if extra else ""
    return _requirement(item["name"], item.get("extras", []), group, own, item.get("specifier", ""))


def shown(requirements: set[Recorded]) -> str:
    """Requirements as pyproject.toml writes them, each with its group: ``ray[rllib]>=2.50 (extra ray)``."""
    return ", ".join(sorted(map(_shown, requirements))) or "none"


def _shown(requirement: Recorded) -> str:
    name, extras, group, marker, specifier = requirement
    listed = f"[{','.join(sorted(extras))}]" if extras else ""
    condition = f"; {marker}" if marker else ""
    return f"{name}{listed}{specifier}{condition} ({f'extra {group}' if group else 'base'})"


def _requirement(name: str, extras: Any, extra: str, marker: str, specifier: str) -> Recorded:
    own = str(Marker(marker)) if marker else ""
    return canonicalize_name(name), frozenset(map(canonicalize_name, extras)), extra, own, SpecifierSet(specifier)


def test_the_dockerfile_installs_the_lock_on_python_3_11_slim_and_serves_the_declared_port() -> None:
    dockerfile = (SPACE / "Dockerfile").read_text()
    manifest = (SPACE / "openenv.yaml").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, re.MULTILINE)
    assert "uv sync --frozen" in dockerfile
    assert "app: server.app:app" in manifest and "port: 8000" in manifest
    command = docker_cmd()
    assert command[command.index("--port") + 1] == "8000" and "EXPOSE 8000" in dockerfile


def test_space_config_reads_its_variables_and_refuses_bad_ones_by_name() -> None:
    assert SpaceConfig.from_environ({}) == SpaceConfig(SPACE_DEFAULT_ENV_ID, {}, 64, None, None, 1)
    config = SpaceConfig.from_environ(
        {
            "OFFICEGYM_ENV_ID": "officegym/VendorReview-v2",
            "OFFICEGYM_ENV_KWARGS": '{"tier": "easy"}',
            "OFFICEGYM_MAX_SESSIONS": "8",
            "OFFICEGYM_SESSION_TIMEOUT": "30",
            "OFFICEGYM_WORKERS": "2",
        }
    )
    assert config == SpaceConfig("officegym/VendorReview-v2", {"tier": "easy"}, 8, 30.0, None, 2)
    for variables, message in [
        ({"OFFICEGYM_ENV_KWARGS": "[1]"}, "OFFICEGYM_ENV_KWARGS must be a JSON object"),
        ({"OFFICEGYM_ENV_KWARGS": "{x"}, "OFFICEGYM_ENV_KWARGS is not valid JSON"),
        ({"OFFICEGYM_MAX_SESSIONS": "many"}, "OFFICEGYM_MAX_SESSIONS must be an integer"),
        ({"OFFICEGYM_MAX_SESSIONS": "0"}, "OFFICEGYM_MAX_SESSIONS must be at least 1"),
        ({"OFFICEGYM_SESSION_TIMEOUT": "-1"}, "OFFICEGYM_SESSION_TIMEOUT must be a positive number"),
        ({"OFFICEGYM_WORKERS": "two"}, "OFFICEGYM_WORKERS must be an integer, got 'two'"),
        ({"OFFICEGYM_WORKERS": "1.5"}, "OFFICEGYM_WORKERS must be an integer, got '1.5'"),
        ({"OFFICEGYM_WORKERS": "0"}, "OFFICEGYM_WORKERS must be between 1 and 256, got 0"),
        ({"OFFICEGYM_WORKERS": "-2"}, "OFFICEGYM_WORKERS must be between 1 and 256, got -2"),
        ({"OFFICEGYM_WORKERS": "257"}, "OFFICEGYM_WORKERS must be between 1 and 256, got 257"),
        ({"OFFICEGYM_WORKERS": "10" * 20}, f"OFFICEGYM_WORKERS must be between 1 and 256, got {'10' * 20}"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            SpaceConfig.from_environ(variables)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("OFFICEGYM_WORKERS", "0", "OFFICEGYM_WORKERS must be between 1 and 256, got 0"),
        ("OFFICEGYM_MAX_SESSIONS", "many", "OFFICEGYM_MAX_SESSIONS must be an integer, got 'many'"),
        ("OFFICEGYM_ENV_KWARGS", "{x", "OFFICEGYM_ENV_KWARGS is not valid JSON"),
    ],
)
def test_the_dockerfiles_command_refuses_a_bad_variable_in_one_line(variable: str, value: str, message: str) -> None:
    """A container's log shows one ``Error:`` line that names the variable, and the process exits non-zero."""
    environ = {**os.environ, variable: value}
    command = [sys.executable if part == "python" else part for part in docker_cmd()]
    done = subprocess.run(command, cwd=SPACE, env=environ, capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {message}"), done.stderr


@pytest.mark.parametrize(("value", "workers"), [("", 1), ("  ", 1), ("1", 1), (" 3 ", 3), ("256", 256)])
def test_space_config_serves_one_worker_unless_told_otherwise(value: str, workers: int) -> None:
    """A Space's free tier has 2 shared vCPUs: unset or empty, ``OFFICEGYM_WORKERS`` is one process."""
    assert SpaceConfig.from_environ({"OFFICEGYM_WORKERS": value}).workers == workers
    assert SpaceConfig.from_environ({}).workers == 1
