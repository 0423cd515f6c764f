"""A goal agenda for orders of several independent parts (dishes): plan for them one at a time.

An existential goal whose conjuncts split into groups sharing no variable (see
relaxation.goal_groups) is served incrementally, as in FF's goal agenda: plan from the initial
state to the first group, from there to the first two groups (with the inequalities between
them, so no object serves two parts), and so on. Each leg is a much smaller search than the
whole; the concatenated plan is a plan of the task, replayed by the interpreter. Incomplete (an
early leg may spoil a later one) and satisficing: nothing is claimed about cost.
"""
from __future__ import annotations

import time

from engine import model as m

from .relaxation import goal_groups
from .result import SOLVED_SATISFICING, TIMEOUT, PlanResult


def legs(task) -> list | None:
    """The goals of the agenda's legs (model formulas), or None when the goal does not split."""
    groups, cross, params, find = goal_groups(task.goal.goal)
    if groups is None:
        return None
    order = [k for k in groups if k is not None]
    ground = groups.get(None, [])
    out = []
    for n in range(1, len(order) + 1):
        chosen = set(order[:n])
        conjuncts = list(ground) + [c for k in order[:n] for c in groups[k]]
        conjuncts += [node for node, roots in cross if roots <= chosen]
        variables = tuple((v, t) for v, t in params if find(v) in chosen)
        out.append(m.Quantified("exists", variables, m.And(tuple(conjuncts))))
    return out


def solve_agenda(task, search, time_limit: float | None = None, planner: str = "agenda") -> PlanResult:
    """`search(task, start, time_limit) -> PlanResult` solves each leg from where the last ended."""
    goals = legs(task)
    began = time.perf_counter()
    if goals is None:
        return search(task, None, time_limit)
    state = task.initial_state()
    actions, expanded, generated = [], 0, 0
    for goal in goals:
        left = None if time_limit is None else time_limit - (time.perf_counter() - began)
        if left is not None and left <= 0:
            return PlanResult(TIMEOUT, planner, expanded=expanded, generated=generated, seconds=time.perf_counter() - began)
        leg = task.with_goal(goal)
        result = search(leg, state, left)
        expanded += result.expanded
        generated += result.generated
        if not result.solved:
            return PlanResult(result.status if result.status == TIMEOUT else TIMEOUT, planner, expanded=expanded,
                              generated=generated, seconds=time.perf_counter() - began,
                              reason=f"leg {len(actions)} failed: {result.status}")
        for a in result.actions:
            state = task.successor(state, a)
        actions += result.actions
    cost, replay = 0, task.initial_state()
    for a in actions:
        if not task.is_applicable(replay, a):
            raise AssertionError("agenda plan does not replay")
        cost += task.action_cost(replay, a)
        replay = task.successor(replay, a)
    assert task.is_goal(replay)
    return PlanResult(SOLVED_SATISFICING, planner, plan=[a.text for a in actions], actions=actions, cost=cost,
                      expanded=expanded, generated=generated, seconds=time.perf_counter() - began)
