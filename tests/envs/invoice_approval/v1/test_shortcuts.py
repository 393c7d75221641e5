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


def test_cheap_policies_pass_no_task_with_more_than_one_document() -> None:
    """Doing nothing, approving all, every fixed reject or hold code, escalating all: no batch, long or hard
    task; on single tasks (one document each) a fixed decision passes only the kinds whose answer it is."""
    cheap = [n for n in policies(load_bundle()) if not n.startswith("solver")]
    for name in cheap:
        assert passed(name, ("batch", "long", "hard")) == [], name
    assert passed("do_nothing", ("single",)) == [] and passed("escalate_all", ("single",)) == []
    singles = sum(1 for s in SEEDS for t in load_bundle(s).tasks.values() if t.tier == "single")
    for name in cheap:
        assert len(passed(name, ("single",))) <= 0.3 * singles, name


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
    table = {task.id: decisions(task) for task in load_bundle(42).tasks.values()}
    looked = [lookup_passes(load_bundle(s), t, table) for s in SEEDS[1:] for t in load_bundle(s).tasks.values()]
    assert sum(looked) <= 0.12 * len(looked)
