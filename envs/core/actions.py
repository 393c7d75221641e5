"""What an action is, and the one action every env understands: ``finish``.

An action is one tool call, ``{"name": str, "arguments": dict}`` (``spaces.ToolCall`` also accepts its JSON
text). ``finish`` is reserved: it ends the episode and has the work graded as it stands. It is not offered to a
language model as a tool unless asked for (``ChatWrapper(offer_finish=True)``), which is why its schema lives
here and not among any domain's tools.
"""

from __future__ import annotations

from typing import Final

from ...spaces.json_schema import JsonSchema
from ...spaces.tool_call import Action

__all__ = ["FINISH", "FINISH_ACTION", "FINISH_SCHEMA", "Action"]

FINISH: Final = "finish"
FINISH_ACTION: Final[Action] = {"name": FINISH, "arguments": {}}
"""Shared by every caller: treat it as read-only (nothing in officegym edits an action it is given)."""
FINISH_SCHEMA: Final[JsonSchema] = {
    "type": "function",
    "function": {
        "name": FINISH,
        "description": "Say that you are done. The episode ends and your work is graded as it stands.",
        "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    },
}
