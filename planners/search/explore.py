"""Greedy best-first search that also explores: for deceptive heuristics with large plateaus.

Plain greedy search trusts the heuristic; when a relaxation is deceived (a fact that is true
now but must be undone later counts as achieved), it digs into a region of low estimates and
never leaves. This search alternates three open lists, each serving states in turn:

- the greedy list, ordered by the estimate of the parent (deferred evaluation: a state is
  evaluated only when it is expanded, as in Fast Downward);
- the preferred list, holding only states reached by a preferred operator (an action of the
  parent's relaxed plan), favoured for a while after each new best estimate;
- a type-based list (Xie, Müller and Holte, AAAI 2014): states are bucketed by (estimate, depth)
  and a random bucket gives a random state, so every region of the search tree keeps being
  sampled whatever its estimate, which breaks out of the deceived region.

Randomness is seeded, so a run is reproducible. Satisficing: nothing is claimed about cost.
"""
from __future__ import annotations

import heapq
import math
import random

from ..limits import Limits
from ..result import MEMOUT, SOLVED_SATISFICING, TIMEOUT, UNSOLVABLE_PROVEN, PlanResult
from . import _plan, _result
from ..transitions import Transitions


def explore(task, heuristic, start=None, time_limit=None, memory_limit=None, symmetry=None, seed: int = 0,
            planner: str = "explore", novelty: bool = True, queues=(0, 1, 3),
            weight: float | None = None, bound: float = math.inf, lower=None) -> PlanResult:
    limits = Limits(time_limit, memory_limit)
    rng = random.Random(seed)
    succ = Transitions(task)
    s0 = start if start is not None else task.initial_state()
    key = symmetry.key if symmetry is not None else (lambda state: state)
    parents = {s0: None}
    seen = {key(s0)}
    closed = set()
    counter = 0
    greedy, preferred_q = [(0, 0, s0, 0)], [(0, 0, s0, 0)]
    buckets: dict[tuple, list] = {(0, 0): [(s0, 0)]}
    bucket_keys = [(0, 0)]
    best_h = math.inf
    boost = 0
    expanded = generated = 0
    name = getattr(heuristic, "name", None)
    turn = 0
    novel = {} if novelty else None  # fact -> lowest estimate of a state it was generated in
    novel_q = [(0, 0, s0, 0)]

    def pop_type():
        while bucket_keys:
            i = rng.randrange(len(bucket_keys))
            bucket = buckets[bucket_keys[i]]
            j = rng.randrange(len(bucket))
            bucket[j], bucket[-1] = bucket[-1], bucket[j]
            item = bucket.pop()
            if not bucket:
                del buckets[bucket_keys[i]]
                bucket_keys[i] = bucket_keys[-1]
                bucket_keys.pop()
            return item
        return None

    n = len(queues)
    while greedy or preferred_q or bucket_keys or novel_q:
        turn += 1
        # the cycle over the lists; the preferred list takes every other turn while boosted
        which = turn % n if boost <= 0 or 1 not in queues else (queues.index(1) if turn % 2 else turn // 2 % n)
        item = None
        order = [queues[(which + attempt) % n] for attempt in range(n)] + [0]  # the greedy list holds every state
        for q in order:
            if q == 3 and novel_q:
                _, _, state, g = heapq.heappop(novel_q)
                item = (state, g)
            elif q == 0 and greedy:
                _, _, state, g = heapq.heappop(greedy)
                item = (state, g)
            elif q == 1 and preferred_q:
                _, _, state, g = heapq.heappop(preferred_q)
                item = (state, g)
            elif q == 2 and bucket_keys:
                item = pop_type()
            if item is not None:
                break
        if item is None:
            break
        state, g = item
        k = key(state)
        if k in closed:
            continue
        closed.add(k)
        boost -= 1
        stop = limits.exceeded()
        if stop:
            return _result(TIMEOUT if stop == "timeout" else MEMOUT, planner, [], None, expanded, generated, limits,
                           heuristic=name)
        if task.is_goal(state):
            return _result(SOLVED_SATISFICING, planner, _plan(parents, state), g, expanded, generated, limits,
                           heuristic=name)
        if task.is_dead(state):
            continue
        value = heuristic(state)
        if value == math.inf:
            continue
        floor = lower(state) if lower is not None else 0
        if g + floor >= bound:
            continue
        if value < best_h:
            best_h, boost = value, 1000
        preferred = getattr(heuristic, "preferred", ())
        expanded += 1
        for label, child, cost in succ(state):
            generated += 1
            ck = key(child)
            if ck in seen:
                continue
            seen.add(ck)
            parents[child] = (state, label)
            counter += 1
            g2 = g + cost
            if g2 + floor - cost >= bound:
                continue  # cannot improve on a plan already known (floor: the parent's lower bound)
            rank = value if weight is None else g2 + weight * value
            heapq.heappush(greedy, (rank, counter, child, g2))
            if not isinstance(label, tuple) and label.name in preferred:
                heapq.heappush(preferred_q, (rank, counter, child, g2))
            if novel is not None:
                bits, is_new = child.facts, False
                while bits:
                    low = bits & -bits
                    f = low.bit_length() - 1
                    bits ^= low
                    if value < novel.get(f, math.inf):
                        novel[f] = value
                        is_new = True
                if is_new:
                    heapq.heappush(novel_q, (rank, counter, child, g2))
            bk = (value, g2)
            bucket = buckets.get(bk)
            if bucket is None:
                buckets[bk] = bucket = []
                bucket_keys.append(bk)
            bucket.append((child, g2))
    # exhausted: with a bound (and no reopening of states reached again more cheaply) that proves nothing
    # (the fixed status vocabulary has no 'gave up': report a timeout with the reason)
    status = UNSOLVABLE_PROVEN if bound == math.inf else TIMEOUT
    return _result(status, planner, [], None, expanded, generated, limits, heuristic=name,
                   reason="" if bound == math.inf else f"search exhausted: no plan found below {bound} (not a proof)")
