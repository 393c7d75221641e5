"""One officegym env behind one OpenEnv session, and the world each reset names (``integrations/openenv.py``).

Plain Python, OpenEnv-free: what a reset means and what a session holds is testable without a server.

**What a reset names.** A server serves one env id; a reset picks the world of the episode and its task:

- ``reset(task_id=..., seed=...)``: a task of the server's own world (``gym.make(env_id, **server kwargs)``,
  the kwargs of ``officegym serve --env-kwargs``); no ``task_id`` draws one with ``seed``;
- ``reset(env_kwargs=..., task_id=...)`` or the whole row, flat (``reset(**row)``) or as ``reset(row=row)``: a
  row of ``officegym.splits.task_rows``. Its world is exactly ``splits.make_env(row)``, whatever the server's
  kwargs are: a task id alone never names a world (every InvoiceApproval company has a ``single-1``). The row's
  other fields (``tier``, ``split``, ``source``, ``prompt``) are labels and select nothing, so they are taken
  only beside a ``task_id``; an ``env_id`` other than the server's is refused by name.

**One env per session, re-made when the world changes.** A session keeps the env of the last world it played;
a reset that names another world makes that world's env and closes the old one. ``gym.make`` of a world is
cheap once its task source exists in the process (generated companies are cached per process), so training
rows of many companies through one session costs a ``gym.make`` per change of company, and a server with
hundreds of sessions holds one env each, not a pool each. Making an env (``build_env``) touches nothing of the
session, so the server can run it on a worker thread while the session's current env stays usable.
"""

from __future__ import annotations

import importlib
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import gymnasium as gym

from ..envs.core.tool_env import ToolEnv
from ..splits import WORLD_KEYS, canonical_kwargs, row_world
from .server_limits import clip, clip_text

RESET_PARAMETERS: Final = ("seed", "task_id", "episode_id", "env_id", "env_kwargs", "row")
ROW_LABELS: Final = ("tier", "split", "source", "prompt")
"""A row's fields that describe its task and select nothing (``splits.ROW_KEYS`` less the world's)."""
NO_EPISODE: Final = "Error: no episode has started in this session; send reset (with task_id and seed if wanted) first."


@dataclass(frozen=True)
class Turn:
    """One observation as plain data: what ``reset`` or ``step`` answered, before it becomes OpenEnv's model."""

    text: str
    reward: float | None
    done: bool
    truncated: bool = False
    grade: dict[str, Any] | None = None
    info: dict[str, Any] = field(default_factory=dict)


def make_env(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> gym.Env[Any, Any]:
    """``gym.make`` for a registered officegym env id; refuses ids that are not tool envs, because the
    protocol is the tool-call contract of ``ToolEnv``. ``module:id`` (Gymnasium's form) imports ``module``
    first, which registers a tool env of one's own (every ``serve --workers`` process imports it so)."""
    module, _, name = env_id.rpartition(":")
    if module:
        if name not in gym.registry:
            importlib.import_module(module)
        env_id = name
    if env_id not in gym.registry:
        from .. import ENV_IDS

        raise ValueError(f"unknown env id {env_id!r}; officegym serves {', '.join(ENV_IDS)}")
    env = gym.make(env_id, **dict(env_kwargs or {}))
    if not isinstance(env.unwrapped, ToolEnv):
        env.close()
        raise ValueError(f"{env_id} is not an officegym tool env; only tool envs speak this protocol")
    return env


# --------------------------------------------------------------------------- what a reset names
@dataclass(frozen=True)
class ResetRequest:
    """A checked reset: the world to play (``env_kwargs``, keyed by their canonical JSON) and the episode."""

    env_kwargs: dict[str, Any]
    task_id: str | None
    seed: int | None
    episode_id: str | None

    @property
    def world(self) -> str:
        """Equal for equal worlds: the canonical JSON of the env arguments (``splits.canonical_kwargs``)."""
        return canonical_kwargs(self.env_kwargs)


def reset_request(env_id: str, default_kwargs: Mapping[str, Any], params: Mapping[str, Any]) -> ResetRequest:
    """Read a reset's parameters: refuse what ``reset`` would otherwise ignore or misread (a remote trainer
    with a typo in a parameter name, or a row of another env, must hear of it, not play random tasks)."""
    unknown = sorted(set(params) - set(RESET_PARAMETERS) - set(ROW_LABELS))
    if unknown:
        raise ValueError(
            f"unknown reset parameter(s): {', '.join(clip_text(name, 80) for name in unknown[:5])}; officegym takes "
            f"{', '.join(RESET_PARAMETERS)} "
            f"(and a task row's {', '.join(ROW_LABELS)})"
        )
    fields = _row_fields(params)
    seed, task_id, episode_id = params.get("seed"), fields.get("task_id"), params.get("episode_id")
    _check_episode(seed, task_id, episode_id)
    labels = sorted(set(fields) & set(ROW_LABELS))
    if labels and task_id is None:
        raise ValueError(
            f"reset: {', '.join(labels)} select nothing; send a task row's task_id with them (its world is "
            "env_id + env_kwargs + task_id), or start the server with --env-kwargs to pick tasks"
        )
    requested = fields.get("env_id")
    if requested is not None and requested != env_id:
        raise ValueError(
            f"this server serves {env_id}, the reset names {clip(requested)}: send it to a server of that env "
            f"(officegym serve {clip(requested)})"
        )
    if "env_kwargs" not in fields:
        return ResetRequest(dict(default_kwargs), task_id, seed, episode_id)
    world = row_world({"env_id": env_id, "env_kwargs": fields["env_kwargs"], "task_id": task_id or ""})
    return ResetRequest(world.env_kwargs, task_id, seed, episode_id)


def _row_fields(params: Mapping[str, Any]) -> dict[str, Any]:
    """The row's fields, flat or under ``row`` (never both: two answers to which world would be a guess)."""
    flat = {key: params[key] for key in (*WORLD_KEYS, *ROW_LABELS) if key in params}
    if "row" not in params:
        return flat
    row = params["row"]
    if not isinstance(row, dict):
        raise ValueError(f"reset: row must be a task row (a dict from officegym.splits.task_rows), got {row!r:.60}")
    if flat:
        raise ValueError(f"reset: send a row or its fields, not both (got row and {', '.join(sorted(flat))})")
    row_world(row)  # a row lacking its world's fields is refused with the row contract's own message
    return {key: row[key] for key in (*WORLD_KEYS, *ROW_LABELS) if key in row}


def _check_episode(seed: Any, task_id: Any, episode_id: Any) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or null, got {seed!r}")
    for name, value in (("task_id", task_id), ("episode_id", episode_id)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be a string or null, got {type(value).__name__}")


def parse_env_kwargs(text: str | None, option: str = "--env-kwargs") -> dict[str, Any]:
    """A JSON object of env arguments from a command line or an environment variable (``None``: none)."""
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{option} is not valid JSON ({error.msg})") from error
    if not isinstance(value, dict):
        raise ValueError(f"{option} must be a JSON object, got {type(value).__name__}")
    return value


# --------------------------------------------------------------------------- one session
class OfficeSession:
    """One officegym env behind one OpenEnv session, re-made when a reset names another world.

    Not thread-safe, like the env it owns: one call at a time (the server makes every call from its event loop
    thread). ``snapshot()`` may be read from any thread at any time: it returns a dict that is replaced, never
    changed, after each call. A reset is ``request`` (check), then ``build_env`` and ``install`` if the world
    changes, then ``start``; ``reset`` does all four in turn.
    """

    def __init__(self, env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> None:
        self.env_id = env_id
        self.default_kwargs = dict(env_kwargs or {})
        self.env = make_env(env_id, self.default_kwargs)
        self.world = canonical_kwargs(self.default_kwargs)
        self._started = False
        self._snapshot: dict[str, Any] = {
            "episode_id": None,
            "step_count": 0,
            "env_id": env_id,
            "env_kwargs": self.world,
            "done": True,
        }

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The env's tools as OpenAI function schemas (a domain's tools are the same in every world)."""
        schemas: list[dict[str, Any]] = self.env.unwrapped.tool_schemas  # type: ignore[attr-defined]
        return schemas

    def request(self, **params: Any) -> ResetRequest:
        """The reset's parameters, checked (``reset_request``); nothing changes yet."""
        return reset_request(self.env_id, self.default_kwargs, params)

    def needs_env(self, request: ResetRequest) -> bool:
        """Whether the request names a world other than the current env's."""
        return request.world != self.world

    def build_env(self, request: ResetRequest) -> gym.Env[Any, Any]:
        """The env of the request's world (slow the first time a company is generated in the process). Touches
        nothing of the session, so it may run on another thread while the session's env is in use."""
        return make_env(self.env_id, request.env_kwargs)

    def install(self, request: ResetRequest, env: gym.Env[Any, Any]) -> None:
        """Play ``env`` (made by ``build_env(request)``) from now on; the old world's env is closed."""
        old, self.env, self.world = self.env, env, request.world
        self._started = False  # the old episode went with its env
        self._snapshot = {"episode_id": None, "step_count": 0, "env_id": self.env_id, "env_kwargs": self.world}
        self._snapshot["done"] = True
        old.close()

    def start(self, request: ResetRequest) -> Turn:
        """Start an episode on the request's task (or one drawn with its seed), as ``env.reset`` does."""
        if self.needs_env(request):
            raise RuntimeError("start() before the request's world was installed: call reset() instead")
        options = None if request.task_id is None else {"task_id": request.task_id}
        text, info = self.env.reset(seed=request.seed, options=options)
        self._started = True
        self._snapshot = {
            "episode_id": request.episode_id or uuid.uuid4().hex,
            "step_count": 0,
            "env_id": self.env_id,
            "env_kwargs": self.world,
            "task_id": info.get("task_id"),
            "seed": request.seed,
            "done": False,
            "reward": None,
            "grade": None,
        }
        return Turn(text=text, reward=None, done=False, info=dict(info))

    def reset(self, **params: Any) -> Turn:
        """Check, make the world's env if it changed, and start the episode (all on the calling thread)."""
        request = self.request(**params)
        if self.needs_env(request):
            self.install(request, self.build_env(request))
        return self.start(request)

    def step(self, action: Any) -> Turn:
        """One tool call; the grade moves from the env's info into its own field."""
        if not self._started:  # Gymnasium's order check would raise; a remote agent gets the env's kind of answer
            return Turn(text=NO_EPISODE, reward=0.0, done=True, info={"turn": 0, "is_error": True})
        text, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        grade = info.pop("grade", None)
        done = bool(terminated or truncated)
        self._publish(reward=float(reward), done=done, grade=grade)
        return Turn(text=text, reward=float(reward), done=done, truncated=bool(truncated), grade=grade, info=info)

    def _publish(self, reward: float, done: bool, grade: dict[str, Any] | None) -> None:
        """Count the step; until the episode has ended, also record its reward, end and grade (the ``Error:``
        answers to steps after the end leave the episode's result as it was). A new dict, swapped in whole, so a
        reader on another thread sees the state before or after the step, never half of it."""
        snapshot = {**self._snapshot, "step_count": int(self._snapshot["step_count"]) + 1}
        if not self._snapshot["done"]:
            snapshot.update(reward=reward, done=done, grade=grade)
        self._snapshot = snapshot

    def snapshot(self) -> dict[str, Any]:
        """The session's state for OpenEnv's ``state``: what is known without touching the env."""
        return self._snapshot

    def close(self) -> None:
        self.env.close()


Step = Callable[[Any], Turn]
"""What the MCP tools call: one tool call in, one ``Turn`` out (``OfficeSession.step``)."""
