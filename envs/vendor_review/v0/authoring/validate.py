"""Validator for VendorReview-v0 scenarios: the quality gate every authored scenario must pass.

Run ``python -m officegym.envs.vendor_review.v0.authoring.validate [paths...]`` (no paths = every shipped scenario).
It prints one line per problem, prefixed by the scenario id, and exits 1 if there is any. Import
``validate_scenario`` / ``validate_all`` to run the same checks from tests.

The checks v0 shares with later versions, and why they are so strict, are in ``shared/authoring/validate.py``;
this module adds v0's own (identity, size budget, commitments) and runs them all.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

from ....core.assets import read_json
from ...shared.authoring.validate import (
    Check,
    Context,
    Sizes,
    _duplicates,
    check_core,
    check_decision,
    check_document_leaks,
    check_documents,
    check_evidence_not_leaked,
    check_findings,
    check_it_channel,
    check_matrix_text,
    check_requirements,
    normalize,
    size_problems,
)
from ...shared.scenario import CastIds, Scenario, ScenarioFormatError, TaxonomyItem, scenario_from_dict, shape_problems
from ...shared.tasks import load_taxonomy
from ..tasks import load_cast_ids, load_scenario, scenario_files
from .set_checks import set_problems

SCENARIO_ID_PATTERN: Final = re.compile(r"^vr-(easy|medium|hard)-\d{2}$")
SIZES: Final = Sizes(requirements=(6, 9), documents=(4, 6), words=(700, 1200), planted=(0, 4), distractors=(1, 3))
CONTRACT_KINDS: Final = frozenset({"dpa", "order_form"})


# ---------------------------------------------------------------------------------------------------------
# Checks: each returns problem strings without the scenario-id prefix.


def check_identity(s: Scenario, ctx: Context) -> list[str]:
    """Id format matches the tier, and buyer/vendor exist in the cast, so plan, file and cast stay aligned."""
    problems: list[str] = []
    match = SCENARIO_ID_PATTERN.match(s.id)
    if match is None:
        problems.append(f"id {s.id!r} must look like vr-<tier>-NN")
    elif match.group(1) != s.tier:
        problems.append(f"id {s.id!r} does not match tier {s.tier!r}")
    if s.buyer not in ctx.cast.buyers:
        problems.append(f"buyer {s.buyer!r} is not in cast.json")
    if s.vendor not in ctx.cast.vendors:
        problems.append(f"vendor {s.vendor!r} is not in cast.json")
    return problems


def check_counts(s: Scenario, ctx: Context) -> list[str]:
    """The spec's size budget: enough to investigate, small enough to read in a 20-turn episode."""
    return size_problems(s, SIZES)


def check_commitments(s: Scenario, ctx: Context) -> list[str]:
    """Commitments remediate planted gaps only, are dated after the review and are written vendor text."""
    planted = {gap.id for gap in s.planted_gaps}
    problems = [f"commitment for {rid} listed twice" for rid in _duplicates(c.id for c in s.commitments)]
    for c in s.commitments:
        label = f"commitment {c.id}"
        if c.id not in planted:
            problems.append(f"{label} is not for a planted gap")
        if c.due <= s.date:
            problems.append(f"{label}: due {c.due} is not after the scenario date {s.date}")
        doc = s.document(c.doc_id)
        if doc is None:
            problems.append(f"{label}: document {c.doc_id!r} does not exist")
            continue
        if c.doc_id not in s.core_documents:
            problems.append(f"{label}: document {c.doc_id!r} is not core, but the decision depends on it")
        if doc.author != "vendor" and doc.kind not in CONTRACT_KINDS:
            problems.append(f"{label}: {c.doc_id!r} is not vendor-written or a contract, so it binds nobody")
        if normalize(c.evidence) not in normalize(doc.text):
            problems.append(f"{label}: evidence {c.evidence!r} not found in {c.doc_id}")
    return problems


CHECKS: Final[tuple[Check, ...]] = (
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


# ---------------------------------------------------------------------------------------------------------
# Entry points


def _taxonomy_ids(taxonomy: Iterable[TaxonomyItem | str]) -> frozenset[str]:
    return frozenset(item if isinstance(item, str) else item.id for item in taxonomy)


def validate_scenario(
    data: Mapping[str, object],
    taxonomy: Iterable[TaxonomyItem | str],
    cast: CastIds | None = None,
) -> list[str]:
    """All problems of one scenario (parsed JSON), each prefixed with its id; empty means it is valid.

    Shape problems stop the run early: the content checks need a well-formed scenario to mean anything.
    """
    raw_id = data.get("id")
    prefix = f"{raw_id if isinstance(raw_id, str) and raw_id else '<no id>'}: "
    shape = shape_problems(dict(data))
    if shape:
        return [prefix + problem for problem in shape]
    try:
        scenario = scenario_from_dict(data)
    except ScenarioFormatError as error:
        return [prefix + str(error)]
    ctx = Context(_taxonomy_ids(taxonomy), cast if cast is not None else load_cast_ids())
    return [prefix + problem for check in CHECKS for problem in check(scenario, ctx)]


def _file_problems(path: Path | Traversable, taxonomy: Sequence[TaxonomyItem], cast: CastIds) -> list[str]:
    """Validate one file; a file that is not a JSON object is itself one problem."""
    name = path.name
    try:
        data = read_json(path)
    except (OSError, ValueError) as error:
        return [f"{name}: cannot read JSON: {error}"]
    if not isinstance(data, dict):
        return [f"{name}: a scenario file must hold a JSON object"]
    problems = validate_scenario(data, taxonomy, cast)
    stem = name.removesuffix(".json")
    if data.get("id") != stem:
        problems.append(f"{data.get('id', '<no id>')}: file name {name!r} does not match the id")
    return problems


def validate_all(paths: Iterable[str | Path | Traversable] | None = None) -> list[str]:
    """Validate the given scenario files (default: every shipped scenario, and then the set-level constraints
    of ``set_checks`` too), plus cross-file id uniqueness."""
    files: list[Path | Traversable] = (
        list(scenario_files()) if paths is None else [p if isinstance(p, Traversable) else Path(p) for p in paths]
    )
    taxonomy, cast = load_taxonomy(), load_cast_ids()
    problems = [problem for path in files for problem in _file_problems(path, taxonomy, cast)]
    stems = [path.name.removesuffix(".json") for path in files]
    problems += [f"{sid}: more than one file has this id" for sid in _duplicates(stems)]
    if paths is None and not problems:
        problems += set_problems([load_scenario(path) for path in files], taxonomy, cast)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print every problem on its own line; exit 1 if there are any, 0 otherwise."""
    args = list(sys.argv[1:] if argv is None else argv)
    problems = validate_all(args or None)
    for problem in problems:
        print(problem)
    count = len(args) if args else len(scenario_files())
    if problems:
        print(f"{len(problems)} problem(s) in {count} scenario file(s)", file=sys.stderr)
        return 1
    print(f"OK: {count} scenario file(s) valid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
