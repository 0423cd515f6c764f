"""Metrics: the core ones every world gets, and per-world plug-ins.

Core (Robotouille's): success; optimality of a success = reference cost / agent cost, binned by
agent/reference as = 1, (1, 1.25], (1.25, 1.5], > 1.5 (its Fig. 3); for a failure, the
normalised steps-to-go = optimal cost from the final state / optimal cost from the start,
binned [0, 0.5], (0.5, 1], > 1 (its Fig. 4).

A world adds its own metrics without touching the harness: `domains/<world>/metrics.py` may
define `episode_metrics(task, episode) -> dict` (extra fields for one episode's line) and
`summary_metrics(rows: list[dict]) -> dict` (extra summary columns for a group of lines), and
`check_answer_key(task) -> list[Diagnostic]` when its rows carry labels the metrics trust (called
before anything is scored: `engine.validate.check_answer_keys`).

A plug-in that raises (a problem without the metadata it expects, a bug) costs the one episode it
was scoring, not the run: the episode's outcome becomes `metric-error`, its own outcome is kept in
`agent_outcome`, and the message in `error`.
"""
from __future__ import annotations

import math

METRIC_ERROR = "metric-error"  # the outcome of an episode whose metrics raised
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
    from groundplan.planners.oracle import Oracle

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
        try:
            row.update(steps_to_go(task, episode, steps_to_go_time))
        except MemoryError:  # the proof of the remaining cost did not fit: unproven, like one out of time
            row.update(steps_to_go=None, steps_to_go_note="not proven: out of memory")
        row["steps_to_go_bin"] = steps_to_go_bin(row.get("steps_to_go"))
    return row


def plugin(world):
    """The metrics module of a loaded domain's world (the installed world its file belongs to), or
    of an installed world named by its folder (a summary's rows); None when there is none."""
    from groundplan.engine.loader import world_module

    return world_module(world, "metrics")


def episode_row(task, episode, steps_to_go_time: float | None = 10.0) -> dict:
    row = core(task, episode, steps_to_go_time)
    module = plugin(task.domain)
    if module is not None and hasattr(module, "episode_metrics"):
        try:
            row.update(module.episode_metrics(task, episode) or {})
        except MemoryError:
            raise  # the episode's memout, not the plug-in's fault
        except Exception as exc:
            where = getattr(module, "__name__", "its plug-in")
            row.update(outcome=METRIC_ERROR, agent_outcome=episode.outcome, unscored=True,
                       error=f"the world's metrics ({where}) failed on this episode: {type(exc).__name__}: {exc}")
    return row
