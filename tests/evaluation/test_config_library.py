"""The same ranges from Python: ``OpenAISettings`` and an ``EvalPlan`` refuse what the command line refuses.

The command line checks its numbers first (``test_config_cli.py``); these are the checks a script that builds
the settings or the plan itself meets, which once let ``backoff=nan`` through (every comparison with NaN is
false) and planned a trillion jobs for ``rollouts=10**12`` before anything could refuse them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from officegym.evaluation.jobs import EvalPlan
from officegym.evaluation.runner import plan_task_ids, run_eval
from officegym.policies.openai_policy import OpenAISettings

INVOICE = "officegym/InvoiceApproval-v0"


def deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


SETTINGS: list[tuple[dict[str, Any], str]] = [
    ({"backoff": math.nan}, "--backoff must be between 0 and 3,600"),
    ({"backoff": -1.0}, "--backoff must be between 0 and 3,600"),
    ({"max_backoff": math.nan}, "--max-backoff must be between 0 and 3,600"),
    ({"max_backoff": math.inf}, "--max-backoff must be between 0 and 3,600"),
    ({"timeout": math.nan}, "--timeout must be a positive number"),
    ({"timeout": 0.0}, "--timeout must be a positive number"),
    ({"temperature": math.nan}, "--temperature must be between 0 and 2"),
    ({"max_tokens": 0}, "--max-tokens must be at least 1"),
    ({"max_tokens": 10**9}, "--max-tokens must be at least 1 and at most 1,000,000"),
    ({"max_tokens": 1.5}, "--max-tokens must be at least 1"),
    ({"max_retries": -1}, "--max-retries must be 0 or more"),
    ({"max_retries": True}, "--max-retries must be 0 or more"),
    ({"extra_body": {"a": deep(40)}}, "--extra-body must be a JSON object at most 32 levels deep"),
    ({"extra_body": {"a": "x" * 200_000}}, "at most 100,000 characters"),
    ({"extra_body": {"a": math.nan}}, "NaN is not JSON"),
    ({"extra_body": {"a": "\ud800"}}, "lone surrogate"),
    ({"extra_body": {"a": object()}}, "--extra-body must be a JSON object (TypeError)"),
]


@pytest.mark.parametrize(("change", "message"), SETTINGS, ids=[m[:40] for _, m in SETTINGS])
def test_openai_settings_refuse_what_the_cli_refuses(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        OpenAISettings(model="m", **change).check()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rollouts": 10**12}, "-r/--rollouts must be at least 1 and at most 1,000,000"),
        ({"rollouts": 400_000}, "-r/--rollouts x tasks must be at most 1,000,000 episodes, got 400,000 x 3"),
        ({"concurrency": 10_000}, "-c/--concurrency must be at least 1 and at most 1,024"),
        ({"episode_retries": 10**6}, "--episode-retries must be 0 or more and at most 100"),
        ({"pass_threshold": math.nan}, "--pass-threshold must be between 0 and 1"),
    ],
)
def test_a_plan_past_its_ranges_is_refused_before_a_job_is_planned(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    info: dict[str, Any] = {"policy": "oracle", "model": None, "sampling": {}, "endpoint": {}}
    plan = EvalPlan(INVOICE, ["single-1", "single-2", "single-3"], info, tmp_path / "r.jsonl", **change)
    with pytest.raises(ValueError, match=re.escape(message)):
        run_eval(plan, lambda env, seed: None, Console(quiet=True), live=False)  # type: ignore[arg-type,return-value]
    assert not list(tmp_path.iterdir())


def test_the_task_limit_is_checked_too() -> None:
    with pytest.raises(ValueError, match=re.escape("-n/--num-tasks must be at least 1")):
        plan_task_ids(INVOICE, {}, None, None, 0)
