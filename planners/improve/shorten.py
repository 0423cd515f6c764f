"""Plan shortening by action elimination: a satisficing plan often carries detours.

Greedy search and exploration find plans with needless moves and undone steps. Removing a
block of consecutive actions (one to `max_block` long) and replaying the rest through the
interpreter keeps the plan valid whenever the goal still holds at the end, and never raises
the cost when action costs are non-negative. Blocks rather than single actions, because in
turn-based worlds one round is several actions, and removing one of them would hand the turn
to the wrong agent. The result is a plan of the task itself, checked by the same interpreter.
"""
from __future__ import annotations


def _replay(task, actions, start):
    """The cost of the plan (GroundActions) from `start`, or None if it fails or misses the goal."""
    state = start
    cost = 0
    for a in actions:
        if not task.is_applicable(state, a):
            return None
        cost += task.action_cost(state, a)
        state = task.successor(state, a)
    return cost if task.is_goal(state) else None


def shorten(task, actions, start=None, max_block: int = 4, time_limit: float | None = None):
    """A valid plan no costlier than `actions` (a valid plan of GroundActions), with blocks removed.

    Scans from the end (late detours are cheapest to test), restarting after each success."""
    import time

    begin = start if start is not None else task.initial_state()
    deadline = time.perf_counter() + time_limit if time_limit else None
    plan = list(actions)
    best = _replay(task, plan, begin)
    if best is None:
        raise ValueError("shorten() needs a valid plan")
    improved = True
    while improved:
        improved = False
        for size in range(max_block, 0, -1):
            i = len(plan) - size
            while i >= 0:
                if deadline is not None and time.perf_counter() > deadline:
                    return plan
                candidate = plan[:i] + plan[i + size:]
                cost = _replay(task, candidate, begin)
                if cost is not None and cost <= best:
                    plan, best, improved = candidate, cost, True
                    i = min(i, len(plan) - size)
                    continue
                i -= 1
    return plan
