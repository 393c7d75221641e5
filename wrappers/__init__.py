"""Wrappers: chat transcripts and tool-call parsing for LLM agents; progress diagnostics, potential-based
reward shaping, and the discrete-action / text-feature adapter for Stable-Baselines3 and RLlib (``sb3_env``
builds the whole SB3 stack; Stable-Baselines3 itself is imported only when it is called)."""

from .chat import ChatWrapper as ChatWrapper
from .diagnostics import ProgressDiagnostics as ProgressDiagnostics
from .discrete import DiscreteToolCalls as DiscreteToolCalls
from .features import HashedBagOfWords as HashedBagOfWords
from .mask_observation import MaskInObservation as MaskInObservation
from .parsing import parse_assistant_message as parse_assistant_message
from .sb3 import SuccessInfo as SuccessInfo
from .sb3 import sb3_env as sb3_env
from .shaping import PotentialShaping as PotentialShaping
