"""One Ray Serve replica of ``officegym serve``: the same guarded OpenEnv app, made once per replica.

``ray_serve.deploy`` turns ``OfficeGymReplica`` into a deployment with ``serve.ingress()`` (no app given:
Ray Serve calls ``__serve_build_asgi_app__`` on each replica after the constructor), so every replica runs
``create_app(env_id, ...)`` exactly as ``officegym serve`` does, with its own sessions, limits and token, and
Ray Serve's proxy hands it whole ASGI connections: an HTTP request, or a WebSocket for its whole life.

The class itself imports no Ray (the package imports every module without the extra); only its methods that
run inside a replica ask Ray who they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .openenv import create_app
from .ray_serve_asgi import ReplicaIdentity, ReplicaTag, SessionKeyGate, probe_health
from .server_limits import ServerLimits


def current_identity() -> ReplicaIdentity:
    """This replica's Ray Serve replica id and Ray node id (inside a replica only)."""
    import ray
    from ray import serve

    context = serve.get_replica_context()
    return ReplicaIdentity(replica=context.replica_id.unique_id, node=ray.get_runtime_context().get_node_id())


class OfficeGymReplica:
    """The replica's state: the OpenEnv app (what ``check_health`` probes) and the app Ray Serve serves
    (the same app tagged with the replica's identity and, with several replicas, behind ``SessionKeyGate``).
    Attribute names stay clear of Ray Serve's ASGI wrapper, which the deployment class also derives from (it
    owns ``app``)."""

    def __init__(
        self,
        env_id: str,
        env_kwargs: Mapping[str, Any] | None,
        limits: ServerLimits,
        max_sessions: int,
        several_replicas: bool,
    ) -> None:
        self.openenv_app = create_app(env_id, env_kwargs=env_kwargs, max_sessions=max_sessions, limits=limits)
        self.identity = current_identity()
        tagged = ReplicaTag(self.openenv_app, self.identity)
        self.served: Any = SessionKeyGate(tagged) if several_replicas else tagged

    def __serve_build_asgi_app__(self) -> Any:
        return self.served

    async def check_health(self) -> None:
        """Ray Serve's periodic health check: the app must answer ``GET /health`` (``probe_health``)."""
        await probe_health(self.openenv_app)

    def whoami(self) -> dict[str, str]:
        """The replica and node ids (for a ``DeploymentHandle`` caller)."""
        return {"replica": self.identity.replica, "node": self.identity.node}
