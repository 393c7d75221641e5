"""A fast run of the VendorReview adversarial battery (``benchmarks/vendor_battery.py``) on tiny sizes: it checks
the structure of the result (every policy, every part, scores in [0, 1], the bound), that two runs give the same
result, and that the oracle control scores full marks. The scores themselves are measured by
``python -m benchmarks.vendor_battery`` on full sizes (``benchmarks/results/vendor_battery_v1.json``)."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.vendor_battery import (
    BOUND_FLOOR,
    BOUND_MARGIN,
    CONTROLS,
    PARTS,
    POLICIES,
    listed_documents,
    parse_matrix,
    run_battery,
    select_test_ids,
)

ENV_ID = "officegym/VendorReview-v1"


@pytest.fixture(scope="module")
def results() -> tuple[dict[str, Any], dict[str, Any]]:
    def run() -> dict[str, Any]:
        result: dict[str, Any] = run_battery(ENV_ID, train_deals=60, holdout_deals=6, test_limit=6)
        return result

    return run(), run()


def test_every_policy_and_part_is_scored(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    result = results[0]
    assert set(result["policies"]) == {p.name for p in POLICIES} | set(CONTROLS)
    assert result["deals"] == {"test": 6, "test_handwritten": 3, "test_generated": 3, "train_holdout": 6}
    assert result["train_deals"] == 60
    for name, policy in result["policies"].items():
        for part in PARTS:
            assert 0.0 <= policy[part] <= 1.0, (name, part)


def test_the_bound_is_the_best_fixed_decision_plus_a_margin(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    result = results[0]
    for part in PARTS:
        summary = result["parts"][part]
        fixed = [p[part] for p in result["policies"].values() if p["kind"] == "fixed"]
        assert summary["best_fixed"] == max(fixed)
        assert summary["bound"] == pytest.approx(max(max(fixed) + BOUND_MARGIN, BOUND_FLOOR))
        above = sorted(
            n for n, p in result["policies"].items() if p["kind"] != "control" and p[part] > summary["bound"]
        )
        assert summary["exceeding"] == above
    assert result["bound"] == result["parts"]["test"]["bound"]


def test_two_runs_give_the_same_result(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    assert results[0] == results[1]


def test_the_oracle_control_scores_full_marks(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    oracle = results[0]["policies"]["oracle"]
    assert [oracle[part] for part in PARTS] == [1.0] * len(PARTS)


def test_every_policy_earns_the_process_component(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Each policy reads every listed document first, so none scores below the process weight."""
    for name, policy in results[0]["policies"].items():
        assert min(policy[part] for part in PARTS) >= 0.1 - 1e-9, name


def test_the_matrix_parser_tolerates_layouts() -> None:
    piped = "ID | Priority | Pass bar\n\nREQ-SSO | MUST | SAML 2.0 sign-in.\nREQ-SLA | SHOULD | 99.9 % | credits."
    markdown = "| Pass bar | ID | Priority |\n|---|---|---|\n| SAML 2.0 sign-in. | REQ-SSO | must |"
    loose = "REQ-SSO (MUST): SAML 2.0 sign-in.\nREQ-SLA - Should - 99.9 % uptime."
    assert [(r.id, r.priority, r.bar) for r in parse_matrix(piped)] == [
        ("REQ-SSO", "MUST", "SAML 2.0 sign-in."),
        ("REQ-SLA", "SHOULD", "99.9 % credits."),
    ]
    assert [(r.id, r.priority, r.bar) for r in parse_matrix(markdown)] == [("REQ-SSO", "MUST", "SAML 2.0 sign-in.")]
    assert [(r.id, r.priority) for r in parse_matrix(loose)] == [("REQ-SSO", "MUST"), ("REQ-SLA", "SHOULD")]
    assert parse_matrix("No requirements here.") == []


def test_the_opening_listing_and_test_selection() -> None:
    opening = "Please review.\n\nDocuments in this deal file:\n- requirements-matrix: Matrix\n- it-thread: Thread"
    assert listed_documents(opening) == [("requirements-matrix", "Matrix"), ("it-thread", "Thread")]
    ids = ["vr1-easy-01", "vr1-easy-02", "vr1-gen-900000", "vr1-gen-900001", "vr1-gen-900002"]
    assert select_test_ids(ids, 4) == ["vr1-easy-01", "vr1-easy-02", "vr1-gen-900000", "vr1-gen-900001"]
    assert select_test_ids(ids, None) == ids
