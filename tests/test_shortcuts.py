"""The cheapest policies that do not do the job, pinned on the shipped tasks (``benchmarks/shortcuts.py``).

The project rule: a shortcut is a bug. v0 stays byte-identical, so the shortcuts it has are documented (README,
"Known shortcuts in v0") and pinned here exactly rather than fixed: a change to v0 that opens or closes one fails
a test here. v1 must close them. Only the shipped company is played (a generated company costs seconds to make);
``python -m benchmarks.shortcuts`` measures generated companies as well and the learned shortcuts across them.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

from benchmarks.shortcuts import (
    INVOICE_ENV,
    RESULTS,
    VENDOR_ENV,
    invoice_facts,
    invoice_shortcuts,
    lookup_table,
    measure_company,
    play,
    scripted,
    summarise,
    task_id_lookup,
    vendor_shortcuts,
)
from officegym.envs.invoice_approval.v0.bundle import load_bundle

Results = dict[str, dict[str, Any]]

INVOICE_TIERS = ("single", "batch", "long", "hard")
ALL_PASS = (20, 20, 10, 10)
INVOICE_PASSES: dict[str, tuple[int, int, int, int]] = {
    # the controls: the reference solver, and two agents that are the solver in all that the tasks can tell apart
    "solver (control)": ALL_PASS,
    "rules in invoice-ID order": ALL_PASS,
    "rules, no gross=net+VAT check, VAT_ERROR if refused": ALL_PASS,
    # reading nothing
    "nothing": (0, 0, 0, 0),
    "approve-all": (0, 0, 0, 0),
    "reject-all DUPLICATE": (4, 0, 0, 0),
    "reject-all MISSING_PO": (2, 0, 0, 0),
    "reject-all INVALID_PO": (4, 0, 0, 0),
    "reject-all VAT_ERROR": (5, 1, 0, 0),
    "hold-all SUPPLIER_BLOCKED": (2, 1, 0, 0),
    "hold-all PO_EXCEEDED": (1, 0, 0, 0),
    "approve, else VAT_ERROR": (1, 0, 0, 0),
    # reading some
    "escalate-all": (2, 0, 0, 0),
    "invoice fields only": (9, 4, 0, 0),
    "rules, no VAT check": (15, 10, 1, 0),
    "rules, no VAT check, VAT_ERROR if refused": (16, 12, 1, 2),
    "rules, no gross=net+VAT check": (19, 17, 5, 5),
    "rules in listed order": (20, 19, 0, 0),
}
ONE_DECISION_PASSES = {
    "reject-all DUPLICATE": ["single-3", "single-4", "single-5", "single-6"],
    "reject-all MISSING_PO": ["single-7", "single-8"],
    "reject-all INVALID_PO": ["single-9", "single-10", "single-11", "single-12"],
    "reject-all VAT_ERROR": ["single-14", "single-15", "single-16", "single-17", "single-18", "batch-18"],
    "hold-all SUPPLIER_BLOCKED": ["single-1", "single-2", "batch-7"],
    "hold-all PO_EXCEEDED": ["single-13"],
    "escalate-all": ["single-19", "single-20"],
    "approve, else VAT_ERROR": ["single-18"],
}
VENDOR_PASSES = {"oracle (control)": 20, "go, no gaps": 2, "hedge keywords": 2}
ZERO_GAP_DEALS = ["vr-easy-04", "vr-medium-07"]
VENDOR_MEANS = {
    "oracle (control)": 1.0,
    "paranoid": 0.6004,
    "lazy": 0.09,
    "nothing": 0.0,
    "go, no gaps": 0.19,
    "conditional-go, no gaps": 0.26,
    "no-go, no gaps": 0.26,
    "flag all + no-go": 0.2017,
    "flag all + conditional-go": 0.2017,
    "flag MUSTs + no-go": 0.1958,
    "hedge keywords": 0.3287,
}


@pytest.fixture(scope="module")
def invoice_results() -> Results:
    """Every InvoiceApproval shortcut that needs no second company, on the 60 shipped tasks (about 3 s)."""
    env = gym.make(INVOICE_ENV)
    try:
        results: Results = measure_company(env, invoice_shortcuts())
    finally:
        env.close()
    return results


@pytest.fixture(scope="module")
def vendor_results() -> Results:
    env = gym.make(VENDOR_ENV)
    try:
        results: Results = measure_company(env, vendor_shortcuts())
    finally:
        env.close()
    return results


def tier_passes(summary: dict[str, Any]) -> tuple[int, ...]:
    return tuple(summary["tiers"][tier]["passed"] for tier in INVOICE_TIERS)


def test_every_invoice_shortcut_is_pinned(invoice_results: Results) -> None:
    assert sorted(invoice_results) == sorted(INVOICE_PASSES)


def test_doing_nothing_and_approving_everything_pass_no_invoice_task(invoice_results: Results) -> None:
    assert invoice_results["nothing"]["passed_ids"] == []
    assert invoice_results["approve-all"]["passed_ids"] == []


@pytest.mark.parametrize("name", sorted(INVOICE_PASSES))
def test_invoice_shortcut_passes_exactly_the_known_tasks_per_tier(invoice_results: Results, name: str) -> None:
    """Documented v0 shortcuts (README, "Known shortcuts in v0"); v1 must close them. A non-zero count below the
    controls is a task a policy passes without doing the job; any change here means v0 changed."""
    assert tier_passes(invoice_results[name]) == INVOICE_PASSES[name]


@pytest.mark.parametrize("name", sorted(ONE_DECISION_PASSES))
def test_one_decision_for_everything_passes_exactly_these_tasks(invoice_results: Results, name: str) -> None:
    """Documented v0 shortcut, v1 must close it: every single-tier task is one trap with one fixed answer
    (never approve), so one decision for everything passes the single tasks of its trap, plus two batch tasks
    whose invoices all share one answer (batch-7: one blocked supplier's invoices; batch-18: three VAT errors)."""
    assert invoice_results[name]["passed_ids"] == ONE_DECISION_PASSES[name]


def test_no_single_task_needs_approve_and_processing_order_is_invoice_id_order() -> None:
    """Documented v0 shortcuts, v1 must close them: no single-tier gold path approves (an agent may assume the
    single invoice is a trap), and in every task the processing order (received date, then ID) equals the
    invoice-ID order, so received dates never matter ("rules in invoice-ID order" passes 60/60)."""
    facts = invoice_facts(load_bundle())
    assert [t for t in facts["tasks_without_approve"] if t.startswith("single")] == [
        f"single-{n}" for n in range(1, 21)
    ]
    assert facts["processing_order_is_invoice_id_order"] == 60
    assert facts["processing_order_is_listed_order"] == 20


def test_the_ledger_refusal_stands_in_for_the_gross_check(invoice_results: Results) -> None:
    """Documented v0 shortcut, v1 must close it: ``approve_invoice`` refuses an invoice whose gross is not
    net + VAT, so an agent that never checks that sum and rejects VAT_ERROR whenever approve is refused goes
    from 46/60 to 60/60. Rate and rounding errors post fine, so skipping the whole VAT rule still fails."""
    assert invoice_results["rules, no gross=net+VAT check"]["all"]["passed"] == 46
    assert invoice_results["rules, no gross=net+VAT check, VAT_ERROR if refused"]["all"]["passed"] == 60
    assert invoice_results["rules, no VAT check, VAT_ERROR if refused"]["all"]["passed"] == 31


def test_a_task_id_lookup_needs_no_reads() -> None:
    """The lookup learned from a company replays that company's gold decisions by position without a single
    read and passes all 60 of its tasks: the benchmark's cross-company lookup (learned on one company, played
    on others) is this table, so what it passes elsewhere is what a task id gives away."""
    env = gym.make(INVOICE_ENV)
    try:
        inner: Any = env.unwrapped
        shortcut = scripted("lookup", "", task_id_lookup(lookup_table(load_bundle())))
        results = play(env, shortcut, inner.task_ids)
    finally:
        env.close()
    assert summarise(results, INVOICE_TIERS)["all"]["passed"] == 60
    tools_used = {tool for r in results for tool in r.grade["tool_calls"]}
    assert tools_used == {"approve_invoice", "reject_invoice", "hold_invoice", "escalate_invoice"}
    assert all(r.grade["invalid_calls"] == 0 for r in results)


def test_vendor_shortcuts_pass_only_the_zero_gap_deals(vendor_results: Results) -> None:
    """Documented v0 shortcut: reading every document and submitting go with no gaps passes the two zero-gap
    deals (the right answer there is exactly that); the hedge-keyword heuristic passes the same two because it
    finds nothing to flag in them. No other shortcut passes a deal."""
    passes = {name: summary["all"]["passed"] for name, summary in vendor_results.items() if summary["all"]["passed"]}
    assert passes == VENDOR_PASSES
    assert vendor_results["go, no gaps"]["passed_ids"] == ZERO_GAP_DEALS
    assert vendor_results["hedge keywords"]["passed_ids"] == ZERO_GAP_DEALS


def test_vendor_shortcut_mean_rewards(vendor_results: Results) -> None:
    """Every shortcut stays far below the paranoid baseline (which uses the answer key) and the oracle."""
    means = {name: summary["all"]["mean_reward"] for name, summary in vendor_results.items()}
    assert means == pytest.approx(VENDOR_MEANS, abs=1e-4)
    shortcuts = [m for name, m in means.items() if name not in ("oracle (control)", "paranoid")]
    assert max(shortcuts) < 0.35


def test_the_committed_results_match_the_shipped_tasks(invoice_results: Results, vendor_results: Results) -> None:
    """``benchmarks/results/shortcuts.json`` holds what the shipped tasks give today (rerun the benchmark if not)."""
    committed = json.loads((RESULTS / "shortcuts.json").read_text(encoding="utf-8"))
    assert {name: committed["invoice_approval"]["shipped"][name] for name in invoice_results} == invoice_results
    assert committed["vendor_review"]["shipped"] == vendor_results
