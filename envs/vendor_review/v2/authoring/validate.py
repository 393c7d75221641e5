"""Validator of VendorReview-v2 deals: the shared checks where the rules are shared (``shared/authoring/
validate.py``) and v2's own: size and words scaled with the matrix, ids, and that the answer key follows from the
values (every gap's value in force misses its bar, every met row's reaches it, and every commitment is a signed
promise of a value that reaches the bar).

``python -m officegym.envs.vendor_review.v2.authoring.validate [--seeds N]`` checks the hand-written deals, the
first N training deals (default 200) and every generated test deal, runs the set checks (``set_checks.py``) on
each generated split, and exits 1 on any problem.
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
from ..claims import claim, claims
from ..deals import TEST_SEEDS, generate_record, handwritten_records
from .set_checks import set_problems

DEAL_ID: Final = re.compile(r"^vr2-(gen-\d{6}|(easy|medium|hard)-\d{2})$")
WORDS_PER_ROW: Final = (100, 215)
"""700-1,500 words at 7 requirements (they average about 1,170), scaled with the matrix."""
CHECKS: Final = (
    check_requirements,
    check_documents,
    check_core,
    check_matrix_text,
    check_findings,
    check_decision,
    check_it_channel,
    check_document_leaks,
    check_evidence_not_leaked,
)


def v2_context() -> Context:
    return Context(frozenset(c.id for c in claims()), CastIds(frozenset(), frozenset()))


def sizes(rows: int) -> Sizes:
    low, high = WORDS_PER_ROW
    return Sizes(requirements=(7, 11), documents=(9, 10), words=(low * rows, high * rows), planted=(0, 11),
                 distractors=(0, 11))  # fmt: skip


def check_identity(s: Scenario) -> list[str]:
    return [] if DEAL_ID.match(s.id) else [f"id {s.id!r} must look like vr2-<tier>-NN or vr2-gen-NNNNNN"]


def annotation_problems(s: Scenario, annotations: Mapping[str, Any]) -> list[str]:
    """The answer key against the values: a row is a gap exactly when its value misses its bar, and a
    commitment is exactly a signed promise, on a gap, of a value that reaches the bar."""
    problems = [f"requirement {r.id} has no annotation" for r in s.requirements if r.id not in annotations]
    gaps, committed = set(s.gap_ids), {c.id for c in s.commitments}
    for rid, note in sorted(annotations.items()):
        c = claim(rid)
        gap = not c.meets(note["value"], note["bar"])
        if gap != note["gap"] or gap != (rid in gaps):
            problems.append(f"{rid}: value {note['value']} against bar {note['bar']} ({c.direction}) says gap={gap}")
        commits = gap and note["promise"] == "signed" and c.meets(note["promised"], note["bar"])
        if commits != (rid in committed):
            problems.append(f"{rid}: commitment in the key ({rid in committed}) is not what the values give")
    return problems


def validate_record(record: Mapping[str, Any], ctx: Context | None = None) -> list[str]:
    """Every problem of one v2 deal record, prefixed with its id; empty means valid."""
    raw, annotations = split_record(record)
    prefix = f"{raw.get('id', '<no id>')}: "
    shape = shape_problems(raw)
    if shape:
        return [prefix + p for p in shape]
    try:
        scenario = scenario_from_dict(raw)
    except ScenarioFormatError as error:
        return [prefix + str(error)]
    ctx = ctx or v2_context()
    problems = [p for check in CHECKS for p in check(scenario, ctx)]
    problems += check_identity(scenario) + size_problems(scenario, sizes(len(scenario.requirements)))
    problems += annotation_problems(scenario, annotations)
    return [prefix + p for p in problems]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 200
    ctx = v2_context()
    train = [generate_record(seed) for seed in range(seeds)]
    test = [generate_record(seed) for seed in TEST_SEEDS]
    handwritten = list(handwritten_records().values())
    problems = [p for record in [*handwritten, *train, *test] for p in validate_record(record, ctx)]
    problems += [f"train {p}" for p in set_problems(train)] + [f"test {p}" for p in set_problems(test)]
    for problem in problems:
        print(problem)
    total = len(handwritten) + len(train) + len(test)
    print(f"{len(problems)} problem(s) in {total} v2 deal(s)", file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
