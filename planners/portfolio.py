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
| an exact PDDL export without numeric fluents, Fast Downward installed | `fd` (A* + LM-cut, or its fallbacks) in the first half of the time, then our A* |
| anything else | A* with h_max (uniform-cost search when the relaxation cannot be built) |

Every answer says which planner gave it (`planner` is `auto:<name>`, and `reason` starts with the
choice), so a stored optimum names the method that proved it.
"""
from __future__ import annotations

from .result import SOLVED_OPTIMAL, TIMEOUT, UNSOLVABLE_PROVEN, UNSUPPORTED, PlanResult


def choices(task, start=None) -> list[tuple[str, str | None, float, str]]:
    """(planner, heuristic, share of the time left, why) in the order they are tried."""
    from .heuristics.relaxation import unsupported
    from .search import unit_costs

    if task.problem.routing is not None:
        return [("tsp", None, 1.0, "a routing problem")]
    if task.goal.temporal:
        return [("bfs" if unit_costs(task) else "ucs", None, 1.0, "a temporal goal")]
    if task.domain.timers and _every_action_costs_one(task):
        return [("prove", None, 1.0, "timers with unit costs")]
    out = []
    if start is None and _fast_downward_can_read(task):
        out.append(("fd", None, 0.5, "an exact PDDL export for Fast Downward"))
    if unsupported(task) is None:
        out.append(("astar", "hmax", 1.0, "A* with h_max" if not out else "then our A* with h_max"))
    else:
        out.append(("bfs" if unit_costs(task) else "ucs", None, 1.0, "no relaxation: blind search"))
    return out


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
    for k, (planner, heuristic, share, why) in enumerate(steps):
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - began), 1e-3)
        seconds = left if left is None or k == len(steps) - 1 else left * share
        result = solve_with(planner, heuristic, seconds)
        result.reason = f"auto chose {planner} ({why})" + (f": {result.reason}" if result.reason else "")
        result.planner = f"auto:{result.planner}"
        if result.status in (SOLVED_OPTIMAL, UNSOLVABLE_PROVEN):
            return result
        if best is None or (result.solved and not best.solved) or best.status == UNSUPPORTED:
            best = result
    if best is not None and best.status == UNSUPPORTED and time_limit is not None and time.perf_counter() - began >= time_limit:
        best.status = TIMEOUT
    return best
