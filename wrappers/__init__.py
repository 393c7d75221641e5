"""Wrappers: chat transcripts and tool-call parsing for LLM agents; progress diagnostics, potential-based
reward shaping, and the discrete-action / text-feature adapter for Stable-Baselines3 and RLlib."""

from .chat import ChatWrapper as ChatWrapper
from .diagnostics import ProgressDiagnostics as ProgressDiagnostics
from .discrete import DiscreteToolCalls as DiscreteToolCalls
from .features import HashedBagOfWords as HashedBagOfWords
from .mask_observation import MaskInObservation as MaskInObservation
from .parsing import parse_assistant_message as parse_assistant_message
from .shaping import PotentialShaping as PotentialShaping
