"""Shortcuts: the cheapest policies that do not do the job, played on both v0 envs.

The project rule: a shortcut is a bug. Every policy here skips the work in some way (does nothing, makes one
fixed decision for everything, skips a check, decides from keywords, looks the answer up by task id) and is
played through the real env (``gym.make``, ``env.step``) and graded by the env's own reward. v0 stays
byte-identical, so what passes here is documented (README, "Known shortcuts in v0") and pinned by
``tests/test_shortcuts.py``, not fixed; v1 is where they close.

``python -m benchmarks.shortcuts [--companies N]`` plays every InvoiceApproval shortcut on every task of the
shipped company and of N companies generated from seeds 100000 upward (seeds whose task generation fails with
``RuntimeError`` are skipped and listed), and every VendorReview shortcut on the 20 shipped deals. It prints a
table and writes ``benchmarks/results/shortcuts.json``: per shortcut, tasks passed (reward 1.0) / total and the
mean reward, per tier, plus the facts about the InvoiceApproval tasks that explain what passes.

Three InvoiceApproval shortcuts are learned on one company (A) and played on another: the task-id lookup
(company A's gold decisions keyed by task id, put on the other company's work-order invoices by position,
reading nothing), the same lookup reading only what an escalation target needs, and the work-order words table
(the decision most common in company A's gold paths for the acting role the work order names and whether it
lists one invoice or several). On generated companies A is the shipped company; on the shipped company A is
the first generated one (so they need ``--companies`` >= 1 there).
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.table import Table

import officegym  # noqa: F401  (registers the env ids)
from officegym.envs.core.actions import Action
from officegym.envs.invoice_approval.shared.baselines import StepsFactory, StepsPolicy
from officegym.envs.invoice_approval.shared.db import CANONICAL_SEED
from officegym.envs.invoice_approval.shared.entities import ID_PATTERNS as INVOICE_ID_PATTERNS
from officegym.envs.invoice_approval.shared.money import required_rate, vat_cents
from officegym.envs.invoice_approval.shared.rules import KLEINBETRAG_LIMIT_CENTS, Ruling, Steps, escalation_target
from officegym.envs.invoice_approval.shared.tasks import TIERS as INVOICE_TIERS
from officegym.envs.invoice_approval.v0.baselines import work_order_scope
from officegym.envs.invoice_approval.v0.bundle import Bundle, load_bundle
from officegym.envs.invoice_approval.v0.rules import read_books, read_json, solver_steps, vat_ok
from officegym.policies.base import Policy
from officegym.policies.registry import make_policy
from officegym.policies.rollout import EpisodeResult, run_episode

RESULTS = Path(__file__).parent / "results"
INVOICE_ENV = "officegym/InvoiceApproval-v0"
VENDOR_ENV = "officegym/VendorReview-v0"
FIRST_GENERATED_SEED = 100_000
DEFAULT_COMPANIES = 14
INVOICE_ID = INVOICE_ID_PATTERNS["invoice_id"]
DECISION_TOOLS = ("approve_invoice", "reject_invoice", "hold_invoice", "escalate_invoice")
REJECT_CODES = ("DUPLICATE", "MISSING_PO", "INVALID_PO", "VAT_ERROR")
HOLD_CODES = ("SUPPLIER_BLOCKED", "PO_EXCEEDED")
ROLES = ("Teamleiter", "Abteilungsleiter", "Bereichsleiter", "CFO")


# ------------------------------------------------------------------------------------- playing shortcuts
@dataclass(frozen=True)
class Shortcut:
    """A named cheap policy: ``make(env)`` returns a fresh policy for one env."""

    name: str
    description: str
    make: Callable[[gym.Env[Any, Any]], Policy]


def scripted(name: str, description: str, factory: StepsFactory) -> Shortcut:
    return Shortcut(name, description, lambda env: StepsPolicy(name, factory))


def registered(name: str, description: str, policy: str | None = None) -> Shortcut:
    """A scripted policy the env offers by name (``make_policy``), shown as ``name``."""
    return Shortcut(name, description, lambda env: make_policy(policy or name, env))


def play(env: gym.Env[Any, Any], shortcut: Shortcut, task_ids: Iterable[str]) -> list[EpisodeResult]:
    """One episode of ``shortcut`` on each task, graded by the env's own reward."""
    return [run_episode(env, shortcut.make(env), task_id) for task_id in task_ids]


def summarise(results: Sequence[EpisodeResult], tiers: Sequence[str]) -> dict[str, Any]:
    """Tasks passed (reward 1.0) / total and mean reward, per tier and overall, and the passed task ids."""

    def cell(rows: Sequence[EpisodeResult]) -> dict[str, Any]:
        passed = sum(1 for r in rows if r.reward == 1.0)
        mean = round(sum(r.reward for r in rows) / len(rows), 4) if rows else 0.0
        return {"passed": passed, "total": len(rows), "mean_reward": mean}

    return {
        "tiers": {tier: cell([r for r in results if r.tier == tier]) for tier in tiers},
        "all": cell(results),
        "passed_ids": [r.task_id for r in results if r.reward == 1.0],
    }


def pooled(summaries: Sequence[Mapping[str, Any]], tiers: Sequence[str]) -> dict[str, Any]:
    """Several companies' summaries added up (mean rewards weighted by task count)."""

    def add(cells: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        total = sum(c["total"] for c in cells)
        reward = sum(c["mean_reward"] * c["total"] for c in cells)
        return {
            "passed": sum(c["passed"] for c in cells),
            "total": total,
            "mean_reward": round(reward / total, 4) if total else 0.0,
        }

    return {
        "tiers": {tier: add([s["tiers"][tier] for s in summaries]) for tier in tiers},
        "all": add([s["all"] for s in summaries]),
    }


# ----------------------------------------------------------------------------- InvoiceApproval shortcuts
scope_of = work_order_scope
"""The work order's invoice IDs, in the listed order."""


def nothing(observation: str, info: dict[str, Any]) -> Steps:
    """Finish at once."""
    yield from ()


def fixed_decision(kind: str, code: str | None = None) -> StepsFactory:
    """The same decision for every work-order invoice, in the listed order, reading nothing."""

    def steps(observation: str, info: dict[str, Any]) -> Steps:
        for invoice_id in scope_of(observation):
            yield Ruling(invoice_id, kind, code).as_action()

    return steps


def approve_else_vat_error(observation: str, info: dict[str, Any]) -> Steps:
    """Approve every invoice in the listed order; when the ledger refuses to post one, reject it VAT_ERROR."""
    for invoice_id in scope_of(observation):
        result = yield Ruling(invoice_id, "approve").as_action()
        if result.startswith("Error:"):
            yield Ruling(invoice_id, "reject", "VAT_ERROR").as_action()


def escalate_all(observation: str, info: dict[str, Any]) -> Steps:
    """Escalate every invoice to its rule-6 target (lowest limit covering the gross, smallest ID, never
    oneself), whatever the other rules say."""
    actor = yield from read_json("whoami")
    approvers = (yield from read_json("list_approvers"))["approvers"]
    others = [(a["approver_id"], a["limit_cents"]) for a in approvers if a["approver_id"] != actor["approver_id"]]
    for invoice_id in scope_of(observation):
        invoice = yield from read_json("get_invoice", invoice_id=invoice_id)
        try:
            target = escalation_target(others, invoice["gross_cents"])
        except ValueError:  # nobody else covers the gross (the acting CFO): leave it
            continue
        yield Ruling(invoice_id, "escalate", target).as_action()


def vat_rate_and_rounding_ok(invoice: dict[str, Any]) -> bool:
    """Rule 5 without its last clause: the category's rate and the VAT rounded half up, but not whether
    gross = net + VAT (the ledger refuses to post such an invoice anyway)."""
    rate = required_rate(invoice["category"])
    return bool(invoice["vat_rate"] == rate and invoice["vat_cents"] == vat_cents(invoice["net_cents"], rate))


VAT_CHECKS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "full": vat_ok,
    "rate and rounding only": vat_rate_and_rounding_ok,
    "none": lambda invoice: True,
}


def rules_agent(vat_check: str, vat_error_when_refused: bool) -> StepsFactory:
    """The reference solver's reads and processing order, deciding with rule 5 as ``VAT_CHECKS[vat_check]``;
    with ``vat_error_when_refused`` an approval the ledger refuses becomes a VAT_ERROR reject. With
    ``"full"`` and no fallback it is the reference solver."""
    check = VAT_CHECKS[vat_check]

    def steps(observation: str, info: dict[str, Any]) -> Steps:
        picture = yield from read_books(scope_of(observation))
        for invoice in picture.invoices:
            ruling = picture.ruling(invoice, check)
            result = yield ruling.as_action()
            if ruling.kind == "approve" and result.startswith("Error:") and vat_error_when_refused:
                ruling = Ruling(ruling.invoice_id, "reject", "VAT_ERROR")
                result = yield ruling.as_action()
            if not result.startswith("Error:"):
                picture.remember(ruling, invoice)

    return steps


def listed_order_rules(observation: str, info: dict[str, Any]) -> Steps:
    """The reference solver with ``order="listed"``: the right rules, the work order's order."""
    return solver_steps(scope_of(observation), order="listed")


def invoice_id_order_rules(observation: str, info: dict[str, Any]) -> Steps:
    """The reference solver deciding in invoice-ID order: it never looks at received dates."""
    return solver_steps(sorted(scope_of(observation)), order="listed")


def invoice_fields_only(observation: str, info: dict[str, Any]) -> Steps:
    """Reads each invoice but nothing behind it (no supplier, PO or earlier invoices), in the listed order:
    no PO above 250.00 -> MISSING_PO, VAT wrong -> VAT_ERROR, above the limit -> escalate, else approve."""
    actor = yield from read_json("whoami")
    approvers = (yield from read_json("list_approvers"))["approvers"]
    for invoice_id in scope_of(observation):
        invoice = yield from read_json("get_invoice", invoice_id=invoice_id)
        gross, limit = invoice["gross_cents"], actor["limit_cents"]
        if invoice["po_number"] is None and gross > KLEINBETRAG_LIMIT_CENTS:
            ruling = Ruling(invoice_id, "reject", "MISSING_PO")
        elif not vat_ok(invoice):
            ruling = Ruling(invoice_id, "reject", "VAT_ERROR")
        elif limit is not None and gross > limit:
            ruling = Ruling(
                invoice_id,
                "escalate",
                escalation_target(((a["approver_id"], a["limit_cents"]) for a in approvers), gross),
            )
        else:
            ruling = Ruling(invoice_id, "approve")
        yield ruling.as_action()


LookupTable = dict[str, list[tuple[int, Action]]]


def gold_decisions(bundle: Bundle, task_id: str) -> list[tuple[int, Action]]:
    """A task's gold decisions in gold order, each with its invoice's position in the work order."""
    task = bundle.tasks[task_id]
    position = {invoice_id: index for index, invoice_id in enumerate(task.scope)}
    return [(position[a["arguments"]["invoice_id"]], a) for a in task.gold_actions if a["name"] in DECISION_TOOLS]


def lookup_table(teacher: Bundle) -> LookupTable:
    """Company A's gold decisions keyed by task id."""
    return {task_id: gold_decisions(teacher, task_id) for task_id in teacher.tasks}


def task_id_lookup(table: LookupTable, read_targets: bool = False) -> StepsFactory:
    """Plays company A's decisions for this task id on this work order's invoices by position. It reads
    nothing (escalations go to A's approver IDs, as learned), unless ``read_targets``: then it reads the
    approvers and each escalated invoice to escalate to its rule-6 target."""

    def steps(observation: str, info: dict[str, Any]) -> Steps:
        scope = scope_of(observation)
        others: list[tuple[str, int | None]] | None = None
        for index, action in table.get(info["task_id"], []):
            if index >= len(scope):
                continue
            arguments = {**action["arguments"], "invoice_id": scope[index]}
            if read_targets and action["name"] == "escalate_invoice":
                if others is None:
                    actor = yield from read_json("whoami")
                    approvers = (yield from read_json("list_approvers"))["approvers"]
                    others = [
                        (a["approver_id"], a["limit_cents"])
                        for a in approvers
                        if a["approver_id"] != actor["approver_id"]
                    ]
                invoice = yield from read_json("get_invoice", invoice_id=scope[index])
                with suppress(ValueError):
                    arguments["approver_id"] = escalation_target(others, invoice["gross_cents"])
            yield {"name": action["name"], "arguments": arguments}

    return steps


def work_order_key(work_order: str) -> str:
    """What the work order's words say besides invoice IDs: the acting approver's role (as named) and whether
    it lists one invoice or several."""
    found = [(work_order.find(role), role) for role in ROLES if re.search(rf"\b{role}\b", work_order)]
    role = min(found)[1] if found else "no role"
    return f"{role}, {'one invoice' if len(scope_of(work_order)) == 1 else 'several invoices'}"


def words_table(teacher: Bundle) -> dict[str, tuple[str, str | None]]:
    """For each work-order key of company A, the most common gold decision (kind, code) under it."""
    counts: dict[str, Counter[tuple[str, str | None]]] = {}
    for task in teacher.tasks.values():
        labels = counts.setdefault(work_order_key(task.work_order), Counter())
        for _, action in gold_decisions(teacher, task.id):
            args = action["arguments"]
            labels[(action["name"].removesuffix("_invoice"), args.get("reason_code") or args.get("approver_id"))] += 1
    return {key: labels.most_common(1)[0][0] for key, labels in sorted(counts.items())}


def work_order_words(table: Mapping[str, tuple[str, str | None]]) -> StepsFactory:
    """Reads only the work order: its role word and invoice count pick one decision (learned on company A)
    for every invoice."""

    def steps(observation: str, info: dict[str, Any]) -> Steps:
        label = table.get(work_order_key(observation))
        if label is not None:
            yield from fixed_decision(*label)(observation, info)

    return steps


def invoice_shortcuts(teacher: Bundle | None = None) -> list[Shortcut]:
    """Every InvoiceApproval shortcut; the two learned ones only with a ``teacher`` company."""
    shortcuts = [
        registered("solver (control)", "the reference solver, live: the ceiling (not a shortcut)", "solver"),
        scripted("nothing", "finish at once", nothing),
        scripted("approve-all", "approve every invoice (listed order), reading nothing", fixed_decision("approve")),
        *(
            scripted(f"reject-all {code}", f"reject every invoice with {code}", fixed_decision("reject", code))
            for code in REJECT_CODES
        ),
        *(
            scripted(f"hold-all {code}", f"hold every invoice with {code}", fixed_decision("hold", code))
            for code in HOLD_CODES
        ),
        scripted(
            "escalate-all", "escalate every invoice to its rule-6 target, whatever the other rules say", escalate_all
        ),
        scripted(
            "approve, else VAT_ERROR",
            "approve every invoice; reject VAT_ERROR the ones the ledger refuses to post; reads nothing",
            approve_else_vat_error,
        ),
        scripted(
            "rules, no VAT check",
            "the solver's reads and order, rules 1-4, 6, 7 (rule 5 skipped)",
            rules_agent("none", vat_error_when_refused=False),
        ),
        scripted(
            "rules, no VAT check, VAT_ERROR if refused",
            "as above; an approval the ledger refuses becomes reject VAT_ERROR",
            rules_agent("none", vat_error_when_refused=True),
        ),
        scripted(
            "rules, no gross=net+VAT check",
            "the solver, but rule 5 checks only the rate and the rounding, not gross = net + VAT",
            rules_agent("rate and rounding only", vat_error_when_refused=False),
        ),
        scripted(
            "rules, no gross=net+VAT check, VAT_ERROR if refused",
            "as above; an approval the ledger refuses becomes reject VAT_ERROR",
            rules_agent("rate and rounding only", vat_error_when_refused=True),
        ),
        scripted("rules in listed order", "the reference rules applied in the work order's order", listed_order_rules),
        scripted(
            "rules in invoice-ID order",
            "the reference rules in invoice-ID order, ignoring received dates (processing order is date, then ID)",
            invoice_id_order_rules,
        ),
        scripted(
            "invoice fields only",
            "reads each invoice, never supplier, PO or history: MISSING_PO / VAT_ERROR / escalate / approve",
            invoice_fields_only,
        ),
    ]
    if teacher is not None:
        shortcuts += [
            scripted(
                "task-id lookup",
                "company A's gold decisions for this task id, put on this work order's invoices by position; "
                "reads nothing (escalates to A's approver IDs)",
                task_id_lookup(lookup_table(teacher)),
            ),
            scripted(
                "task-id lookup, targets read",
                "the lookup, but escalations read the approvers and the invoice for the rule-6 target",
                task_id_lookup(lookup_table(teacher), read_targets=True),
            ),
            scripted(
                "work-order words",
                "the work order's role word and invoice count pick one decision for all (learned on company A)",
                work_order_words(words_table(teacher)),
            ),
        ]
    return shortcuts


def invoice_facts(bundle: Bundle) -> dict[str, Any]:
    """What the tasks of one company are made of: the facts that explain which shortcuts pass."""
    single, id_order, listed, approve_free = {}, 0, 0, []
    for task in bundle.tasks.values():
        decided = [action["arguments"]["invoice_id"] for _, action in gold_decisions(bundle, task.id)]
        id_order += decided == sorted(task.scope)
        listed += decided == task.scope
        kinds = {action["name"] for _, action in gold_decisions(bundle, task.id)}
        if "approve_invoice" not in kinds:
            approve_free.append(task.id)
        if task.tier == "single":
            ((_, action),) = gold_decisions(bundle, task.id)
            kind = action["name"].removesuffix("_invoice")
            single[task.id] = (
                kind if kind in ("approve", "escalate") else f"{kind}:{action['arguments']['reason_code']}"
            )
    return {
        "tasks": len(bundle.tasks),
        "processing_order_is_invoice_id_order": id_order,
        "processing_order_is_listed_order": listed,
        "tasks_without_approve": approve_free,
        "single_decisions": single,
    }


# -------------------------------------------------------------------------------- VendorReview shortcuts
DOC_LINE = re.compile(r"^- ([a-z0-9][a-z0-9-]*): ", re.MULTILINE)
MATRIX_LINE = re.compile(r"^(REQ-[A-Z0-9]+(?:-[A-Z0-9]+)*) \| (MUST|SHOULD) \| (.+)$", re.MULTILINE)
HEDGES = (
    "roadmap",
    "planned",
    "not yet",
    "we plan",
    "we intend",
    "will be",
    "upcoming",
    "coming soon",
    "future release",
    "in a future",
    "later this year",
    "on request",
    "beta",
)
STOP_TEXT = (
    "the and for with from that this every least within than only each into their must should data all any are "
    "not its per"
)
STOP_WORDS = frozenset(STOP_TEXT.split())


@dataclass(frozen=True)
class MatrixRow:
    id: str
    priority: str
    pass_bar: str


def read_every_document(observation: str) -> Generator[Action, str, dict[str, str]]:
    """Read every document the review request lists (which also earns the process component)."""
    pages: dict[str, str] = {}
    for doc_id in DOC_LINE.findall(observation):
        pages[doc_id] = yield {"name": "read_doc", "arguments": {"doc_id": doc_id}}
    return pages


def matrix_rows(pages: Mapping[str, str]) -> list[MatrixRow]:
    """The requirements of the matrix document(s)."""
    return [
        MatrixRow(*match.groups())
        for doc_id, page in pages.items()
        if "matrix" in doc_id
        for match in MATRIX_LINE.finditer(page)
    ]


def submission(decision: str, gap_ids: Sequence[str], rationale: str) -> Action:
    return {
        "name": "submit_recommendation",
        "arguments": {"decision": decision, "gap_ids": list(gap_ids), "rationale": rationale},
    }


def fixed_review(decision: str, flag: str) -> StepsFactory:
    """Read every document, then submit ``decision`` with no gaps (``flag="none"``), every requirement of the
    matrix (``"all"``) or every MUST (``"must"``)."""

    def steps(observation: str, info: dict[str, Any]) -> Steps:
        rows = matrix_rows((yield from read_every_document(observation)))
        gaps = [r.id for r in rows if flag == "all" or (flag == "must" and r.priority == "MUST")]
        yield submission(decision, gaps, "Fixed answer, whatever the documents say.")

    return steps


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3 and w not in STOP_WORDS}


def hedged_requirements(pages: Mapping[str, str], rows: Sequence[MatrixRow]) -> list[str]:
    """Requirement IDs that a sentence with a hedging word seems to be about: the sentence names a word of the
    requirement's ID (SCIM, MFA, ...) or shares at least two words with its pass bar."""
    sentences = [
        sentence.lower()
        for doc_id, page in pages.items()
        if "matrix" not in doc_id
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", page)
    ]
    hedged = [words(s) for s in sentences if any(h in s for h in HEDGES)]
    flagged = []
    for row in rows:
        id_words = words(row.id.removeprefix("REQ-").replace("-", " "))
        bar = words(row.pass_bar)
        if any(id_words & sentence or len(bar & sentence) >= 2 for sentence in hedged):
            flagged.append(row.id)
    return flagged


def hedge_keywords(observation: str, info: dict[str, Any]) -> Steps:
    """Read every document, flag the requirements hedged sentences seem to be about; no-go if a MUST is
    flagged, conditional-go if only SHOULDs are, else go."""
    pages = yield from read_every_document(observation)
    rows = matrix_rows(pages)
    flagged = hedged_requirements(pages, rows)
    musts = {r.id for r in rows if r.priority == "MUST"}
    decision = "no-go" if musts & set(flagged) else "conditional-go" if flagged else "go"
    yield submission(decision, flagged, "Hedging language about these requirements: " + ", ".join(flagged or ["none"]))


def vendor_shortcuts() -> list[Shortcut]:
    shortcuts = [
        registered(
            "oracle (control)", "reads the core documents, submits the authored answer (not a shortcut)", "oracle"
        ),
        registered("paranoid", "baseline: flags every planted gap and every distractor, right decision"),
        registered("lazy", "baseline: reads only the matrix, submits go with no gaps"),
        scripted("nothing", "finish at once, no submission", nothing),
    ]
    for decision in ("go", "conditional-go", "no-go"):
        shortcuts.append(
            scripted(
                f"{decision}, no gaps",
                f"read every document, submit {decision} with no gaps",
                fixed_review(decision, "none"),
            )
        )
    for decision in ("no-go", "conditional-go"):
        shortcuts.append(
            scripted(
                f"flag all + {decision}",
                f"read every document, flag every requirement of the matrix, {decision}",
                fixed_review(decision, "all"),
            )
        )
    shortcuts += [
        scripted(
            "flag MUSTs + no-go",
            "read every document, flag every MUST requirement, no-go",
            fixed_review("no-go", "must"),
        ),
        scripted(
            "hedge keywords",
            "flag requirements that sentences with roadmap/planned/not yet/... seem to be about; no-go if a MUST",
            hedge_keywords,
        ),
    ]
    return shortcuts


# ----------------------------------------------------------------------------------------------- the run
def tool_env(env: gym.Env[Any, Any]) -> Any:
    """The officegym env under Gymnasium's wrappers (task list and tiers)."""
    return env.unwrapped


def measure_company(env: gym.Env[Any, Any], shortcuts: Sequence[Shortcut]) -> dict[str, dict[str, Any]]:
    inner = tool_env(env)
    return {s.name: summarise(play(env, s, inner.task_ids), inner.TIERS) for s in shortcuts}


def generated_companies(count: int, log: Console) -> tuple[list[int], list[dict[str, Any]]]:
    """The first ``count`` seeds from 100000 whose tasks generate, and the seeds skipped on the way."""
    seeds: list[int] = []
    skipped: list[dict[str, Any]] = []
    seed = FIRST_GENERATED_SEED
    while len(seeds) < count:
        try:
            load_bundle(seed)
        except RuntimeError as error:
            skipped.append({"seed": seed, "error": str(error)[:200]})
            log.print(f"[yellow]seed {seed} skipped: task generation failed ({error})[/yellow]")
        else:
            seeds.append(seed)
        seed += 1
    return seeds, skipped


def run_invoice_approval(companies: int, log: Console) -> dict[str, Any]:
    tiers = INVOICE_TIERS
    seeds, skipped = generated_companies(companies, log)
    shipped = load_bundle(CANONICAL_SEED)
    by_company: dict[str, dict[str, dict[str, Any]]] = {}
    facts: dict[str, dict[str, Any]] = {}
    for seed in [CANONICAL_SEED, *seeds]:
        started = time.perf_counter()
        # the learned shortcuts never see the company they are evaluated on
        teacher = (load_bundle(seeds[0]) if seeds else None) if seed == CANONICAL_SEED else shipped
        env = gym.make(INVOICE_ENV, company_seed=seed)
        by_company[str(seed)] = measure_company(env, invoice_shortcuts(teacher))
        env.close()
        facts[str(seed)] = invoice_facts(load_bundle(seed))
        log.print(f"company {seed}: {time.perf_counter() - started:.1f} s")
    names = list(dict.fromkeys(name for results in by_company.values() for name in results))
    generated = {
        name: pooled([by_company[str(s)][name] for s in seeds if name in by_company[str(s)]], tiers) for name in names
    }
    singles = [facts[str(s)]["single_decisions"] for s in [CANONICAL_SEED, *seeds]]
    fixed_singles = [task_id for task_id in singles[0] if len({s.get(task_id) for s in singles}) == 1]
    return {
        "tiers": list(tiers),
        "shipped_company": CANONICAL_SEED,
        "generated_companies": seeds,
        "skipped_seeds": skipped,
        "company_A_of_the_learned_shortcuts": {
            "when played on the shipped company": seeds[0] if seeds else None,
            "when played on a generated company": CANONICAL_SEED,
        },
        "descriptions": {s.name: s.description for s in invoice_shortcuts(shipped)},
        "shipped": {name: by_company[str(CANONICAL_SEED)].get(name) for name in names},
        "generated": generated if seeds else {},
        "passed_per_tier_by_company": {
            seed: {name: [summary["tiers"][tier]["passed"] for tier in tiers] for name, summary in results.items()}
            for seed, results in by_company.items()
        },
        "facts": {
            "by_company": facts,
            "single_task_ids_with_the_same_decision_in_every_company": fixed_singles,
        },
    }


def run_vendor_review() -> dict[str, Any]:
    env = gym.make(VENDOR_ENV)
    shortcuts = vendor_shortcuts()
    results = measure_company(env, shortcuts)
    env.close()
    return {
        "tiers": list(tool_env(env).TIERS),
        "descriptions": {s.name: s.description for s in shortcuts},
        "shipped": results,
    }


def fmt(cell: Mapping[str, Any] | None, with_mean: bool) -> str:
    if cell is None or cell["total"] == 0:
        return "-"
    text = f"{cell['passed']}/{cell['total']}"
    return f"{text} ({cell['mean_reward']:.2f})" if with_mean else text


def table(title: str, tiers: Sequence[str], columns: Mapping[str, Mapping[str, Any]], with_mean: bool) -> Table:
    """One row per shortcut; per column group (a set of companies), passed/total per tier and overall, with the
    mean reward where it says more than the pass rate."""
    grid = Table(title=title, title_justify="left")
    grid.add_column("shortcut", no_wrap=True)
    for group in columns:
        for tier in [*tiers, "all"]:
            grid.add_column(f"{group}\n{tier}", justify="right")
    names = list(dict.fromkeys(name for results in columns.values() for name in results))
    for name in names:
        cells = []
        for results in columns.values():
            summary = results.get(name)
            cells += [fmt(summary["tiers"][t] if summary else None, with_mean) for t in tiers]
            cells.append(fmt(summary["all"] if summary else None, with_mean))
        grid.add_row(name, *cells)
    return grid


def compact_json(value: Any) -> str:
    """Indented JSON with each list of plain values and each innermost object on one line (JSON strings hold no
    raw newlines, so joining the lines of such a block changes no value)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return re.sub(r"([\[{])\n\s*([^\[\]{}]*?)\n\s*([\]}])", lambda m: m[1] + re.sub(r"\n\s*", " ", m[2]) + m[3], text)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--companies",
        type=int,
        default=DEFAULT_COMPANIES,
        help=f"generated InvoiceApproval companies besides the shipped one (default {DEFAULT_COMPANIES}; ~3 s each)",
    )
    args = parser.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 200)
    started = time.perf_counter()
    invoice = run_invoice_approval(max(0, args.companies), console)
    vendor = run_vendor_review()
    result = {
        "command": f"python -m benchmarks.shortcuts --companies {max(0, args.companies)}",
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - started, 1),
        "pass": "reward == 1.0",
        "invoice_approval": invoice,
        "vendor_review": vendor,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "shortcuts.json").write_text(compact_json(result) + "\n", encoding="utf-8")
    columns = {"shipped": invoice["shipped"]}
    title = f"InvoiceApproval-v0: tasks passed / total (reward 1 or 0) on the shipped company (seed {CANONICAL_SEED})"
    if invoice["generated"]:
        columns["generated"] = invoice["generated"]
        title += f" and, pooled, {len(invoice['generated_companies'])} generated companies"
    console.print(table(title, invoice["tiers"], columns, with_mean=False))
    title = "VendorReview-v0: tasks passed (reward 1.0) / total (mean reward)"
    console.print(table(title, vendor["tiers"], {"shipped": vendor["shipped"]}, with_mean=True))
    if invoice["skipped_seeds"]:
        console.print(f"skipped seeds (task generation failed): {[s['seed'] for s in invoice['skipped_seeds']]}")
    console.print(f"{result['seconds']} s; written to {RESULTS / 'shortcuts.json'}")
    return result


if __name__ == "__main__":
    main()
