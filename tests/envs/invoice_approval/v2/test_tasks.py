"""v2 runs on v1's companies and tasks: the same bytes, task ids and gold paths (cursors aside), the same gold
books, and the reference solver, playing v2's tools live, walks exactly v2's gold path."""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401  (registers the ids)
from officegym.envs.invoice_approval.v1.bundle import load_bundle as load_v1
from officegym.envs.invoice_approval.v1.sandbox import call as call_v1
from officegym.envs.invoice_approval.v1.sandbox import open_episode as open_v1
from officegym.envs.invoice_approval.v1.sandbox import replay as replay_v1
from officegym.envs.invoice_approval.v2.bundle import load_bundle
from officegym.envs.invoice_approval.v2.gold_paths import gold_path
from officegym.envs.invoice_approval.v2.grading import book_state
from officegym.envs.invoice_approval.v2.rules import solve
from officegym.envs.invoice_approval.v2.sandbox import call, open_episode, replay

CURSOR = re.compile(r'"next_cursor": "[^"]*"')


def without_cursors(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**a, "arguments": {k: v for k, v in a["arguments"].items() if k != "cursor"}} for a in actions]


def test_the_company_and_the_tasks_are_v1s() -> None:
    v1, v2 = load_v1(), load_bundle()
    assert (v2.seed_bytes, v2.template, v2.fingerprint) == (v1.seed_bytes, v1.template, v1.fingerprint)
    assert list(v2.tasks) == list(v1.tasks)
    for task_id, task in v2.tasks.items():
        old = v1.tasks[task_id]
        assert (task.tier, task.actor, task.scope, task.work_order) == (old.tier, old.actor, old.scope, old.work_order)
        assert without_cursors(task.gold_actions) == without_cursors(old.gold_actions)
        assert task.wrong_actions == old.wrong_actions


def test_only_the_cursors_of_gold_paths_changed() -> None:
    """73 listing calls of the shipped gold paths carry a cursor; each is v2's for the same page (a v1 cursor
    is refused by v2). No capture or decision changed: none used a value v2 refuses."""
    v1, v2 = load_v1(), load_bundle()
    changed = [
        (task_id, n)
        for task_id, task in v2.tasks.items()
        for n, (new, old) in enumerate(zip(task.gold_actions, v1.tasks[task_id].gold_actions, strict=True))
        if new != old
    ]
    assert len(changed) == 73
    assert all("cursor" in v2.tasks[t].gold_actions[n]["arguments"] for t, n in changed)


@pytest.mark.parametrize("task_id", sorted(load_v1().tasks))
def test_a_gold_path_answers_as_in_v1_and_leaves_the_same_books(task_id: str) -> None:
    v1, v2 = load_v1(), load_bundle()
    task = v2.tasks[task_id]
    old, new = open_episode(v1.template, task.actor), open_episode(v2.template, task.actor)
    try:
        for before, after in zip(v1.tasks[task_id].gold_actions, task.gold_actions, strict=True):
            seen_v1, seen_v2 = call_v1(old, before).observation, call(new, after).observation
            assert CURSOR.sub("", seen_v2) == CURSOR.sub("", seen_v1), after
        assert book_state(new.conn) == book_state(old.conn) == v2.gold_state(task_id) == v1.gold_state(task_id)
    finally:
        old.conn.close()
        new.conn.close()


@pytest.mark.parametrize("task_id", sorted(load_v1().tasks))
def test_the_solver_playing_v2_walks_v2s_gold_path(task_id: str) -> None:
    bundle = load_bundle()
    task = bundle.tasks[task_id]
    episode = open_episode(bundle.template, task.actor)
    try:
        path = solve(lambda action: call(episode, action).observation, task.work_order)
    finally:
        episode.conn.close()
    assert path == task.gold_actions


def test_every_gold_path_scores_1_and_every_wrong_path_0_through_the_env() -> None:
    env = gym.make("officegym/InvoiceApproval-v2", max_turns=600)
    finish = {"name": "finish", "arguments": {}}
    scores: dict[str, list[float]] = {"gold": [], "wrong": []}
    for task_id, task in load_bundle().tasks.items():
        paths = [("gold", task.gold_actions), *(("wrong", w["actions"]) for w in task.wrong_actions)]
        for kind, actions in paths:
            env.reset(options={"task_id": task_id})
            for action in [*actions, finish]:
                _, reward, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    break
            scores[kind].append(float(reward))
    env.close()
    assert set(scores["gold"]) == {1.0} and len(scores["gold"]) == 108
    assert set(scores["wrong"]) == {0.0}


def test_a_v1_gold_path_replayed_through_v2_leaves_the_same_books() -> None:
    """Reads with a refused v1 cursor change nothing, so even v1's own gold paths end in the same books."""
    v1 = load_v1()
    for task in v1.tasks.values():
        a, b = replay(v1.template, task.actor, task.gold_actions), replay_v1(v1.template, task.actor, task.gold_actions)
        assert book_state(a.conn) == book_state(b.conn), task.id
        a.conn.close()
        b.conn.close()


def test_a_task_file_with_a_cursor_after_a_write_gets_the_cursor_of_the_books_at_that_step() -> None:
    """A hand-made path (list received documents, decide one of them, follow the old cursor): the translated
    cursor is the one v2 gives after the decision, read from a replay (the template's would be refused)."""
    v1 = load_v1()
    task = next(iter(v1.tasks.values()))
    first = {"name": "list_invoices", "arguments": {"status": "received"}}
    episode = open_v1(v1.template, task.actor)
    page = json.loads(call_v1(episode, first).observation)
    episode.conn.close()
    decide = {
        "name": "hold_invoice",
        "arguments": {"invoice_id": page["invoices"][0]["invoice_id"], "reason_code": "PO_EXCEEDED"},
    }
    later = {"name": "list_invoices", "arguments": {"status": "received", "cursor": page["next_cursor"]}}
    books = open_episode(v1.template, task.actor)
    path = gold_path([first, decide, later], v1.template, task.actor, books)
    books.conn.close()
    assert path[:2] == [first, decide] and path[2]["arguments"]["cursor"] != page["next_cursor"]
    live = replay(v1.template, task.actor, path[:2])
    assert not call(live, path[2]).is_error
    live.conn.close()
