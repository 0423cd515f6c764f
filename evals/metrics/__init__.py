"""Metrics: the core ones every world gets, and per-world plug-ins.

Core (Robotouille's): success; optimality of a success = reference cost / agent cost, binned by
agent/reference as = 1, (1, 1.25], (1.25, 1.5], > 1.5 (its Fig. 3); for a failure, the
normalised steps-to-go = optimal cost from the final state / optimal cost from the start,
binned [0, 0.5], (0.5, 1], > 1 (its Fig. 4).

A world adds its own metrics without touching the harness: `domains/<world>/metrics.py` may
define `episode_metrics(task, episode) -> dict` (extra fields for one episode's line) and
`summary_metrics(rows: list[dict]) -> dict` (extra summary columns for a group of lines).
"""
from __future__ import annotations

import functools
import math

OPTIMALITY_BINS = ("=1", "(1,1.25]", "(1.25,1.5]", ">1.5")
STEPS_TO_GO_BINS = ("[0,0.5]", "(0.5,1]", ">1")


def optimality_bin(ratio: float | None) -> str | None:
    """Bin of agent cost / reference cost for a success."""
    if ratio is None:
        return None
    if ratio <= 1 + 1e-9:
        return "=1"
    if ratio <= 1.25 + 1e-9:
        return "(1,1.25]"
    if ratio <= 1.5 + 1e-9:
        return "(1.25,1.5]"
    return ">1.5"


def steps_to_go_bin(value: float | None) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if value <= 0.5 + 1e-9:
        return "[0,0.5]"
    if value <= 1 + 1e-9:
        return "(0.5,1]"
    return ">1"


def steps_to_go(task, episode, time_limit: float | None) -> dict:
    """Normalised steps-to-go of a failed episode through the planners' any-state oracle."""
    start = episode.reference_cost
    if episode.success or not start or episode.final_state is None or not episode.reference_proven:
        return {}
    from planners.oracle import Oracle

    remaining = Oracle(task, time_limit=time_limit).cost(episode.final_state)
    if remaining is None:
        return {"steps_to_go": None, "steps_to_go_note": f"not proven within {time_limit} s"}
    if remaining == math.inf:
        return {"steps_to_go": None, "steps_to_go_note": "the goal is unreachable from the final state (dead end)",
                "dead_end": True}
    return {"steps_to_go": remaining / start, "remaining_cost": remaining}


def core(task, episode, steps_to_go_time: float | None) -> dict:
    row = episode.to_json()
    ref = episode.reference_cost
    if episode.success and ref:
        row["optimality"] = ref / episode.cost if episode.cost else 1.0
        row["optimality_ratio"] = episode.cost / ref
        row["optimality_bin"] = optimality_bin(row["optimality_ratio"])
    elif episode.success and ref == 0:
        row["optimality"], row["optimality_ratio"], row["optimality_bin"] = 1.0, 1.0, "=1"
    if not episode.success and steps_to_go_time != 0:
        row.update(steps_to_go(task, episode, steps_to_go_time))
        row["steps_to_go_bin"] = steps_to_go_bin(row.get("steps_to_go"))
    return row


@functools.lru_cache(maxsize=32)
def plugin(world: str):
    """The world's metrics module (`domains.<world>.metrics`), or None."""
    from engine.loader import world_module

    return world_module(world, "metrics")


def episode_row(task, episode, steps_to_go_time: float | None = 10.0) -> dict:
    row = core(task, episode, steps_to_go_time)
    module = plugin(task.domain.name)
    if module is not None and hasattr(module, "episode_metrics"):
        row.update(module.episode_metrics(task, episode) or {})
    return row
