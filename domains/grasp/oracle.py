"""GRASP's oracle: the OR-Tools orienteering model (planners/routing/orienteering.py) on a grid.

Energy cells a round trip can reach are the optional targets (prize 1, service 1 = TAKE), the
start is the depot (unloading = DROP, 1 step), the carry limit is the capacity, and the budget is
20 actions. The route becomes a plan by walking shortest paths between its stops. Its result is
checked against the independent branch and bound of exact.py (tests on a sample, and on all
16,000 environments by evals/bench/grasp_optima.py --check).
"""
from __future__ import annotations

from . import exact
from .grid import BUDGET, NO_LIMIT, Grid


def solve(grid: Grid, rules: dict, shared=None, time_limit=None, hint=None) -> tuple[float, list[str], bool]:
    """(optimal score, one optimal plan as action words, proven).

    hint: leg targets (as exact.solve returns them) for CP-SAT to start from; the optimum is
    still proven by CP-SAT, the hint only shortens the search."""
    from groundplan.planners.routing.orienteering import solve_trips

    cells, dist = shared if shared is not None else exact.tables(grid, rules["moves"])
    prizes = [0] + [1] * (len(cells) - 1)
    limit = rules["carry_limit"]
    value, route, _, proven = solve_trips(
        dist, prizes, service=1, budget=BUDGET, capacity=None if limit >= NO_LIMIT else limit,
        reload_service=1, step_cost=rules["step_cost"], time_limit=time_limit,
        hint=None if hint is None else [cells.index(cell) if cell != grid.start else 0 for cell in hint])
    legs = [cells[k] for k in route]
    return value, exact.plan_from_legs(grid, legs, rules["moves"]), proven
