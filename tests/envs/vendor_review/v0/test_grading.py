"""The failure report: where a VendorReview submission fell short, requirement by requirement."""

from __future__ import annotations

import gymnasium as gym

from officegym.envs.vendor_review.shared.baselines import lazy_path, paranoid_path
from officegym.envs.vendor_review.v0.env import VendorReviewEnv
from officegym.envs.vendor_review.v0.tasks import scenarios


def report(task_id: str, actions: list[dict[str, object]]) -> list[dict[str, str]]:
    env = gym.make("officegym/VendorReview-v0")
    env.reset(options={"task_id": task_id})
    for action in actions:
        env.step(action)
    inner: VendorReviewEnv = env.unwrapped  # type: ignore[assignment]
    rows: list[dict[str, str]] = inner.failure_report()
    return rows


def test_no_submission_is_one_row() -> None:
    scenario = scenarios()["vr-hard-01"]
    assert report("vr-hard-01", []) == [
        {
            "kind": "no submission",
            "record": "recommendation",
            "field": "decision",
            "expected": scenario.decision,
            "actual": "none submitted",
            "rule": f"the decision rule (unmet requirements: {', '.join(scenario.gap_ids)})",
        }
    ]


def test_the_lazy_baseline_misses_every_gap_the_decision_and_the_reading() -> None:
    scenario = scenarios()["vr-hard-01"]
    rows = report("vr-hard-01", lazy_path(scenario))
    missed = [row["record"] for row in rows if row["kind"] == "missed gap"]
    assert missed == sorted(scenario.gap_ids)
    decision = next(row for row in rows if row["kind"] == "wrong decision")
    assert (decision["record"], decision["expected"], decision["actual"]) == ("recommendation", scenario.decision, "go")
    unread = [row["record"] for row in rows if row["kind"] == "unread document"]
    assert unread and set(unread) <= set(scenario.core_documents)


def test_the_paranoid_baseline_is_reported_for_its_false_flags_only() -> None:
    scenario = scenarios()["vr-hard-01"]
    rows = report("vr-hard-01", paranoid_path(scenario))
    assert rows and all(row["kind"] == "false flag" and row["actual"] == "flagged as a gap" for row in rows)
    assert {row["record"] for row in rows} == {d.id for d in scenario.distractors} - set(scenario.gap_ids)
