"""A missing optional dependency names what needs it and the command that installs it."""

from __future__ import annotations

import pytest

from officegym.integrations.optional import import_optional, install_hint


def test_a_missing_module_names_the_extra() -> None:
    with pytest.raises(
        ImportError, match=r"the bridge needs it \(no_such_pkg is missing\): pip install 'officegym\[x\]'"
    ):
        import_optional("no_such_pkg", "the bridge needs it", "x")


def test_an_installed_module_is_returned() -> None:
    assert import_optional("json", "never", "none").dumps([1]) == "[1]"
    assert install_hint("trl") == "pip install 'officegym[trl]'"
