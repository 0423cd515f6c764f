"""Breadth-first, uniform-cost and best-first search (A*, weighted A*, greedy) over engine states.

Tie-breaking is deterministic: lower f, then lower h, then first generated. Successors come
in the engine's fixed action order, so a run always returns the same plan.
"""
from __future__ import annotations

import heapq
import math

from ..limits import Limits
from ..result import MEMOUT, SOLVED_OPTIMAL, SOLVED_SATISFICING, TIMEOUT, UNSOLVABLE_PROVEN, PlanResult
from ..transitions import Transitions, label_text


def _plan(parents, state):
    labels = []
    while True:
        entry = parents[state]
        if entry is None:
            break
        state, label = entry
        labels.append(label)
    labels.reverse()
    return labels


def _result(status, planner, labels, cost, expanded, generated, limits, **extra) -> PlanResult:
    return PlanResult(status=status, planner=planner, plan=[label_text(x) for x in labels], actions=labels, cost=cost,
                      expanded=expanded, generated=generated, seconds=limits.seconds, cpu_seconds=limits.cpu_seconds,
                      peak_memory_mb=limits.peak_mb, **extra)


def unit_costs(task) -> bool:
    """All actions cost exactly 1 (known only for grounded tasks)."""
    u = task.universe()
    if u.actions is None or task.domain.creates_objects():
        return False
    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return False  # a round costs the sum of its agents' actions
    return all(a.cost == 1 for a in u.actions)


def breadth_first(task, start=None, time_limit=None, memory_limit=None) -> PlanResult:
    """Optimal for unit costs: the first time the goal is generated, its depth is minimal."""
    limits = Limits(time_limit, memory_limit)
    succ = Transitions(task)
    s0 = start if start is not None else task.initial_state()
    parents = {s0: None}
    if task.is_goal(s0):
        return _result(SOLVED_OPTIMAL, "bfs", [], 0, 0, 1, limits)
    layer = [s0]
    expanded = generated = 0
    depth = 0
    is_goal, is_dead = task.is_goal, task.is_dead
    while layer:
        depth += 1
        nxt = []
        for state in layer:
            stop = limits.exceeded()
            if stop:
                return _result(TIMEOUT if stop == "timeout" else MEMOUT, "bfs", [], None, expanded, generated, limits,
                               lower_bound=depth - 1)
            expanded += 1
            for label, child, _ in succ(state):
                generated += 1
                if child in parents:
                    continue
                parents[child] = (state, label)
                if is_goal(child):
                    return _result(SOLVED_OPTIMAL, "bfs", _plan(parents, child), depth, expanded, generated, limits)
                if not is_dead(child):
                    nxt.append(child)
        layer = nxt
    return _result(UNSOLVABLE_PROVEN, "bfs", [], None, expanded, generated, limits)


def best_first(task, heuristic=None, weight: float = 1.0, greedy: bool = False, start=None, planner: str = "astar",
               time_limit=None, memory_limit=None, optimal_claim: bool | None = None, symmetry=None) -> PlanResult:
    """A* (weight 1, admissible h), weighted A* (bound = weight) or greedy best-first (g ignored).

    With no heuristic this is uniform-cost search. Goal test at expansion; a state is reopened
    when reached more cheaply (so inconsistent admissible heuristics stay optimal).
    """
    limits = Limits(time_limit, memory_limit)
    succ = Transitions(task)
    h = heuristic if heuristic is not None else (lambda state: 0)
    s0 = start if start is not None else task.initial_state()
    h0 = h(s0)
    name = getattr(heuristic, "name", "blind") if heuristic is not None else None
    if h0 == math.inf:
        return _result(UNSOLVABLE_PROVEN, planner, [], None, 0, 1, limits, heuristic=name)
    key = symmetry.key if symmetry is not None else (lambda state: state)  # duplicates up to renaming
    best_g = {key(s0): 0}
    parents = {s0: None}
    counter = 0
    heap = [(h0 if greedy else weight * h0, h0, counter, s0, 0)]
    expanded = generated = 0
    is_goal, is_dead = task.is_goal, task.is_dead
    admissible = heuristic is None or getattr(heuristic, "admissible", False)

    def stopped(stop, f):
        lower = f if (admissible and weight == 1 and not greedy) else None
        return _result(TIMEOUT if stop == "timeout" else MEMOUT, planner, [], None, expanded, generated, limits,
                       heuristic=name, lower_bound=lower)
    while heap:
        f, hv, _, state, g = heapq.heappop(heap)
        if g > best_g.get(key(state), math.inf):
            continue
        stop = limits.exceeded()
        if stop:
            return stopped(stop, f)
        if is_goal(state):
            optimal = admissible and weight == 1 and not greedy if optimal_claim is None else optimal_claim
            bound = None if optimal else (weight if admissible and not greedy else None)
            return _result(SOLVED_OPTIMAL if optimal else SOLVED_SATISFICING, planner, _plan(parents, state), g,
                           expanded, generated, limits, heuristic=name, bound=bound)
        expanded += 1
        for label, child, cost in succ(state):
            generated += 1
            g2 = g + cost
            k2 = key(child)
            if g2 >= best_g.get(k2, math.inf):
                continue
            if is_dead(child):
                continue
            stop = limits.exceeded()  # one evaluation can take long (h_max on 180,000 actions: 0.25 s)
            if stop:
                return stopped(stop, f)  # the node being expanded had the least f: still a lower bound
            h2 = h(child)
            if h2 == math.inf:
                continue
            best_g[k2] = g2
            parents[child] = (state, label)
            counter += 1
            heapq.heappush(heap, (h2 if greedy else g2 + weight * h2, h2, counter, child, g2))
    return _result(UNSOLVABLE_PROVEN, planner, [], None, expanded, generated, limits, heuristic=name)


def greedy_preferred(task, heuristic, start=None, time_limit=None, memory_limit=None, symmetry=None) -> PlanResult:
    """Greedy best-first search with deferred evaluation and preferred operators (as in Fast Downward).

    A child is queued with its parent's estimate and evaluated only when expanded, which saves a
    heuristic call per child; children reached by an action of the parent's relaxed plan also go
    to a second queue that is served alternately (with priority after progress), so a long
    plateau is crossed along the relaxed plan. Satisficing: no bound on the plan's cost.
    """
    limits = Limits(time_limit, memory_limit)
    succ = Transitions(task)
    s0 = start if start is not None else task.initial_state()
    key = symmetry.key if symmetry is not None else (lambda state: state)
    parents = {s0: None}
    seen = {key(s0)}
    counter = 0
    queues = ([(0, 0, s0, 0)], [])  # (h of parent, tie, state, g)
    best_h = math.inf
    boost = 0
    expanded = generated = 0
    name = getattr(heuristic, "name", None)
    while queues[0] or queues[1]:
        use = 1 if queues[1] and (boost > 0 or expanded % 2) else 0
        if not queues[use]:
            use = 1 - use
        _, _, state, g = heapq.heappop(queues[use])
        boost = max(0, boost - 1)
        stop = limits.exceeded()
        if stop:
            return _result(TIMEOUT if stop == "timeout" else MEMOUT, "gbfs", [], None, expanded, generated, limits, heuristic=name)
        if task.is_goal(state):
            return _result(SOLVED_SATISFICING, "gbfs", _plan(parents, state), g, expanded, generated, limits, heuristic=name)
        value = heuristic(state)
        if value == math.inf or task.is_dead(state):
            continue
        if value < best_h:
            best_h, boost = value, 1000  # progress: favour preferred operators for a while
        preferred = getattr(heuristic, "preferred", set())
        expanded += 1
        for label, child, cost in succ(state):
            generated += 1
            k = key(child)
            if k in seen:
                continue
            seen.add(k)
            parents[child] = (state, label)
            counter += 1
            entry = (value, counter, child, g + cost)
            heapq.heappush(queues[0], entry)
            if not isinstance(label, tuple) and label.name in preferred:
                heapq.heappush(queues[1], entry)
    return _result(UNSOLVABLE_PROVEN, "gbfs", [], None, expanded, generated, limits, heuristic=name)
