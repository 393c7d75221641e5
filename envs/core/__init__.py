"""What every domain shares: the ``ToolEnv`` base, the ``@tool`` decorator, grades and rendering."""

from .actions import FINISH, FINISH_ACTION, FINISH_SCHEMA, Action
from .grade import Grade
from .tool import MaxLen, Range, Tool, ToolError, tool
from .tool_env import ToolEnv
from .toolbox import Outcome, ToolBox

__all__ = [
    "FINISH",
    "FINISH_ACTION",
    "FINISH_SCHEMA",
    "Action",
    "Grade",
    "MaxLen",
    "Outcome",
    "Range",
    "Tool",
    "ToolBox",
    "ToolEnv",
    "ToolError",
    "tool",
]
