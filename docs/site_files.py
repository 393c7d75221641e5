"""Files the manual shows that live elsewhere in the repository, added to the build without a copy in ``docs/``.

- The benchmark plots (``benchmarks/results/*.png``): ``make bench`` rewrites them in place, and a copy under
  ``docs/`` would go stale silently. They appear in the site as ``results/<name>.png``.
- ``CHANGELOG.md`` at the repository root (where packaging tools and readers look for it) becomes the page
  ``changelog.md``. Without one, the page says where the history is kept instead of breaking the build.

MkDocs runs this module as a hook (``mkdocs.yml``: ``hooks:``).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CHANGELOG = ROOT / "CHANGELOG.md"
NO_CHANGELOG = """# Changelog

Release notes are kept in `CHANGELOG.md` at the root of the repository. The differences between environment
versions are on each environment's page ([InvoiceApproval-v1](envs/invoice-approval-v1.md#what-changed-from-v0),
[VendorReview-v2](envs/vendor-review-v2.md)).
"""


def changelog_page() -> str:
    """The changelog page's Markdown: the root ``CHANGELOG.md`` as it is, or a pointer when there is none."""
    return CHANGELOG.read_text(encoding="utf-8") if CHANGELOG.is_file() else NO_CHANGELOG


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """MkDocs hook: the plots under ``results/`` and the changelog page."""
    for plot in sorted(RESULTS.glob("*.png")):
        files.append(File.generated(config, f"results/{plot.name}", abs_src_path=str(plot)))
    files.append(File.generated(config, "changelog.md", content=changelog_page()))
    return files
