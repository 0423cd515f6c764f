"""Plancraft's own baseline: the expert planner behind the paper's oracle, as an open-loop agent.

The paper measures plan length and Action Efficiency against this planner's plans, so running
it as an agent (`--agent baseline:reference`) gives the reference row every other agent is
compared with: success 1.0 on solvable examples, impossible F1 1.0, Action Efficiency 0.

`baseline_plan(name, task, seed)` is the hook of agents/baselines.py. The planner is
deterministic, so the seed is not used. Like the reference's oracle model, which answers a
single `impossible:` action when its planner returns no plan, the baseline then answers one
`impossible: <reason>` line (the reference leaves the reason empty; ours says why).
"""
from __future__ import annotations

from .reference import reference_plan

BASELINES = {
    "reference": "plancraft 0.4.9's expert planner (the paper's oracle): fewest recipe steps, laid out one item per "
                 "move; 'impossible:' when it finds no plan",
}
NO_PLAN = "impossible: the reference planner finds no plan"


def baseline_plan(name: str, task, seed: int) -> list[str]:
    """The action texts of baseline `name` for the problem's initial state."""
    if name not in BASELINES:
        raise KeyError(f"no Plancraft baseline '{name}'; baselines: {', '.join(sorted(BASELINES))}")
    plan = reference_plan(task)
    return plan if plan is not None else [NO_PLAN]
