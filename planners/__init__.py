"""Oracle planners over the engine's own states: there is no second model of any world.

    from groundplan.planners import solve
    result = solve(task, planner="astar", heuristic="hmax", time_limit=60)
    result.status, result.cost, result.plan

Planners: bfs (breadth-first; uniform-cost when action costs differ), astar, wastar, gbfs, lazy
(greedy best-first with deferred evaluation, Fast Downward's lazy_greedy; satisficing), explore
(greedy search with exploration for deceptive heuristics, then a goal agenda; satisficing), prove
(unit costs: a plan first, then breadth-first search below its cost, pruned by landmark counting
and h_max; optimal, and the strongest prover for long timed tasks), tsp
(OR-Tools routing over target visits), fd (Fast Downward on the PDDL export, its plan replayed
here; `heuristic` is its search string, default astar(lmcut())), auto (optimal planners chosen by
the task's features, in time slices: planners/portfolio.py).
OR-Tools is imported only by the routing planner and the opcount heuristic.
"""
from __future__ import annotations

from .result import (MEMOUT, SOLVED_OPTIMAL, SOLVED_SATISFICING, STATUSES, TIMEOUT, UNSOLVABLE_PROVEN, UNSUPPORTED,
                     PlanResult)

PLANNERS = ("bfs", "ucs", "astar", "wastar", "gbfs", "lazy", "explore", "prove", "tsp", "fd", "auto")


def solve(task, planner: str = "auto", heuristic: str | None = None, weight: float = 2.0, time_limit: float | None = None,
          memory_limit: float | None = None, start=None, symmetry: bool = True) -> PlanResult:
    """Plan for `task` from `start` (default: its initial state). Never raises for unsupported features.

    The limits cover everything the planner does, grounding and building heuristics included
    (engine.budget): a problem too large to ground within them ends in `timeout` or `memout`."""
    import time

    from groundplan.engine.budget import limited
    from groundplan.engine.errors import ResourceLimit

    began, cpu_began = time.perf_counter(), time.process_time()
    try:
        with limited(time_limit or None, memory_limit):
            result = _solve(task, planner, heuristic, weight, time_limit, memory_limit, start, symmetry)
    except (ResourceLimit, MemoryError) as exc:
        status = exc.status if isinstance(exc, ResourceLimit) else MEMOUT
        reason = str(exc) if isinstance(exc, ResourceLimit) else "out of memory (MemoryError)"
        result = PlanResult(TIMEOUT if status == TIMEOUT else MEMOUT, planner, seconds=time.perf_counter() - began,
                            reason=f"stopped before a plan was found: {reason}")
    if result.cpu_seconds is None:  # a planner that times only its wall clock: its CPU over the whole call
        result.cpu_seconds = time.process_time() - cpu_began
    return result


def _uniform_cost(task, view, begin, planner, orbits, limits) -> PlanResult:
    """Uniform-cost search: over bitsets with the blind estimate where the task is plain STRIPS
    (it moves to the compiled A* once the kernels load, as A* does), else over engine states."""
    from . import heuristics as H
    from .search import best_first, strips

    if view is None:
        return best_first(task, None, planner=planner, symmetry=orbits, **limits)
    h = H.make(task, "blind")
    return strips.best_first(view, h.from_bits, begin, planner=planner, heuristic_name=None, compiled=h.compiled_tables,
                             time_limit=limits["time_limit"], memory_limit=limits["memory_limit"])


def _solve(task, planner, heuristic, weight, time_limit, memory_limit, start, symmetry) -> PlanResult:
    from . import heuristics as H
    from .search import best_first, breadth_first, unit_costs

    if planner not in PLANNERS:
        return PlanResult(UNSUPPORTED, planner, reason=f"unknown planner '{planner}' (choose from {', '.join(PLANNERS)})")
    limits = dict(time_limit=time_limit, memory_limit=memory_limit, start=start)
    from .search.symmetry import Symmetry

    orbits = Symmetry.detect(task) if symmetry else None
    if planner == "auto":
        if heuristic:  # a heuristic named: A* with it
            planner = "astar"
        else:
            from .portfolio import run_auto

            return run_auto(task, lambda p, h, seconds: _solve(task, p, h, weight, seconds, memory_limit, start, symmetry),
                            time_limit, start)
    if planner == "fd":
        from .fast_downward import DEFAULT_SEARCH, plan_with_fast_downward

        return plan_with_fast_downward(task, search=heuristic or DEFAULT_SEARCH, time_limit=time_limit,
                                       memory_limit=memory_limit)
    if planner == "tsp":
        from .routing import solve_routing

        return solve_routing(task, time_limit=time_limit, start=start)
    from .search import strips

    view = strips.strips_view(task)
    begin = start if start is not None else task.initial_state()
    if planner == "bfs":
        if unit_costs(task):
            if view is not None:
                return strips.bfs(view, begin, time_limit, memory_limit)
            return breadth_first(task, **limits)
        result = _uniform_cost(task, view, begin, "bfs", orbits, limits)  # optimal for any costs
        result.reason = "action costs differ: ran uniform-cost search"
        return result
    if planner == "ucs":
        return _uniform_cost(task, view, begin, "ucs", orbits, limits)
    if planner == "prove":
        from .search.layered import prove

        def quick(sub, begin, seconds):
            try:
                h = H.make(sub, "hff")
            except H.Unsupported:  # no relaxation (a lifted task): uniform-cost search needs none
                return best_first(sub, None, planner="ucs", start=begin, time_limit=seconds, memory_limit=memory_limit,
                                  symmetry=orbits)
            return _explore(sub, "hff", h, orbits, begin, seconds, memory_limit)
        return prove(task, start=start, time_limit=time_limit, memory_limit=memory_limit, quick=quick)
    name = heuristic or ("hmax" if planner == "astar" else "hff")
    try:
        h = H.make(task, name)
    except H.Unsupported as exc:
        return PlanResult(UNSUPPORTED, planner, heuristic=name, reason=str(exc))
    if planner == "explore":
        return _explore(task, name, h, orbits, start, time_limit, memory_limit)
    if planner == "lazy":
        fast = getattr(h, "from_bits", None) if view is not None else None
        if fast is not None:
            return strips.lazy_greedy(view, fast, begin, time_limit=time_limit, memory_limit=memory_limit,
                                      heuristic_name=h.name)
        planner = "gbfs"  # a richer task: the interpreter's greedy searches below
    if planner == "gbfs" and hasattr(h, "preferred") and view is None:
        from .search import greedy_preferred

        return greedy_preferred(task, h, start=start, time_limit=time_limit, memory_limit=memory_limit, symmetry=orbits)
    fast = getattr(h, "from_bits", None) if view is not None else None
    if fast is not None:
        greedy = planner == "gbfs"
        w = weight if planner == "wastar" else 1.0
        result = strips.best_first(view, fast, begin, weight=w, greedy=greedy, planner=planner, admissible=h.admissible,
                                   time_limit=time_limit, memory_limit=memory_limit, heuristic_name=h.name,
                                   compiled=getattr(h, "compiled_tables", None))
        if result.status == SOLVED_SATISFICING and planner == "astar":
            result.reason = f"heuristic '{name}' is not admissible: the plan is not proven optimal"
        return result
    if planner == "astar":
        result = best_first(task, h, planner="astar", symmetry=orbits, **limits)
        if result.status == SOLVED_SATISFICING:
            result.reason = f"heuristic '{name}' is not admissible: the plan is not proven optimal"
        return result
    if planner == "wastar":
        return best_first(task, h, weight=weight, planner="wastar", symmetry=orbits, **limits)
    return best_first(task, h, greedy=True, planner="gbfs", symmetry=orbits, **limits)


def _explore(task, name, h, orbits, start, time_limit, memory_limit):
    """Exploration search on the whole goal (a third of the time when the goal splits into parts),
    then, if that fails, the same search part by part through a goal agenda."""
    from . import heuristics as H
    from .decompose.agenda import legs, solve_agenda
    from .search.explore import explore
    from .search.symmetry import Symmetry

    parts = legs(task) if start is None else None
    first = time_limit / 3 if parts and time_limit else time_limit
    result = explore(task, h, start=start, time_limit=first, memory_limit=memory_limit, symmetry=orbits)
    if result.solved or not parts or result.status != TIMEOUT:
        return result

    def leg(sub, begin, left):
        return explore(sub, H.make(sub, name), start=begin, time_limit=left, memory_limit=memory_limit,
                       symmetry=Symmetry.detect(sub))
    left = None if time_limit is None else max(time_limit - result.seconds, 0.001)
    return solve_agenda(task, leg, time_limit=left, planner="explore")


__all__ = ["solve", "PlanResult", "PLANNERS", "STATUSES", "SOLVED_OPTIMAL", "SOLVED_SATISFICING", "UNSOLVABLE_PROVEN",
           "TIMEOUT", "MEMOUT", "UNSUPPORTED"]
