"""Every example in a docstring runs: the env docstrings teach a newcomer with them, so they must stay true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import officegym

# The repository root is the package root, so the walk also meets the checkout's own folders; they are not
# part of the distribution (pyproject's package list) and are left out.
NOT_SHIPPED = ("officegym.benchmarks", "officegym.examples", "officegym.tests")
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(officegym.__path__, prefix="officegym.")
    if not info.name.startswith(NOT_SHIPPED) and not info.name.endswith("__main__")
)


def _has_examples(name: str) -> bool:
    return any(test.examples for test in doctest.DocTestFinder().find(importlib.import_module(name)))


WITH_EXAMPLES = [name for name in MODULES if _has_examples(name)]


def test_the_env_docstrings_have_examples() -> None:
    assert "officegym.envs.invoice_approval.v0.env" in WITH_EXAMPLES
    assert "officegym.envs.vendor_review.v0.env" in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples in {name} failed"
