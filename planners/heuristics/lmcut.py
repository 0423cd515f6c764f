"""LM-cut (Helmert and Domshlak, 2009) over flat tables kept across evaluations.

LM-cut sums disjoint action landmarks: each round computes h_max under the current action costs,
hangs every relaxed action from its most expensive precondition (the justification graph), takes
the actions that enter the zone from which the goal is reached at zero cost (a cut every relaxed
plan must cross), adds the cut's cheapest cost to h and subtracts it from the cut's actions, and
stops when the goal costs nothing. A disjunctive goal is one zero-cost goal action per disjunct,
all adding one artificial goal fact.

The values are exactly those of planners/heuristics/lmcut_reference.py (tests/test_lmcut_fast.py):
- the tables (dense numbers, precondition, add, consumer and adder lists) are built once per
  relaxation; an evaluation copies flat lists instead of building dicts;
- the cut is found by walking, from each fact reached before the goal zone, the consumers that
  hang from it (their supporter is that fact): no `users` table rebuilt over all actions per round.

Why h_max is still recomputed per round: LM-cut's value depends on which of several equally
expensive preconditions an action hangs from, and the reference takes the one its LIFO bucket
queue popped last in each round's fresh exploration. An incremental update (re-propagating only
from the cut's actions, as Fast Downward does) settles facts in another order, so it cannot
reproduce those ties; with a tie rule it can maintain, values changed on most sampled states and
A* expanded more (depot pfile2: 29 -> 188). The exploration here pops in the reference's order.
"""
from __future__ import annotations

import math

from .lmcut_reference import LMCutData as _Numbering

INF = 1 << 60


class LMCutData(_Numbering):
    """The reference's dense numbering, plus the flat tables reused by every evaluation."""

    def __init__(self, r):
        super().__init__(r)
        self.init = self.n_facts  # INIT: the artificial fact precondition-free actions hang from
        self.size = self.n_facts + 1
        self.count = [len(p) for p in self.pre]
        self.fresh_cost = [INF] * self.size
        self.fresh_supporter = [-1] * len(self.pre)
        self.users = self.consumers + [list(self.free)]  # INIT's consumers: the free actions
        self._compiled = None

    def compiled(self):
        """These tables as the compiled kernels' arrays (kernels.Tables), built on first use."""
        if self._compiled is None:
            from .kernels import Tables

            self._compiled = Tables(self)
        return self._compiled


def true_facts(data: LMCutData, reached: int) -> list[int]:
    """The dense numbers of the facts set in `reached` that the relaxation mentions, lowest bit first."""
    dense = data.dense
    out = []
    while reached:
        low = reached & -reached
        i = dense.get(low.bit_length() - 1)
        if i is not None:
            out.append(i)
        reached ^= low
    return out


def explore(data: LMCutData, true: list[int], cost: list[int]):
    """h_max of every fact from `true` under `cost` (INF: unreachable), with each reachable
    action's supporter (-1: some precondition unreachable; INIT for precondition-free ones). A
    bucket queue, LIFO within a bucket, in the reference's push order: the precondition popped
    last completes an action, and supports it."""
    fc = data.fresh_cost[:]
    supporter = data.fresh_supporter[:]
    remaining = data.count[:]
    add, consumers = data.add, data.consumers
    for f in true:
        fc[f] = 0
    fc[data.init] = 0
    buckets = [list(true)]
    for a in data.free:
        supporter[a] = data.init
        c = cost[a]
        for e in add[a]:
            if c < fc[e]:
                fc[e] = c
                while len(buckets) <= c:
                    buckets.append([])
                buckets[c].append(e)
    level = 0
    while level < len(buckets):
        bucket = buckets[level]
        while bucket:
            f = bucket.pop()
            if fc[f] != level:
                continue
            for a in consumers[f]:
                left = remaining[a] - 1
                remaining[a] = left
                if left:
                    continue
                supporter[a] = f
                total = level + cost[a]
                for e in add[a]:
                    if total < fc[e]:
                        fc[e] = total
                        if total == level:
                            bucket.append(e)
                        else:
                            while len(buckets) <= total:
                                buckets.append([])
                            buckets[total].append(e)
        level += 1
    return fc, supporter


def lmcut(data: LMCutData, reached: int, cuts: list | None = None) -> float:
    """h^LM-cut; with `cuts`, each landmark found is appended as (relaxed action indices, cost)."""
    if data.r.goal_unreachable:
        return math.inf
    if not data.integral:
        raise ValueError("LM-cut here needs whole-number action costs")
    true = true_facts(data, reached)
    cost = data.cost[:]
    goal, init, size = data.goal, data.init, data.size
    add, users, adders = data.add, data.users, data.adders
    start = [init, *true]
    h = 0
    while True:
        fc, supporter = explore(data, true, cost)
        if fc[goal] >= INF:
            return math.inf
        if fc[goal] == 0:
            return h
        # goal zone: facts from which the goal is reached through zero-cost justification edges
        zone = bytearray(size)
        zone[goal] = 1
        stack = [goal]
        while stack:
            f = stack.pop()
            for a in adders[f]:
                if cost[a] == 0:
                    p = supporter[a]
                    if p >= 0 and p != init and not zone[p]:
                        zone[p] = 1
                        stack.append(p)
        # from the state, follow justification edges until they would enter the zone
        before = bytearray(size)
        for f in start:
            before[f] = 1
        stack = start[:]
        cut = []
        while stack:
            f = stack.pop()
            for a in users[f]:
                if supporter[a] != f:
                    continue
                crosses = False
                for e in add[a]:
                    if zone[e]:
                        crosses = True
                    elif not before[e]:
                        before[e] = 1
                        stack.append(e)
                if crosses:
                    cut.append(a)
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
