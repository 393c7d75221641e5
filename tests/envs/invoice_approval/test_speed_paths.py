"""The fast paths give the same bytes as the slow ones: v1's ``get_document`` from the company's document cache,
an approval's PO quantities from the parsed-document cache, and a first grading from stored gold deltas (no
gold path replayed). Nothing here is timed: ``benchmarks/companies.py`` measures them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from officegym.envs.invoice_approval.shared import cache
from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv
from officegym.envs.invoice_approval.v1.document_cache import DocumentCache
from officegym.envs.invoice_approval.v1.document_json import document_from_json, document_to_json
from officegym.envs.invoice_approval.v1.document_text import render_text
from officegym.envs.invoice_approval.v1.env import InvoiceApprovalV1Env
from officegym.envs.invoice_approval.v1.episode import V1Episode


def episode(env: InvoiceApprovalV1Env) -> V1Episode:
    assert env.episode is not None
    return env.episode


def document_step(env: InvoiceApprovalV1Env, invoice_id: str) -> str:
    observation, *_ = env.step({"name": "get_document", "arguments": {"invoice_id": invoice_id}})
    return str(observation)


def test_get_document_gives_the_rendered_json_of_every_document() -> None:
    env = InvoiceApprovalV1Env(max_turns=10_000)
    env.reset(options={"task_id": "single-1"})
    conn = episode(env).conn
    rows = conn.execute("SELECT invoice_id, body FROM documents ORDER BY invoice_id").fetchall()
    for _ in range(2):  # the first pass fills the company's cache, the second is served from it
        for invoice_id, body in rows:
            assert document_step(env, invoice_id) == render_text(document_from_json(body))
    assert episode(env).documents is env.bundle.documents
    assert len(env.bundle.documents.texts) >= len(rows)


def test_a_changed_document_is_rendered_anew() -> None:
    """The cache is keyed by the stored text, so a document changed in one episode's books shows its new text
    there, and the next episode (back on the template) the old one."""
    env = InvoiceApprovalV1Env()
    env.reset(options={"task_id": "single-1"})
    conn = episode(env).conn
    invoice_id, body = conn.execute("SELECT invoice_id, body FROM documents ORDER BY invoice_id").fetchone()
    before = document_step(env, invoice_id)
    changed = document_from_json(body)
    changed = type(changed)(**{**changed.__dict__, "supplier_invoice_no": "CHANGED-4711"})
    conn.execute("UPDATE documents SET body = ? WHERE invoice_id = ?", (document_to_json(changed), invoice_id))
    after = document_step(env, invoice_id)
    assert after == render_text(changed) and "CHANGED-4711" in after and after != before
    env.reset(options={"task_id": "single-1"})
    assert document_step(env, invoice_id) == before


def test_the_document_cache_parses_and_renders_like_the_functions() -> None:
    env = InvoiceApprovalV1Env()
    env.reset(options={"task_id": "single-1"})
    documents = DocumentCache()
    for (body,) in episode(env).conn.execute("SELECT body FROM documents"):
        assert documents.document(body) == document_from_json(body)
        assert documents.document(body) is documents.document(body)
        assert documents.text(body) == render_text(document_from_json(body))


def gold_grade(env: Any, task_id: str) -> dict[str, Any]:
    env.reset(options={"task_id": task_id})
    for action in env.gold_actions(task_id):
        env.step(action)
    *_, info = env.step({"name": "finish", "arguments": {}})
    return dict(info["grade"])


@pytest.mark.parametrize("make", [InvoiceApprovalEnv, InvoiceApprovalV1Env], ids=["v0", "v1"])
def test_a_first_grading_replays_nothing_when_the_cache_holds_the_gold(
    make: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh load of the shipped company (the first fills the cache, the second reads it): every task's first
    grading uses the stored gold delta, gives the grade a replay gives, and replays no gold path."""
    from officegym.envs.invoice_approval.v0 import bundle as v0_bundle
    from officegym.envs.invoice_approval.v1 import bundle as v1_bundle

    load = v0_bundle._load_bundle if make is InvoiceApprovalEnv else v1_bundle._load
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    load.__wrapped__(42, None, 1)
    stored = load.__wrapped__(42, None, 1)
    monkeypatch.setenv(cache.ENV_VAR, "")
    replayed = load.__wrapped__(42, None, 1)
    env, reference = make(), make()
    env.bundle, reference.bundle = stored, replayed
    for task_id in sorted(stored.tasks)[::7]:
        assert gold_grade(env, task_id) == gold_grade(reference, task_id), task_id
    assert stored._gold == {}
    assert replayed._gold  # the reference did replay its gold paths
