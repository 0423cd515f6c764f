"""Breadth-first search under a cost bound, pruned by admissible heuristics: a prover.

`prove_optimal` is the entry point: it proves the kitchen's optima where A* with LM-cut could
not (async 03: 37 steps), because it spends a cheap estimate per new state instead of an
expensive one per generated state.

For unit-cost tasks (every step costs 1, so cost = depth), breadth-first search finds an
optimal plan at the first goal it generates. Given a bound B (one less than the best plan
known), a state at depth g whose admissible estimate says it needs more than B - g further
steps can be dropped: every plan of cost <= B passes only through states that survive. So the
search either finds a plan of cost <= B, which is optimal (breadth-first order), or proves
that no such plan exists, which makes the known plan of cost B + 1 optimal. This is Zhou and
Hansen's breadth-first heuristic search (2006) with the full closed list kept.

Why not A*: with an upper bound in hand, A*'s open list only orders what bounded search prunes
anyway, and its cost is one heuristic call per generated state. Here a heuristic is called once
per *new* state and only where it can prune (the remaining budget is small enough for the
estimate to exceed it), cheap estimates first and an expensive one only on what they let
through. Duplicates are caught twice: by the exact state (free) and by the symmetry class
(canonical key, computed once per new exact state).
"""
from __future__ import annotations

import math
import time

from ..limits import Limits
from ..result import MEMOUT, NO_PLAN_WITHIN_BOUND, SOLVED_OPTIMAL, TIMEOUT, PlanResult
from ..transitions import Transitions, label_text


KEY_CACHE = 1_000_000  # states per layer whose symmetry key is remembered (memory stays bounded)


def bounded_breadth_first(task, bound: int, heuristics=(), symmetry=None, start=None, time_limit=None,
                          memory_limit=None, log=None, accept=None) -> PlanResult:
    """Search plans of cost <= `bound` in a unit-cost task.

    heuristics: admissible estimates, cheapest first, each as (estimate, reach): the estimate is
    called only when the remaining budget is below `reach` (an estimate can only prune when it
    exceeds the budget, and one that rarely exceeds `reach` is not worth calling above it).
    reach None: the estimate of the initial state + 1 (estimates mostly fall as a plan goes on).
    accept: an extra test a goal state must pass to end the search (a goal state failing it is
    searched on like any other): the goal as a cheap filter, an expensive check behind it.
    Returns SOLVED_OPTIMAL with the plan, NO_PLAN_WITHIN_BOUND when no plan within the bound
    exists (lower_bound = bound + 1), or TIMEOUT/MEMOUT with the depth fully searched + 1 as
    the lower bound.
    """
    limits = Limits(time_limit, memory_limit)
    succ = Transitions(task)
    s0 = start if start is not None else task.initial_state()
    key = symmetry.key if symmetry is not None else (lambda state: state)
    is_dead = task.is_dead
    if accept is None:
        is_goal = task.is_goal
    else:
        if symmetry is not None:  # a twin of a refused goal state would be skipped unseen
            raise ValueError("bounded_breadth_first: an accept test needs symmetry=None")

        def is_goal(state, plain=task.is_goal):
            return plain(state) and accept(state)
    k0 = key(s0)
    parent_of = {k0: None}  # key -> the key it was first reached from (states themselves are not kept)
    name = "+".join(getattr(h, "name", "h") for h, _ in heuristics) or None
    expanded = generated = pruned = 0

    def plan_to(goal_key):
        """Walk the key chain back to the start, then forward again through real states: from a
        state with key k, some successor has the next key (a renaming's successor is a renaming)."""
        chain = []
        k = goal_key
        while k is not None:
            chain.append(k)
            k = parent_of[k]
        chain.reverse()
        labels, state = [], s0
        for want in chain[1:]:
            for label, child, _ in succ(state):
                if key(child) == want:
                    labels.append(label)
                    state = child
                    break
            else:
                raise RuntimeError("plan reconstruction lost the chain: the symmetry key is not a renaming invariant")
        return labels

    def done(status, goal_key, depth, lower):
        labels = plan_to(goal_key) if goal_key is not None else []
        return PlanResult(status=status, planner="bounded-bfs", plan=[label_text(x) for x in labels], actions=labels,
                          cost=depth if goal_key is not None else None, expanded=expanded, generated=generated,
                          seconds=limits.seconds, cpu_seconds=limits.cpu_seconds, peak_memory_mb=limits.peak_mb, heuristic=name, lower_bound=lower)

    if is_goal(s0):
        return done(SOLVED_OPTIMAL, k0, 0, 0)
    reaches = []
    for h, reach in heuristics:
        value = h(s0)
        if value > bound:
            return done(NO_PLAN_WITHIN_BOUND, None, 0, bound + 1)
        reaches.append((h, value + 1 if reach is None else reach))
    heuristics = reaches
    layer = [(s0, k0)]
    depth = 0
    keys_before: dict = {}
    while layer and depth < bound:
        depth += 1
        budget = bound - depth  # steps a state of this layer may still take
        active = [h for h, reach in heuristics if budget < reach]
        nxt = []
        # the keys of the states generated in this layer and the one before: the same state is
        # often reached again by another order of the same steps, and its key need not be recomputed
        keys_now: dict = {}
        for state, state_key in layer:
            stop = limits.exceeded()
            if stop:
                return done(TIMEOUT if stop == "timeout" else MEMOUT, None, depth, depth)
            expanded += 1
            last = None
            for label, child, cost in succ(state):
                generated += 1
                if cost != 1:
                    raise ValueError("bounded breadth-first search needs every step to cost 1")
                if child == last or child == state:
                    continue
                last = child
                k = keys_now.get(child)
                if k is None:
                    k = keys_before.get(child)
                    if k is None:
                        k = key(child)
                    if len(keys_now) < KEY_CACHE:
                        keys_now[child] = k
                if k in parent_of:
                    continue
                parent_of[k] = state_key
                if is_goal(child):
                    return done(SOLVED_OPTIMAL, k, depth, depth)
                if is_dead(child):
                    continue
                if any(h(child) > budget for h in active):
                    pruned += 1
                    continue
                nxt.append((child, k))
        if log:
            log(f"    depth {depth}: {len(nxt)} states kept, {pruned} pruned so far, {len(parent_of)} seen, "
                f"{limits.seconds:.0f} s")
        layer = nxt
        keys_before = keys_now
    return done(NO_PLAN_WITHIN_BOUND, None, None, bound + 1)


ROOT_ESTIMATES = ("hmax", "lmcount", "lmcut", "opcount")  # admissible; the costly ones pay off once, at the start


def every_step_costs_one(task) -> bool:
    """What bounded breadth-first search needs: cost = depth (a joint step of simultaneous agents
    costs the sum of its actions)."""
    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return False
    u = task.universe()
    return u.actions is not None and all(a.cost == 1 for a in u.actions)


def root_lower_bound(task, start=None, built=None) -> tuple[int, str | None]:
    """The best admissible estimate of the start state, rounded up, and its heuristic's name:
    a lower bound on the optimum proven before any search (the LP of operator counting often
    beats what minutes of bounded search reach on long tasks). built: estimates already made,
    by name (the prover's own lmcount and hmax), so they are not made twice."""
    from .. import heuristics as H

    built = built or {}
    state = start if start is not None else task.initial_state()
    u = task.universe()
    integral = u.actions is not None and all(isinstance(a.cost, int) or (isinstance(a.cost, float) and a.cost.is_integer())
                                             for a in u.actions)
    best, name = 0, None
    for candidate in ROOT_ESTIMATES:
        try:
            value = (built.get(candidate) or H.make(task, candidate))(state)
        except H.Unsupported:
            continue
        if value == math.inf:
            return math.inf, candidate
        if integral:  # plan costs are integers: an estimate of 25.3 proves 26
            value = math.ceil(value - 1e-6)
        if value > best:
            best, name = value, candidate
    return best, name


def prove_optimal(task, upper_bound=None, guess=None, time_limit=None, memory_limit=None, log=None, start=None) -> PlanResult:
    """The optimum of a unit-cost task by bounded breadth-first search, pruned by landmark counting
    and h_max, with symmetry reduction.

    upper_bound: the cost of a known plan (the search looks for anything cheaper); guess: a cost
    believed optimal (a paper's horizon). The bound is the smaller of the two (minus one for the
    known plan): a plan within it is found and is optimal; otherwise the optimum exceeds the
    bound, which proves a known plan of cost bound + 1 optimal. The lower bound reported (on
    no-plan-within-bound, a timeout or a memout) is the higher of what the search proved and
    the best admissible estimate of the start state (root_lower_bound)."""
    from .. import heuristics as H
    from ..result import UNSUPPORTED
    from .symmetry import Symmetry

    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return PlanResult(UNSUPPORTED, "bounded-bfs", reason="a joint step costs the sum of its actions, not 1")
    if not every_step_costs_one(task):
        return PlanResult(UNSUPPORTED, "bounded-bfs", reason="bounded breadth-first search needs every action to cost 1")
    candidates = [b for b in (upper_bound - 1 if upper_bound is not None else None, guess) if b is not None]
    if not candidates:
        return PlanResult(UNSUPPORTED, "bounded-bfs", reason="needs a bound: a known plan's cost or a guess")
    bound = int(min(candidates))
    began, cpu_began = time.perf_counter(), time.process_time()
    made = {}
    for name in ("lmcount", "hmax"):  # cheapest and strongest first; h_max adds the timers' waiting
        try:
            made[name] = H.make(task, name)
        except H.Unsupported:
            pass
    heuristics = [(h, None) for h in made.values()]
    root, root_name = root_lower_bound(task, start, built=made)
    if root > bound:
        return PlanResult(NO_PLAN_WITHIN_BOUND, "bounded-bfs", heuristic=root_name, lower_bound=root,
                          seconds=time.perf_counter() - began, cpu_seconds=time.process_time() - cpu_began,
                          reason=f"{root_name} of the start state is {root}")
    left = None if time_limit is None else max(0.001, time_limit - (time.perf_counter() - began))
    result = bounded_breadth_first(task, bound, heuristics, Symmetry.detect(task), start=start, time_limit=left,
                                   memory_limit=memory_limit, log=log)
    result.seconds, result.cpu_seconds = time.perf_counter() - began, time.process_time() - cpu_began
    if result.status in (TIMEOUT, MEMOUT) and root > (result.lower_bound or 0):
        reached, result.lower_bound, result.heuristic = result.lower_bound, root, root_name
        result.reason = f"the lower bound is {root_name} of the start state (the search proved {reached})"
    return result


def prove(task, start=None, time_limit=None, memory_limit=None, quick=None) -> PlanResult:
    """An optimal planner for unit-cost tasks: a plan first (the problem file's stored best plan,
    else `quick(task, start, seconds)`, a satisficing search), then the bounded search below its cost.
    Either the search finds something cheaper, which is optimal, or the first plan is."""
    from groundplan.engine.validate import validate_plan
    from ..result import SOLVED_SATISFICING

    began, cpu_began = time.perf_counter(), time.process_time()
    plan, upper, source = None, None, None
    stored = (task.problem.optimal or {}) if start is None else {}
    if stored.get("plan"):
        check = validate_plan(task, stored["plan"])
        if check.valid:
            plan, upper, source = stored["plan"], check.cost, "the stored plan"
    if plan is None and quick is not None:
        found = quick(task, start, None if time_limit is None else time_limit / 4)
        if found.status in (SOLVED_OPTIMAL, SOLVED_SATISFICING):
            if found.status == SOLVED_OPTIMAL:
                return found
            plan, upper, source = found.plan, found.cost, f"the {found.planner} plan"
    left = None if time_limit is None else max(0.001, time_limit - (time.perf_counter() - began))
    if upper is None:
        return PlanResult(TIMEOUT, "bounded-bfs", reason="no plan to bound the search: give a guess or a time limit "
                                                          "long enough for the satisficing search")
    result = prove_optimal(task, upper_bound=upper, time_limit=left, memory_limit=memory_limit, start=start)
    if result.status == NO_PLAN_WITHIN_BOUND:
        result.status, result.plan, result.cost = SOLVED_OPTIMAL, list(plan), upper
        result.reason = f"{source} (cost {upper}): the bounded search proved nothing cheaper exists"
    elif result.status in (TIMEOUT, MEMOUT):
        result.reason = f"{source} costs {upper}; the optimum is at least {result.lower_bound}"
    result.seconds, result.cpu_seconds = time.perf_counter() - began, time.process_time() - cpu_began
    return result
