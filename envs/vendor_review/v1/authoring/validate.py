"""Validator of VendorReview-v1 deals, generated or hand-written: the shared checks where the rules are shared
(``shared/authoring/validate.py``), v1's own where the deals differ (size, ids, signed commitments, the
annotations of every requirement).

``python -m officegym.envs.vendor_review.v1.authoring.validate [--seeds N]`` checks the hand-written deals
and the first N generated ones (default 200) and exits 1 on any problem. ``set_checks`` adds the checks
over many deals that no single deal can show (rates, answer lengths, decision shares); ``main`` runs them on the
hand-written set and, from ``SET_CHECK_SEEDS`` seeds on, on the generated set.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...shared.authoring.validate import (
    Context,
    Sizes,
    check_core,
    check_decision,
    check_document_leaks,
    check_documents,
    check_evidence_not_leaked,
    check_findings,
    check_it_channel,
    check_matrix_text,
    check_requirements,
    size_problems,
)
from ...shared.scenario import CastIds, Scenario, ScenarioFormatError, scenario_from_dict, shape_problems, split_record
from ..deals import generate_record, handwritten_records
from ..library import GAP_MODES, MET_MODES, load_library
from .set_checks import set_problems_v1

DEAL_ID: Final = re.compile(r"^vr1-(gen-\d{6}|(easy|medium|hard)-\d{2})$")
SIZES: Final = Sizes(requirements=(13, 15), documents=(6, 11), words=(1000, 3500), planted=(0, 5), distractors=(0, 12))
SIGNED: Final = "Signed for"
DRAFT: Final = "DRAFT"
PROMISES: Final = ("none", "signed", "draft")
RUMOURS: Final = ("none", "raised", "discredited")
SET_CHECK_SEEDS: Final = 1000
"""Generated deals needed before the set checks run on them: rates over fewer deals are noise."""


def v1_context() -> Context:
    library = load_library()
    return Context(
        frozenset(item.id for item in library.items),
        CastIds(frozenset(b["id"] for b in library.buyers), frozenset(v["id"] for v in library.voices)),
    )


def check_identity(s: Scenario, ctx: Context) -> list[str]:
    problems = [] if DEAL_ID.match(s.id) else [f"id {s.id!r} must look like vr1-<tier>-NN or vr1-gen-NNNNNN"]
    if s.buyer not in ctx.cast.buyers:
        problems.append(f"buyer {s.buyer!r} is not in buyers.json")
    if s.vendor not in ctx.cast.vendors:
        problems.append(f"vendor {s.vendor!r} is not in voices.json")
    return problems


def check_counts(s: Scenario, ctx: Context) -> list[str]:
    """v1's size: about 14 requirements, up to 5 gaps, the documents of a real file."""
    return size_problems(s, SIZES)


def check_commitments(s: Scenario, ctx: Context) -> list[str]:
    """A commitment counts only when signed and dated (the v1 system prompt): it remediates a planted gap, is
    due after the review, and stands verbatim in a document the vendor signed that is no draft."""
    planted = {gap.id for gap in s.planted_gaps}
    problems: list[str] = []
    for c in s.commitments:
        doc = s.document(c.doc_id)
        if c.id not in planted:
            problems.append(f"commitment {c.id} is not for a planted gap")
        if c.due <= s.date:
            problems.append(f"commitment {c.id}: due {c.due} is not after the deal date {s.date}")
        if doc is None or " ".join(c.evidence.split()) not in " ".join(doc.text.split()):
            problems.append(f"commitment {c.id}: evidence not found in {c.doc_id}")
        elif SIGNED not in doc.text or DRAFT in doc.text:
            problems.append(f"commitment {c.id}: {c.doc_id} is not a document the vendor signed")
    return problems


def annotation_problems(s: Scenario, annotations: Mapping[str, Any]) -> list[str]:
    """Every matrix requirement is annotated, and the annotations agree with the answer key."""
    problems = [f"requirement {r.id} has no annotation" for r in s.requirements if r.id not in annotations]
    gaps, distractors = set(s.gap_ids), {d.id for d in s.distractors}
    committed = {c.id for c in s.commitments}
    for rid, note in annotations.items():
        mode, promise, rumour = note.get("mode"), note.get("promise"), note.get("rumour")
        if mode not in (*MET_MODES, *GAP_MODES) or promise not in PROMISES or rumour not in RUMOURS:
            problems.append(f"annotation {rid}: unknown mode, promise or rumour {note}")
            continue
        if (mode in GAP_MODES) != (rid in gaps):
            problems.append(f"annotation {rid}: mode {mode} disagrees with the planted gaps")
        if (mode in ("hidden", "decoy")) != (rid in distractors):
            problems.append(f"annotation {rid}: mode {mode} disagrees with the distractors")
        if (mode == "signed") != (rid in committed):
            problems.append(f"annotation {rid}: mode {mode} disagrees with the commitments")
        if (promise != "none") != (mode in ("signed", "draft", "decoy")):
            problems.append(f"annotation {rid}: promise {promise} does not fit mode {mode}")
    return problems


CHECKS: Final = (
    check_identity,
    check_counts,
    check_requirements,
    check_documents,
    check_core,
    check_matrix_text,
    check_findings,
    check_commitments,
    check_decision,
    check_document_leaks,
    check_it_channel,
    check_evidence_not_leaked,
)


def validate_record(record: Mapping[str, Any], ctx: Context | None = None) -> list[str]:
    """Every problem of one v1 deal record, prefixed with its id; empty means valid."""
    raw, annotations = split_record(record)
    prefix = f"{raw.get('id', '<no id>')}: "
    shape = shape_problems(raw)
    if shape:
        return [prefix + p for p in shape]
    try:
        scenario = scenario_from_dict(raw)
    except ScenarioFormatError as error:
        return [prefix + str(error)]
    ctx = ctx or v1_context()
    problems = [p for check in CHECKS for p in check(scenario, ctx)] + annotation_problems(scenario, annotations)
    return [prefix + p for p in problems]


def validate_many(records: Sequence[Mapping[str, Any]]) -> list[str]:
    ctx = v1_context()
    return [problem for record in records for problem in validate_record(record, ctx)]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 200
    handwritten = list(handwritten_records().values())
    generated = [generate_record(seed) for seed in range(seeds)]
    records = [*handwritten, *generated]
    problems = validate_many(records)
    problems += [f"hand-written {p}" for p in set_problems_v1(handwritten)]
    if seeds >= SET_CHECK_SEEDS:
        problems += [f"generated {p}" for p in set_problems_v1(generated)]
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s) in {len(records)} v1 deal(s)", file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
