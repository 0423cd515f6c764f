"""A fast path for tasks that are plain STRIPS once grounded: search over fact bitsets.

When every ground action has only mask preconditions and mask effects (no numeric fluents,
timers, conditional effects, derived predicates, temporal goals or turns), a state is fully
described by its fact bitset. Searching over bare integers skips building State tuples and the
general step machinery; it is the same transition system, and the found plan is replayed
through the interpreter to produce the result, so the two paths cannot drift apart.
"""
from __future__ import annotations

import heapq
import math

from groundplan.engine.budget import poll
from groundplan.engine.successors import build_tree

from ..limits import Limits
from ..result import MEMOUT, SOLVED_OPTIMAL, SOLVED_SATISFICING, TIMEOUT, UNSOLVABLE_PROVEN, PlanResult
from .relevance import relevant_actions


class Op:
    __slots__ = ("pre_pos", "pre_neg", "keep", "add", "cost", "action")

    def __init__(self, action):
        self.pre_pos = action.pre_pos
        self.pre_neg = action.pre_neg
        self.keep = ~action.effect.delete
        self.add = action.effect.add
        self.cost = action.cost
        self.action = action


class StripsView:
    def __init__(self, task, ops, goal):
        self.task = task
        self.ops = ops
        self.tree = build_tree(ops)
        self.flat = _flatten(self.tree)
        self.goal_pos = goal.pos if goal is not True else 0
        self.goal_neg = goal.neg if goal is not True else 0


def strips_view(task) -> StripsView | None:
    """The task as bitset STRIPS, or None when it uses anything richer. Its operators are the ground
    actions that can change a fact the goal depends on (relevance.py: no-ops and irrelevant actions
    dropped, as Fast Downward's translator does), in grounding order."""
    if task.has_derived or task.goal.temporal or task.turn_based or task.domain.creates_objects():
        return None
    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return None
    if task.domain.timers or task.fluent_keys and task.initial_state().values != tuple(task.fluent_defaults):
        return None
    u = task.universe()
    if u.actions is None:
        return None
    for a in u.actions:
        if a.pre_test is not None or not a.effect.simple or callable(a.cost):
            return None
    goal = task._goal_for(u)
    if goal is False or (goal is not True and goal.test is not None):
        return None
    actions = u.actions if goal is True else relevant_actions(u.actions, goal.pos, goal.neg)
    ops = []
    for a in actions:
        if not len(ops) & 1023:
            poll()
        ops.append(Op(a))
    return StripsView(task, ops, goal)


def _flatten(root):
    """The successor tree as nested tuples for the hot loops below: (ops, mask, children), an op as
    (pre_neg, keep, add, cost, op) and children keyed by fact, so a walk unpacks tuples instead of
    reading attributes. The same nodes and order as the tree (engine.successors)."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children.values())
    flat = {}
    for node in reversed(order):  # every child before its parent
        flat[id(node)] = (tuple((op.pre_neg, op.keep, op.add, op.cost, op) for op in node.actions), node.mask,
                          {f: flat[id(child)] for f, child in node.children.items()})
    return flat[id(root)]


def _successors(root, s):
    """(op, next bits) for every applicable op, in the successor tree's order: what the loops
    below do inline (kept for reading and for tests)."""
    out = []
    stack = [root]
    while stack:
        ops, live, children = stack.pop()
        for neg, keep, add, cost, op in ops:
            if not s & neg:
                out.append((op, (s & keep) | add))
        live &= s
        while live:
            low = live & -live
            stack.append(children[low.bit_length() - 1])
            live ^= low
    return out


def _result(view, status, planner, parents, goal_bits, expanded, generated, limits, start, **extra):
    ops = []
    if goal_bits is not None:
        s = goal_bits
        while parents[s] is not None:
            s, op = parents[s]
            ops.append(op)
        ops.reverse()
    actions = [op.action for op in ops]
    cost = sum(op.cost for op in ops) if goal_bits is not None else None
    return PlanResult(status=status, planner=planner, plan=[a.text for a in actions], actions=actions, cost=cost,
                      expanded=expanded, generated=generated, seconds=limits.seconds, cpu_seconds=limits.cpu_seconds, peak_memory_mb=limits.peak_mb, **extra)


# Breadth-first search moves to its compiled twin (strips_compiled.py) at the first limits check
# after the kernels are loaded and this many states are expanded. The first check comes before
# the first expansion, so 0 moves at once: packing the arrays costs less than a hundred interpreted
# expansions (blocks-4-0: 0.13 ms compiled against 0.15 ms interpreted for all its 87).
HAND_OVER_AFTER = 0


def _stopped(stop):
    return TIMEOUT if stop == "timeout" else MEMOUT


def bfs(view: StripsView, start, time_limit=None, memory_limit=None) -> PlanResult:
    limits = Limits(time_limit, memory_limit)
    s0 = start.facts
    gpos, gneg = view.goal_pos, view.goal_neg
    parents = {s0: None}
    if s0 & gpos == gpos and not s0 & gneg:
        return _result(view, SOLVED_OPTIMAL, "bfs", parents, s0, 0, 1, limits, start)
    from ..heuristics.kernels import Switch

    switch = Switch()  # to the compiled search (strips_compiled.py) once the kernels are loaded
    root = view.flat
    layer = [s0]
    expanded = generated = 0
    exceeded, pace = limits.exceeded, limits.pace
    countdown = 1
    while layer:
        nxt = []
        append = nxt.append
        began = expanded
        for s in layer:
            countdown -= 1
            if not countdown:
                stop = exceeded()
                if stop:
                    return _result(view, _stopped(stop), "bfs", parents, None, expanded, generated, limits, start)
                countdown = pace()
                if expanded >= HAND_OVER_AFTER and switch.compiled():  # `parents`: [..., layer, nxt]; s is next
                    at = len(parents) - len(nxt) - len(layer) + expanded - began
                    return _compiled_bfs(view, parents, at, expanded, generated, limits)
            expanded += 1
            stack = [root]
            pop, push = stack.pop, stack.append
            while stack:
                ops, live, children = pop()
                for neg, keep, add, cost, op in ops:
                    if s & neg:
                        continue
                    t = s & keep | add
                    generated += 1
                    if t in parents:
                        continue
                    parents[t] = (s, op)
                    if t & gpos == gpos and not t & gneg:
                        return _result(view, SOLVED_OPTIMAL, "bfs", parents, t, expanded, generated, limits, start)
                    append(t)
                live &= s
                while live:
                    low = live & -live
                    push(children[low.bit_length() - 1])
                    live ^= low
        layer = nxt
    return _result(view, UNSOLVABLE_PROVEN, "bfs", parents, None, expanded, generated, limits, start)


def _bfs_kernel():
    from ..heuristics.kernels import bfs_kernel

    return bfs_kernel()


def _kernels_loaded() -> bool:
    """Whether the compiled kernels are loaded and wanted (not GROUNDPLAN_JIT=0)."""
    from ..heuristics.kernels import mode

    return _bfs_kernel() is not None and mode() != "0"


def _packed_costs(view) -> bool:
    """Whether every op's cost is a whole number (the compiled A* keeps g in int64)."""
    from . import strips_compiled

    return strips_compiled.packed(view, view.goal_pos.bit_length()).cost is not None


def _compiled_bfs(view, parents, at, expanded, generated, limits) -> PlanResult:
    from ..heuristics.kernels import bfs_kernel
    from . import strips_compiled

    return strips_compiled.search(view, bfs_kernel(), parents, at, expanded, generated, limits, _result)


def best_first(view: StripsView, h, start, weight=1.0, greedy=False, planner="astar", admissible=True,
               time_limit=None, memory_limit=None, heuristic_name=None, compiled=None) -> PlanResult:
    """A*/weighted A*/greedy over bitsets; `h` maps fact bits to an estimate (inf: dead end).
    Limits are checked at the pace Limits.pace sets, counting expansions and evaluations alike
    (one evaluation can take long: h_max on 180,000 actions, 0.25 s).

    `compiled`: for h_max and LM-cut, says when `h` runs compiled (their compiled_tables); A*
    (weight 1, integer costs) then moves to its compiled twin (strips_compiled.astar), once
    evaluations are quick enough that limits are checked every Limits.PACE_MAX of them (the
    compiled search checks them between expansions only)."""
    limits = Limits(time_limit, memory_limit)
    s0 = start.facts
    gpos, gneg = view.goal_pos, view.goal_neg
    h0 = h(s0)
    if h0 == math.inf:
        return _result(view, UNSOLVABLE_PROVEN, planner, {}, None, 0, 1, limits, start, heuristic=heuristic_name)
    parents = {s0: None}
    best_g = {s0: 0}
    heap = [(h0 if greedy else weight * h0, h0, 0, s0, 0)]
    counter = expanded = generated = 0
    root = view.flat
    optimal = admissible and weight == 1 and not greedy
    heappop, heappush, exceeded, pace, inf = heapq.heappop, heapq.heappush, limits.exceeded, limits.pace, math.inf
    get_g = best_g.get
    countdown = 1
    if compiled is not None and (planner not in ("astar", "ucs", "bfs") or not optimal or weight != 1 or greedy):
        compiled = None

    def stopped(stop, f):
        return _result(view, _stopped(stop), planner, parents, None, expanded, generated, limits,
                       start, heuristic=heuristic_name, lower_bound=f if optimal else None)
    while heap:
        f, hv, c, s, g = heappop(heap)
        if g > best_g[s]:
            continue
        countdown -= 1
        if not countdown:
            stop = exceeded()
            if stop:
                return stopped(stop, f)
            countdown = pace()
            if compiled is not None and countdown >= limits.PACE_MAX:
                tables = compiled()
                if tables is not None and _kernels_loaded() and _packed_costs(view):
                    heappush(heap, (f, hv, c, s, g))  # back: the compiled search pops it again
                    from . import strips_compiled

                    return strips_compiled.astar(view, _bfs_kernel(), tables[0], tables[1], heap, best_g, parents,
                                                 counter, expanded, generated, limits, _result, heuristic_name,
                                                 planner=planner)
        if s & gpos == gpos and not s & gneg:
            bound = None if optimal else (weight if admissible and not greedy else None)
            return _result(view, SOLVED_OPTIMAL if optimal else SOLVED_SATISFICING, planner, parents, s, expanded, generated,
                           limits, start, heuristic=heuristic_name, bound=bound)
        expanded += 1
        stack = [root]
        pop, push = stack.pop, stack.append
        while stack:
            ops, live, children = pop()
            for neg, keep, add, cost, op in ops:
                if s & neg:
                    continue
                t = s & keep | add
                generated += 1
                g2 = g + cost
                if g2 >= get_g(t, inf):
                    continue
                countdown -= 1
                if not countdown:
                    stop = exceeded()
                    if stop:
                        return stopped(stop, f)  # the node being expanded had the least f: still a lower bound
                    countdown = pace()
                h2 = h(t)
                if h2 == inf:
                    continue
                best_g[t] = g2
                parents[t] = (s, op)
                counter += 1
                heappush(heap, (h2 if greedy else g2 + weight * h2, h2, counter, t, g2))
            live &= s
            while live:
                low = live & -live
                push(children[low.bit_length() - 1])
                live ^= low
    return _result(view, UNSOLVABLE_PROVEN, planner, parents, None, expanded, generated, limits, start, heuristic=heuristic_name)


def lazy_greedy(view: StripsView, h, start, time_limit=None, memory_limit=None, heuristic_name=None) -> PlanResult:
    """Greedy best-first search with deferred evaluation over bitsets, as Fast Downward's
    `lazy_greedy([h])` (no preferred operators): a child is queued under its parent's estimate and
    evaluated only when popped, so a state with b children costs one heuristic call, not b.
    Ties: first queued, first served (FIFO), so successors keep the engine's action order.
    Duplicates are dropped when generated (the first path to a state is kept). Satisficing.
    Once the compiled kernels are loaded, it carries on in strips_compiled.lazy (successors and
    duplicates compiled, the heap and `h` as here) at its next limits check."""
    limits = Limits(time_limit, memory_limit)
    s0 = start.facts
    gpos, gneg = view.goal_pos, view.goal_neg
    parents = {s0: None}
    heap = [(0, 0, s0)]  # (parent's h, FIFO tie, state)
    counter = expanded = generated = evaluated = 0
    root = view.flat
    heappop, heappush, exceeded, pace = heapq.heappop, heapq.heappush, limits.exceeded, limits.pace
    inf = math.inf
    countdown = 1
    while heap:
        v, c, s = heappop(heap)
        countdown -= 1
        if not countdown:
            stop = exceeded()
            if stop:
                return _result(view, _stopped(stop), "gbfs", parents, None, expanded, generated,
                               limits, start, heuristic=heuristic_name)
            countdown = pace()
            if _kernels_loaded():  # successors from the compiled walk (strips_compiled.lazy)
                heappush(heap, (v, c, s))
                from . import strips_compiled

                return strips_compiled.lazy(view, _bfs_kernel(), h, heap, parents, counter, expanded, generated, limits,
                                            _result, heuristic_name)
        if s & gpos == gpos and not s & gneg:
            return _result(view, SOLVED_SATISFICING, "gbfs", parents, s, expanded, generated, limits, start,
                           heuristic=heuristic_name)
        value = h(s)
        evaluated += 1
        if value == inf:
            continue
        expanded += 1
        stack = [root]
        pop, push = stack.pop, stack.append
        while stack:
            ops, live, children = pop()
            for neg, keep, add, cost, op in ops:
                if s & neg:
                    continue
                t = s & keep | add
                generated += 1
                if t in parents:
                    continue
                parents[t] = (s, op)
                counter += 1
                heappush(heap, (value, counter, t))
            live &= s
            while live:
                low = live & -live
                push(children[low.bit_length() - 1])
                live ^= low
    return _result(view, UNSOLVABLE_PROVEN, "gbfs", parents, None, expanded, generated, limits, start,
                   heuristic=heuristic_name)
