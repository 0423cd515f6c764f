"""Ground truth of a PPNL instance: optimal cost, one optimal plan, or "goal not reachable".

Single goal: breadth-first search on the grid. Multi goal: breadth-first distances between the
start and every goal, then the generic sequencer of planners/routing/ (OR-Tools CP-SAT, an
*open* path from the start, the ordering constraint as a precedence group) picks the order;
the plan is the legs' paths in that order, each followed by `inspect`. A goal that a leg merely
crosses is not inspected then: it is served in its turn, as in the benchmark.

The reference generator solved a closed tour and dropped the return leg, which is sometimes
longer than the best open path; this oracle is never longer (tests compare it with brute force
over all orders and with the interpreter's own planners).
"""
from __future__ import annotations

from dataclasses import dataclass

from groundplan.planners.routing import brute_force_sequence, solve_sequence

from .grid import distances, shortest_path

ORDER_SOLVERS = ("cp-sat", "brute-force")
NOT_REACHABLE = "Goal not reachable"


@dataclass
class Answer:
    solvable: bool
    cost: int | None = None  # actions, inspects included
    plan: list | None = None
    order: list | None = None  # multi goal: goal indices in visiting order


def reachable(size, obstacles, start, goals) -> bool:
    """Whether every goal lies in the start's 4-connected component."""
    seen = distances(size, set(map(tuple, obstacles)), tuple(start))
    return all(tuple(g) in seen for g in goals)


def solve_single(size, obstacles, start, goal, tie_break="ours") -> Answer:
    blocked = set(map(tuple, obstacles))
    path = shortest_path(size, blocked, tuple(start), tuple(goal), tie_break)
    if path is None:
        return Answer(False)
    if tie_break != "ours":  # the reference's string may be longer; the cost is always breadth-first
        best = shortest_path(size, blocked, tuple(start), tuple(goal))
        return Answer(True, len(best), path)
    return Answer(True, len(path), path)


def solve_multi(size, obstacles, start, goals, before=(), after=(), tie_break="ours", order_solver="cp-sat") -> Answer:
    """Visit every goal (inspecting it) on the shortest open path; goals in `before` precede those in `after`."""
    if order_solver not in ORDER_SOLVERS:
        raise ValueError(f"unknown order solver '{order_solver}' (choose from {', '.join(ORDER_SOLVERS)})")
    blocked = set(map(tuple, obstacles))
    goals = [tuple(g) for g in goals]
    start = tuple(start)
    from_start = distances(size, blocked, start)
    if any(g not in from_start for g in goals):
        return Answer(False)
    n = len(goals)
    table = [distances(size, blocked, g) for g in goals]
    first = [from_start[g] for g in goals]
    leg = [[None if i == j else table[i][goals[j]] for j in range(n)] for i in range(n)]
    precedence = [(list(before), list(after))] if before and after else []
    solve = solve_sequence if order_solver == "cp-sat" else brute_force_sequence
    found = solve(n, first, leg, [0] * n, precedence, tie_break="earliest")
    if found is None:  # cannot happen once every goal is reachable
        return Answer(False)
    order, moves, _, _ = found
    plan, here = [], start
    for i in order:
        plan += shortest_path(size, blocked, here, goals[i], tie_break) + ["inspect"]
        here = goals[i]
    return Answer(True, int(moves) + n, plan, list(order))
