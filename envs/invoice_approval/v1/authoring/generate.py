"""Regenerate the shipped v1 assets: ``python -m officegym.envs.invoice_approval.v1.authoring.generate [--check]``.

Writes ``assets/invoice_approval/v1/seed.sqlite``, ``seed.sha256``, ``tasks.jsonl`` and one PDF per received
document under ``documents/`` (rendered with ``authoring/pdf.py``). ``--check`` writes nothing and exits 1 if the
shipped seed fingerprint or tasks differ from a fresh generation.
"""

from __future__ import annotations

import argparse
import sys

from ....core.assets import asset_path
from ...shared.tasks import task_to_json
from ..db import ASSET_DIR, CANONICAL_SEED, FINGERPRINT_FILE, SEED_FILE, fingerprint
from .seed_db import build_seed_db, document_of
from .task_builder import generate_tasks
from .world import generate_world


def generate(seed: int = CANONICAL_SEED) -> tuple[bytes, str, str]:
    world = generate_world(seed)
    conn = build_seed_db(world)
    blob, print_ = conn.serialize(), fingerprint(conn)
    conn.close()
    return blob, print_, "".join(task_to_json(t) + "\n" for t in generate_tasks(world))


def write_pdfs(seed: int = CANONICAL_SEED) -> int:
    from .pdf import render_pdf

    folder = asset_path(ASSET_DIR, "v1", "documents")
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for inv in generate_world(seed).invoices:
        if inv.status == "received":
            (folder / f"{inv.invoice_id}.pdf").write_bytes(render_pdf(document_of(inv)))
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDF files")
    args = parser.parse_args(argv)
    blob, print_, tasks = generate()
    if args.check:
        same = (
            asset_path(ASSET_DIR, FINGERPRINT_FILE).read_text().strip() == print_
            and asset_path(ASSET_DIR, "v1", "tasks.jsonl").read_text(encoding="utf-8") == tasks
        )
        print("v1 assets up to date" if same else "v1 assets differ from a fresh generation")
        return 0 if same else 1
    asset_path(ASSET_DIR, SEED_FILE).write_bytes(blob)
    asset_path(ASSET_DIR, FINGERPRINT_FILE).write_text(print_ + "\n")
    asset_path(ASSET_DIR, "v1", "tasks.jsonl").write_text(tasks, encoding="utf-8")
    pdfs = 0 if args.no_pdf else write_pdfs()
    print(f"wrote v1 seed ({len(blob)} bytes, fingerprint {print_[:16]}...), tasks.jsonl and {pdfs} PDFs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
