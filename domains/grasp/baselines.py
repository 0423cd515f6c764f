"""The paper's two baselines, with the reference code's behaviour (spec section 4), as plans.

Each baseline is a pure function (grid, rules, seed) -> list of action words, planned open-loop
like the paper's agents; `random.Random(seed)` is the only source of chance, so a seed always
gives the same plan.

- random_walk: 6 x (a random direction of the movement set, TAKE), then the opposite of each
  direction in reverse order, then DROP: always 19 actions. It ignores the grid, so a failed
  outbound move is still undone on the way back (the walk may end away from the start).
- greedy: breadth-first search to the nearest energy (neighbour order shuffled at every
  expansion, goal test when a cell is dequeued, so the current cell counts), go there and TAKE;
  when going to the next one, taking it, retracing every move so far and dropping would not fit
  in the steps left, retrace the whole history and DROP. It ignores the carry limit and the step
  cost (its own copy of the map always loses the unit it takes). When no energy is reachable it
  stops where it is, without returning or dropping (the code, not the paper's pseudo-code).

`planning="legacy"` plans the greedy with the reference's broken mover of 2024 (diagonal moves do
nothing), which is how its stored mu2 answers behind Table 2 were made.

`baseline_plan(name, task, seed)` is the hook plan-eval's `--agent baseline:NAME` calls (see
agents/baselines.py): the same functions, on the grid and rules read from the loaded problem.
"""
from __future__ import annotations

import random
from collections import deque

from .grid import BUDGET, DIAGONAL, DIRECTIONS, OPPOSITE, Grid, from_problem, move_names
from .grid import rules as rules_of

WALK_LENGTH = 6


def random_walk(grid: Grid, rules: dict, seed: int) -> list[str]:
    rng = random.Random(seed)
    directions = move_names(rules["moves"])
    out, chosen = [], []
    for _ in range(WALK_LENGTH):
        d = rng.choice(directions)
        chosen.append(d)
        out += [d, "TAKE"]
    out += [OPPOSITE[d] for d in reversed(chosen)]
    return out + ["DROP"]


def _bfs(grid: Grid, energy: dict, source, directions, rng):
    """(target, moves) to the nearest cell with energy, or (None, None); the reference's BFS."""
    queue = deque([(source, [])])
    visited = set()
    while queue:
        cell, path = queue.popleft()
        if cell in visited:
            continue
        visited.add(cell)
        if energy.get(cell, 0) > 0:
            return cell, path
        order = list(directions)
        rng.shuffle(order)
        for d in order:
            dr, dc = DIRECTIONS[d]
            nxt = (cell[0] + dr, cell[1] + dc)
            if grid.free(*nxt) and nxt not in visited:
                queue.append((nxt, path + [d]))
    return None, None


def greedy(grid: Grid, rules: dict, seed: int, planning: str = "corrected") -> list[str]:
    rng = random.Random(seed)
    directions = move_names(rules["moves"])
    energy = dict(grid.energy)
    pos = grid.start
    steps, result, moves = BUDGET, [], []

    def move(d):
        nonlocal pos
        if planning == "legacy" and d in DIAGONAL:
            return  # the 2024 mover ignored diagonals
        dr, dc = DIRECTIONS[d]
        nxt = (pos[0] + dr, pos[1] + dc)
        if grid.free(*nxt):
            pos = nxt

    while steps > 0:
        target, path = _bfs(grid, energy, pos, directions, rng)
        if target is None:
            break
        if 2 * len(path) + len(moves) + 2 > steps:
            for d in reversed(moves):
                if steps <= 0:
                    break
                move(OPPOSITE[d])
                result.append(OPPOSITE[d])
                steps -= 1
            result.append("DROP")
            return result
        for d in path:
            move(d)
            result.append(d)
            moves.append(d)
            steps -= 1
        if energy.get(pos, 0) > 0:
            energy[pos] -= 1
        result.append("TAKE")
        steps -= 1
    return result


BASELINES = {"random-walk": random_walk, "greedy": greedy}


def baseline_plan(name: str, task, seed: int) -> list[str]:
    """The plan of baseline `name` for a loaded GRASP problem (corrected planning, as the paper's
    agents are evaluated here), exactly what `BASELINES[name](grid, rules, seed)` returns."""
    data = task.problem.raw
    return BASELINES[name](from_problem(data), rules_of(data), seed)
