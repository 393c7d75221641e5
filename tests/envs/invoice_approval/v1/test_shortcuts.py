"""The v1 shortcut battery (``shortcuts.py``), pinned on the shipped company and two generated ones."""

from __future__ import annotations

from functools import cache

from officegym.envs.invoice_approval.v1.bundle import load_bundle

from .shortcuts import decisions, lookup_passes, order_matters, passes, policies

SEEDS = (42, 7, 3)


@cache
def results() -> dict[tuple[int, str, str], bool]:
    out: dict[tuple[int, str, str], bool] = {}
    for seed in SEEDS:
        bundle = load_bundle(seed)
        for name, policy in policies(bundle).items():
            for task in bundle.tasks.values():
                out[(seed, name, task.id)] = passes(bundle, task, policy)
    return out


def passed(name: str, tiers: tuple[str, ...]) -> list[str]:
    return [
        f"{seed}:{task_id}"
        for (seed, policy, task_id), ok in results().items()
        if policy == name and ok and load_bundle(seed).tasks[task_id].tier in tiers
    ]


def test_the_solver_passes_everything() -> None:
    assert passed("solver", ("single", "batch", "long", "hard")) == [
        f"{s}:{t}" for s in SEEDS for t in load_bundle(s).tasks
    ]


def test_cheap_policies_pass_no_task_in_any_tier() -> None:
    """Doing nothing, approving all, every fixed reject or hold code, escalating all: no task of any tier. A
    single task is its trap beside a control whose decision differs, so even the fixed decision that is the
    trap's answer fails it."""
    cheap = [n for n in policies(load_bundle()) if not n.startswith("solver")]
    assert {"do_nothing", "approve_all", "escalate_all", "reject_all_VAT_ERROR", "hold_all_PO_EXCEEDED"} <= set(cheap)
    assert len(cheap) == 2 + 8 + 5 + 1  # nothing, approve, 8 reject codes, 5 hold codes, escalate
    for name in cheap:
        assert passed(name, ("single", "batch", "long", "hard")) == [], name


def test_order_matters_in_a_third_of_the_multi_document_tiers_and_the_wrong_orders_fail_there() -> None:
    for tier in ("batch", "long", "hard"):
        sensitive = [
            f"{s}:{t.id}"
            for s in SEEDS
            for t in load_bundle(s).tasks.values()
            if t.tier == tier and order_matters(load_bundle(s), t)
        ]
        total = sum(1 for s in SEEDS for t in load_bundle(s).tasks.values() if t.tier == tier)
        assert len(sensitive) * 3 >= total, tier
        for name in ("solver_listed_order", "solver_id_order"):
            assert not set(passed(name, (tier,))) & set(sensitive), (tier, name)


def test_skipping_a_check_fails_many_tasks() -> None:
    for name in ("solver_no_capture_fix", "solver_no_tax_check"):
        assert len(passed(name, ("hard",))) <= 0.5 * sum(
            1 for s in SEEDS for t in load_bundle(s).tasks.values() if t.tier == "hard"
        )


def test_a_lookup_table_from_one_company_fails_on_others() -> None:
    """The shipped company's gold decisions keyed by task id fail at least 95 % of the other companies' tasks
    (measured: 9 of 216 pass, 8 of them single tasks whose trap and control happen to decide alike)."""
    table = {task.id: decisions(task) for task in load_bundle(42).tasks.values()}
    looked = [lookup_passes(load_bundle(s), t, table) for s in SEEDS[1:] for t in load_bundle(s).tasks.values()]
    assert sum(looked) <= 0.05 * len(looked)
