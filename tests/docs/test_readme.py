"""The front page stays a front page, and what it shows works; the manual builds strictly.

- README.md is at most 10 KB (``MAX_README_BYTES``): a newcomer's first screen, with the detail in ``docs/``.
- Every ```` ```python ```` block of the README runs, each in a fresh interpreter (its own namespace, as a reader
  pasting it would have). A comment ``<!-- readme-test: needs MODULE ... -->`` on the line before a block skips it
  when one of those modules is missing (an extra not installed); ``<!-- readme-test: network -->`` marks a block
  that needs a network or an API key, which is only compiled.
- Every ```` ```bash ```` / ```` ```sh ```` block marked ``<!-- readme-test: run -->`` runs, command by command
  (only ``officegym`` commands may be marked so); in every other shell block each ``officegym ...`` command must
  parse with ``officegym.cli.build_parser()``, so no option or env id in the README can go stale.
- Every relative link of the README points at a file of the checkout, and every ```` ```python ```` block of the
  manual (``docs/``) compiles.
- ``mkdocs build --strict`` passes (broken links, anchors and API references fail it), when mkdocs is installed.

Subprocess limits are hang guards (``HANG_GUARD``), not speed checks.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from officegym.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_BYTES = 10_240
HANG_GUARD = 600
MARKER = re.compile(r"^<!--\s*readme-test:\s*(?P<how>run|parse|network|needs)\b(?P<rest>[^>]*?)\s*-->$")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
SHELLS = ("bash", "sh", "shell", "console")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file, with the marker comment on the line before it (if any)."""

    lang: str
    code: str
    line: int
    how: str
    needs: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.lang}-line-{self.line}"


def code_blocks(text: str) -> list[Block]:
    """Every fenced block, in order. A marker applies to the block whose opening fence follows it directly."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        start, body = index, []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        marker = MARKER.match(lines[start - 1].strip()) if start > 0 else None
        how = marker["how"] if marker else ""
        needs = tuple(marker["rest"].split()) if marker and how == "needs" else ()
        blocks.append(Block(opening["lang"], "\n".join(body) + "\n", start + 1, how, needs))
        index += 1
    return blocks


def shell_commands(code: str) -> list[list[str]]:
    """The commands of a shell block as argv lists: continuation lines joined, comments and blanks dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    commands = [shlex.split(line, comments=True) for line in joined.splitlines()]
    return [argv for argv in commands if argv]


def is_officegym(argv: list[str]) -> bool:
    return Path(argv[0]).name == "officegym"


README_TEXT = README.read_text(encoding="utf-8")
BLOCKS = code_blocks(README_TEXT)
PYTHON_BLOCKS = [block for block in BLOCKS if block.lang == "python"]
SHELL_BLOCKS = [block for block in BLOCKS if block.lang in SHELLS]


def test_the_readme_is_a_front_page() -> None:
    size = len(README_TEXT.encode("utf-8"))
    assert size <= MAX_README_BYTES, f"README.md is {size:,} bytes: move detail into docs/ (the limit is 10 KB)"


def test_the_readme_shows_python_and_commands() -> None:
    """The parser finds what the front page promises: Python use, a command that runs, commands that parse."""
    assert PYTHON_BLOCKS, "no ```python block found in README.md"
    assert any(block.how == "run" for block in SHELL_BLOCKS), "no shell block marked <!-- readme-test: run -->"
    assert any(is_officegym(argv) for block in SHELL_BLOCKS for argv in shell_commands(block.code))


def test_the_block_parser_reads_markers_and_fences() -> None:
    text = "x\n<!-- readme-test: needs trl datasets -->\n```python\nimport trl\n```\n\n```bash\nmake demo\n```\n"
    first, second = code_blocks(text)
    assert (first.lang, first.how, first.needs, first.code) == ("python", "needs", ("trl", "datasets"), "import trl\n")
    assert (second.lang, second.how, second.line) == ("bash", "", 7)
    assert shell_commands("a b \\\n   --c 'd e'  # note\n\n# only a comment\n") == [["a", "b", "--c", "d e"]]


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda block: block.name)
def test_every_python_block_runs(block: Block, tmp_path: Path) -> None:
    if block.how == "network":
        compile(block.code, f"README.md:{block.line}", "exec")
        return
    missing = [module for module in block.needs if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (an extra that is not installed)")
    done = subprocess.run(
        [sys.executable, "-c", block.code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert done.returncode == 0, f"README.md line {block.line} failed:\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda block: block.name)
def test_every_officegym_command_parses(block: Block) -> None:
    for argv in filter(is_officegym, shell_commands(block.code)):
        try:
            build_parser().parse_args(argv[1:])
        except SystemExit as exit_:
            pytest.fail(f"README.md line {block.line}: {shlex.join(argv)} does not parse (exit {exit_.code})")


@pytest.mark.parametrize("block", [b for b in SHELL_BLOCKS if b.how == "run"], ids=lambda block: block.name)
def test_every_shell_block_marked_run_runs(block: Block, tmp_path: Path) -> None:
    commands = shell_commands(block.code)
    assert commands and all(map(is_officegym, commands)), "only officegym commands may be marked run"
    for argv in commands:
        done = subprocess.run(
            [sys.executable, "-m", "officegym.cli", *argv[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
        assert done.returncode == 0, f"README.md line {block.line}: {shlex.join(argv)}\n{done.stdout}\n{done.stderr}"


def test_relative_links_point_at_files() -> None:
    targets = re.findall(r"\]\((?!https?://|#|mailto:)([^)\s]+)\)", README_TEXT)
    missing = [target for target in targets if not (ROOT / target.split("#")[0]).exists()]
    assert targets and missing == []


@pytest.mark.parametrize("page", sorted(ROOT.glob("docs/**/*.md")), ids=lambda page: page.name)
def test_every_python_block_of_the_manual_compiles(page: Path) -> None:
    """The manual's examples need models, servers or extras to run; they must at least be Python."""
    for block in code_blocks(page.read_text(encoding="utf-8")):
        if block.lang == "python":
            compile(block.code, f"{page.relative_to(ROOT)}:{block.line}", "exec")


def test_the_manual_builds_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict``: a broken link, anchor or API reference (a renamed function) fails the build."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    config, site = str(ROOT / "mkdocs.yml"), str(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", config, "--site-dir", site],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()
    assert (tmp_path / "site" / "api" / "splits" / "index.html").is_file()
