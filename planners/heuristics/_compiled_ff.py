"""h_FF's relaxed exploration and relaxed-plan extraction compiled with numba (issue 35).

Imports numba: only heuristics.HFF imports this module, once kernels.Switch says compiled code
is wanted (a search ran long enough, or GROUNDPLAN_JIT=1). `hff_plan` does what
heuristics._propagate (sum) and HFF.evaluate's extraction do, in the same order: a binary heap
of (cost, fact) pairs (encoded as cost * n_bits + fact, so ties pop the lower fact first, as
heapq pops tuples), consumers visited in their list order, a fact's supporter replaced only by
a strictly cheaper one, the exploration stopped once every goal fact is settled. The chosen
actions (the closure of the goal's supporters) are therefore the same set, and so is the value.
"""
from __future__ import annotations

import heapq

import numpy as np
from numba import njit

INF = 1 << 60


@njit(cache=True)
def hff_plan(raw, n_bits, pre_counts, costs, add_start, add_idx, cons_start, cons_idx, pre_start, pre_idx, free,
             goal, cost, supporter, reached, remaining, acc, done, chosen):
    """The relaxed plan's actions from the state `raw` (little-endian fact bits), in `chosen`;
    returns how many, or -1 when a goal fact is unreachable."""
    cost[:] = INF
    supporter[:] = -1
    reached[:] = 0
    done[:] = 0
    remaining[:] = pre_counts
    acc[:] = 0
    heap = [np.int64(0)]
    heap.pop()
    nb = min(len(raw) * 8, n_bits)
    for f in range(nb):
        if raw[f >> 3] >> (f & 7) & 1:
            reached[f] = 1
            cost[f] = 0
            heap.append(np.int64(f))
    for k in range(len(free)):
        i = free[k]
        c = costs[i]
        for j in range(add_start[i], add_start[i + 1]):
            f = add_idx[j]
            if c < cost[f]:
                cost[f] = c
                supporter[f] = i
                heap.append(np.int64(c * n_bits + f))
    heapq.heapify(heap)
    pending = 0
    for k in range(len(goal)):
        if done[goal[k]] == 0:
            done[goal[k]] = 2  # a goal fact not yet settled
            pending += 1
    while len(heap) > 0 and pending > 0:
        e = heapq.heappop(heap)
        c = e // n_bits
        f = e - c * n_bits
        if done[f] == 1 or c > cost[f]:
            continue
        if done[f] == 2:
            pending -= 1
        done[f] = 1
        if pending == 0:
            break
        for j in range(cons_start[f], cons_start[f + 1]):
            i = cons_idx[j]
            acc[i] += c
            remaining[i] -= 1
            if remaining[i] == 0:
                total = acc[i] + costs[i]
                for m in range(add_start[i], add_start[i + 1]):
                    g = add_idx[m]
                    if total < cost[g]:
                        cost[g] = total
                        supporter[g] = i
                        heapq.heappush(heap, np.int64(total * n_bits + g))
    for k in range(len(goal)):
        if cost[goal[k]] >= INF:
            return -1
    # extraction: the closure of the goal facts' supporters (done[] reused as 'seen' marks: 3)
    n = 0
    stack = [np.int64(0)]
    stack.pop()
    for k in range(len(goal)):
        if reached[goal[k]] == 0:
            stack.append(goal[k])
    while len(stack) > 0:
        f = stack.pop()
        if done[f] == 3:
            continue
        done[f] = 3
        i = supporter[f]
        if i < 0 or acc[i] < 0:
            continue
        acc[i] = -1  # chosen
        chosen[n] = i
        n += 1
        for j in range(pre_start[i], pre_start[i + 1]):
            p = pre_idx[j]
            if reached[p] == 0:
                stack.append(p)
    return n
