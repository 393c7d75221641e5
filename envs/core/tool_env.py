"""``ToolEnv``: the Gymnasium face shared by every officegym domain, and the domain contract.

The Gymnasium side (DESIGN.md): the observation is text (the opening work order, then each tool's result); an
action is one tool call; ``finish`` ends the episode; every failure is an ``Error: ...`` observation that
changes nothing and never raises; the reward is 0 until the last step, which carries the grade; ``max_turns``
truncates and is graded on the final state.

The domain contract is everything else that code outside a domain's folder may know of it. The CLI, the demo,
``wrappers/``, ``policies/`` and ``evaluation/`` use these members and the registry, never a domain class:

========================  ==========================================================================
``task_ids``              the selected tasks, in a fixed order (``reset`` draws from them)
``task_tier(task_id)``    a task's tier; ``TIERS`` lists the domain's tiers, easiest first
``gold_actions(task_id)`` the reference path (the oracle plays it; it scores full marks)
``scripted_policies()``   the domain's own scripted policies by name (beside the generic oracle/random)
``DEMO``                  the episode ``officegym demo`` renders and the policies it scores
``progress()``            the grade's components as they stand now, floats under stable keys
``failure_report()``      what differs from the gold outcome, one row per differing field (empty on full marks)
``shaping_potential(m)``  Phi of those measures, for ``wrappers.PotentialShaping``
``action_catalogue(h)``   the fixed discrete action catalogue for ``wrappers.DiscreteToolCalls``
``split_sources(s, n)``   env arguments of the task sources of split ``"train"`` or ``"test"`` (n at most)
``ID_PATTERNS``           regexes of the IDs the domain's observations show, keyed by the argument that
                          takes them (a list argument takes a list of such IDs)
``system_prompt()``       the policy text an LLM agent gets as its system message
``episode``               the current episode's private world (None before ``reset``)
========================  ==========================================================================

A subclass supplies the tools (``TOOLS``) and four hooks: ``_task_ids``, ``_start_episode``,
``_grade_episode`` and ``task_tier``. ``envs/README.md`` walks through a whole domain, file by file.
"""

from __future__ import annotations

import copy
import difflib
import logging
import re
import threading
from abc import abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import gymnasium as gym
import numpy as np
from rich.console import Console

from ...spaces import AnyText, ToolCall
from ...spaces.json_schema import JsonSchema
from ...spaces.safe_value import safe_text
from . import arguments
from .actions import FINISH_SCHEMA, Action
from .catalogue import Catalogue
from .demo import Demo
from .episode_stats import EpisodeStats
from .grade import Grade
from .rendering import TranscriptEntry, print_entry, print_grade, transcript_text
from .tool import Tool
from .toolbox import Outcome, ToolBox, no_transaction

if TYPE_CHECKING:
    from ...policies.base import Policy

log = logging.getLogger(__name__)
Ctx = TypeVar("Ctx")
PolicyFactory = Callable[[Any, int], "Policy"]
"""Makes a scripted policy for an env (the unwrapped env, and a seed for the policy's own randomness)."""


class ToolEnv(gym.Env[str, Action], Generic[Ctx]):
    """Base class of the tool-using environments. Subclasses set ``TOOLS`` and implement the hooks."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012
    TOOLS: ClassVar[tuple[Tool, ...]] = ()
    TIERS: ClassVar[tuple[str, ...]] = ()
    DEMO: ClassVar[Demo | None] = None
    _arguments: tuple[tuple[Any, ...], dict[str, Any]]
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = {}
    RESET_OPTIONS: ClassVar[tuple[str, ...]] = ("task_id",)
    """The keys ``reset(options=...)`` reads. Any other key is refused: a typo such as ``{"task": ...}`` would
    otherwise be ignored and the episode played on a random task. A domain that reads more keys extends this."""

    def __new__(cls, *args: Any, **kwargs: Any) -> ToolEnv[Any]:
        """Remember the constructor's arguments (every subclass's, with no code of its own), so that ``fork``
        and unpickling can build the same env again."""
        env: ToolEnv[Any] = super().__new__(cls)
        env._arguments = (args, dict(kwargs))
        return env

    def __init__(self, *, max_turns: int, render_mode: str | None = None) -> None:
        render_mode = arguments.render_mode(render_mode, self.metadata["render_modes"])
        max_turns = arguments.max_turns(max_turns)
        self.render_mode = render_mode
        self.max_turns = max_turns
        self.toolbox = ToolBox(self.TOOLS, self._atomic)
        self.tool_schemas: list[JsonSchema] = self.toolbox.schemas()
        self.action_space = ToolCall([*self.tool_schemas, FINISH_SCHEMA])
        self.observation_space = AnyText()
        self.stats = EpisodeStats()
        self._ctx: Ctx | None = None
        self._done = True
        self._transcript: list[TranscriptEntry] = []
        self._final_grade: dict[str, Any] | None = None
        self._console: Console | None = None
        self._in_use = threading.Lock()

    # ----------------------------------------------------------------- hooks for the domain
    @abstractmethod
    def _task_ids(self) -> Sequence[str]:
        """The selected tasks, in a fixed order (reset draws from them with the seeded RNG)."""

    @abstractmethod
    def _start_episode(self, task_id: str) -> tuple[Ctx, str, dict[str, Any]]:
        """A fresh private world for ``task_id``: the context tools receive, the opening message, and the
        task's info (``tier`` and whatever else the domain reports at reset)."""

    @abstractmethod
    def _grade_episode(self, ctx: Ctx) -> Grade:
        """Grade the final state of the episode."""

    @abstractmethod
    def system_prompt(self) -> str:
        """The policy text an LLM agent gets as its system message."""

    @abstractmethod
    def task_tier(self, task_id: str) -> str:
        """The tier of a task (one of ``TIERS``)."""

    # ----------------------------------------------------------------- the domain contract
    @property
    def task_ids(self) -> list[str]:
        """The selected tasks, in the fixed order ``reset`` draws from (a copy: editing it changes nothing)."""
        return list(self._task_ids())

    @property
    def episode(self) -> Ctx | None:
        """The current episode's private world (what the tools act on); None before the first ``reset``."""
        return self._ctx

    def gold_actions(self, task_id: str) -> list[Action]:
        """The reference path of a task (what the oracle plays). Domains with a reference override this."""
        raise NotImplementedError(f"{type(self).__name__} has no reference path")

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        """The domain's own scripted policies by name (baselines, solvers); the generic ``oracle`` and
        ``random`` play every env and are not listed here. A class method, so names are known without an env."""
        return {}

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """The env arguments of the task sources of a split (``"train"`` or ``"test"``), at most ``count``: a
        domain trains on sources that share nothing memorable with those it is evaluated on. By default a domain
        has only its shipped tasks, for evaluation (``officegym.splits`` builds rows from these)."""
        if split in ("test", "eval"):  # "eval": the name splits.py used before there were test deals
            return [{}]
        raise arguments.ArgumentError(
            f"{cls.__name__} has no training split: its shipped tasks are for testing only; use split='test'"
        )

    def progress(self) -> dict[str, float]:
        """The grade's components as they stand now, under stable keys (``reward`` among them). Reading it
        changes nothing. Diagnostics and shaping need it; a domain without it cannot be shaped."""
        raise TypeError(f"{type(self).__name__} reports no progress; diagnostics and shaping need progress()")

    def failure_report(self) -> list[dict[str, Any]]:
        """What the episode as it stands gets wrong, one ``{"kind", "record", "field", "expected", "actual",
        "rule"}`` row of strings per differing field (an invoice decided differently, a gap not flagged, ...;
        the format is ``evaluation/failures.py``'s); empty exactly when the grade is full marks. For failure
        analysis: the grade says how much, this says where. Reading it changes nothing."""
        raise TypeError(f"{type(self).__name__} has no failure report")

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        """Phi(s) of the progress ``measures``, bounded by the final reward's size (see ``wrappers/shaping.py``)."""
        raise TypeError(f"no default shaping potential for {type(self).__name__}; pass potential=...")

    def action_catalogue(self, horizon: int) -> Catalogue:
        """The domain's fixed discrete action catalogue (``horizon`` scales its turn feature)."""
        raise TypeError(f"no action catalogue for {type(self).__name__}; pass catalogue=...")

    def _atomic(self, ctx: Ctx, tool: Tool) -> AbstractContextManager[None]:
        """Wrap one call of a tool marked ``writes=True`` so that a failure leaves no trace (reads run bare).
        Domains with a database override this."""
        return no_transaction(ctx, tool)

    # ----------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        if not self._in_use.acquire(False):
            self._refuse_second_thread()
        try:
            return self._reset(seed, options)
        finally:
            self._in_use.release()

    def _reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
        task_ids = self._task_ids()
        task_id = self._requested_task(options, task_ids)
        super().reset(seed=seed)
        if task_id is None:
            task_id = task_ids[int(self.np_random.integers(len(task_ids)))]
        self._ctx, opening, task_info = self._start_episode(task_id)
        self.stats = EpisodeStats()
        self._done = False
        self._final_grade = None
        self._transcript = [TranscriptEntry(0, None, {}, opening)]
        if self.render_mode == "human":
            print_entry(self._get_console(), self._transcript[0])
        info = {"system_prompt": self.system_prompt(), "tools": self.tool_schemas, "task_id": task_id, **task_info}
        return opening, info

    def _requested_task(self, options: Any, task_ids: Sequence[str]) -> str | None:
        """The task ``options`` names (None: draw one), or a one-line error, raised before the reset touches
        anything: a refused reset neither reseeds the RNG nor ends the episode in play."""
        if options is None:
            return None
        example = f"reset(options={{'task_id': {next(iter(task_ids), 'TASK_ID')!r}}})"
        if not isinstance(options, Mapping):
            raise arguments.ArgumentError(
                f"reset options must be a dict or None, got {type(options).__name__}; e.g. {example}"
            )
        unknown = [key for key in options if key not in self.RESET_OPTIONS]
        if unknown:
            raise arguments.ArgumentError(self._unknown_options_message(unknown, example))
        task_id = options.get("task_id")
        if task_id is not None and task_id not in task_ids:
            raise arguments.ArgumentError(
                f"unknown task_id {task_id!r} for {self._name()}; it has {len(task_ids)} selected tasks "
                f"(e.g. {', '.join(repr(task) for task in task_ids[:3])}; all in env.unwrapped.task_ids)"
            )
        return task_id

    def _name(self) -> str:
        """The registered id in messages (``gym.make`` sets the spec), else the class."""
        return self.spec.id if self.spec is not None else type(self).__name__

    def _unknown_options_message(self, unknown: list[Any], example: str) -> str:
        """Names the refused keys, the closest valid key to each, and every key the env reads."""
        name = self._name()
        hints = [
            f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)
            for key in unknown
            for close in [difflib.get_close_matches(str(key), self.RESET_OPTIONS, n=1)]
        ]
        valid = ", ".join(repr(key) for key in self.RESET_OPTIONS)
        return f"unknown reset option {', '.join(hints)} for {name}; the options it reads are {valid}, e.g. {example}"

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not self._in_use.acquire(False):  # positional: the keyword form costs a tenth of a step
            self._refuse_second_thread()
        try:
            if self._done or self._ctx is None:
                return "Error: the episode is over; call reset() to start a new one.", 0.0, True, False, {}
            stats = self.stats
            stats.turns += 1
            try:
                outcome = self.toolbox.execute(self._ctx, action)
            except Exception as error:  # the toolbox refuses every bad input it knows of; this is the last line
                log.exception("action could not be processed")
                outcome = Outcome(
                    f"Error: the action could not be processed ({type(error).__name__}); nothing was changed",
                    is_error=True,
                )
            if outcome.tool is not None:
                stats.tool_calls[outcome.tool] += 1
            if outcome.is_error:
                stats.invalid_calls += 1
            observation, terminated = outcome.observation, outcome.ended
            truncated = not terminated and stats.turns >= self.max_turns
            info: dict[str, Any] = {"turn": stats.turns, "is_error": outcome.is_error}
            reward = 0.0
            if terminated or truncated:
                reward, info["grade"] = self._finish_grading()
            if self.render_mode is not None:
                self._record(action, outcome)
            return observation, reward, terminated, truncated, info
        finally:
            self._in_use.release()

    def render(self) -> Any:  # str in "ansi" mode, else None; gymnasium versions type this differently
        if self.render_mode == "ansi":
            return transcript_text(type(self).__name__, self._transcript, self._final_grade)
        return None

    def cut_off(self) -> tuple[float, dict[str, Any]]:
        """End the episode where it stands, as reaching ``max_turns`` would: grade it and return ``(reward,
        info["grade"])``; later steps answer ``Error:``. For a limit kept outside the env (Gymnasium's
        ``TimeLimit``, see ``time_limit.py``). Ending an episode that has ended returns its grade again."""
        if self._final_grade is not None:
            return float(self._final_grade["reward"]), self._final_grade
        if self._ctx is None:
            raise RuntimeError("cut_off() needs an episode: call reset() first")
        if not self._in_use.acquire(False):
            self._refuse_second_thread()
        try:
            return self._finish_grading()
        finally:
            self._in_use.release()

    def close(self) -> None:
        self._ctx = None
        self._done = True

    # ----------------------------------------------------------------- forks, copies, pickles and threads
    def fork(self) -> ToolEnv[Ctx]:
        """An independent copy of this env at its current state: the same task, books or documents, turn count,
        transcript and random state. Steps on the fork never show in the original, nor the other way round. For
        tree search, best-of-n from a midpoint and branching rollouts. ``copy.copy`` and ``copy.deepcopy`` fork.

        In-process, so what never changes after construction (tools, tasks, the company's books template) is
        shared and only the episode is copied; pickling rebuilds the env from its constructor arguments."""
        state = self._save_state()
        fork: ToolEnv[Ctx] = object.__new__(type(self))
        fork.__dict__.update(self.__dict__)  # tools, spaces' schemas, tasks, bundles: shared, never mutated
        fork.action_space = _space_twin(self.action_space)
        fork.observation_space = _space_twin(self.observation_space)
        fork._in_use = threading.Lock()
        fork._console = None
        fork._load_state(state)
        return fork

    def __copy__(self) -> ToolEnv[Ctx]:
        return self.fork()

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolEnv[Ctx]:
        return self.fork()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles as its constructor arguments plus its state (between episodes or in the middle of one):
        unpickling builds an independent env, as ``fork`` does, in any process."""
        return (_rebuild, (type(self), self._arguments, self._save_state()))

    def _save_episode(self, ctx: Ctx) -> Any:
        """The episode's state as plain picklable data (a domain hook; see ``_load_episode``)."""
        raise TypeError(f"{type(self).__name__} cannot fork or pickle an episode: it has no _save_episode")

    def _load_episode(self, state: Any) -> Ctx:
        """A new, independent episode world from what ``_save_episode`` returned."""
        raise TypeError(f"{type(self).__name__} cannot fork or pickle an episode: it has no _load_episode")

    def _save_state(self) -> dict[str, Any]:
        if not self._in_use.acquire(False):
            self._refuse_second_thread()
        try:
            return {
                "episode": None if self._ctx is None else self._save_episode(self._ctx),
                "stats": (self.stats.turns, self.stats.invalid_calls, dict(self.stats.tool_calls)),
                "done": self._done,
                "final_grade": self._final_grade,
                "transcript": list(self._transcript),
                "rng": None if self._np_random is None else self._np_random.bit_generator.state,
                "seed": self._np_random_seed,
                "spec": self.spec,
            }
        finally:
            self._in_use.release()

    def _load_state(self, state: dict[str, Any]) -> None:
        self._ctx = None if state["episode"] is None else self._load_episode(state["episode"])
        turns, invalid, calls = state["stats"]
        self.stats = EpisodeStats(turns, invalid, Counter(calls))
        self._done, self._final_grade = state["done"], state["final_grade"]
        self._transcript = list(state["transcript"])
        if state["rng"] is not None:
            # a fixed SeedSequence, not PCG64(): an unseeded one gathers OS entropy, which costs more than a fork
            bits = np.random.PCG64(np.random.SeedSequence(0))
            bits.state = state["rng"]
            self._np_random = np.random.Generator(bits)
            self._np_random_seed = state["seed"]
        self.spec = state["spec"]

    def _refuse_second_thread(self) -> None:
        """Called when a second thread enters ``reset``/``step`` while one is inside: the episode's state (and
        SQLite's connection, which must never be used by two threads at once) would be corrupted, or crash the
        process. Threads that take turns are fine."""
        raise RuntimeError(
            f"this {type(self).__name__} is in use by another thread; give each thread its own env "
            "(gym.make is cheap) or take turns"
        )

    # ----------------------------------------------------------------- internals
    def _finish_grading(self) -> tuple[float, dict[str, Any]]:
        assert self._ctx is not None
        grade = self._grade_episode(self._ctx)
        self._final_grade = grade.as_info()
        self._done = True
        return grade.reward, self._final_grade

    def _record(self, action: Any, outcome: Outcome) -> None:
        """Keep the transcript for rendering. Only called with a render mode: without one nothing reads it, and
        training loops run long episodes, where a growing list of observations would cost memory and GC time."""
        call = outcome.call
        name = call["name"] if call else "<malformed>"
        arguments = call["arguments"] if call else {"raw": safe_text(action, 200)}
        entry = TranscriptEntry(self.stats.turns, name, arguments, outcome.observation)
        self._transcript.append(entry)
        if self.render_mode == "human":
            console = self._get_console()
            print_entry(console, entry)
            if self._final_grade is not None:
                print_grade(console, self._final_grade)

    def _get_console(self) -> Console:
        if self._console is None:
            self._console = Console()
        return self._console


def _space_twin(space: Any) -> Any:
    """The same space with its own sampling generator (in the same state): the schemas it holds are shared,
    since nothing changes them, and copying them would cost more than the whole rest of a fork."""
    twin = object.__new__(type(space))
    twin.__dict__.update(space.__dict__)  # not copy.copy: its __reduce_ex__ round trip costs half a fork
    if space._np_random is not None:
        twin._np_random = copy.deepcopy(space._np_random)
    return twin


def _rebuild(cls: type[ToolEnv[Any]], arguments: tuple[tuple[Any, ...], dict[str, Any]], state: dict[str, Any]) -> Any:
    """A new env from constructor arguments and a saved state (``fork`` and unpickling)."""
    args, kwargs = arguments
    env = cls(*args, **kwargs)
    env._load_state(state)
    return env
