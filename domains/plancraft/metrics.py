"""Plancraft's metrics, computed as the paper's analysis code computes them (spec 4.2).

- Success per complexity bin (0-4, 5 = impossible) and grouped: easy = bins 0+1, medium = 2,
  hard = 3+4; "Overall" is the mean over solvable examples only.
- Average plan length: all assistant turns (moves, smelts, thoughts, searches, malformed replies
  and the final `impossible`) over solvable episodes, successful or not.
- Action Efficiency: a mean *difference* (the code's, not the paper's "ratio"): over successful
  solvable episodes, turns minus the reference planner's actions (`metadata.reference_actions`).
- Mean think / search / impossible counts per solvable episode (so "impossible" is the rate of
  giving up on a solvable task).
- Impossible F1: positive class = impossible; predicted positive = the episode ended with an
  `impossible:` declaration; over every example, reported only for runs where the agent could
  declare (agents whose tool set has no `impossible` get none, and the paper left impossible
  examples out of those runs: their success rates here are over solvable examples anyway).

plan-eval plug-in: `episode_metrics` adds a `plancraft` dict per episode; `summary_metrics`
turns a group's rows into columns prefixed `plancraft_`.
"""
from __future__ import annotations

BIN_GROUPS = {"easy": (0, 1), "medium": (2,), "hard": (3, 4)}

# The harness's steps-to-go of a failure (the generic oracle from the final state) is not a
# Plancraft metric, and the generic planners would first ground all 256,000 actions (about a
# minute and 3 GB per task): plan-eval leaves it out for this world.
STEPS_TO_GO = False


def episode_metrics(task, episode) -> dict:
    meta = task.problem.metadata or {}
    if "complexity_bin" not in meta:
        return {}
    tools = dict(episode.tool_calls or {})
    declared = episode.declaration == "impossible"
    turns = _turns(episode)
    out = {
        "bin": int(meta["complexity_bin"]),
        "impossible": bool(meta.get("impossible")),
        "turns": turns,
        "think": tools.get("think", 0),
        "search": tools.get("search", 0),
        "declared_impossible": declared,
        "reference_actions": meta.get("reference_actions"),
    }
    return {"plancraft": out}


def _turns(episode) -> int:
    """Assistant turns: every recorded answer (env actions, tools, malformed replies, the declaration);
    an open-loop agent's whole-plan entry is not a turn, its lines are."""
    return sum(1 for entry in episode.trajectory if entry.get("answer") is not None and not entry.get("plan"))


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def summary_metrics(rows: list[dict]) -> dict:
    scored = [(r, r["plancraft"]) for r in rows if isinstance(r.get("plancraft"), dict)]
    if not scored:
        return {}
    solvable = [(r, p) for r, p in scored if not p["impossible"]]
    out = {}
    for b in range(6):
        chosen = [r["success"] for r, p in scored if p["bin"] == b]
        out[f"plancraft_bin{b}"] = _mean(chosen)
    for name, bins in BIN_GROUPS.items():
        out[f"plancraft_{name}"] = _mean([r["success"] for r, p in solvable if p["bin"] in bins])
    out["plancraft_overall"] = _mean([r["success"] for r, p in solvable])
    out["plancraft_plan_length"] = _mean([p["turns"] for r, p in solvable])
    out["plancraft_action_efficiency"] = _mean([p["turns"] - p["reference_actions"] for r, p in solvable
                                                if r["success"] and p["reference_actions"] is not None])
    out["plancraft_think"] = _mean([p["think"] for r, p in solvable])
    out["plancraft_search"] = _mean([p["search"] for r, p in solvable])
    out["plancraft_impossible"] = _mean([int(p["declared_impossible"]) for r, p in solvable])
    out["plancraft_impossible_f1"] = impossible_f1([(p["impossible"], p["declared_impossible"]) for r, p in scored])
    return out


def impossible_f1(pairs) -> float | None:
    """F1 of the positive class 'impossible' (sklearn's f1_score with its zero-division default 0)."""
    pairs = list(pairs)
    if not pairs:
        return None
    tp = sum(1 for truth, said in pairs if truth and said)
    fp = sum(1 for truth, said in pairs if not truth and said)
    fn = sum(1 for truth, said in pairs if truth and not said)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0
