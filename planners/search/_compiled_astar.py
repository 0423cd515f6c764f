"""The numba-compiled body of A* with h_max, LM-cut or the blind estimate over packed fact words (strips_compiled.py
prepares its arrays and drives it): importing this module imports numba, so only
heuristics/kernels.kernels() imports it, with the heuristics' kernels.

Why: with the heuristic compiled, A*'s own loop (successor walk, best-g lookup, heap, one call
into numba per evaluated child) is what is left interpreted, and it held A* with h_max to 0.14x
of Fast Downward's rate on satellite p03 (issue 35). Here the loop and the heuristic run in one
compiled function.

It is strips.best_first for A* (weight 1, integer costs), step for step: states are rows of
`states` numbered when first generated (a state whose estimate was infinite keeps the sentinel
g NO_G, as strips.best_first keeps no best g for it, and is evaluated again when reached again),
the open list is a binary heap ordered by (f, h, push counter) as heapq orders strips.best_first's
tuples (the counter is unique, so the order of pops is the same), and the successors come in the
successor tree's order (as _compiled_bfs.py walks it). h_max and LM-cut are the kernels of
heuristics/_compiled.py, given the state's words as bytes; a bucket table that is too short
is doubled here and handed back. The blind estimate (`which` 2: 0 at a goal, else the cheapest
action's cost) makes it uniform-cost search, what blind search is where action costs differ.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..heuristics._compiled import hmax_value, lmcut_value
from ._compiled_bfs import _ONE, _ZERO, _hash

NO_G = 1 << 62


@njit(cache=True, inline="always")
def _before(heap, i, j):
    if heap[i, 0] != heap[j, 0]:
        return heap[i, 0] < heap[j, 0]
    if heap[i, 1] != heap[j, 1]:
        return heap[i, 1] < heap[j, 1]
    return heap[i, 2] < heap[j, 2]


@njit(cache=True, inline="always")
def _swap(heap, i, j):
    for c in range(5):
        x = heap[i, c]
        heap[i, c] = heap[j, c]
        heap[j, c] = x


@njit(cache=True)
def heap_push(heap, size, f, h, counter, state, g):
    """Push (f, h, counter, state, g) onto the heap of `size` rows; returns the new size."""
    i = size
    heap[i, 0], heap[i, 1], heap[i, 2], heap[i, 3], heap[i, 4] = f, h, counter, state, g
    while i > 0:
        up = (i - 1) >> 1
        if _before(heap, i, up):
            _swap(heap, i, up)
            i = up
        else:
            break
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(heap, size):
    """Move the least row to row `size` - 1 (read it there); the rest stays a heap."""
    last = size - 1
    _swap(heap, 0, last)
    i = 0
    while True:
        left = 2 * i + 1
        if left >= last:
            break
        least = left
        if left + 1 < last and _before(heap, left + 1, left):
            least = left + 1
        if _before(heap, least, i):
            _swap(heap, i, least)
            i = least
        else:
            break
    return last


@njit(cache=True, inline="always")
def _is_goal(row, goal_pos, goal_neg, words):
    for w in range(words):
        if (row[w] & goal_pos[w]) != goal_pos[w] or (row[w] & goal_neg[w]) != _ZERO:
            return False
    return True


@njit(cache=True, inline="always")
def _estimate(which, block, head, row, empty):
    """(h or -1 for a dead end, the bucket table, grown if it had to be)."""
    raw = row.view(np.uint8)
    while True:
        if which == 0:
            v = hmax_value(block, head, raw, empty, empty)
        else:
            v = lmcut_value(block, head, raw)
        if v != -2:
            return v, head
        head = np.full(2 * len(head), -1, dtype=np.int64)


@njit(cache=True)
def astar(states, parent, via, gval, table, heap, counters, neg, has_neg, keep, add, cost, ops_start, node_ops,
          child_start, child_fact, child_node, goal_pos, goal_neg, stack, t, which, block, head, budget):
    """Expand until `budget` evaluations are done (at the end of an expansion). counters:
    [states, heap rows, push counter, expanded, generated, f of the last expanded state],
    updated. Returns (result, head): the goal state's number, -1 when the budget is spent, -2
    when the heap is empty (no plan), -3 when `states`, `table` or `heap` has too little room
    for one more expansion (the caller grows them and calls again)."""
    words = states.shape[1]
    n, size, counter, expanded, generated = counters[0], counters[1], counters[2], counters[3], counters[4]
    cap = states.shape[0]
    tmask = len(table) - 1
    umask = np.uint64(tmask)
    room = neg.shape[0]
    empty = np.zeros(0, dtype=np.int64)
    evaluated = 0
    result = -1
    while True:
        if size == 0:
            result = -2
            break
        if evaluated >= budget:
            break
        if n + room > cap or 2 * (n + room) > len(table) or size + room > heap.shape[0]:
            result = -3
            break
        size = _heap_pop(heap, size)
        f, si, g = heap[size, 0], heap[size, 3], heap[size, 4]
        if g > gval[si]:
            continue
        counters[5] = f
        s = states[si]
        if _is_goal(s, goal_pos, goal_neg, words):
            result = si
            break
        expanded += 1
        stack[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            node = stack[sp]
            for k in range(ops_start[node], ops_start[node + 1]):
                o = node_ops[k]
                if has_neg[o]:
                    blocked = False
                    for w in range(words):
                        if (s[w] & neg[o, w]) != _ZERO:
                            blocked = True
                            break
                    if blocked:
                        continue
                for w in range(words):
                    t[w] = (s[w] & keep[o, w]) | add[o, w]
                generated += 1
                g2 = g + cost[o]
                slot = np.int64(_hash(t, words) & umask)
                j = -1
                while True:
                    j = table[slot]
                    if j < 0:
                        break
                    same = True
                    for w in range(words):
                        if states[j, w] != t[w]:
                            same = False
                            break
                    if same:
                        break
                    slot = (slot + 1) & tmask
                if j >= 0 and g2 >= gval[j]:
                    continue
                if j < 0:
                    j = n
                    for w in range(words):
                        states[n, w] = t[w]
                    gval[n] = NO_G
                    table[slot] = n
                    n += 1
                if which == 2:  # blind: 0 at a goal, else the cheapest action's cost (block[0])
                    h2 = 0 if _is_goal(t, goal_pos, goal_neg, words) else block[0]
                else:
                    h2, head = _estimate(which, block, head, states[j], empty)
                evaluated += 1
                if h2 < 0:
                    continue
                gval[j] = g2
                parent[j] = si
                via[j] = o
                counter += 1
                size = heap_push(heap, size, g2 + h2, h2, counter, j, g2)
            for c in range(child_start[node], child_start[node + 1]):
                fact = child_fact[c]
                if ((s[fact >> 6] >> np.uint64(fact & 63)) & _ONE) != _ZERO:
                    stack[sp] = child_node[c]
                    sp += 1
    counters[0], counters[1], counters[2], counters[3], counters[4] = n, size, counter, expanded, generated
    return result, head
