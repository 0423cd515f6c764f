"""`auto`: pick optimal planners by the task's features and run them in time slices.

One planner is not best everywhere: A* with h_max ran for more than ten minutes on the kitchen's
async 03, which the prover (`prove`) settles in under three; Fast Downward's C++ A* expands
states 10 to 50 times faster than ours on classical tasks, but reads no timers, numeric
fluents or temporal goals. So the choice follows what the task has:

| the task has | tried, in order |
|---|---|
| a routing section | `tsp` (exact routing over its targets) |
| a temporal goal | breadth-first (uniform-cost when costs differ): the relaxation sees no temporal goal |
| timers and unit costs | `prove` (bounded breadth-first search below a first plan, pruned by time-aware estimates) |
| an exact PDDL export without numeric fluents, Fast Downward installed | our blind search for a short slice (below), then `fd` (A* + LM-cut, or its fallbacks) in the first half of the time left, then our A* |
| anything else | A* with h_max (uniform-cost search when the relaxation cannot be built) |

Going through Fast Downward costs about 0.2-0.35 s of wall time whatever the task (the PDDL
export, its driver, translator and search processes, reading back and replaying the plan): on
tiny tasks that made `auto` the slowest choice (Hanoi with 7 disks: our breadth-first search
0.02 s, `auto` through Fast Downward 0.3 s). So before starting it, `auto` runs our own
blind search (`bfs`: breadth-first with unit costs, uniform-cost otherwise; optimal either way,
so `auto` promises what it promised before) for at most `SMALL_SLICE` seconds (and never more
than `SMALL_SHARE` of the time limit), grounding included: a nested budget stops it wherever it
is. "Small" is thus what our search settles within that slice; the figures that set it (wall
seconds, `evals/bench/ipc_coverage.py`'s tasks and the shipped problems, one machine): our blind
search proves the optimum within the slice on Hanoi with 3-9 disks (7 disks: 0.02 s), on 11 of the
17 shipped gripper, blocksworld, Sokoban, logistics and gridnav problems (gripper prob01-03,
both blocksworld problems, both gridnav rooms, logistics-c2-p2-s1, three Sokoban maps) and on the
first IPC depot, satellite and scanalyzer tasks, where `auto` through Fast Downward took 0.22-0.57 s;
a task it does not settle costs at most the slice (about one Fast Downward start-up) before Fast
Downward runs as before.

Every answer says which planner gave it (`planner` is `auto:<name>`, and `reason` starts with the
choice), so a stored optimum names the method that proved it.
"""
from __future__ import annotations

from .result import SOLVED_OPTIMAL, TIMEOUT, UNSOLVABLE_PROVEN, UNSUPPORTED, PlanResult

SMALL_SLICE = 0.3  # seconds of our own blind search before Fast Downward starts (about its start-up time)
SMALL_SHARE = 0.05  # ... and never more than this share of the time limit


def choices(task, start=None) -> list[tuple[str, str | None, float, str, float | None]]:
    """(planner, heuristic, share of the time left, why, cap in seconds or None) in the order
    they are tried; a capped step runs under a budget of its own, grounding included."""
    from .search import unit_costs

    if task.problem.routing is not None:
        return [("tsp", None, 1.0, "a routing problem", None)]
    if task.goal.temporal:
        return [("bfs" if unit_costs(task) else "ucs", None, 1.0, "a temporal goal", None)]
    if task.domain.timers and _every_action_costs_one(task):
        return [("prove", None, 1.0, "timers with unit costs", None)]
    out = []
    if start is None and _fast_downward_can_read(task):
        out.append(("bfs", None, SMALL_SHARE, f"a small task: our blind search within {SMALL_SLICE:g} s, before "
                    "Fast Downward's start-up", SMALL_SLICE))
        out.append(("fd", None, 0.5, "an exact PDDL export for Fast Downward", None))
    if out:  # decided when reached: asking grounds the whole task (18 s on IPC depot pfile22), which
        # Fast Downward, tried first, may make needless
        out.append((LAST_RESORT, None, 1.0, "then our own search", None))
    else:
        out.append(last_resort(task))
    return out


LAST_RESORT = "last-resort"  # a choice `run_auto` resolves by `last_resort` when it gets there


def last_resort(task) -> tuple[str, str | None, float, str, None]:
    """Our A* with h_max, or blind search where the relaxation cannot be built."""
    from .heuristics.relaxation import unsupported
    from .search import unit_costs

    if unsupported(task) is None:
        return ("astar", "hmax", 1.0, "A* with h_max", None)
    return ("bfs" if unit_costs(task) else "ucs", None, 1.0, "no relaxation: blind search", None)


def _every_action_costs_one(task) -> bool:
    """Unit costs as the domain writes them (`unit_costs` also asks for no created objects, which
    the prover handles: the kitchen's water)."""
    from groundplan.engine import model as m

    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return False
    return all(isinstance(a.cost, m.Num) and a.cost.value == 1 for a in task.domain.actions.values())


def _fast_downward_can_read(task) -> bool:
    from groundplan.engine.pddl.writer import ExportError, export_pddl

    from .fast_downward import driver

    if driver() is None:
        return False
    try:
        export = export_pddl(task.problem, classical=True)
    except ExportError:
        return False
    return not export.numeric


def run_auto(task, solve_with, time_limit: float | None, start=None) -> PlanResult:
    """Run the choices in turn; `solve_with(planner, heuristic, seconds)` runs one of them. The
    first that settles the task (a proven optimum or proven unsolvability) answers; a plan
    that is not proven optimal is kept while a later choice may still prove one."""
    import time

    began = time.perf_counter()
    best = None
    steps = choices(task, start)
    for k, step in enumerate(steps):
        if step[0] == LAST_RESORT:
            step = last_resort(task)
            step = (step[0], step[1], step[2], "then our " + step[3], step[4])
        planner, heuristic, share, why, cap = step
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - began), 1e-3)
        seconds = left if left is None or k == len(steps) - 1 else left * share
        if cap is not None:
            seconds = cap if seconds is None else min(seconds, cap)
            result = _within(solve_with, planner, heuristic, seconds)
            if result is None:  # the slice ran out before the search began (grounding): on to the next choice
                continue
        else:
            result = solve_with(planner, heuristic, seconds)
        result.reason = f"auto chose {planner} ({why})" + (f": {result.reason}" if result.reason else "")
        result.planner = f"auto:{result.planner}"
        if cap is not None and result.status not in (SOLVED_OPTIMAL, UNSOLVABLE_PROVEN):
            continue  # the small-task slice only answers when it settles the task
        if result.status in (SOLVED_OPTIMAL, UNSOLVABLE_PROVEN):
            return result
        if best is None or (result.solved and not best.solved) or best.status == UNSUPPORTED:
            best = result
    if best is not None and best.status == UNSUPPORTED and time_limit is not None and time.perf_counter() - began >= time_limit:
        best.status = TIMEOUT
    return best


def _within(solve_with, planner, heuristic, seconds):
    """`solve_with` under a budget of its own (grounding and heuristics included); None if that
    budget ran out before the planner could answer (an outer budget's end still propagates: the
    next choice's first poll raises it)."""
    from groundplan.engine.budget import limited, poll
    from groundplan.engine.errors import ResourceLimit

    try:
        with limited(seconds):
            return solve_with(planner, heuristic, seconds)
    except ResourceLimit as exc:
        if exc.status != TIMEOUT:
            raise
        poll()  # an outer budget that is spent too ends the whole call here
        return None
