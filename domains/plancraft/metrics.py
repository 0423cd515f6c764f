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

`check_answer_key(task)` holds a row's labels to its stored proof before anything is scored
against them (engine.validate.check_answer_keys calls it for `groundplan validate` and before
plan-eval's first episode of the row): F1 and the bins read `metadata.impossible`, while the
step loop decides a declaration by `optimal.solvable`, so the two must agree. A row labelled
impossible must be proven unsolvable (`"solvable": false`, no stored plan or cost); a row
labelled possible must not be; `complexity_bin` 5 is the impossible bin; and
`reference_actions` (Action Efficiency's subtrahend) is the length of the reference planner's
plan (`reference.py`, under a millisecond a row, 20 ms at most on the shipped splits).
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


# ---------------------------------------------------------------- answer keys
IMPOSSIBLE_BIN = 5


def check_answer_key(task) -> list:
    """What is wrong with a Plancraft row's labels (see the module docstring), as Diagnostics at
    the row's file and line and /metadata/...; empty when they hold or the problem is no row."""
    from groundplan.engine.errors import Diagnostic, pointer

    meta = task.problem.metadata or {}
    if "complexity_bin" not in meta and "impossible" not in meta:
        return []
    out: list = []
    name, file = task.problem.name, task.problem.file

    def error(key, message, hint=None):
        out.append(Diagnostic(file, pointer(["metadata", key]), f"row '{name}': {message}", hint))

    entry = task.problem.optimal if isinstance(task.problem.optimal, dict) else {}
    impossible = meta.get("impossible")
    if not isinstance(impossible, bool):
        error("impossible", f"'impossible' is {impossible!r}, not true or false", "store whether the target can be crafted")
        return out
    proven = entry.get("solvable") is False
    plan, cost = entry.get("plan"), entry.get("cost") if entry.get("cost") is not None else entry.get("upper_bound")
    if impossible and isinstance(plan, list):
        error("impossible", f"labelled impossible, but /optimal/plan stores a plan of {len(plan)} action(s) for it "
              "(replayed by the check of /optimal)",
              "set impossible to false, or, if the plan is wrong, remove it and prove the row unsolvable "
              "(python -m groundplan.domains.plancraft.annotate FILE)")
    elif impossible and cost is not None:
        error("impossible", f"labelled impossible, but /optimal stores a cost ({cost}) for it",
              "set impossible to false, or prove the row unsolvable (python -m groundplan.domains.plancraft.annotate FILE)")
    elif impossible and not proven:
        error("impossible", "labelled impossible, but nothing stored proves it (/optimal has no \"solvable\": false)",
              "prove it (python -m groundplan.domains.plancraft.annotate FILE stores the proof), or set impossible to false")
    elif not impossible and proven:
        how = f" ({entry['method']})" if entry.get("method") else ""
        error("impossible", f"labelled possible, but /optimal/solvable is false: the row is proven unsolvable{how}",
              "set impossible to true (and complexity_bin to 5), or re-annotate the row")
    level = meta.get("complexity_bin")
    if isinstance(level, int) and (level == IMPOSSIBLE_BIN) != impossible:
        error("complexity_bin", f"bin {level} for a row labelled {'impossible' if impossible else 'possible'} "
              f"(bin {IMPOSSIBLE_BIN} holds the impossible rows, and only them)",
              "make the bin and the impossible label agree (the label must agree with /optimal)")
    if not impossible and not proven and meta.get("reference_actions") is not None:
        _check_reference_actions(task, meta["reference_actions"], error)
    return out


def _check_reference_actions(task, stored, error) -> None:
    try:
        from .reference import reference_plan
    except ImportError:  # the reproduction of the reference planner is optional, as for annotate
        return
    plan = reference_plan(task)
    if plan is None:
        error("reference_actions", f"the reference planner finds no plan, yet {stored} reference actions are stored",
              "remove reference_actions, or re-annotate (python -m groundplan.domains.plancraft.annotate FILE)")
    elif len(plan) != stored:
        error("reference_actions", f"the reference planner's plan has {len(plan)} actions, not the stored {stored} "
              "(Action Efficiency subtracts it)", f"set reference_actions to {len(plan)}")
