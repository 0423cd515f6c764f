"""PNG plots of a run, and of a leaderboard (matplotlib, an optional extra, imported only here)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from groundplan.engine.errors import GroundplanError

        raise GroundplanError("--plot needs matplotlib: pip install 'groundplan[plot]'") from None
    return plt


def write_plots(folder: Path, rows: list[dict]) -> list[Path]:
    plt = _pyplot()
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


def write_leaderboard_plots(folder: Path, board: dict) -> list[Path]:
    """leaderboard-WORLD.png for each world and leaderboard-overall.png: a row per (model,
    strategy, settings), its rates (success, pass@k, mean optimality) as points with their 95%
    intervals as error bars."""
    plt = _pyplot()
    from .leaderboard import OVERALL

    entries = board["entries"]
    worlds = list(dict.fromkeys(e["world"] for e in entries))
    passes = sorted({k for e in entries for k in e["metrics"] if k.startswith("pass@") and k != "pass@1"}, key=lambda k: int(k[5:]))
    metrics = [m for m in ("success_rate", "pass@1", *passes, "mean_optimality") if any(m in e["metrics"] for e in entries)]
    written = []
    for world in worlds:
        rows = [e for e in entries if e["world"] == world]
        labels = [_label(e) for e in rows]
        fig, ax = plt.subplots(figsize=(8, 1.2 + 0.55 * len(rows) * max(1, len(metrics)) ** 0.5))
        step = 0.8 / max(1, len(metrics))
        for j, metric in enumerate(metrics):
            ys, xs, low, high = [], [], [], []
            for i, e in enumerate(rows):
                m = e["metrics"].get(metric) or {}
                if m.get("value") is None:
                    continue
                ys.append(i - 0.4 + step * (j + 0.5))
                xs.append(m["value"])
                low.append(m["value"] - m["lo"] if m.get("lo") is not None else 0)
                high.append(m["hi"] - m["value"] if m.get("hi") is not None else 0)
            if xs:
                ax.errorbar(xs, ys, xerr=[low, high], fmt="o", capsize=3, label=metric.replace("_", " "))
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("rate, with its 95% interval")
        ax.set_title("all worlds" if world == OVERALL else world)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
        name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in world)
        written.append(_save(plt, fig, Path(folder) / f"leaderboard-{name}.png"))
    return written


def _label(entry: dict) -> str:
    settings = ", ".join(f"{k}={v}" for k, v in entry["settings"].items())
    strategy = "" if entry["strategy"] == "-" else f" / {entry['strategy']}"
    return f"{entry['model']}{strategy}" + (f" ({settings})" if settings else "")


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
