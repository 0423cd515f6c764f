"""GRASP scores and metrics as pure functions of a grid, the rules and an action list.

Two evaluators:
- `corrected` (default): the rules as the paper states them. Diagonal moves work under mu2, and
  the score is the energy lying on the START cell at the end minus step_cost x length.
- `legacy`: the reference evaluator that produced the paper's Table 2 (spec section 5): diagonal
  moves are no-ops, and the score counts the energy on the agent's FINAL cell. Kept only to
  regenerate Table 2 as a regression test.
In both, the plan is truncated to its first 20 actions, and every action that cannot be done
(off the grid, into an obstacle, a diagonal under mu1, TAKE on an empty cell or at the carry
limit, an unknown word) changes nothing but still counts and pays the step cost.
"""
from __future__ import annotations

from dataclasses import dataclass

from .grid import BUDGET, DIAGONAL, DIRECTIONS, Grid

MODES = ("corrected", "legacy")


@dataclass(frozen=True)
class Outcome:
    score: float       # the paper's "Energy"
    length: int        # actions counted (the paper's "Length"), at most 20
    delivered: int     # units lying on the start cell at the end
    final_cell: tuple
    carried: int
    invalid: int       # actions that changed nothing


def run(grid: Grid, actions, moves: int = 4, carry_limit: int = 100, step_cost: float = 0.0,
        mode: str = "corrected") -> Outcome:
    """Execute an open-loop action list and score it."""
    if mode not in MODES:
        raise ValueError(f"unknown scoring mode {mode!r} (choose from {', '.join(MODES)})")
    plan = [str(a).strip().upper() for a in list(actions)[:BUDGET]]
    energy = dict(grid.energy)
    pos, carried, invalid = grid.start, 0, 0
    for word in plan:
        if word in DIRECTIONS:
            if (word in DIAGONAL and (moves != 8 or mode == "legacy")):
                invalid += 1
                continue
            dr, dc = DIRECTIONS[word]
            nxt = (pos[0] + dr, pos[1] + dc)
            if grid.free(*nxt):
                pos = nxt
            else:
                invalid += 1
        elif word == "TAKE":
            if energy.get(pos, 0) > 0 and carried < carry_limit:
                energy[pos] -= 1
                carried += 1
            else:
                invalid += 1
        elif word == "DROP":
            energy[pos] = energy.get(pos, 0) + carried
            carried = 0
        else:
            invalid += 1
    delivered = energy.get(grid.start, 0)
    counted = energy.get(pos, 0) if mode == "legacy" else delivered
    return Outcome(round(counted - step_cost * len(plan), 10), len(plan), delivered, pos, carried, invalid)


def score(grid: Grid, actions, moves=4, carry_limit=100, step_cost=0.0, mode="corrected") -> float:
    return run(grid, actions, moves, carry_limit, step_cost, mode).score


def ratio_to_optimum(value: float, optimum: float) -> float | None:
    """Score over the optimum's score; None when the optimum is 0 (nothing can be gained)."""
    if optimum <= 0:
        return None
    return value / optimum


def metrics(grid: Grid, actions, rules: dict, optimum: float | None = None, mode: str = "corrected") -> dict:
    """score, length, energy delivered and the ratio to the optimum (when given) of one plan."""
    out = run(grid, actions, rules["moves"], rules["carry_limit"], rules["step_cost"], mode)
    result = {"score": out.score, "length": out.length, "delivered": out.delivered, "invalid": out.invalid}
    if optimum is not None:
        result["ratio_to_optimum"] = ratio_to_optimum(out.score, optimum)
    return result
