"""Which rule of a version's policy text decides a ruling: the ``rule`` column of the failure report.

The policy (``assets/invoice_approval/<version>/policy.md``) numbers its rules under ``## The rules``, one
top-level item each (``5. **VAT.** ... reject with `VAT_ERROR` ...``). A gold state names its outcome (status and
reason code), and the rule that gives it is the first rule that mentions the reason code; an escalation is the
rule that says **escalate**, an approval the last rule (``Otherwise **approve**``). The labels are read from the
policy text itself, so a reworded or renumbered policy relabels its report and nothing here needs to follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ITEM = re.compile(r"^(\d+)\. (.*)$")
_CODE = re.compile(r"`([A-Z][A-Z_]{2,})`")
_STEP = re.compile(r"^## (Step \d+: .+)$", re.MULTILINE)


@dataclass(frozen=True)
class Rule:
    """One numbered rule: its number, its title as the policy prints it, and the whole item's text."""

    number: int
    title: str
    body: str

    @property
    def label(self) -> str:
        return f"rule {self.number}: {self.title}"


@dataclass(frozen=True)
class PolicyRules:
    """The rules of one policy text, and the heading of its capture step (empty where it has none)."""

    rules: tuple[Rule, ...]
    capture: str = ""

    def for_outcome(self, status: str | None, reason: str | None) -> str:
        """The label of the rule that gives ``status`` (and ``reason``), or "" when no rule does (an invoice
        left ``received``, a code the policy does not name)."""
        if reason:
            return next((rule.label for rule in self.rules if f"`{reason}`" in rule.body), "")
        if status == "escalated":
            return next((rule.label for rule in self.rules if "**escalate**" in rule.body), "")
        if status == "approved":
            approving = [rule for rule in self.rules if "**approve**" in rule.body]
            return approving[-1].label if approving else ""
        return ""


def parse_policy(text: str) -> PolicyRules:
    """The numbered rules of ``text``'s ``## The rules`` section (each item runs to the next unindented
    number or heading) and its ``## Step N: ...`` heading, if any."""
    rules: list[Rule] = []
    lines: list[str] = []
    number, title = 0, ""
    for line in _section(text, "## The rules").splitlines():
        item = _ITEM.match(line)
        if item is None:
            lines.append(line)
            continue
        if number:
            rules.append(Rule(number, title, "\n".join(lines)))
        number, title, lines = int(item.group(1)), _title(item.group(2)), [line]
    if number:
        rules.append(Rule(number, title, "\n".join(lines)))
    step = _STEP.search(text)
    return PolicyRules(tuple(rules), step.group(1)[0].lower() + step.group(1)[1:] if step else "")


def reason_codes(rules: PolicyRules) -> list[str]:
    """Every reason code the rules mention, in the policy's order (for tests and checks)."""
    seen: dict[str, None] = {}
    for rule in rules.rules:
        seen.update(dict.fromkeys(_CODE.findall(rule.body)))
    return list(seen)


def _section(text: str, heading: str) -> str:
    start = text.find(f"\n{heading}\n")
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(heading) + 2)
    return text[start : None if end < 0 else end]


def _title(first_line: str) -> str:
    """``**Blocked supplier.** If ...`` -> ``Blocked supplier``; ``Otherwise **approve**.`` -> ``Otherwise
    approve``."""
    bold = re.match(r"\*\*(.+?)\*\*", first_line)
    text = bold.group(1) if bold else first_line.replace("**", "").split(". ")[0]
    return text.strip().rstrip(".")
