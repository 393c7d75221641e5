"""Regenerate the shipped assets: ``python -m officegym.envs.invoice_approval.v0.authoring.generate [--check]``.

Writes ``seed.sqlite``, ``seed.sha256`` and ``tasks.jsonl`` under ``assets/invoice_approval`` from seed 42.
With ``--check`` it writes nothing and exits 1 if the shipped files differ from a fresh generation.
"""

from __future__ import annotations

import argparse
import sys

from ....core.assets import asset_path
from ...shared.db import CANONICAL_SEED
from ...shared.tasks import task_to_json
from ..db import ASSET_DIR, FINGERPRINT_FILE, SEED_FILE, fingerprint
from .seed_db import build_seed_db
from .task_builder import generate_tasks
from .world import generate_world


def generate(seed: int = CANONICAL_SEED) -> tuple[bytes, str, str]:
    """(seed DB bytes, fingerprint, tasks JSONL text) for ``seed``."""
    world = generate_world(seed)
    conn = build_seed_db(world)
    blob, print_ = conn.serialize(), fingerprint(conn)
    conn.close()
    tasks = "".join(task_to_json(t) + "\n" for t in generate_tasks(world))
    return blob, print_, tasks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    args = parser.parse_args(argv)
    blob, print_, tasks = generate()
    if args.check:
        same = (
            asset_path(*ASSET_DIR, FINGERPRINT_FILE).read_text().strip() == print_
            and asset_path(*ASSET_DIR, "tasks.jsonl").read_text(encoding="utf-8") == tasks
        )
        print("assets up to date" if same else "assets differ from a fresh generation")
        return 0 if same else 1
    asset_path(*ASSET_DIR, SEED_FILE).write_bytes(blob)
    asset_path(*ASSET_DIR, FINGERPRINT_FILE).write_text(print_ + "\n")
    asset_path(*ASSET_DIR, "tasks.jsonl").write_text(tasks, encoding="utf-8")
    print(f"wrote {SEED_FILE} ({len(blob)} bytes, fingerprint {print_[:16]}...) and tasks.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
