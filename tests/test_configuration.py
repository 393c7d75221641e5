"""Every bad configuration fails at construction with one line that names the parameter and the fix.

A table: each row builds something a user builds (``gym.make``, an env class, a wrapper, ``make_vec``) with one
bad argument, and pins the start of the message. Nothing here is accepted silently (``max_turns=nan`` once ran
forever) and nothing fails with an error from deep inside.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import officegym
from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv
from officegym.envs.vendor_review.v0.env import VendorReviewEnv
from officegym.wrappers import DiscreteToolCalls, ProgressDiagnostics
from officegym.wrappers.shaping import PotentialShaping

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
TURNS = "max_turns must be a whole number such as 200"
TURNS_RANGE = "max_turns must be between 1 and 1,000,000,000"
IDS = "task_ids must be a list of task ID strings (or one ID)"
SEED = "company_seed must be a whole number such as 42"


def files(tmp: Path) -> dict[str, str]:
    (tmp / "binary.jsonl").write_bytes(bytes(range(256)) * 4)
    (tmp / "empty.jsonl").write_text("")
    (tmp / "prose.jsonl").write_text("hello\n")
    (tmp / "shape.jsonl").write_text('{"id": 1}\n')
    return {name: str(tmp / f"{name}.jsonl") for name in ("binary", "empty", "prose", "shape")} | {"dir": str(tmp)}


def make(env_id: str, **kwargs: Any) -> Callable[[dict[str, str]], Any]:
    def build(paths: dict[str, str]) -> Any:
        resolved: dict[str, Any] = {k: paths.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
        return gym.make(env_id, **resolved)

    return build


def bad(value: Any) -> Any:
    """A deliberately wrong value, typed ``Any`` so that the type checker lets the test pass it."""
    return value


def each_env(kwargs: dict[str, Any], message: str) -> list[tuple[str, Callable[[dict[str, str]], Any], str]]:
    return [(f"{env_id.split('/')[1]} {kwargs}", make(env_id, **kwargs), message) for env_id in (INVOICE, VENDOR)]


def wrapped(env_id: str, wrapper: Callable[[gym.Env[Any, Any]], Any]) -> Callable[[dict[str, str]], Any]:
    kwargs: dict[str, Any] = {"tier": "single"} if env_id == INVOICE else {}
    return lambda paths: wrapper(gym.make(env_id, **kwargs))


CASES: list[tuple[str, Callable[[dict[str, str]], Any], str]] = [
    *each_env({"task_ids": 5}, IDS),
    *each_env({"task_ids": [5]}, IDS),
    *each_env({"task_ids": [None]}, IDS),
    *each_env({"task_ids": {"a": 1}}, IDS),
    *each_env({"task_ids": b"single-1"}, IDS),
    *each_env({"task_ids": []}, "task_ids is empty; pass at least one task ID"),
    *each_env({"task_ids": ()}, "task_ids is empty"),
    *each_env({"tier": 5}, "unknown tier 5; choose one of"),
    *each_env({"tier": "x"}, "unknown tier 'x'; choose one of"),
    *each_env({"tier": ""}, "unknown tier ''"),
    *each_env({"tier": ["hard"]}, "unknown tier ['hard']"),
    *each_env({"max_turns": 0}, TURNS_RANGE),
    *each_env({"max_turns": -1}, TURNS_RANGE),
    *each_env({"max_turns": 10**100}, TURNS_RANGE),
    *each_env({"max_turns": "10"}, TURNS),
    *each_env({"max_turns": 1.5}, TURNS),
    *each_env({"max_turns": 200.0}, TURNS),
    *each_env({"max_turns": math.nan}, TURNS),
    *each_env({"max_turns": math.inf}, TURNS),
    *each_env({"max_turns": True}, TURNS),
    *each_env({"max_turns": None}, TURNS),
    *each_env({"render_mode": "rgb_array"}, "render_mode must be one of 'ansi', 'human' or None"),
    *each_env({"render_mode": "HUMAN"}, "render_mode must be one of"),
    *each_env({"foo": 1}, "got unknown argument(s) foo; it takes task_ids, tier, max_turns, render_mode"),
    *each_env({"seed": 1, "taskids": ["x"]}, "got unknown argument(s) seed, taskids"),
    ("Invoice tier/task mismatch", make(INVOICE, tier="hard", task_ids=["single-1"]), "no task matches"),
    ("Vendor tier/task mismatch", make(VENDOR, tier="hard", task_ids=["vr-easy-01"]), "no scenario matches"),
    ("Invoice unknown id", make(INVOICE, task_ids=["single-99"]), "unknown task id(s) ['single-99']; ids look like"),
    ("Vendor unknown id", make(VENDOR, task_ids="vr-easy-99"), "unknown scenario id(s) ['vr-easy-99']"),
    ("Invoice turns below gold", make(INVOICE, max_turns=5), "max_turns=5 is below the gold path of task"),
    ("Invoice turns below gold (tier)", make(INVOICE, tier="long", max_turns=50), "max_turns=50 is below the gold"),
    ("company_seed text", make(INVOICE, company_seed="42"), SEED),
    ("company_seed float", make(INVOICE, company_seed=4.2), SEED),
    ("company_seed bool", make(INVOICE, company_seed=True), SEED),
    ("company_seed None", make(INVOICE, company_seed=None), SEED),
    ("company_seed negative", make(INVOICE, company_seed=-1), "company_seed must be between 0 and 4,294,967,295"),
    ("company_seed huge", make(INVOICE, company_seed=10**30), "company_seed must be between 0 and"),
    ("tasks_path number", make(INVOICE, tasks_path=5), "tasks_path must be a path to a tasks .jsonl file"),
    ("tasks_path missing", make(INVOICE, tasks_path="/nonexistent/tasks.jsonl"), "tasks_path '/nonexistent/tasks"),
    ("tasks_path directory", make(INVOICE, tasks_path="dir"), "is a directory; pass the path to a tasks .jsonl"),
    ("tasks_path binary", make(INVOICE, tasks_path="binary"), "is not UTF-8 text (byte 128)"),
    ("tasks_path empty", make(INVOICE, tasks_path="empty"), "holds no tasks; pass a tasks .jsonl file"),
    ("tasks_path prose", make(INVOICE, tasks_path="prose"), "prose.jsonl:1: not a valid task record"),
    ("tasks_path wrong shape", make(INVOICE, tasks_path="shape"), "shape.jsonl:1: not a valid task record"),
    ("Invoice class render_mode int", lambda p: InvoiceApprovalEnv(render_mode=5), "render_mode must be one of"),  # type: ignore[arg-type]
    ("Vendor class render_mode int", lambda p: VendorReviewEnv(render_mode=5), "render_mode must be one of"),  # type: ignore[arg-type]
    ("Vendor class max_turns text", lambda p: VendorReviewEnv(max_turns="20"), TURNS),  # type: ignore[arg-type]
    *[
        (f"{env_id} {label}", wrapped(env_id, build), message)
        for env_id in (INVOICE, VENDOR)
        for label, build, message in [
            ("gamma 0", lambda e: PotentialShaping(e, gamma=0.0), "gamma must be a number in (0, 1], got 0.0"),
            ("gamma 1.5", lambda e: PotentialShaping(e, gamma=1.5), "gamma must be a number in (0, 1]"),
            ("gamma nan", lambda e: PotentialShaping(e, gamma=math.nan), "gamma must be a number in (0, 1], got nan"),
            (
                "gamma text",
                lambda e: PotentialShaping(e, gamma=bad("0.9")),
                "gamma must be a number in (0, 1], got '0.9'",
            ),
            ("gamma bool", lambda e: PotentialShaping(e, gamma=True), "gamma must be a number in (0, 1], got True"),
            ("dim 0", lambda e: DiscreteToolCalls(e, dim=0), "dim must be between 1 and"),
            ("dim text", lambda e: DiscreteToolCalls(e, dim=bad("256")), "dim must be a whole number such as 256"),
            ("max_steps 0", lambda e: DiscreteToolCalls(e, max_steps=0), "max_steps must be between 1 and"),
            ("max_steps float", lambda e: DiscreteToolCalls(e, max_steps=bad(2.5)), "max_steps must be a whole number"),
            ("buffer 0", lambda e: ProgressDiagnostics(e, buffer_length=0), "buffer_length must be between 1"),
            ("buffer text", lambda e: ProgressDiagnostics(e, buffer_length=bad("9")), "buffer_length must be a whole"),
            ("info_key empty", lambda e: ProgressDiagnostics(e, info_key=""), "info_key must be a non-empty string"),
            (
                "summary_key int",
                lambda e: ProgressDiagnostics(e, summary_key=bad(3)),
                "summary_key must be a non-empty",
            ),
        ]
    ],
    *[
        (f"make_vec {label}", lambda p, kw=kw: officegym.make_vec(VENDOR, **bad(kw)), message)
        for label, kw, message in [
            ("num_envs 0", {"num_envs": 0}, "num_envs must be between 1 and 4,096"),
            ("num_envs text", {"num_envs": "2"}, "num_envs must be a whole number such as 8"),
            ("num_envs float", {"num_envs": 2.0}, "num_envs must be a whole number"),
            (
                "mode",
                {"vectorization_mode": "threads"},
                "vectorization_mode must be 'sync', 'async' or 'batched', got 'threads'",
            ),
            (
                "mode None",
                {"vectorization_mode": None},
                "vectorization_mode must be 'sync', 'async' or 'batched', got None",
            ),
            ("env kwarg", {"max_turns": -5}, TURNS_RANGE),
        ]
    ],
]


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 80
    assert len({label for label, _, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(("label", "build", "message"), CASES, ids=[label for label, _, _ in CASES])
def test_bad_configuration_fails_with_one_clear_line(
    label: str, build: Callable[[dict[str, str]], Any], message: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError) as caught:
        build(files(tmp_path))
    text = str(caught.value)
    assert message in text, text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env-kwargs", '{"foo": 1}'], "Error: VendorReviewEnv got unknown argument(s) foo; it takes task_ids"),
        (["--env-kwargs", '{"max_turns": "20"}'], "Error: max_turns must be a whole number such as 200, got '20'"),
        (["--env-kwargs", '{"max_turns": 0}'], "Error: max_turns must be between 1 and"),
        (["--env-kwargs", "[1"], "Error: --env-kwargs must be a JSON object"),
        (["--tier", "impossible"], "Error: unknown tier 'impossible'; choose one of easy, medium, hard"),
    ],
)
def test_cli_configuration_errors_are_one_line_not_a_traceback(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from officegym.cli import main

    assert main(["eval", VENDOR, "--policy", "oracle", "-o", str(tmp_path), "-q", *argv]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert message in err and "Traceback" not in err
