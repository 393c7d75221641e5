"""The officegym OpenEnv server, as OpenEnv's environment projects lay it out: ``app`` and ``main()``.

One env id per server, chosen by environment variables (a Space or a container has no command line for
``officegym serve``'s options): ``OFFICEGYM_ENV_ID`` (default ``officegym/InvoiceApproval-v1``),
``OFFICEGYM_ENV_KWARGS`` (a JSON object), ``OFFICEGYM_MAX_SESSIONS`` (default 64, per worker),
``OFFICEGYM_SESSION_TIMEOUT`` (seconds) and ``OFFICEGYM_WORKERS`` (default 1; ``main()`` only: uvicorn
serving ``app`` has its own ``--workers``). Everything else is officegym's own server
(``officegym.integrations.openenv``): the same app as ``officegym serve``.

    uvicorn server.app:app --host 0.0.0.0 --port 8000     # what openenv.yaml and OpenEnv's UV provider run
    python -m server.app --port 8000                      # the Dockerfile's command
    uv run --project . server                             # the [project.scripts] entry point
"""

from __future__ import annotations

import os

from officegym.integrations.openenv_server import SpaceConfig, container_exit, space_main

try:
    CONFIG = SpaceConfig.from_environ(os.environ)
except ValueError as error:
    if __name__ != "__main__":  # imported (uvicorn server.app:app): the importer reports it
        raise
    raise container_exit(error) from None  # the Dockerfile's command
if __name__ != "__mp_main__":
    # With OFFICEGYM_WORKERS above 1, each worker is a spawned process that runs this file again under the name
    # __mp_main__ and then makes the app it serves itself (officegym.integrations.server_worker): an app made
    # here would cost every worker its start-up time and memory for nothing.
    app = CONFIG.app()


def main() -> None:
    """Serve ``app`` (or, with ``OFFICEGYM_WORKERS`` above 1, that many workers' apps) on ``--host`` (default
    0.0.0.0) and ``--port`` (default 8000) until SIGINT or SIGTERM."""
    space_main(app, CONFIG)


if __name__ == "__main__":
    main()
