"""Scripted policies (oracle, random and the domain baselines) and the rollout helper."""

from .base import Action, Policy
from .oracle import OraclePolicy, ScriptedPolicy
from .random_policy import RandomPolicy
from .rollout import EpisodeResult, run_episode

__all__ = ["Action", "EpisodeResult", "OraclePolicy", "Policy", "RandomPolicy", "ScriptedPolicy", "run_episode"]
