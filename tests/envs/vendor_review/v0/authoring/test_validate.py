"""The VendorReview validator catches each authoring mistake it exists for, with a message that names it.

Broken scenarios are built by mutating a shipped exemplar in memory, so every test starts from a file that
is known to be valid and changes exactly one thing.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from officegym.envs.vendor_review.shared.authoring.validate import VERDICT_LEAK_PATTERNS
from officegym.envs.vendor_review.shared.scenario import ItChannel, ItRoute, scenario_from_dict
from officegym.envs.vendor_review.shared.tasks import load_taxonomy
from officegym.envs.vendor_review.v0.authoring.validate import main, validate_all, validate_scenario
from officegym.envs.vendor_review.v0.rules import derive_decision
from officegym.envs.vendor_review.v0.tasks import assets_dir, load_all_scenarios

Scenario = dict[str, Any]


def _load(scenario_id: str) -> Scenario:
    text = (assets_dir() / "scenarios" / f"{scenario_id}.json").read_text(encoding="utf-8")
    data: Scenario = json.loads(text)
    return data


_EXEMPLAR = _load("vr-easy-01")


@pytest.fixture
def scenario() -> Scenario:
    """A fresh, valid scenario to break."""
    return copy.deepcopy(_EXEMPLAR)


def problems_of(data: Scenario) -> list[str]:
    found: list[str] = validate_scenario(data, load_taxonomy())
    return found


def assert_problem(data: Scenario, fragment: str) -> None:
    """At least one problem mentions ``fragment``, and every problem names the scenario."""
    found = problems_of(data)
    assert any(fragment in problem for problem in found), found
    assert all(problem.startswith(f"{data['id']}: ") for problem in found), found


def _document(data: Scenario, doc_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = next(d for d in data["documents"] if d["id"] == doc_id)
    return doc


def test_exemplar_is_valid(scenario: Scenario) -> None:
    assert problems_of(scenario) == []


def test_requirement_outside_taxonomy(scenario: Scenario) -> None:
    scenario["requirements"][0]["id"] = "REQ-FAX"
    assert_problem(scenario, "requirement REQ-FAX is not in the taxonomy")


def test_planted_gap_that_is_also_a_distractor(scenario: Scenario) -> None:
    scenario["distractors"].append(copy.deepcopy(scenario["planted_gaps"][0]))
    assert_problem(scenario, "REQ-SCIM is both a planted gap and a distractor")


def test_decision_inconsistent_with_rule(scenario: Scenario) -> None:
    scenario["decision"] = "go"
    assert_problem(scenario, "decision 'go' is inconsistent with the decision rule, which gives 'conditional-go'")


def test_decision_without_commitment_must_be_no_go(scenario: Scenario) -> None:
    scenario["commitments"] = []
    assert_problem(scenario, "inconsistent with the decision rule, which gives 'no-go'")


def test_req_id_inside_vendor_document(scenario: Scenario) -> None:
    _document(scenario, "questionnaire")["text"] += "\nThis answer covers REQ-SCIM."
    assert_problem(scenario, "document 'questionnaire' (vendor) contains requirement ID 'REQ-SCIM'")


def test_req_id_inside_auditor_document(scenario: Scenario) -> None:
    _document(scenario, "soc2-report")["text"] += "\nRelevant to REQ-SOC2."
    assert_problem(scenario, "document 'soc2-report' (auditor) contains requirement ID 'REQ-SOC2'")


@pytest.mark.parametrize(
    "phrase",
    [
        "Note: this requirement is not met.",
        "Status: gap",
        "Honestly this is a red flag.",
        "That one is a deal-breaker for us.",
    ],
)
def test_giveaway_phrasing_in_document(scenario: Scenario, phrase: str) -> None:
    _document(scenario, "it-thread")["text"] += "\n" + phrase
    assert_problem(scenario, "document 'it-thread' has giveaway phrasing")


def test_vendor_calling_its_own_gap(scenario: Scenario) -> None:
    _document(scenario, "questionnaire")["text"] += "\nWe are aware of this gap."
    assert_problem(scenario, "document 'questionnaire' has giveaway phrasing 'gap'")


@pytest.mark.parametrize(
    "reply",
    [
        "Between us, SCIM is not met, flag it.",
        "Check their Q1.2 answer before you sign.",
        "That's a MUST for us and they miss it.",
        "I'd reject them, to be honest.",
        "This is a no-go for me.",
        "Look at section 4 of the order form.",
    ],
)
def test_colleague_reply_with_verdict_or_locator(scenario: Scenario, reply: str) -> None:
    scenario["it_channel"]["routes"][0]["reply"] = reply
    route = "IT route 0 (scim, provision, leaver, offboard, deactivat)"
    assert_problem(scenario, f"{route} leaks a verdict or locator")


def test_plain_colleague_reply_is_allowed(scenario: Scenario) -> None:
    """Business pressure, quarters and numbers are what colleagues should say; they must not trip the check."""
    scenario["it_channel"]["default_reply"] = (
        "Theresa: The summer wave starts in Q2 and the board meets on the 24th. We compared three tools last "
        "year and the pilot staff liked this one; it must work for 1,400 leavers in April."
    )
    assert problems_of(scenario) == []


def test_default_reply_with_verdict(scenario: Scenario) -> None:
    scenario["it_channel"]["default_reply"] = "All requirements are met as far as I know."
    assert_problem(scenario, "IT default reply leaks a verdict or locator: 'are met'")


def test_evidence_missing_from_documents(scenario: Scenario) -> None:
    phrase = "leavers are removed by carrier pigeon"
    scenario["planted_gaps"][0]["evidence"] = [phrase]
    assert_problem(scenario, f"planted gap REQ-SCIM: evidence {phrase!r} not found in questionnaire")


def test_evidence_present_in_it_reply(scenario: Scenario) -> None:
    phrase = scenario["planted_gaps"][0]["evidence"][0]
    scenario["it_channel"]["default_reply"] += f" Their answer was: {phrase}."
    assert_problem(scenario, f"planted gap REQ-SCIM: evidence {phrase!r} appears in IT default reply")


def test_too_few_words(scenario: Scenario) -> None:
    for doc in scenario["documents"]:
        doc["text"] = " ".join(doc["text"].split()[:100])
    assert_problem(scenario, "total document words: 500, expected 700-1200")


def test_commitment_for_requirement_that_is_not_a_gap(scenario: Scenario) -> None:
    scenario["commitments"][0]["id"] = "REQ-SSO"
    assert_problem(scenario, "commitment REQ-SSO is not for a planted gap")


def test_commitment_needs_iso_date(scenario: Scenario) -> None:
    scenario["commitments"][0]["due"] = "end of June"
    assert_problem(scenario, "commitments[0].due must be an ISO date")


def test_unknown_buyer(scenario: Scenario) -> None:
    scenario["buyer"] = "acme"
    assert_problem(scenario, "buyer 'acme' is not in cast.json")


def test_missing_key_is_reported(scenario: Scenario) -> None:
    del scenario["core_documents"]
    assert_problem(scenario, "missing key 'core_documents'")


def test_verdict_leak_patterns_are_pinned() -> None:
    assert VERDICT_LEAK_PATTERNS == (
        r"(?i)\b(is|are|was|were|isn't|aren't) (not )?met\b",
        r"(?i)\bunmet\b",
        r"\bMUST\b",
        r"\bSHOULD\b",
        r"(?i)\bREQ-",
        r"(?i)\b(flag|flagging|flagged) (it|this|that|them|those)\b",
        r"(?i)\b(don't|do not|no need to) flag\b",
        r"(?i)\b(no-?go|conditional-?go)\b",
        r"(?i)\bI(?:'d| would) (reject|approve|sign|block|veto|accept)\b",
        r"(?i)\b(reject|approve|accept) (it|this|them|the deal|the vendor)\b",
        r"(?i)\b(passes|pass|fails|fail|meets|meet|satisfies|misses) (the|our|their|your) "
        r"(bar|requirement|threshold)",
        r"(?i)\b(does|do|doesn't|don't) (not )?(meet|satisfy)\b",
        r"(?i)\b(non-?compliant|compliant)\b",
        r"(?i)\b(red flag|deal-?breaker|show-?stopper|blocker)s?\b",
        r"(?i)\b(that one|this one|that|it)(?:'s| is) (fine|ok|okay|covered|acceptable|a problem|an issue)\b",
        r"(?i)\b(all good|looks fine|looks good|nothing to worry)\b",
        r"(?i)\bgaps?\b",
        r"(?i)\bcheck (their|the|its) (q\d|question|section|appendix|annex|page|schedule|clause|footnote)",
        r"(?i)\b(check|look at|read|see|open) (their|the|its) (dpa|soc ?2|admin guide|order form"
        r"|questionnaire|subprocessor|trust cent|pricing|architecture|bridge letter|fine print|small print)",
        r"(?i)\blook (at|into) (section|page|annex|appendix|schedule|clause|q\d)",
        r"(?i)\b(section|annex|appendix|schedule|clause|page) \d",
        r"(?i)§ ?\d",
        r"\bQ(?:\d+\.\d+|[5-9]|\d{2,})\b",
        r"(?i)\b(question|item|row) \d",
        r"(?i)\b(compare|cross-?check|reconcile)\b",
        r"(?i)\b(hidden|buried|tucked away|trap|trick|gotcha)\b",
    )


def test_decision_rule() -> None:
    """go without gaps; no-go for an uncommitted MUST gap; else conditional-go (SHOULD-only or committed)."""
    base = copy.deepcopy(_EXEMPLAR)
    assert derive_decision(scenario_from_dict(base)) == "conditional-go"
    uncommitted = {**base, "commitments": []}
    assert derive_decision(scenario_from_dict(uncommitted)) == "no-go"
    should_gaps = [gap for gap in base["planted_gaps"] if gap["id"] == "REQ-AUDITLOG"]
    should_only = {**uncommitted, "planted_gaps": should_gaps}
    assert derive_decision(scenario_from_dict(should_only)) == "conditional-go"
    assert derive_decision(scenario_from_dict({**uncommitted, "planted_gaps": []})) == "go"


def test_it_routing_most_keywords_then_earliest_then_default() -> None:
    channel = ItChannel(
        routes=(
            ItRoute(("price", "seat"), "pricing"),
            ItRoute(("seat", "season"), "seasonal"),
            ItRoute(("offline",), "offline"),
        ),
        default_reply="default",
    )
    assert channel.reply_for("How many SEATS in the peak Season?") == "seasonal"
    assert channel.reply_for("what about seat counts") == "pricing"
    assert channel.reply_for("Does it work OFFLINE?") == "offline"
    assert channel.reply_for("who is the DPO?") == "default"


def test_cli_reports_problems_with_scenario_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = copy.deepcopy(_EXEMPLAR)
    broken["decision"] = "no-go"
    path = tmp_path / "vr-easy-01.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    assert main([str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("vr-easy-01: ") for line in lines)


def test_all_shipped_scenarios_pass() -> None:
    assert validate_all() == []
    assert main([]) == 0
    ids = [s.id for s in load_all_scenarios()]
    assert ids == sorted(ids) and len(ids) >= 2


def test_taxonomy_has_the_24_spec_ids_in_order() -> None:
    assert [item.id for item in load_taxonomy()] == [
        "REQ-SSO", "REQ-SCIM", "REQ-MFA", "REQ-RBAC", "REQ-ENC-REST", "REQ-ENC-TRANSIT", "REQ-RESIDENCY",
        "REQ-DPA", "REQ-SUBPROC", "REQ-TRANSFER", "REQ-BREACH", "REQ-AI-TRAINING", "REQ-SOC2", "REQ-PENTEST",
        "REQ-VULN", "REQ-SDLC", "REQ-BCP-DR", "REQ-BACKUP", "REQ-SLA", "REQ-AUDITLOG", "REQ-RETENTION",
        "REQ-EXPORT", "REQ-OFFLINE", "REQ-MDM",
    ]  # fmt: skip


def test_set_constraints_hold_for_the_shipped_scenarios_and_catch_a_broken_set() -> None:
    import dataclasses

    from officegym.envs.vendor_review.shared.tasks import load_taxonomy
    from officegym.envs.vendor_review.v0.authoring.set_checks import set_problems
    from officegym.envs.vendor_review.v0.tasks import load_all_scenarios, load_cast_ids

    shipped = list(load_all_scenarios())
    taxonomy, cast = load_taxonomy(), load_cast_ids()
    assert set_problems(shipped, taxonomy, cast) == []
    broken = [dataclasses.replace(s, planted_gaps=()) if s.tier == "easy" else s for s in shipped[:-1]]
    problems = set_problems(broken, taxonomy, cast)
    assert any("tiers are" in p for p in problems)
    assert any("have no gap" in p for p in problems)


def test_readme_scenario_table_is_generated_from_the_assets() -> None:
    from pathlib import Path

    from officegym.envs.vendor_review.v0.authoring.table import markdown_table
    from officegym.envs.vendor_review.v0.tasks import load_all_scenarios

    page = (Path(__file__).parents[5] / "docs" / "envs" / "vendor-review-v0.md").read_text(encoding="utf-8")
    assert markdown_table(load_all_scenarios()) in page, (
        "the manual's scenario table is stale: run python -m officegym.envs.vendor_review.v0.authoring.table"
    )
