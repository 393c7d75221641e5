"""Generated companies, their gold deltas and their train-seed searches through the on-disk cache (``cache.py``).

A generated company (seed bytes, fingerprint, tasks) costs seconds to build; read back from the cache it is
ready in milliseconds. A company the task builder refuses is cached too, as its refusal, so a seed search pays
for a refused seed once per machine. Each key names the version, what was built and from what, and the digest
of the code and assets that build it (``code_digest``), so a changed generator never serves stale bytes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Final

from .cache import cached, code_digest
from .tasks import Task, task_from_dict

ASSETS: Final = "assets/invoice_approval"
ENVS: Final = "envs/invoice_approval"


@dataclass(frozen=True)
class Company:
    """What a version's bundle is built from: the seed database, its fingerprint, the generated tasks and the
    episode template (the seed database with hidden columns dropped; stored too, as it costs a rebuild)."""

    seed_bytes: bytes
    fingerprint: str
    tasks: list[Task]
    template: bytes


def version_digest(version: str) -> str:
    """The digest of everything that builds and replays a version's company: the core, the domain's shared
    runtime and the version's folder, their assets, and the SQLite that writes the databases."""
    folders = ("envs/core", f"{ENVS}/shared", f"{ENVS}/{version}", f"{ASSETS}/shared", f"{ASSETS}/{version}")
    return f"{code_digest(*folders)[:32]} sqlite={sqlite3.sqlite_version}"


def generated_company(version: str, seed: int, scale: int, build: Callable[[], Company | str]) -> Company | str:
    """The company of ``seed`` at ``scale``, from the cache or ``build()``. ``build`` returns a string when the
    task builder refuses the company (its error's message); the refusal is cached too and returned as that
    string, for the caller to raise as it always did. Any exception ``build`` raises is not cached."""
    key = f"{version} company seed={seed} scale={scale} code={version_digest(version)}"
    return decode_company(cached(key, lambda: encode_company(build())))


def encode_company(company: Company | str) -> bytes:
    """A JSON header line (fingerprint, task records and the seed database's size, or the refusal), then the
    seed database and the episode template, raw."""
    if isinstance(company, str):
        return json.dumps({"refused": company}, ensure_ascii=False).encode() + b"\n"
    header = {
        "fingerprint": company.fingerprint,
        "tasks": [asdict(task) for task in company.tasks],
        "seed_size": len(company.seed_bytes),
    }
    return json.dumps(header, ensure_ascii=False).encode() + b"\n" + company.seed_bytes + company.template


def decode_company(payload: bytes) -> Company | str:
    """Inverse of ``encode_company``: the company, or the refusal's message."""
    line_end = payload.index(b"\n")
    header = json.loads(payload[:line_end])
    if "refused" in header:
        return str(header["refused"])
    split = line_end + 1 + header["seed_size"]
    tasks = [task_from_dict(record) for record in header["tasks"]]
    return Company(payload[line_end + 1 : split], header["fingerprint"], tasks, payload[split:])


def cached_seeds(version: str, search: str, build: Callable[[], list[int]]) -> list[int]:
    """A seed search's result (``search`` names it and its arguments), once per machine."""
    key = f"{version} seeds {search} code={version_digest(version)}"
    return [int(seed) for seed in json.loads(cached(key, lambda: json.dumps(build()).encode()))]
