"""Wrappers: chat transcripts and tool-call parsing for LLM agents."""

from .chat import ChatWrapper as ChatWrapper
from .parsing import parse_assistant_message as parse_assistant_message
