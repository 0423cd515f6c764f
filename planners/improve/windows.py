"""Plan improvement by window re-optimisation: optimal search over short stretches of a plan.

A satisficing plan's waste is mostly local: a bun stacked on a patty only to be lifted off
again, a walk to a station and back. Action elimination (shorten.py) removes detours that can
simply be dropped; it cannot replace six steps by three. Here every window [i, j) of the plan
is searched optimally: from the plan's state s_i, bounded breadth-first search looks for any
state from which the rest of the plan (steps j..n) still runs to the goal, in fewer than j - i
steps. Breadth-first search from s_i finds the cheapest such bridge for every end up to j at
once, since a shortcut to an earlier state followed by the plan's own steps is a bridge too
(the cheapest the filter below lets through).

The search is steered and pruned by landmark counting towards the facts the rest of the plan
needs from s_j (the preconditions it reads before producing them itself); a state holding
them all is checked by replaying the rest of the plan, and an accepted window's whole plan is
replayed from the start by the interpreter, so the result is always a valid plan, whatever
timers, counters, created objects or temporal goals ("always" parts) the world has.

Window sizes grow (12, 16, 20, 24 steps) while time remains, each swept until it finds nothing
more: a local optimum per size, in the spirit of plan-neighbourhood search (Nakhost and Mueller
2010) and of plan-space local search in LPG. Small windows rarely pay in the kitchen (a detour
there spans a dozen steps: sync 10 gained nothing from 8 and 12, 12 steps from 16). Unit-cost
tasks only, like the bounded search it uses; the result is never costlier than the input.
"""
from __future__ import annotations

import time

from groundplan.engine import model as m

from ..search.layered import bounded_breadth_first, every_step_costs_one
from .shorten import shorten


def trajectory(task, actions, start):
    """The states a plan passes through (n + 1 of them)."""
    states = [start]
    for a in actions:
        states.append(task.successor(states[-1], a))
    return states


def needed_facts(task, actions, states, j) -> int:
    """The facts of s_j that steps j.. read before producing them (a bitmask): what a bridge
    into the rest of the plan must restore. A filter, not a proof: it can miss a bridge whose
    end lacks a fact a still-running timer will restore in time; the replay decides."""
    needed = added = 0
    for k in range(j, len(actions)):
        needed |= actions[k].pre_pos & ~added
        before = task.bits(states[k])
        added |= task.bits(states[k + 1]) & ~before
    return needed & task.bits(states[j])


def replayed(task, actions, state):
    """The plan's steps as ground actions of the universes they meet from `state` (looked up by
    name where objects were created on the way), or None if one does not apply."""
    out = []
    for a in actions:
        mine = task.ground_action(a.schema.name, a.args, state) if state.created else a
        if mine is None or not task.is_applicable(state, mine):
            return None
        out.append(mine)
        state = task.successor(state, mine)
    return out, state


def runs_to_goal(task, actions, state) -> bool:
    """Whether the plan's steps apply in turn from `state` and end in a goal state."""
    done = replayed(task, actions, state)
    return done is not None and task.is_goal(done[1])


def bridge(task, actions, states, i, j, time_limit=None):
    """The cheapest bridge (ground actions) from s_i into the plan's steps j.., shorter than
    j - i, or None. The search keeps every state on the way (the goal facts are only a filter)."""
    from .. import heuristics as H

    rest = actions[j:]
    if rest:
        mask = needed_facts(task, actions, states, j)
        leg = task.with_goal(m.And(tuple(m.Atom(p, args) for p, args in task.facts.decode(mask))))
    else:
        leg = task  # a window ending the plan: the goal itself steers the search
    try:
        estimates = [(H.make(leg, "lmcount"), None)]
    except H.Unsupported:
        estimates = []
    result = bounded_breadth_first(leg, j - i - 1, estimates, start=states[i], time_limit=time_limit,
                                   accept=lambda s: runs_to_goal(task, rest, s))
    return result.actions if result.status == "solved-optimal" else None


def reoptimize(task, actions, start=None, windows=(12, 16, 20, 24), time_limit=None, window_time=5.0, log=None):
    """A valid plan no costlier than `actions` (a valid unit-cost plan of ground actions),
    every window of the given sizes replaced by the cheapest bridge found within `window_time`.

    Each size sweeps the plan from the end (a late improvement leaves earlier states, and the
    work done on them, untouched) until a sweep finds nothing; then the next size."""
    began = time.perf_counter()
    s0 = start if start is not None else task.initial_state()
    plan = shorten(task, list(actions), start=s0, time_limit=window_time)
    states = trajectory(task, plan, s0)
    for size in windows:
        improved = True
        while improved:
            improved = False
            i = len(plan) - 2
            while i >= 0:
                left = None if time_limit is None else time_limit - (time.perf_counter() - began)
                if left is not None and left <= 0:
                    return plan
                j = min(len(plan), i + size)
                found = bridge(task, plan, states, i, j, window_time if left is None else min(window_time, left))
                # the whole plan replayed by the task itself: a temporal goal's progress (an
                # "always" part) is tracked from the start, which the bridge's own search cannot do
                done = replayed(task, plan[:i] + list(found) + plan[j:], s0) if found is not None else None
                if done is not None and task.is_goal(done[1]) and not task.is_dead(done[1]):
                    new = done[0]
                    if log:
                        log(f"    window {size} at {i}: {j - i} steps -> {len(found)} (plan {len(plan)} -> {len(new)})")
                    plan = new
                    states = trajectory(task, plan, s0)
                    improved = True
                i -= 1
        if size >= len(plan):
            break  # every window already ran to the plan's end: larger ones are the same windows
    return plan


def polish(task, result, time_limit: float):
    """A satisficing PlanResult with its plan re-optimised window by window (`reoptimize`);
    optimal results, joint-action plans and tasks whose steps do not all cost 1 are returned as
    they are (the bounded search behind the windows counts steps)."""
    import dataclasses

    from ..result import SOLVED_SATISFICING

    if result.status != SOLVED_SATISFICING or not result.actions or not every_step_costs_one(task):
        return result
    began, cpu_began = time.perf_counter(), time.process_time()
    better = reoptimize(task, result.actions, time_limit=time_limit)
    spent = dict(seconds=result.seconds + time.perf_counter() - began,
                 cpu_seconds=(result.cpu_seconds or 0.0) + time.process_time() - cpu_began)
    if len(better) >= len(result.actions):
        return dataclasses.replace(result, **spent)
    return dataclasses.replace(result, planner=result.planner + " + windows", plan=[a.text for a in better],
                               actions=better, cost=len(better), **spent)
