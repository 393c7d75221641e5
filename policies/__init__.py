"""Policies: the interface, the generic scripted ones (oracle, random), the name registry that adds each
domain's own, the chat-policy interface the eval harness drives, and the OpenAI-compatible LLM policy."""

from .base import Action, Policy
from .random_policy import RandomPolicy
from .rollout import EpisodeResult, run_episode
from .scripted import OraclePolicy, ScriptedPolicy

__all__ = ["Action", "EpisodeResult", "OraclePolicy", "Policy", "RandomPolicy", "ScriptedPolicy", "run_episode"]
