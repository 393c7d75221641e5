"""v2's discrete action catalogue: v1's entries, every single-tier gold path expressible and scoring 1.0, and a
listing whose cursor v2 refused as stale read again from its first page (v1's catalogue kept the dead cursor)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

import officegym  # noqa: F401
from officegym.envs.invoice_approval.v2.catalogue import InvoiceCatalogueV2
from officegym.envs.invoice_approval.v2.env import InvoiceApprovalV2Env
from officegym.wrappers.discrete import DiscreteToolCalls

ENV_ID = "officegym/InvoiceApproval-v2"


def inner(env: gym.Env[Any, Any]) -> InvoiceApprovalV2Env:
    found = env.unwrapped
    assert isinstance(found, InvoiceApprovalV2Env)
    return found


def test_every_single_gold_path_is_expressible_and_scores_1() -> None:
    env = DiscreteToolCalls(gym.make(ENV_ID, tier="single", max_turns=60))
    assert isinstance(env.catalogue, InvoiceCatalogueV2)
    for task_id in inner(env).task_ids:
        env.reset(options={"task_id": task_id})
        for action in inner(env).gold_actions(task_id):
            index = env.index_of(action)
            assert index is not None, (task_id, action)
            env.step(index)
        *_, reward, terminated, _, _ = env.step(env.catalogue.labels.index("finish"))
        assert terminated and reward == 1.0, task_id
    env.close()


def test_a_stale_inbox_listing_starts_again_and_fills_every_slot() -> None:
    """List the inbox's first page, decide a document on it, follow the old cursor: v2 refuses it; the
    catalogue then reads the inbox from its first page, and paging on reaches every received document."""
    env = gym.make(ENV_ID, tier="long", max_turns=600)
    task_id = next(t for t in inner(env).task_ids if "PE-" in inner(env).bundle.tasks[t].work_order)
    catalogue = InvoiceCatalogueV2(inner(env), horizon=600, slots=28)
    opening, info = env.reset(options={"task_id": task_id})
    catalogue.start(opening, info)
    inbox = catalogue.labels.index("list_inbox")

    def play(index: int) -> str:
        action = catalogue.resolve(index)
        assert isinstance(action, dict)
        observation, *_, step_info = env.step(action)
        catalogue.observe(index, observation, bool(step_info["is_error"]))
        return str(observation)

    play(inbox)
    play(catalogue.labels.index("slot 0: reject DUPLICATE"))
    assert play(inbox).startswith("Error: the listing has changed")
    assert catalogue.resolve(inbox) == {
        "name": "list_invoices",
        "arguments": {"status": "received", "inbox": catalogue.inbox},
    }
    while not catalogue.inbox_pages.done:
        assert not play(inbox).startswith("Error:")
    episode = inner(env).episode
    assert episode is not None
    received = episode.conn.execute(
        "SELECT invoice_id FROM invoices WHERE inbox = ? AND status = 'received'", (catalogue.inbox,)
    )
    assert {row[0] for row in received} <= {slot.invoice_id for slot in catalogue.slots}
    env.close()
