"""PNG plots of a run (matplotlib, an optional extra, imported only here)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path


def write_plots(folder: Path, rows: list[dict]) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from groundplan.engine.errors import GroundplanError

        raise GroundplanError("--plot needs matplotlib: pip install 'groundplan[plot]'") from None
    written = []
    # success rate by optimal horizon, one line per agent
    by_agent = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.get("reference_cost"):
            by_agent[r["agent_label"]][int(r["reference_cost"])].append(bool(r.get("success")))
    fig, ax = plt.subplots(figsize=(7, 4))
    for agent, horizons in sorted(by_agent.items()):
        xs = sorted(horizons)
        ax.plot(xs, [sum(horizons[x]) / len(horizons[x]) for x in xs], marker="o", label=agent)
    ax.set_xlabel("reference (optimal) cost")
    ax.set_ylabel("success rate")
    ax.set_ylim(-0.05, 1.05)
    ax.legend()
    ax.set_title("Success by optimal horizon")
    written.append(_save(plt, fig, folder / "success_by_horizon.png"))
    # optimality histogram of successes (agent cost / reference cost)
    fig, ax = plt.subplots(figsize=(7, 4))
    ratios = defaultdict(list)
    for r in rows:
        if r.get("success") and r.get("optimality_ratio") is not None:
            ratios[r["agent_label"]].append(r["optimality_ratio"])
    for agent, values in sorted(ratios.items()):
        ax.hist(values, bins=[1, 1.0001, 1.25, 1.5, 2, 3], alpha=0.6, label=agent)
    ax.set_xlabel("agent cost / optimal cost (successes)")
    ax.set_ylabel("episodes")
    ax.legend()
    ax.set_title("Optimality of successes")
    written.append(_save(plt, fig, folder / "optimality_histogram.png"))
    return written


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
