"""Shared fixtures: the canonical InvoiceApproval bundle and helpers to inspect an episode's books; the session
header names the Gymnasium the run is on (``make test`` runs on two: the newest, and RLlib's pin); Hypothesis
examples have no deadline (a wall-clock limit per example fails a correct test on a busy machine)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import sqlite3
import tempfile
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401  (registers the env ids)
from officegym.envs.invoice_approval.shared.cache import ENV_VAR
from officegym.envs.invoice_approval.v0.authoring.world import generate_world
from officegym.envs.invoice_approval.v0.bundle import Bundle, load_bundle

OPTIONAL = ("ray", "torch", "stable-baselines3", "trl", "verifiers", "openenv-core")
"""Distributions whose presence decides which tests run; the header lists the ones installed."""

if importlib.util.find_spec("hypothesis") is not None:  # the RLlib venv installs only what its tests need
    from hypothesis import settings

    settings.register_profile("officegym", parent=settings(), deadline=None)  # keeps the "ci" profile's rest
    settings.load_profile("officegym")


def pytest_configure(config: pytest.Config) -> None:
    """One company cache for the whole run, in a temp folder (never the user's ``~/.cache/officegym``): set
    before xdist starts its workers, so they and every subprocess a test starts inherit it and share what one
    generated. Workers leave it to the process that made it."""
    if not hasattr(config, "workerinput"):
        config.stash[_CACHE_DIR] = tempfile.mkdtemp(prefix="officegym-test-cache-")
        os.environ[ENV_VAR] = config.stash[_CACHE_DIR]


def pytest_unconfigure(config: pytest.Config) -> None:
    if _CACHE_DIR in config.stash:
        shutil.rmtree(config.stash[_CACHE_DIR], ignore_errors=True)


_CACHE_DIR = pytest.StashKey[str]()


def pytest_report_header() -> list[str]:
    """One line under pytest's own header: which Gymnasium (and which optional stacks) this run tests."""
    return [_versions_line()]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The same line before the closing count when ``-q`` (the project's default) hides the header, so a CI
    log of ``make test`` shows both Gymnasium versions its two runs tested."""
    if config.get_verbosity() < 0:
        terminalreporter.write_line(_versions_line())


def _versions_line() -> str:
    found = [f"{name} {_version(name)}" for name in OPTIONAL if _version(name)]
    return f"officegym tested on gymnasium {gym.__version__}, with {', '.join(found) or 'no optional extras'}"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return ""


@pytest.fixture(scope="session")
def bundle() -> Bundle:
    return load_bundle()


@pytest.fixture(scope="session")
def world() -> Any:
    return generate_world(42)


@pytest.fixture()
def invoice_env() -> Any:
    env = gym.make("officegym/InvoiceApproval-v0")
    yield env
    env.close()


@pytest.fixture()
def batch_env() -> Any:
    """InvoiceApproval on task batch-1, reset with seed 0."""
    env = gym.make("officegym/InvoiceApproval-v0")
    env.reset(seed=0, options={"task_id": "batch-1"})
    yield env
    env.close()


def tool_env(env: gym.Env[Any, Any]) -> Any:
    """The officegym env under Gymnasium's wrappers, typed loosely: tests reach its task list, gold paths and
    counters, which ``gym.Env`` does not declare."""
    return env.unwrapped


def action_count(env: gym.Env[Any, Any]) -> int:
    """The size of a discrete action space."""
    space = env.action_space
    assert isinstance(space, gym.spaces.Discrete)
    return int(space.n)


def dump(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Every row of every table, in a stable order: equal dumps mean an unchanged world."""
    rows: list[tuple[Any, ...]] = []
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        rows.extend((table, *row) for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2"))
    return rows


def episode_conn(env: gym.Env[Any, Any]) -> sqlite3.Connection:
    return env.unwrapped.episode.conn  # type: ignore[attr-defined, no-any-return]
