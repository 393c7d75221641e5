"""``vf-validate`` on every Hub package, as a user runs it: the gold check is *checked* and passes on every task.

Each run is verifiers' own ``vf-validate PACKAGE_ID --runtime.type subprocess`` in a subprocess, with the package's
folder on ``PYTHONPATH`` (what installing its one module does). For every task it runs the gold check
(``Task.validate``: the gold path, played through a tool session on a fresh episode of the row's world, scores
1.0) and the noop check (the untouched task scores below 1.0). ``summary.json`` must count every task of the
test split of all five env ids, and of a train split (200 generated deals of VendorReview-v2), as valid in both
checks and none as unchecked. The runs go at once; the wait for each is bounded by the hang guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

import officegym
from officegym.integrations import verifiers as ogv

from .conftest import HANG_GUARD, HUB

RUNS = [(env_id, "test") for env_id in sorted(officegym.ENV_IDS)] + [("officegym/VendorReview-v2", "train")]
SOURCES = 1


def vf_validate(env_id: str, split: str, home: Path) -> subprocess.Popen[str]:
    """Start ``vf-validate`` on the env's package: both checks, local subprocess runtime, results under ``home``."""
    command = [
        str(Path(sys.executable).parent / "vf-validate"),
        ogv.package_id(env_id),
        "--taskset.split",
        split,
        "--taskset.sources",
        str(SOURCES),
        "--runtime.type",
        "subprocess",
        "--no-rich",
        "-o",
        str(home / "out"),
        "--run.name",
        "gold",
    ]
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(HUB / ogv.package_module(env_id))}
    return subprocess.Popen(command, cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def summary(home: Path) -> dict[str, Any]:
    return dict(json.loads((home / "out" / "gold" / "summary.json").read_text()))


def test_vf_validate_checks_and_passes_the_gold_path_of_every_task(tmp_path: Path) -> None:
    runs: dict[tuple[str, str], tuple[subprocess.Popen[str], Path]] = {}
    outputs: dict[tuple[str, str], tuple[str, str]] = {}
    for k, (env_id, split) in enumerate(RUNS):
        home = tmp_path / f"run{k}"
        home.mkdir()
        runs[env_id, split] = (vf_validate(env_id, split, home), home)
    for key, (process, _) in runs.items():
        try:
            outputs[key] = process.communicate(timeout=HANG_GUARD)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    for (env_id, split), (process, home) in runs.items():
        assert process.returncode == 0, outputs[env_id, split][1][-4000:]
        found = summary(home)
        total = found["total"]
        clean = {"valid": total, "invalid": 0, "unchecked": 0, "error": 0, "timeout": 0, "missing": 0}
        assert total == len(ogv.cached_rows(env_id, split, SOURCES)) > 0, (env_id, split)
        assert found["checks"] == {"gold": clean, "noop": clean}, (env_id, split, found)
        assert found["valid_rate"] == 1.0
