"""The exact GRASP optimum by depth-first branch and bound over trips (spec section 7).

Why a search of its own: the OR-Tools model in planners/routing.py is the oracle we ship, and
this independent search is what proves it exact on all 16,000 environments (the benchmark
evals/bench/grasp_optima.py runs both and must find no disagreement). It is also fast enough
(pure Python, a few milliseconds an environment) to store every optimum at import time.

The model. An optimal plan is a sequence of legs over shortest paths: go to an untaken energy
cell and TAKE (while carrying fewer than the limit), or go to the start and DROP (while
carrying something). A plan ends with a DROP at the start, or is empty. Its score is
delivered - cost x (moves + takes + drops), with moves + takes + drops <= 20. Detours, TAKEs that
fail, DROPs away from the start and re-taking dropped units never help, so these plans contain
an optimum. Candidate cells are those a round trip can reach (2 d(s, e) + 2 <= 20).

Pruning: a memo of the fewest steps used per (cell, taken set, carried), and an upper bound:
k more units need k TAKEs, at least max(d(cur, s), k + 1) moves (k new cells, then home; d(cur, s)
when k = 0) and ceil((carried + k) / limit) DROPs.
"""
from __future__ import annotations

from .grid import BUDGET, Grid


def _tables(grid: Grid, moves: int):
    """Candidate cells (start first) and their pairwise distances."""
    from_start = grid.distances(grid.start, moves)
    cells = [grid.start] + sorted(e for e, units in grid.energy.items()
                                  if units > 0 and e in from_start and 2 * from_start[e] + 2 <= BUDGET)
    dist = [[0] * len(cells) for _ in cells]
    for i, a in enumerate(cells):
        da = from_start if i == 0 else grid.distances(a, moves)
        for j, b in enumerate(cells):
            dist[i][j] = da[b]
    return cells, dist


def solve(grid: Grid, moves: int = 4, carry_limit: int = 100, step_cost: float = 0.0):
    """(best score, [cell, ...] leg targets with the start marking a DROP) of the exact optimum.

    Energy cells hold one unit each in the released grids; a cell with more is still taken once
    here (never the case in GRASP's data, checked by the importer)."""
    cells, dist = _tables(grid, moves)
    n = len(cells)
    limit = carry_limit
    cost = step_cost
    home = dist[0] if n else [0]
    best = [0.0, []]  # the empty plan scores 0
    memo: dict = {}
    eps = 1e-9

    def bound(cur, carried, used, delivered):
        left = BUDGET - used
        top = None
        for k in range(0, n):
            moves_needed = max(home[cur], k + 1) if k else home[cur]
            total = carried + k
            drops = -(-total // limit) if total else 0
            steps = k + moves_needed + drops
            if steps > left:
                break
            value = delivered + total - cost * (used + steps)
            if top is None or value > top:
                top = value
        return top

    path: list = []

    def dfs(cur, taken, carried, used, delivered):
        if carried == 0:
            score = delivered - cost * used
            if score > best[0] + eps:
                best[0], best[1] = score, list(path)
        top = bound(cur, carried, used, delivered)
        if top is None or top <= best[0] + eps:
            return
        key = (cur, taken, carried)
        seen = memo.get(key)
        if seen is not None and seen <= used:
            return
        memo[key] = used
        row = dist[cur]
        if carried < limit:
            for e in range(1, n):
                if taken >> e & 1:
                    continue
                step = used + row[e] + 1
                if step + home[e] + 1 > BUDGET:
                    continue
                path.append(e)
                dfs(e, taken | (1 << e), carried + 1, step, delivered)
                path.pop()
        if carried and cur != 0:
            step = used + row[0] + 1
            if step <= BUDGET:
                path.append(0)
                dfs(0, taken, 0, step, delivered + carried)
                path.pop()
        elif carried and cur == 0:
            path.append(0)
            dfs(0, taken, 0, used + 1, delivered + carried)
            path.pop()

    if n > 1:
        dfs(0, 0, 0, 0, 0)
    return round(best[0], 10), [cells[i] for i in best[1]]


def plan_from_legs(grid: Grid, legs, moves: int) -> list[str]:
    """Action words for a list of leg targets: shortest paths, then TAKE (or DROP at the start)."""
    out, pos = [], grid.start
    for cell in legs:
        out += grid.path(pos, cell, moves)
        out.append("DROP" if cell == grid.start else "TAKE")
        pos = cell
    return out


def optimum(grid: Grid, rules: dict) -> tuple[float, list[str]]:
    """(optimal score, one optimal plan as action words)."""
    value, legs = solve(grid, rules["moves"], rules["carry_limit"], rules["step_cost"])
    return value, plan_from_legs(grid, legs, rules["moves"])
