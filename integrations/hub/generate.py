"""Write the Environments Hub packages, one per env id, from ``template/``; ``--check`` verifies they are current.

Each env id is a verifiers environment of its own (``officegym/InvoiceApproval-v1`` ->
``officegym_invoice_approval_v1/``: ``pyproject.toml``, ``README.md``, ``officegym_invoice_approval_v1.py``), as
the Hub expects one package per environment. The packages hold no logic (their module delegates to
``officegym.integrations.verifiers``), so they are generated rather than copied by hand: one template, and
the card's facts read from the env itself (its docstring's summary, Description and Rewards sections, its
``split_sources`` docstring, its test tasks and tiers, its tools, its grade's components). An env docstring or
task set that changes therefore needs a rerun, which ``--check`` (run by the tests) points out::

    .venv/bin/python integrations/hub/generate.py          # (re)write every package
    .venv/bin/python integrations/hub/generate.py --check  # exit 1, naming each stale file, when one is stale

Only cheap facts go on a card: nothing here generates a training company.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from string import Template
from typing import Any

import gymnasium as gym

import officegym
from officegym.integrations.verifiers import class_prefix, package_id, package_module
from officegym.registration import env_class

HUB = Path(__file__).resolve().parent
TEMPLATE = HUB / "template"
ROOT = HUB.parents[1]
COMMAND = ".venv/bin/python integrations/hub/generate.py"
FILES = {"pyproject.toml": "pyproject.toml.tmpl", "README.md": "README.md.tmpl", "{module}.py": "module.py.tmpl"}
"""Each package's files (``{module}`` is the package's module name) and the template each is written from."""


def officegym_version() -> str:
    """The version the checkout builds: each package pins ``officegym[verifiers]`` to it."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def markdown(text: str) -> str:
    """Docstring text (reStructuredText literals) as Markdown."""
    return re.sub(r"``(.+?)``", r"`\1`", text.strip())


def section(doc: str, title: str) -> str:
    """The body of a ``## title`` section of an env docstring (empty when it has none)."""
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, flags=re.MULTILINE | re.DOTALL)
    return markdown(found.group(1)) if found else ""


def tier_counts(tool_env: Any) -> str:
    """``easy 10, hard 10``: the test tasks per tier, in the env's tier order."""
    counts = Counter(tool_env.task_tier(task_id) for task_id in tool_env.task_ids)
    order = [tier for tier in getattr(tool_env, "TIERS", ()) if tier in counts] or sorted(counts)
    return ", ".join(f"{tier} {counts[tier]}" for tier in order)


def tool_lines(tool_env: Any) -> str:
    """One bullet per tool: its name and the first sentence of the description the model reads."""
    lines = []
    for schema in tool_env.tool_schemas:
        function = schema["function"]
        first = re.split(r"(?<=\.)\s", " ".join(str(function.get("description", "")).split()), maxsplit=1)[0]
        lines.append(f"- `{function['name']}`: {first}" if first else f"- `{function['name']}`")
    return "\n".join(lines)


def metric_rows(env_id: str) -> str:
    """A table row per numeric grade component (``grade_<name>``), read from an untouched episode's grade."""
    env = gym.make(env_id)
    try:
        env.reset(seed=0)
        _, grade = env.unwrapped.cut_off()  # type: ignore[attr-defined]
    finally:
        env.close()
    names = [key for key, value in grade.items() if key != "reward" and isinstance(value, int | float)]
    return "\n".join(f"| `grade_{name}` | the grade's `{name}` |" for name in names)


def context(env_id: str) -> dict[str, str]:
    """Everything the templates name, for one env id."""
    cls = env_class(env_id)
    doc = inspect.getdoc(cls) or env_id
    env = gym.make(env_id)
    try:
        tool_env: Any = env.unwrapped
        test_count, tiers, tools = str(len(tool_env.task_ids)), tier_counts(tool_env), tool_lines(tool_env)
    finally:
        env.close()
    module, taskset_class = package_module(env_id), f"{class_prefix(env_id)}Taskset"
    exports = ["ENV_ID", "PACKAGE_ID", *sorted([taskset_class, "OfficeGymEnv", "OfficeGymHarness"])]
    domain = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", env_id.split("/")[-1].rsplit("-", 1)[0]).lower()
    return {
        "env_id": env_id,
        "package": package_id(env_id),
        "module": module,
        "taskset_class": taskset_class,
        "class_imports": ", ".join(sorted([taskset_class, "OfficeGymEnv", "OfficeGymHarness"])),
        "all_names": "[" + ", ".join(f'"{name}"' for name in [*exports, "load_environment"]) + "]",
        "version": officegym_version(),
        "summary": markdown(doc.splitlines()[0]),
        "summary_toml": json.dumps(doc.splitlines()[0], ensure_ascii=False)[1:-1],
        "description": section(doc, "Description"),
        "rewards": section(doc, "Rewards"),
        "train_split": markdown(" ".join((inspect.getdoc(cls.split_sources) or "").split())),
        "test_count": test_count,
        "test_tiers": tiers,
        "tools": tools,
        "metrics": metric_rows(env_id),
        "domain_tag": domain,
        "tags": ", ".join(["tool-use", "multi-turn", domain, "officegym", "train", "eval"]),
    }


def rendered(env_id: str) -> dict[Path, str]:
    """The files of one env id's package, by path, as the templates make them."""
    values = context(env_id)
    folder = HUB / values["module"]
    return {
        folder / name.format(module=values["module"]): Template((TEMPLATE / template).read_text()).substitute(values)
        for name, template in FILES.items()
    }


def expected() -> dict[Path, str]:
    """Every package's files, for every env id officegym registers."""
    files: dict[Path, str] = {}
    for env_id in sorted(officegym.ENV_IDS):
        files |= rendered(env_id)
    return files


def stale(files: dict[Path, str]) -> list[str]:
    """What differs from ``files`` on disk: missing or changed files, and package folders no env id makes."""
    problems = [
        f"{path.relative_to(ROOT)} is {'missing' if not path.exists() else 'out of date'}"
        for path, text in files.items()
        if not path.exists() or path.read_text() != text
    ]
    folders = {path.parent for path in files}
    problems += [
        f"{folder.relative_to(ROOT)} belongs to no registered env id"
        for folder in sorted(HUB.glob("officegym_*"))
        if folder.is_dir() and folder not in folders
    ]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="verify the packages are current; write nothing")
    args = parser.parse_args(argv)
    files = expected()
    if args.check:
        problems = stale(files)
        for problem in problems:
            print(f"Error: {problem}: run {COMMAND}", file=sys.stderr)
        return 1 if problems else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
