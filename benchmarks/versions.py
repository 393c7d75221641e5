"""Every version beside v0, per domain: what each newer version costs per reset, read, grade, fork and episode.

``python -m benchmarks.versions`` writes ``benchmarks/results/versions.json``. For each domain all its versions
are timed in the same rounds, in alternating order (v0, v1, v2, then v2, v1, v0, ...), so a slow patch of the
shared machine hits them all; p50s are over all rounds and the domain carries the ratio of each newer version's
p50 to v0's (``v1_vs_v0``, ``v2_vs_v0``). What is timed:

- ``reset``: a reset of a running env onto the same task (the first task of the tier below);
- ``read``: one read-tool step in a long episode (``get_invoice`` / ``read_doc``);
- ``grading``: grading the longest task's gold path (warm: its gold books already cached);
- ``fork``: ``fork()`` and close, from the middle of that gold path;
- ``episodes_per_s``: the oracle on every shipped task, one process (median of 3 alternating rounds).

Newer versions do more per task (documents, pages, capture, larger deals), so their episodes are longer; the
per-call rows show whether the calls themselves got slower.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import officegym  # noqa: F401
from officegym.policies import run_episode
from officegym.policies.registry import make_policy

from .timing import sample_us, summary

RESULTS = Path(__file__).parent / "results"
VERSIONS = {
    "InvoiceApproval": (
        "officegym/InvoiceApproval-v0",
        "officegym/InvoiceApproval-v1",
        "officegym/InvoiceApproval-v2",
    ),
    "VendorReview": ("officegym/VendorReview-v0", "officegym/VendorReview-v1", "officegym/VendorReview-v2"),
}
READ = {
    "officegym/InvoiceApproval-v0": {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}},
    "officegym/InvoiceApproval-v1": {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}},
    "officegym/VendorReview-v0": {"name": "read_doc", "arguments": {"doc_id": "questionnaire"}},
    "officegym/InvoiceApproval-v2": {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}},
    "officegym/VendorReview-v1": {"name": "read_doc", "arguments": {"doc_id": "security-questionnaire"}},
    # v2 names each deal's documents after its supplier; this is the first task's questionnaire
    "officegym/VendorReview-v2": {"name": "read_doc", "arguments": {"doc_id": "tm-questionnaire"}},
}


def _unwrapped(env_id: str) -> Any:
    """The env itself (the benchmark calls its contract members: ``task_ids``, ``gold_actions``, ``fork``)."""
    made: Any = gym.make(env_id, max_turns=10**9)
    return made.unwrapped


class Subject:
    """One env id, set up once: a running env for resets and reads, and the longest task's gold path."""

    def __init__(self, env_id: str) -> None:
        self.env_id = env_id
        self.env = _unwrapped(env_id)
        self.task = self.env.task_ids[0]
        self.longest = max(self.env.task_ids, key=lambda t: len(self.env.gold_actions(t)))
        self.graded = _unwrapped(env_id)
        path = self.graded.gold_actions(self.longest)
        self.graded.reset(options={"task_id": self.longest})
        ends = "VendorReview" in env_id  # its gold path ends with the submission, which ends the episode
        for action in path[:-1] if ends else path:
            self.graded.step(action)
        self.middle = _unwrapped(env_id)
        self.middle.reset(options={"task_id": self.longest})
        for action in path[: len(path) // 2]:
            self.middle.step(action)
        self.env.reset(options={"task_id": self.task})

    def reset(self) -> None:
        self.env.reset(options={"task_id": self.task})

    def read(self) -> None:
        self.env.step(READ[self.env_id])

    def grading(self) -> None:
        self.graded._grade_episode(self.graded.episode)

    def fork(self) -> None:
        self.middle.fork().close()


def episodes_per_s(env_id: str) -> float:
    env = gym.make(env_id, max_turns=10**9)
    policy = make_policy("oracle", env)
    task_ids = list(env.unwrapped.task_ids)  # type: ignore[attr-defined]
    start = time.perf_counter()
    for task_id in task_ids:
        run_episode(env, policy, task_id=task_id)
    return round(len(task_ids) / (time.perf_counter() - start), 1)


def domain_rows(versions: tuple[str, ...], rounds: int, repeats: int) -> dict[str, Any]:
    subjects = [Subject(env_id) for env_id in versions]
    calls = ("reset", "read", "grading", "fork")
    samples: dict[str, dict[str, list[np.ndarray]]] = {s.env_id: {c: [] for c in calls} for s in subjects}
    for round_number in range(rounds):
        for subject in subjects if round_number % 2 == 0 else subjects[::-1]:
            for call in calls:
                samples[subject.env_id][call].append(sample_us(getattr(subject, call), repeats))
    episodes: dict[str, list[float]] = {s.env_id: [] for s in subjects}
    for round_number in range(3):  # alternating too, so that no version gets the machine's quiet minute alone
        for subject in subjects if round_number % 2 == 0 else subjects[::-1]:
            episodes[subject.env_id].append(episodes_per_s(subject.env_id))
    rows: dict[str, Any] = {}
    for subject in subjects:
        rows[subject.env_id] = {c: summary(np.concatenate(samples[subject.env_id][c])) for c in calls}
        rows[subject.env_id]["grading_task"] = subject.longest
        rows[subject.env_id]["episodes_per_s"] = statistics.median(episodes[subject.env_id])
    base = rows[versions[0]]
    for number, env_id in enumerate(versions[1:], start=1):
        rows[f"v{number}_vs_v0"] = {c: round(rows[env_id][c]["p50_us"] / base[c]["p50_us"], 2) for c in calls}
    return rows


def run(quick: bool = False) -> dict[str, Any]:
    """Every domain's rows, and the machine's load average before and after (what the figures hold on)."""
    rounds, repeats = (2, 50) if quick else (6, 300)
    before = [round(load, 2) for load in os.getloadavg()]
    result: dict[str, Any] = {domain: domain_rows(versions, rounds, repeats) for domain, versions in VERSIONS.items()}
    result["load_average_1_5_15"] = {"before": before, "after": [round(load, 2) for load in os.getloadavg()]}
    result["cpus"] = os.cpu_count()
    return result


def main() -> None:
    result = run()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "versions.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
