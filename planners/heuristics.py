"""Heuristics: blind, goal count, h_max, h_add, h_FF, and expressions declared by the domain.

Each heuristic is a callable `h(state) -> float` (math.inf for a proven dead end) with a
`name` and an `admissible` flag. `make(task, name)` builds one or raises Unsupported with the
reason, which planners turn into the `unsupported` status.

h_max with unit costs uses relaxed planning-graph layers over bitsets (the successor tree
finds each layer's applicable relaxed actions), which is where its speed comes from; other
cost functions use the generic cost-propagation algorithm.
"""
from __future__ import annotations

import heapq
import math

from engine.compile import set_bits

from .relaxation import Relaxation, unsupported

ADMISSIBLE = ("blind", "hmax")
NAMES = ("blind", "goal-count", "hmax", "hadd", "hff")


class Unsupported(Exception):
    pass


def make(task, name: str):
    if name == "blind":
        return Blind(task)
    if name == "goal-count":
        return GoalCount(task)
    if name in ("hmax", "hadd", "hff"):
        reason = unsupported(task)
        if reason:
            raise Unsupported(f"{name}: {reason}")
        relaxation = Relaxation(task)
        return {"hmax": HMax, "hadd": HAdd, "hff": HFF}[name](relaxation)
    if name in task.domain.heuristics:
        return DomainExpression(task, task.domain.heuristics[name])
    known = list(NAMES) + list(task.domain.heuristics)
    raise Unsupported(f"unknown heuristic '{name}' (known: {', '.join(known)})")


class Blind:
    name = "blind"
    admissible = True

    def __init__(self, task):
        self.task = task
        costs = [a.cost for a in task.universe().actions or ()]
        constant = costs and not any(callable(c) for c in costs) and not task.domain.creates_objects()
        self.min_cost = min(costs) if constant else 0  # every non-goal state needs at least one action

    def __call__(self, state):
        return 0 if self.task.is_goal(state) else self.min_cost

    def from_bits(self, bits: int):
        goal = self.task._goal_for(self.task.universe())
        return 0 if goal is True or (bits & goal.pos == goal.pos and not bits & goal.neg) else self.min_cost


class GoalCount:
    name = "goal-count"
    admissible = False

    def from_bits(self, bits: int):
        goal = self.task._goal_for(self.task.universe())
        if goal is True:
            return 0
        return (goal.pos & ~bits).bit_count() + (goal.neg & bits).bit_count()

    def __init__(self, task):
        if task.goal.temporal:
            raise Unsupported("goal-count: temporally extended goals are not supported")
        self.task = task

    def __call__(self, state):
        goal = self.task._goal_for(self.task.universe(state.created))
        if goal is True:
            return 0
        if goal is False:
            return math.inf
        bits = self.task.bits(state)
        missing = (goal.pos & ~bits).bit_count() + (goal.neg & bits).bit_count()
        if goal.test is not None and not goal.test(state, bits):
            missing += 1
        return missing


class DomainExpression:
    """A heuristic the domain declares as a numeric expression (admissible if the author says so)."""

    def __init__(self, task, definition):
        self.task = task
        self.name = definition.name
        self.admissible = definition.admissible
        self.expression = definition.expression

    def __call__(self, state):
        u = self.task.universe(state.created)
        key = ("heuristic", self.name)
        fn = u.cache.get(key)
        if fn is None:
            fn = u.cache[key] = u.compiler.expr(self.expression, {})
        return fn(state, self.task.bits(state)) if callable(fn) else fn


class HMax:
    name = "hmax"
    admissible = True

    def __init__(self, relaxation: Relaxation):
        self.r = relaxation

    def __call__(self, state):
        if self.r.goal_unreachable:
            return math.inf
        return self.from_bits(self.r.initial_facts(state))

    def from_bits(self, reached: int):
        """h_max of the relaxed state `reached` (fact bits plus running-timer pseudo-facts)."""
        r = self.r
        goal = r.goal
        if not r.unit:
            return _propagate(r, reached, max)[0]
        if goal & ~reached == 0:
            return 0
        # Relaxed exploration over the successor trie: every node is activated once, when the
        # facts on its path are first reached; between layers only frontier children keyed by
        # newly reached facts are visited. Unit-cost actions add their facts to the next layer,
        # zero-cost ones (timers) within the current one.
        layer = 0
        stack = [r.tree]
        frontier = []
        next_add = 0
        while True:
            zero_add = 0
            while stack:
                node = stack.pop()
                for a in node.actions:
                    if a.cost:
                        next_add |= a.add
                    else:
                        zero_add |= a.add
                mask = node.mask
                if mask:
                    if mask & ~reached:
                        frontier.append(node)
                    live = mask & reached
                    children = node.children
                    while live:
                        low = live & -live
                        stack.append(children[low.bit_length() - 1])
                        live ^= low
            new = zero_add & ~reached
            if not new:
                new = next_add & ~reached
                if not new:
                    return math.inf
                next_add = 0
                layer += 1
            reached |= new
            if goal & ~reached == 0:
                return layer
            still = []
            for node in frontier:
                live = node.mask & new
                if live:
                    children = node.children
                    while live:
                        low = live & -live
                        stack.append(children[low.bit_length() - 1])
                        live ^= low
                if node.mask & ~reached:
                    still.append(node)
            frontier = still


class HAdd:
    name = "hadd"
    admissible = False

    def __init__(self, relaxation: Relaxation):
        self.r = relaxation

    def __call__(self, state):
        if self.r.goal_unreachable:
            return math.inf
        return self.from_bits(self.r.initial_facts(state))

    def from_bits(self, reached: int):
        return _propagate(self.r, reached, sum)[0]


class HFF:
    name = "hff"
    admissible = False

    def __init__(self, relaxation: Relaxation):
        self.r = relaxation

    def __call__(self, state):
        if self.r.goal_unreachable:
            return math.inf
        return self.from_bits(self.r.initial_facts(state))

    def from_bits(self, reached: int):
        r = self.r
        value, cost, supporter = _propagate(r, reached, sum)
        if value == math.inf:
            return math.inf
        chosen = set()
        stack = [f for f in set_bits(r.goal) if not reached >> f & 1]
        seen = set()
        while stack:
            fact = stack.pop()
            if fact in seen:
                continue
            seen.add(fact)
            action = supporter.get(fact)
            if action is None or action in chosen:
                continue
            chosen.add(action)
            stack.extend(f for f in r.pre_lists[action] if not reached >> f & 1)
        return sum(r.actions[i].cost for i in chosen)


def _propagate(r: Relaxation, reached: int, combine):
    """Generic relaxed cost propagation (Dijkstra over facts); combine = max (h_max) or sum (h_add)."""
    cost: dict[int, float] = {}
    heap = []
    for f in set_bits(reached):
        cost[f] = 0
        heap.append((0, f))
    remaining = [len(p) for p in r.pre_lists]
    supporter: dict[int, int] = {}
    acc = [0.0] * len(r.actions)
    for i, n in enumerate(remaining):
        if n == 0:
            for f in r.add_lists[i]:
                c = r.actions[i].cost
                if c < cost.get(f, math.inf):
                    cost[f] = c
                    supporter[f] = i
                    heap.append((c, f))
    heapq.heapify(heap)
    goal_ids = list(set_bits(r.goal))
    done = set()
    while heap:
        c, f = heapq.heappop(heap)
        if f in done or c > cost.get(f, math.inf):
            continue
        done.add(f)
        for i in r.consumers.get(f, ()):
            acc[i] = max(acc[i], c) if combine is max else acc[i] + c
            remaining[i] -= 1
            if remaining[i] == 0:
                total = acc[i] + r.actions[i].cost
                for g in r.add_lists[i]:
                    if total < cost.get(g, math.inf):
                        cost[g] = total
                        supporter[g] = i
                        heapq.heappush(heap, (total, g))
    values = [cost.get(f, math.inf) for f in goal_ids]
    if not values:
        return 0, cost, supporter
    if math.inf in values:
        return math.inf, cost, supporter
    return (max(values) if combine is max else sum(values)), cost, supporter
