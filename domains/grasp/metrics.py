"""GRASP's plan-eval plug-in: score, length, energy delivered and ratio to the optimum.

GRASP scores the actions an agent gave (`scoring.metrics`, corrected rules), valid or not, since
unknown and disallowed actions are paid no-ops. Those are the answers that used a step of the
loop, read from the episode's trajectory: an applied action as the loop read it (its `action`),
an answer naming no action as given. GRASP's profile (prompts.yaml) replays an open-loop plan to
its end (`stop_at_goal: false`), as the paper scores it, so the loop's steps are the plan's first
20 actions; the plug-in re-scores them with scoring.py rather than trusting the loop's cost,
which does not yet charge step_cost for a word that names no action (see README.md).
"""
from __future__ import annotations

from . import grid as G
from .scoring import metrics

# plan-eval's steps-to-go (the oracle's remaining cost from a failure's final state, over the
# reference cost) does not apply: a GRASP episode ends at its 20-action budget, not at a goal, and
# is ranked by score; proving it cost about 0.5 s per failed episode (most baseline episodes).
STEPS_TO_GO = False


def submitted(episode) -> list[str]:
    """The words of the answers that used a step, in order.

    The loop records each reply of the agent with its tokens, and each line of an open-loop plan
    without (it has no reply of its own); a plan's own record names no action."""
    words = []
    records = episode.trajectory
    for i, r in enumerate(records):
        line = "tokens" not in r
        if r.get("action") is None:
            if r.get("valid") is not False:
                if line:
                    break  # a declaration line ("finish") ends the episode
                continue  # a plan, whose lines follow; or a closing declaration
            if not line and i == len(records) - 1 and episode.outcome == "invalid-output":
                continue  # an open-loop answer that could not be read as a plan: nothing ran
        words.append(str(r.get("action") or r.get("answer") or "").strip())
    return words


def episode_metrics(task, episode) -> dict:
    data = task.problem.raw
    optimum = (task.problem.metadata or {}).get("optimum_score")
    return {"grasp": metrics(G.from_problem(data), submitted(episode), G.rules(data), optimum)}


def summary_metrics(rows: list[dict]) -> dict:
    scores = [r["grasp"] for r in rows if isinstance(r.get("grasp"), dict)]
    if not scores:
        return {}

    def mean(key):
        values = [s[key] for s in scores if s.get(key) is not None]
        return sum(values) / len(values) if values else None

    return {"grasp_score": mean("score"), "grasp_length": mean("length"), "grasp_delivered": mean("delivered"),
            "grasp_ratio_to_optimum": mean("ratio_to_optimum")}
