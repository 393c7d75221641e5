"""The module verifiers 0.4 imports for the taskset id ``verifiers-officegym`` (the ``verifiers`` extra).

``vf-eval <taskset-id>`` imports the top-level module named after the id (dashes as underscores) and takes the
``Taskset``, ``Harness`` and ``Env`` subclasses listed in its ``__all__``; it cannot reach a module inside a
package. This file is that module: installed at the top level it makes ``vf-eval verifiers-officegym
--env.taskset.env-id ENV_ID`` work, and ``python -m officegym.integrations.verifiers`` registers it under
that name when it is not. It only re-exports the classes of ``officegym.integrations.verifiers`` (so each
class exists once, under one module), built on first use like there. Each env id also has a taskset id and an
Environments Hub package of its own (``officegym-vendor-review-v2``: ``integrations/hub/``); this one stays for
the runs and configs that name ``verifiers-officegym``.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officegym.integrations.verifiers import OfficeGymEnv, OfficeGymHarness, OfficeGymTaskset

__all__ = ["OfficeGymEnv", "OfficeGymHarness", "OfficeGymTaskset"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from officegym.integrations import verifiers

        return getattr(verifiers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
