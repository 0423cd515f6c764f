"""The exact GRASP optimum by depth-first branch and bound over trips (spec section 7).

Why a search of its own: the OR-Tools model in planners/routing/ is the oracle we ship, and
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

import functools

from .grid import BUDGET, DIRECTIONS, SIZE, Grid, move_names


def _neighbours(grid: Grid, moves: int) -> list:
    """For every cell index r * 11 + c, the indices one legal move away (obstacles excluded)."""
    steps = [DIRECTIONS[d] for d in move_names(moves)]
    out = []
    for r in range(SIZE):
        for c in range(SIZE):
            out.append([(r + dr) * SIZE + c + dc for dr, dc in steps if grid.free(r + dr, c + dc)])
    return out


def _bfs(adjacent, source: int) -> list:
    dist = [-1] * (SIZE * SIZE)
    dist[source] = 0
    frontier = [source]
    d = 0
    while frontier:
        d += 1
        nxt = []
        for cell in frontier:
            for other in adjacent[cell]:
                if dist[other] < 0:
                    dist[other] = d
                    nxt.append(other)
        frontier = nxt
    return dist


def tables(grid: Grid, moves: int, budget: int = BUDGET):
    """Candidate cells (start first) and their pairwise distances; shared by the 4 rule variants
    of one grid and movement set."""
    adjacent = _neighbours(grid, moves)
    s = grid.start[0] * SIZE + grid.start[1]
    from_start = _bfs(adjacent, s)
    cells = [grid.start] + sorted(e for e, units in grid.energy.items()
                                  if units > 0 and from_start[e[0] * SIZE + e[1]] >= 0
                                  and 2 * from_start[e[0] * SIZE + e[1]] + 2 <= budget)
    index = [r * SIZE + c for r, c in cells]
    dist = []
    for i, a in enumerate(index):
        da = from_start if i == 0 else _bfs(adjacent, a)
        dist.append([da[b] for b in index])
    return cells, dist


@functools.lru_cache(maxsize=64)
def _bound_table(limit: int, cost: float, budget: int):
    """table[home][carried][left]: the most that (carried + k) more units minus the cost of the
    fewest steps they need can add, over the k that fit in `left` steps (None: nothing fits)."""
    table = []
    for home in range(budget + 1):
        rows = []
        for carried in range(budget + 1):
            row = []
            for left in range(budget + 1):
                top = None
                for k in range(budget):
                    moves_needed = max(home, k + 1) if k else home
                    total = carried + k
                    steps = k + moves_needed + (-(-total // limit) if total else 0)
                    if steps > left:
                        break
                    value = total - cost * steps
                    if top is None or value > top:
                        top = value
                row.append(top)
            rows.append(row)
        table.append(rows)
    return table


def solve(grid: Grid, moves: int = 4, carry_limit: int = 100, step_cost: float = 0.0, shared=None,
          budget: int = BUDGET):
    """(best score, [cell, ...] leg targets with the start marking a DROP) of the exact optimum.

    `shared` is tables(grid, moves, budget) when the caller solves several variants of one grid;
    `budget` is GRASP's 20 actions (smaller ones let tests compare with a brute force).
    Energy cells hold one unit each in the released grids; a cell with more is still taken once
    here (never the case in GRASP's data, checked by the importer)."""
    cells, dist = shared if shared is not None else tables(grid, moves, budget)
    n = len(cells)
    limit = carry_limit
    cost = step_cost
    home = dist[0]
    bound = _bound_table(limit, cost, budget)
    best = [0.0, []]  # the empty plan scores 0
    memo: dict = {}
    eps = 1e-9
    path: list = []

    def dfs(cur, taken, carried, used, delivered):
        base = delivered - cost * used
        if carried == 0 and base > best[0] + eps:
            best[0], best[1] = base, list(path)
        top = bound[home[cur]][carried][budget - used]
        if top is None or base + top <= best[0] + eps:
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
                if step + home[e] + 1 > budget:
                    continue
                path.append(e)
                dfs(e, taken | (1 << e), carried + 1, step, delivered)
                path.pop()
        if carried:
            step = used + row[0] + 1
            if step <= budget:
                path.append(0)
                dfs(0, taken, 0, step, delivered + carried)
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


def optimum(grid: Grid, rules: dict, shared=None) -> tuple[float, list[str]]:
    """(optimal score, one optimal plan as action words)."""
    value, legs = solve(grid, rules["moves"], rules["carry_limit"], rules["step_cost"], shared)
    return value, plan_from_legs(grid, legs, rules["moves"])
