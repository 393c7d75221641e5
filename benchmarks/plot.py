"""The scaling plot of ``make bench``: env-steps/s of both envs and the no-op floor, sync and async."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def scaling_plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=False)
    for ax, mode in zip(axes, ("sync", "async"), strict=True):
        mode_rows = [r for r in rows if r["mode"] == mode]
        counts = sorted({r["num_envs"] for r in mode_rows})
        floor = {r["num_envs"]: r["noop_steps_per_s"] for r in mode_rows}
        ax.plot(counts, [floor[n] for n in counts], "k--", marker="o", label="no-op text env (floor)")
        for env in sorted({r["env"] for r in mode_rows}):
            rate = {r["num_envs"]: r["steps_per_s"] for r in mode_rows if r["env"] == env}
            ax.plot(counts, [rate[n] for n in counts], marker="o", label=env)
        ax.set_title(f"{mode.capitalize()}VectorEnv, 2 CPU cores")
        ax.set_xlabel("envs")
        ax.set_xticks(counts)
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("env-steps/s (one read-tool call per step)")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
