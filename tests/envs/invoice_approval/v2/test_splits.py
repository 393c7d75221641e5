"""InvoiceApproval-v2's split is v1's: the same train companies from v1's search (no second search), the shipped
company for test, and task rows that play as v2."""

from __future__ import annotations

from officegym.envs.invoice_approval.v1 import splits as v1_splits
from officegym.envs.invoice_approval.v1.env import InvoiceApprovalV1Env
from officegym.envs.invoice_approval.v2 import splits
from officegym.envs.invoice_approval.v2.env import InvoiceApprovalV2Env
from officegym.splits import make_env, reset_row, task_rows


def test_the_train_companies_are_v1s_found_by_v1s_cached_search() -> None:
    assert splits.train_company_seeds is v1_splits.train_company_seeds
    assert InvoiceApprovalV2Env.split_sources("test", 2) == InvoiceApprovalV1Env.split_sources("test", 2)


def test_the_test_rows_play_v2_with_v1s_tasks() -> None:
    rows = task_rows("officegym/InvoiceApproval-v2", "test", tier="single")
    v1_rows = task_rows("officegym/InvoiceApproval-v1", "test", tier="single")
    assert [row["task_id"] for row in rows] == [row["task_id"] for row in v1_rows]
    assert {row["env_id"] for row in rows} == {"officegym/InvoiceApproval-v2"}
    assert rows[0]["prompt"][1] == v1_rows[0]["prompt"][1]  # the same work order
    assert "Invoice approval policy v2" in rows[0]["prompt"][0]["content"]
    env = make_env(rows[0])
    opening, info = reset_row(env, rows[0])
    assert opening == rows[0]["prompt"][1]["content"] and info["task_id"] == rows[0]["task_id"]
    env.close()
