"""The numba-compiled body of breadth-first search over packed fact words (strips_compiled.py
prepares its arrays and drives it): importing this module imports numba, so only
heuristics/kernels.kernels() imports it, with the heuristics' kernels.

Why: blind search spends its time on the successor walk, the duplicate test and the parent
record, about 2 us per expansion interpreted, which leaves it at 0.45x of Fast Downward's
`astar(blind())` (issue 35). The same work compiled is some 10x faster.

A state is a row of `states` (uint64 words of the fact bitset, little-endian); states are
numbered in the order they are first generated, which for breadth-first search is also the
order they are expanded, so the open list is the range [counters[1], counters[0]). Duplicates are
found through an open-addressing table of state numbers (-1: empty). The successor tree is walked
exactly as strips.bfs walks it (a stack of nodes; a node's ops in order, then its children whose
fact holds pushed in ascending fact order), so the same states get the same parents and the plan
is the same. The walk is written out again in _compiled_astar.astar on purpose: an inlined
@njit helper for the applicability test and the successor (tried in issue 35's review) cut this
kernel's rate on gripper prob04 from 4.8x Fast Downward's to 2.8x.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_SEED = np.uint64(0x2545F4914F6CDD1D)
_MUL = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(29)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _hash(row, words):
    h = _SEED
    for w in range(words):
        h = (h ^ row[w]) * _MUL
        h ^= h >> _SHIFT
    return h


@njit(cache=True)
def rehash(states, n, table):
    """Fill `table` (all -1, a power of two long) with states 0..n-1."""
    words = states.shape[1]
    mask = len(table) - 1
    umask = np.uint64(mask)
    for i in range(n):
        slot = np.int64(_hash(states[i], words) & umask)
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = i


@njit(cache=True)
def expand(states, parent, via, table, counters, neg, has_neg, keep, add, ops_start, node_ops, child_start,
           child_fact, child_node, goal_pos, goal_neg, stack, t, budget):
    """Expand up to `budget` states from counters[1] on. counters: [states, next to expand,
    expanded, generated], updated. Returns the number of the first goal state generated, -1 when
    the budget is spent, -2 when nothing is left to expand (no plan), -3 when `states` or `table`
    has too little room for one more expansion (the caller grows them and calls again)."""
    words = states.shape[1]
    n, i, expanded, generated = counters[0], counters[1], counters[2], counters[3]
    cap = states.shape[0]
    tmask = len(table) - 1
    umask = np.uint64(tmask)
    room = neg.shape[0]  # one expansion adds at most one state per op
    result = -1
    done = 0
    while True:
        if i >= n:
            result = -2
            break
        if done >= budget:
            break
        if n + room > cap or 2 * (n + room) > len(table):
            result = -3
            break
        done += 1
        expanded += 1
        s = states[i]
        stack[0] = 0
        sp = 1
        found = -1
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
                slot = np.int64(_hash(t, words) & umask)
                duplicate = False
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
                        duplicate = True
                        break
                    slot = (slot + 1) & tmask
                if duplicate:
                    continue
                for w in range(words):
                    states[n, w] = t[w]
                parent[n] = i
                via[n] = o
                table[slot] = n
                n += 1
                goal = True
                for w in range(words):
                    if (t[w] & goal_pos[w]) != goal_pos[w] or (t[w] & goal_neg[w]) != _ZERO:
                        goal = False
                        break
                if goal:
                    found = n - 1
                    break
            if found >= 0:
                break
            for c in range(child_start[node], child_start[node + 1]):
                f = child_fact[c]
                if ((s[f >> 6] >> np.uint64(f & 63)) & _ONE) != _ZERO:
                    stack[sp] = child_node[c]
                    sp += 1
        i += 1
        if found >= 0:
            result = found
            break
    counters[0], counters[1], counters[2], counters[3] = n, i, expanded, generated
    return result
