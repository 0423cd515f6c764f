"""LM-cut (Helmert and Domshlak, 2009): an admissible heuristic that sums disjoint action landmarks.

Each round computes h_max with the current action costs, builds the justification graph (every
relaxed action hangs from its most expensive precondition), finds a cut of actions that every
relaxed plan must use to enter the goal zone, adds the cheapest cost in the cut to h and
subtracts it from the cut's actions. It stops when the goal costs nothing. The goal may be a
disjunction: one zero-cost goal action per disjunct.

Timers are relaxed at cost 0 here (waiting overlaps other work, so summing durations would not
be admissible); combine with the time-aware h_max through `max(hmax,lmcut)` for timed worlds.
"""
from __future__ import annotations

import heapq
import math

from engine.compile import set_bits

from .relaxation import Relaxation


class LMCutData:
    """Index arrays for one relaxation, with the goal actions appended."""

    def __init__(self, r: Relaxation):
        self.r = r
        self.pre = [list(p) for p in r.pre_lists]
        self.add = [list(a) for a in r.add_lists]
        self.cost = [float(a.cost) for a in r.actions]
        self.goal_fact = -1  # artificial
        for d in r.disjuncts:
            self.pre.append(set_bits(d))
            self.add.append([self.goal_fact])
            self.cost.append(0.0)
        self.consumers: dict[int, list[int]] = {}
        for i, pre in enumerate(self.pre):
            for f in pre:
                self.consumers.setdefault(f, []).append(i)
        self.free = [i for i, pre in enumerate(self.pre) if not pre]


def lmcut(data: LMCutData, reached: int) -> float:
    if data.r.goal_unreachable:
        return math.inf
    cost = list(data.cost)
    n = len(cost)
    true_facts = set_bits(reached)
    h = 0.0
    while True:
        value, fact_cost, pcf = _hmax(data, true_facts, cost)
        goal = fact_cost.get(data.goal_fact, math.inf)
        if goal == math.inf:
            return math.inf
        if goal == 0:
            return h
        # goal zone: facts from which the goal is reached through zero-cost justification edges
        achievers: dict[int, list[int]] = {}
        for a in range(n):
            p = pcf[a]
            if p is None:
                continue
            for e in data.add[a]:
                achievers.setdefault(e, []).append(a)
        zone = {data.goal_fact}
        stack = [data.goal_fact]
        while stack:
            f = stack.pop()
            for a in achievers.get(f, ()):
                if cost[a] == 0:
                    p = pcf[a]
                    if p not in zone and p != "init":
                        zone.add(p)
                        stack.append(p)
        # facts reachable from the initial facts without entering the zone
        before = set(true_facts)
        before.add("init")
        stack = list(before)
        users: dict = {}
        for a in range(n):
            if pcf[a] is not None:
                users.setdefault(pcf[a], []).append(a)
        cut = []
        while stack:
            f = stack.pop()
            for a in users.get(f, ()):
                hits_zone = False
                for e in data.add[a]:
                    if e in zone:
                        hits_zone = True
                    elif e not in before:
                        before.add(e)
                        stack.append(e)
                if hits_zone:
                    cut.append(a)
        if not cut:
            return h  # cannot happen for a finite goal cost; stay admissible
        m = min(cost[a] for a in set(cut))
        if m <= 0:
            return h
        h += m
        for a in set(cut):
            cost[a] -= m


def _hmax(data: LMCutData, true_facts, cost):
    """h_max under `cost` with each action's most expensive precondition (pcf)."""
    fact_cost: dict = {f: 0.0 for f in true_facts}
    n = len(cost)
    remaining = [len(p) for p in data.pre]
    max_pre = [0.0] * n
    pcf: list = [None] * n
    heap = [(0.0, f) for f in true_facts]
    for a in data.free:
        pcf[a] = "init"
        for e in data.add[a]:
            c = cost[a]
            if c < fact_cost.get(e, math.inf):
                fact_cost[e] = c
                heap.append((c, e))
    heapq.heapify(heap)
    done = set()
    while heap:
        c, f = heapq.heappop(heap)
        if f in done or c > fact_cost.get(f, math.inf):
            continue
        done.add(f)
        for a in data.consumers.get(f, ()):
            remaining[a] -= 1
            if c >= max_pre[a]:
                max_pre[a] = c
                pcf[a] = f
            if remaining[a] == 0:
                total = max_pre[a] + cost[a]
                for e in data.add[a]:
                    if total < fact_cost.get(e, math.inf):
                        fact_cost[e] = total
                        heapq.heappush(heap, (total, e))
    for a in range(n):  # only actions whose preconditions were all reached take part
        if remaining[a] > 0:
            pcf[a] = None
    return fact_cost.get(data.goal_fact, math.inf), fact_cost, pcf
