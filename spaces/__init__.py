"""Spaces for text worlds: ``AnyText`` observations and ``ToolCall`` actions."""

from .any_text import AnyText
from .tool_call import ToolCall, parse_action

__all__ = ["AnyText", "ToolCall", "parse_action"]
