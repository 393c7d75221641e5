"""``officegym serve`` scaled out across machines on Ray Serve: ``deploy(env_id, replicas=N)``.

Each replica (``ray_serve_replica.OfficeGymReplica``) runs the same guarded OpenEnv app as ``officegym serve``
(``openenv.create_app``: its own sessions, limits and token); Ray Serve places the replicas on the cluster's
nodes and its HTTP proxy (on every node by default) hands each one whole connections. Sessions are pinned:

- a WebSocket (OpenEnv's ``/ws``, MCP's ``/mcp`` WebSocket) is routed once, when it opens, and stays on that
  replica for its life; nothing else is needed;
- stateless HTTP ``POST /mcp`` sessions (``openenv/session/create``, then calls naming ``session_id``) live in
  one replica's memory while every HTTP request is routed on its own. The deployment routes with Ray Serve's
  consistent-hash router on its session-affinity header ``x-session-id``, strictly (no fallback to another
  replica), so a client that sends the same key of its choosing on every request of a session reaches the
  replica that holds it. With more than one replica, HTTP ``/mcp`` without the header is refused (400, the fix
  in the message; ``ray_serve_asgi.SessionKeyGate``) rather than sent to a replica that may not hold it.

``check_health`` asks each replica's app for ``GET /health``; Ray Serve restarts a replica that fails it.
Why Ray Serve (and not a Kubernetes Deployment) and what was tested: ``docs/scale-out.md``.

``python -m officegym.integrations.ray_serve ENV_ID --address auto --replicas N`` deploys onto a running
cluster (``ray start --head`` on one machine, ``ray start --address HEAD:6379`` on the others) and keeps
serving until interrupted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import gymnasium as gym

from .openenv import DEFAULT_MAX_SESSIONS, openenv_types
from .openenv_session import make_env, parse_env_kwargs
from .optional import import_optional
from .ray_serve_replica import OfficeGymReplica
from .server_limits import ServerLimits, token_from

APP_NAME: Final = "officegym"
HTTP_HEADROOM: Final = 64
"""Requests a replica takes beyond ``max_sessions``: every open WebSocket is one ongoing request to Ray Serve
for its whole life, and short HTTP requests (``/health``, ``/mcp``) must still get through beside them."""
ROUTER: Final = "ray.serve.experimental.consistent_hash_router:ConsistentHashRouter"
PROXY_LOCATIONS: Final = ("EveryNode", "HeadOnly")
"""Where Serve runs its HTTP proxy (``Disabled`` would serve nothing over HTTP, so it is not offered)."""


def require_serve() -> Any:
    """``ray.serve``, or an ImportError naming the extra that installs it."""
    return import_optional("ray.serve", "officegym's Ray Serve deployment needs ray[serve] 2.60+", "ray,openenv")


def whole(value: Any, least: int) -> bool:
    """Whether ``value`` is an integer (not a bool) of at least ``least``."""
    return not isinstance(value, bool) and isinstance(value, int) and value >= least


def check_options(
    replicas: int, port: int, replica_cpus: float, max_replicas_per_node: int | None, max_sessions: int, where: str
) -> None:
    """Every option but the env's and the token's, checked before anything is started."""
    if not whole(replicas, 1):
        raise ValueError(f"replicas must be a whole number of at least 1, got {replicas!r}")
    if not whole(port, 1) or port > 65535:
        raise ValueError(f"port must be between 1 and 65535 (Ray Serve's proxy needs a fixed port), got {port!r}")
    if isinstance(replica_cpus, bool) or not isinstance(replica_cpus, int | float) or not replica_cpus >= 0:
        raise ValueError(f"replica_cpus must be a number of CPUs of at least 0, got {replica_cpus!r}")
    if max_replicas_per_node is not None and not whole(max_replicas_per_node, 1):
        raise ValueError(f"max_replicas_per_node must be None or at least 1, got {max_replicas_per_node!r}")
    if not whole(max_sessions, 1):
        raise ValueError(f"max_sessions must be at least 1, got {max_sessions!r}")
    if where not in PROXY_LOCATIONS:
        raise ValueError(f"proxy_location must be one of {', '.join(PROXY_LOCATIONS)}, got {where!r}")


def server_limits(token: str | None, limits: ServerLimits | None, host: str) -> ServerLimits:
    """The replicas' limits: ``limits`` or the defaults with ``token`` (a token needed beyond loopback)."""
    if token is not None and limits is not None:
        raise ValueError("pass the token inside limits (ServerLimits(token=...)) or as token=, not both")
    chosen = limits or ServerLimits(token=token_from(token))
    chosen.check_exposure(host)
    return chosen


def router_config() -> dict[str, Any]:
    """Ray Serve's consistent-hash router on ``x-session-id``, without fallback: a session's requests only ever
    go to the replica its key names (under backpressure they wait for it, never move)."""
    import_optional(
        ROUTER.split(":")[0], "session routing needs Ray Serve's consistent-hash router (Ray 2.60+)", "ray,openenv"
    )
    return {"request_router_class": ROUTER, "request_router_kwargs": {"num_fallback_replicas": 0}}


def deploy(
    env_id: str,
    *,
    replicas: int = 2,
    env_kwargs: Mapping[str, Any] | None = None,
    token: str | None = None,
    limits: ServerLimits | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    address: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    proxy_location: str = "EveryNode",
    replica_cpus: float = 1.0,
    max_replicas_per_node: int | None = None,
) -> str:
    """Deploy ``env_id`` as the Serve application ``officegym`` with ``replicas`` replicas; returns the
    proxy's base URL once every replica is up.

    Connects to the Ray cluster at ``address`` (``ray.init``'s: ``"auto"``, ``"HEAD:6379"``; None: ``ray.init``'s
    own search, ``$RAY_ADDRESS`` or a cluster ``ray start`` made here, else a new local instance) unless this
    process is connected already, and starts
    Serve's proxy on ``host:port`` (``proxy_location``: ``EveryNode``, ``HeadOnly``; a Serve instance already
    running on the cluster keeps the proxy options it was started with). Beyond loopback the
    replicas need a token (``token`` or ``limits.token``, else ``$OFFICEGYM_SERVE_TOKEN``). Each replica
    reserves ``replica_cpus`` CPUs; ``max_replicas_per_node=1`` spreads the replicas one per node. The env id,
    ``env_kwargs`` and every option are checked here first, so a bad one is an error before the cluster is
    touched; officegym and its ``openenv`` extra must be installed on every node.
    """
    check_options(replicas, port, replica_cpus, max_replicas_per_node, max_sessions, proxy_location)
    chosen = server_limits(token, limits, host)
    make_env(env_id, env_kwargs).close()
    openenv_types()  # the OpenEnv extra: missing here, it is missing on the replicas too
    serve = require_serve()
    import ray

    if not ray.is_initialized():
        ray.init(address=address)
    serve.start(http_options={"host": host, "port": port}, proxy_location=proxy_location)
    options: dict[str, Any] = {
        "num_replicas": replicas,
        "max_ongoing_requests": max_sessions + HTTP_HEADROOM,
        "ray_actor_options": {"num_cpus": replica_cpus},
        "request_router_config": router_config(),
    }
    if max_replicas_per_node is not None:
        options["max_replicas_per_node"] = max_replicas_per_node
    deployment = serve.deployment(serve.ingress()(OfficeGymReplica), name="OfficeGymReplica").options(**options)
    application = deployment.bind(env_id, dict(env_kwargs or {}), chosen, max_sessions, replicas > 1)
    serve.run(application, name=APP_NAME, route_prefix="/")
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


# --------------------------------------------------------------------------- python -m ...ray_serve
def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(
        prog="python -m officegym.integrations.ray_serve",
        description="Serve one env id over OpenEnv on Ray Serve replicas across a Ray cluster (docs/scale-out.md).",
    )
    command.add_argument("env_id")
    command.add_argument("--address", default="auto", help="the Ray cluster (ray.init's address; default auto)")
    command.add_argument("--replicas", type=int, default=2)
    command.add_argument("--host", default="127.0.0.1", help="where each node's Serve proxy listens")
    command.add_argument("--port", type=int, default=8000)
    command.add_argument("--env-kwargs", default=None, help="a JSON object of env arguments")
    command.add_argument("--max-sessions", type=int, default=DEFAULT_MAX_SESSIONS, help="per replica")
    command.add_argument("--token", default=None, help="required beyond loopback (or $OFFICEGYM_SERVE_TOKEN)")
    command.add_argument("--replica-cpus", type=float, default=1.0)
    command.add_argument("--max-replicas-per-node", type=int, default=None)
    return command


def serve_on_ray(env_id: str, *, announce: Callable[[str], None] = print, **options: Any) -> None:
    """``deploy`` (``options`` are its keyword arguments), announce the address in one line, and keep this
    driver alive until interrupted (Serve keeps serving while it runs); then delete the application. What
    ``officegym serve`` can call for a ``--ray ADDRESS`` option."""
    url = deploy(env_id, **options)
    replicas = options.get("replicas", 2)
    announce(f"officegym on Ray Serve: {env_id} on {url} ({replicas} replicas, OpenEnv WebSocket /ws); Ctrl-C stops")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        require_serve().delete(APP_NAME)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m officegym.integrations.ray_serve``: bad input is one ``Error: ...`` line and exit code 2."""
    args = parser().parse_args(argv)
    try:
        serve_on_ray(
            args.env_id,
            announce=lambda line: print(line, flush=True),
            replicas=args.replicas,
            env_kwargs=parse_env_kwargs(args.env_kwargs),
            token=args.token,
            max_sessions=args.max_sessions,
            address=args.address,
            host=args.host,
            port=args.port,
            replica_cpus=args.replica_cpus,
            max_replicas_per_node=args.max_replicas_per_node,
        )
    except (ValueError, TypeError, ImportError, ConnectionError, gym.error.Error) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
