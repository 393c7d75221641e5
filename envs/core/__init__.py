"""What every domain shares: the ``ToolEnv`` base, the ``@tool`` decorator, grades and rendering."""

from .grade import Grade
from .tool import MaxLen, Range, Tool, ToolError, tool
from .tool_env import ToolEnv
from .toolbox import FINISH, Outcome, ToolBox

__all__ = ["FINISH", "Grade", "MaxLen", "Outcome", "Range", "Tool", "ToolBox", "ToolEnv", "ToolError", "tool"]
