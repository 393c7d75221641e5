"""PotentialShaping: the bonuses telescope exactly, the env's own dynamics and rewards are untouched, and the
per-step values are the ones Ng, Harada & Russell's F = gamma * Phi(s') - Phi(s) gives."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officegym.envs.invoice_approval.shared.progress import invoice_potential
from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.envs.vendor_review.shared.progress import vendor_potential
from officegym.wrappers.diagnostics import ProgressDiagnostics
from officegym.wrappers.progress import progress_of
from officegym.wrappers.shaping import PotentialShaping

from ..conftest import tool_env
from ..strategies import INVOICE_READS, INVOICE_WRITES, MALFORMED, VENDOR_CALLS

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
FINISH = {"name": "finish", "arguments": {}}
GAMMAS = (1.0, 0.5, 0.9)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def twins(env_id: str, gamma: float, **kwargs: Any) -> tuple[gym.Env[Any, Any], gym.Env[Any, Any]]:
    """The same env twice: plain, and shaped (with diagnostics in between, as a user would stack them)."""
    return (gym.make(env_id, **kwargs), PotentialShaping(ProgressDiagnostics(gym.make(env_id, **kwargs)), gamma=gamma))


def invoice_limit(task: str) -> dict[str, Any]:
    """A turn limit just above the task's gold path (some random episodes truncate)."""
    return {"task_ids": [task], "max_turns": len(load_bundle().tasks[task].gold_actions) + 2}


def shaping_difference(
    env_id: str, task: str, actions: list[Any], gamma: float, **kwargs: Any
) -> tuple[Fraction, Fraction]:
    """Play ``actions`` on both twins in lockstep. Returns (shaped return - plain return, the telescoped
    prediction gamma^T Phi(s_T) - Phi(s_0)), both discounted with ``gamma``, in exact rational arithmetic
    on the floats the wrappers returned. Also checks that shaping changed nothing but the reward."""
    plain, shaped = twins(env_id, gamma, **kwargs)
    potential = shaped.potential  # type: ignore[attr-defined]
    first = plain.reset(seed=1, options={"task_id": task})[0]
    assert shaped.reset(seed=1, options={"task_id": task})[0] == first
    phi_start = Fraction(potential(progress_of(shaped)))
    g, discount, gap, steps = Fraction(gamma), Fraction(1), Fraction(0), 0
    terminated = truncated = False
    for action in actions:
        observation, reward, terminated, truncated, _ = plain.step(action)
        shaped_observation, shaped_reward, *ends, info = shaped.step(action)
        assert (shaped_observation, ends) == (observation, [terminated, truncated])
        assert info["shaping"]["env_reward"] == reward
        gap += discount * (Fraction(float(shaped_reward)) - Fraction(float(reward)))
        discount *= g
        steps += 1
        if terminated or truncated:
            break
    phi_end = Fraction(0) if terminated else Fraction(potential(progress_of(shaped)))
    return gap, g**steps * phi_end - phi_start


def tolerance(gamma: float, exact: bool) -> Fraction:
    """Zero where every potential and product is a dyadic float (then float arithmetic is exact), else one
    rounding of a double per step at most."""
    return Fraction(0) if exact and gamma in (1.0, 0.5) else Fraction(1, 10**12)


def decisions_on(invoice_ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Any decision (right or wrong, valid or not) on the given invoices."""
    ids = st.sampled_from(invoice_ids)
    return st.one_of(
        st.builds(lambda i: {"name": "approve_invoice", "arguments": {"invoice_id": i}}, ids),
        st.builds(
            lambda i, c: {"name": "reject_invoice", "arguments": {"invoice_id": i, "reason_code": c}},
            ids,
            st.sampled_from(["DUPLICATE", "MISSING_PO", "INVALID_PO", "VAT_ERROR"]),
        ),
        st.builds(
            lambda i, c: {"name": "hold_invoice", "arguments": {"invoice_id": i, "reason_code": c}},
            ids,
            st.sampled_from(["SUPPLIER_BLOCKED", "PO_EXCEEDED"]),
        ),
        st.builds(
            lambda i, a: {"name": "escalate_invoice", "arguments": {"invoice_id": i, "approver_id": a}},
            ids,
            st.sampled_from(["AP-113", "AP-117", "AP-212", "AP-145"]),
        ),
    )


def invoice_episodes(task: str) -> st.SearchStrategy[list[Any]]:
    """Episodes that move the potential: the task's gold calls, any decision on its invoices or on two
    invoices outside it (collateral), arbitrary reads and writes, malformed calls, finish."""
    gold = load_bundle().tasks[task].gold_actions
    scope = load_bundle().tasks[task].scope
    return st.lists(
        st.one_of(
            st.sampled_from(gold),
            decisions_on([*scope, "ER-2026-00027", "ER-2026-00150"]),
            INVOICE_WRITES,
            INVOICE_READS,
            MALFORMED,
            st.just(FINISH),
        ),
        max_size=14,
    )


@SETTINGS
@given(gamma=st.sampled_from(GAMMAS), task=st.sampled_from(["single-4", "single-19", "batch-5"]), data=st.data())
def test_invoice_shaping_telescopes(gamma: float, task: str, data: st.DataObject) -> None:
    actions = data.draw(invoice_episodes(task))
    difference, predicted = shaping_difference(INVOICE, task, actions, gamma, **invoice_limit(task))
    assert abs(difference - predicted) <= tolerance(gamma, exact=task.startswith("single"))  # scope 1: integer Phi


CORE_READS = st.sampled_from(
    [
        {"name": "read_doc", "arguments": {"doc_id": d}}
        for d in ("requirements-matrix", "questionnaire", "soc2-report", "admin-guide", "order-form")
    ]
)
SUBMIT = st.builds(
    lambda d: {"name": "submit_recommendation", "arguments": {"decision": d, "gap_ids": [], "rationale": "r"}},
    st.sampled_from(["go", "no-go", "conditional-go"]),
)


@SETTINGS
@given(
    gamma=st.sampled_from(GAMMAS),
    actions=st.lists(st.one_of(CORE_READS, SUBMIT, VENDOR_CALLS, MALFORMED, st.just(FINISH)), max_size=12),
)
def test_vendor_shaping_telescopes(gamma: float, actions: list[Any]) -> None:
    difference, predicted = shaping_difference(VENDOR, "vr-hard-01", actions, gamma, max_turns=8)
    assert abs(difference - predicted) <= tolerance(gamma, exact=False)  # Phi = 0.1 k / 5 is not dyadic


@pytest.mark.parametrize("gamma", GAMMAS)
def test_two_paths_to_the_same_end_state_get_the_same_shaping_difference(gamma: float) -> None:
    """The difference depends only on the start and end states: a detour of reads changes nothing, and
    after termination it is -Phi(s_0) (here 0: nothing is decided at reset), whatever was done."""
    gold = load_bundle().tasks["single-2"].gold_actions
    wrong = {"name": "approve_invoice", "arguments": {"invoice_id": gold[-1]["arguments"]["invoice_id"]}}
    paths = ([gold[-1], FINISH], [*gold, FINISH], [wrong, FINISH], [*gold[:3], wrong, *gold[3:-1], FINISH])
    for path in paths:
        difference, predicted = shaping_difference(INVOICE, "single-2", path, gamma, tier="single")
        assert difference == predicted == 0


def rewards(env: gym.Env[Any, Any], task: str, actions: list[Any]) -> list[float]:
    env.reset(options={"task_id": task})
    return [float(env.step(action)[1]) for action in actions]


def test_per_step_bonuses_of_a_correct_and_a_wrong_decision() -> None:
    env = PotentialShaping(gym.make(INVOICE, tier="single"), gamma=0.5)
    gold = tool_env(env).gold_actions("single-7")
    read, decide = gold[0], gold[-1]
    # Phi: 0 before, 1 after the correct decision; terminal 0. F = 0.5 * 1 - 0, then 1 (grade) + 0 - 1.
    assert rewards(env, "single-7", [read, decide, read, FINISH]) == [0.0, 0.5, 0.5 * 1 - 1, 1.0 + 0 - 1]
    wrong = {"name": "approve_invoice", "arguments": {"invoice_id": decide["arguments"]["invoice_id"]}}
    assert rewards(env, "single-7", [wrong, FINISH]) == [-0.5, 0.0 + 0 - (-1)]


def test_truncation_keeps_the_potential_of_the_last_state() -> None:
    env = PotentialShaping(gym.make(INVOICE, tier="single", max_turns=10), gamma=0.5)
    decide = tool_env(env).gold_actions("single-7")[-1]
    whoami = {"name": "whoami", "arguments": {}}
    got = rewards(env, "single-7", [decide, *[whoami] * 9])
    assert got[0] == 0.5 and got[1:-1] == [-0.5] * 8 and got[-1] == 1.0 + 0.5 * 1 - 1  # graded, not terminal


def test_potentials_of_each_domain() -> None:
    base = {"decided_correctly": 3.0, "decided_wrongly": 1.0, "collateral_changes": 1.0, "scope_size": 4.0}
    assert invoice_potential(base) == 0.25
    assert vendor_potential({"core_docs_read": 2.0, "core_docs": 4.0}) == pytest.approx(0.05)


def test_gamma_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="gamma"):
        PotentialShaping(gym.make(INVOICE, tier="single"), gamma=1.5)
