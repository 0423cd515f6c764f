"""LM-cut computed plainly, round by round: the slow reference the fast module is tested against.

planners/heuristics/lmcut.py is what the heuristics use. This module keeps the straightforward
version (a `users` table rebuilt over every action each round), easy to read and to trust, so
tests/test_lmcut_fast.py can check the fast one returns the same values. It also defines the dense
numbering both share (LMCutData). Ties between equally expensive preconditions go to the one the
LIFO bucket queue popped last; LM-cut's value depends on that choice, which is why the fast module
reproduces this exploration order exactly rather than updating h_max incrementally (see its
docstring).

LM-cut (Helmert and Domshlak, 2009): an admissible heuristic that sums disjoint action landmarks.

Each round computes h_max with the current action costs, builds the justification graph (every
relaxed action hangs from its most expensive precondition), finds a cut of actions that every
relaxed plan must use to enter the goal zone, adds the cheapest cost in the cut to h and
subtracts it from the cut's actions. It stops when the goal costs nothing. The goal may be a
disjunction: one zero-cost goal action per disjunct, all adding one artificial goal fact.

Facts are renumbered densely and costs stay integers (action costs are whole numbers and each
cut subtracts the cut's minimum), so h_max runs on a bucket queue over plain lists.

Timers are relaxed at cost 0 here (waiting overlaps other work, so summing durations would not
be admissible); combine with the time-aware h_max through `max(hmax,lmcut)` for timed worlds.
"""
from __future__ import annotations

import math

from groundplan.engine.compile import set_bits

from .relaxation import Relaxation

INIT = -1  # the artificial fact every precondition-free action hangs from


class LMCutData:
    """Dense index arrays for one relaxation, with the goal actions appended."""

    def __init__(self, r: Relaxation):
        self.r = r
        dense: dict[int, int] = {}

        def d(f):
            i = dense.get(f)
            if i is None:
                i = dense[f] = len(dense)
            return i
        pre = [[d(f) for f in p] for p in r.pre_lists]
        add = [[d(f) for f in a] for a in r.add_lists]
        cost = [a.cost for a in r.actions]
        self.integral = all(float(c).is_integer() for c in cost)
        cost = [int(c) if self.integral else c for c in cost]
        for disjunct in r.disjuncts:
            pre.append([d(f) for f in set_bits(disjunct)])
            add.append(None)  # placeholder: the goal fact, numbered last
            cost.append(0)
        self.goal = len(dense)
        self.n_facts = len(dense) + 1
        self.add = [a if a is not None else [self.goal] for a in add]
        self.pre = pre
        self.cost = cost
        self.dense = dense
        self.consumers = [[] for _ in range(self.n_facts)]
        self.adders = [[] for _ in range(self.n_facts)]
        for i, p in enumerate(pre):
            for f in p:
                self.consumers[f].append(i)
        for i, a in enumerate(self.add):
            for f in a:
                self.adders[f].append(i)
        self.n_pre = [len(p) for p in pre]
        self.free = [i for i, p in enumerate(pre) if not p]

    def initial(self, reached: int) -> list[int]:
        dense = self.dense
        return [dense[f] for f in set_bits(reached) if f in dense]


def lmcut(data: LMCutData, reached: int, cuts: list | None = None) -> float:
    """h^LM-cut; with `cuts`, each landmark found is appended as (relaxed action indices, cost)."""
    if data.r.goal_unreachable:
        return math.inf
    if not data.integral:
        raise ValueError("LM-cut here needs whole-number action costs")
    cost = list(data.cost)
    true_facts = data.initial(reached)
    n = len(cost)
    goal = data.goal
    add, adders = data.add, data.adders
    h = 0
    while True:
        fact_cost, pcf = _hmax(data, true_facts, cost)
        if fact_cost[goal] is None:
            return math.inf
        if fact_cost[goal] == 0:
            return h
        # goal zone: facts from which the goal is reached through zero-cost justification edges
        zone = bytearray(data.n_facts)
        zone[goal] = 1
        stack = [goal]
        while stack:
            f = stack.pop()
            for a in adders[f]:
                p = pcf[a]
                if p is not None and cost[a] == 0 and p != INIT and not zone[p]:
                    zone[p] = 1
                    stack.append(p)
        # from the initial facts, follow justification edges until they would enter the zone
        users = {}
        for a in range(n):
            p = pcf[a]
            if p is not None:
                users.setdefault(p, []).append(a)
        before = bytearray(data.n_facts)
        for f in true_facts:
            before[f] = 1
        stack = [INIT] + true_facts
        cut = set()
        while stack:
            f = stack.pop()
            for a in users.get(f, ()):
                for e in add[a]:
                    if zone[e]:
                        cut.add(a)
                    elif not before[e]:
                        before[e] = 1
                        stack.append(e)
        if not cut:
            return h  # cannot happen for a finite goal cost; stay admissible
        m = min(cost[a] for a in cut)
        if m <= 0:
            return h
        h += m
        if cuts is not None:
            cuts.append((sorted(cut), m))
        for a in cut:
            cost[a] -= m


def _hmax(data: LMCutData, true_facts, cost):
    """h_max under `cost` (integers) with each action's most expensive precondition (pcf)."""
    n_facts = data.n_facts
    fact_cost: list = [None] * n_facts
    remaining = list(data.n_pre)
    max_pre = [0] * len(cost)
    pcf: list = [None] * len(cost)
    buckets: list[list[int]] = [[]]
    for f in true_facts:
        fact_cost[f] = 0
        buckets[0].append(f)
    add, consumers = data.add, data.consumers

    def push(f, c):
        while len(buckets) <= c:
            buckets.append([])
        buckets[c].append(f)
    for a in data.free:
        pcf[a] = INIT
        c = cost[a]
        for e in add[a]:
            if fact_cost[e] is None or c < fact_cost[e]:
                fact_cost[e] = c
                push(e, c)
    level = 0
    while level < len(buckets):
        bucket = buckets[level]
        while bucket:
            f = bucket.pop()
            if fact_cost[f] != level:
                continue
            for a in consumers[f]:
                remaining[a] -= 1
                if level >= max_pre[a]:
                    max_pre[a] = level
                    pcf[a] = f
                if remaining[a] == 0:
                    total = level + cost[a]
                    for e in add[a]:
                        if fact_cost[e] is None or total < fact_cost[e]:
                            fact_cost[e] = total
                            push(e, total)
        level += 1
    for a in range(len(cost)):  # only actions whose preconditions were all reached take part
        if remaining[a] > 0:
            pcf[a] = None
    return fact_cost, pcf
