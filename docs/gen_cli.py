"""The manual's command-line reference, generated from ``officegym.cli.build_parser()`` at every build.

A hand-written reference drifts the day someone adds an option; this one is the parser's own ``--help``, so it
cannot. MkDocs runs the module as a hook (``mkdocs.yml``: ``hooks:``), and its ``on_files`` adds the page
``reference/cli.md`` to the build without writing a file into ``docs/``. Run it as a script to print the page:
``.venv/bin/python docs/gen_cli.py``.

The help text is formatted at a fixed width (``WIDTH``), whatever terminal the build runs in, so two builds of
the same parser give the same page.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PAGE = "reference/cli.md"
WIDTH = 100
INTRO = """# Command line

`officegym` is installed with the package (`.venv/bin/officegym` in a checkout). This page is generated from
the parser itself at every build of the manual, so it lists exactly the subcommands and options of this
version. A bad argument ends the command with exit code 2 and a one-line message that names the fix.
"""


@contextmanager
def _fixed_width(columns: int = WIDTH) -> Iterator[None]:
    """argparse wraps help text at the terminal's width (``COLUMNS``); pin it while the help is formatted."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns + 2)  # argparse subtracts 2
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of every subcommand, in the order ``build_parser`` adds them."""
    found: list[tuple[str, str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            found += [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return found


def cli_markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """The whole reference page: the top-level usage, then each subcommand's help as ``--help`` prints it."""
    if parser is None:
        from officegym.cli import build_parser

        parser = build_parser()
    with _fixed_width():
        parts = [INTRO, "```text", parser.format_help().rstrip(), "```", ""]
        commands = _subcommands(parser)
        parts += ["| command | what it does |", "|---|---|"]
        parts += [f"| [`officegym {name}`](#officegym-{name}) | {text} |" for name, text, _ in commands]
        parts.append("")
        for name, text, sub in commands:
            parts += [f"## officegym {name}", "", f"{text[:1].upper()}{text[1:]}.", ""]
            parts += ["```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """MkDocs hook: add the generated page to the build (it exists only in the built site)."""
    files.append(File.generated(config, PAGE, content=cli_markdown()))
    return files


if __name__ == "__main__":
    print(cli_markdown())
