"""The @tool decorator turns a typed, documented function into the schema the model reads."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest

from officegym.envs.core import MaxLen, Range, tool
from officegym.envs.core.tool import DEFAULT_MAX_STRING


def _sample_tool(
    ctx: object,
    name: str,
    mode: Literal["a", "b"],
    count: Annotated[int, Range(1, 9)] = 3,
    note: Annotated[str, MaxLen(40)] = "",
    flag: bool = False,
) -> str:
    """Do a thing the model should understand.

    Second paragraph of the description.

    Args:
        name: The name to use,
            continued on a second line.
        mode: Which mode.
        count: How many (1-9).
        note: A note.
        flag: A flag.

    Returns:
        A confirmation.
    """
    return f"{name}-{mode}-{count}"


sample_tool = tool(writes=True)(_sample_tool)


def test_schema_from_signature_and_docstring() -> None:
    schema = sample_tool.openai_schema()["function"]
    params = schema["parameters"]
    assert schema["name"] == "_sample_tool"
    assert schema["description"].startswith("Do a thing the model should understand.\n\nSecond paragraph")
    assert "Returns: A confirmation." in schema["description"]
    assert params["required"] == ["name", "mode"]
    assert params["additionalProperties"] is False
    assert params["properties"]["name"] == {
        "type": "string",
        "maxLength": DEFAULT_MAX_STRING,
        "description": "The name to use, continued on a second line.",
    }
    assert params["properties"]["mode"]["enum"] == ["a", "b"]
    assert params["properties"]["count"]["minimum"] == 1 and params["properties"]["count"]["maximum"] == 9
    assert params["properties"]["note"]["maxLength"] == 40
    assert params["properties"]["flag"]["type"] == "boolean"
    assert sample_tool.writes and not sample_tool.terminal


def test_every_invoice_tool_is_fully_documented() -> None:
    from officegym.envs.invoice_approval.v0.tools import TOOLS

    assert len(TOOLS) == 11
    for t in TOOLS:
        assert len(t.description) > 40, t.name
        for name, prop in t.parameters["properties"].items():
            assert prop.get("description"), f"{t.name}.{name} has no description"


def test_a_parameter_the_docstring_does_not_document_is_refused() -> None:
    def half_documented(ctx: object, invoice_id: str, note: str = "") -> str:
        """Read an invoice.

        Args:
            invoice_id: The invoice.
        """
        return invoice_id

    with pytest.raises(TypeError, match=r"half_documented: parameter\(s\) note not documented"):
        tool()(half_documented)


def test_an_args_entry_for_a_parameter_that_does_not_exist_is_refused() -> None:
    def stale(ctx: object, invoice_id: str) -> str:
        """Read an invoice.

        Args:
            invoice_id: The invoice.
            supplier_id: Renamed away long ago.
        """
        return invoice_id

    with pytest.raises(TypeError, match="documents supplier_id, which the function does not take"):
        tool()(stale)


def test_a_tool_without_a_description_is_refused() -> None:
    def bare(ctx: object) -> str:
        return ""

    with pytest.raises(TypeError, match="bare: the docstring has no description"):
        tool()(bare)
