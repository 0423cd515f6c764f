"""The numba-compiled bodies of kernels.py: importing this module imports numba (ImportError
without it), so only kernels.kernels() imports it, on first need.

Each function takes the tables as one int64 block (kernels.Tables: a header, offsets, then the
arrays) and the state as little-endian bytes of the fact bitset, so a call unboxes two or four
arguments only. The exploration mirrors lmcut.explore statement for statement: see kernels.py
for why the order matters.
"""
from __future__ import annotations

import numpy as np
from numba import njit

INF = 1 << 60


@njit(cache=True, inline="always")
def _part(block, i):
    k = 5 + 2 * i
    return block[block[k]:block[k + 1]]


@njit(cache=True)
def _true_facts(fact_dense, raw):
    """Dense numbers of the set bits that the relaxation mentions, lowest bit first."""
    n = min(len(raw), (len(fact_dense) + 7) // 8)
    out = np.empty(len(fact_dense), dtype=np.int64)
    m = 0
    for byte in range(n):
        b = raw[byte]
        if b == 0:
            continue
        for bit in range(8):
            if b >> bit & 1:
                fid = byte * 8 + bit
                if fid < len(fact_dense):
                    d = fact_dense[fid]
                    if d >= 0:
                        out[m] = d
                        m += 1
    return out[:m]


@njit(cache=True)
def _explore(block, true, cost, head, fc, supporter, remaining, link, item, sched_f, sched_t, stop_at_goal):
    """h_max from `true` (plus scheduled facts) under `cost` into fc, supporters into `supporter`.
    Returns the goal's level when stop_at_goal and it is reached, else 0; -2 when a cost exceeds
    the buckets `head` has (the caller enlarges it and calls again). Leaves `head` empty."""
    init, goal = block[2], block[3]
    count, add_start, add_idx = _part(block, 0), _part(block, 2), _part(block, 3)
    users_start, users_idx, free = _part(block, 4), _part(block, 5), _part(block, 8)
    fc[:] = INF
    supporter[:] = -1
    remaining[:] = count
    n = 0
    top = 0
    limit = len(head)
    for i in range(len(true)):
        f = true[i]
        fc[f] = 0
        item[n] = f
        link[n] = head[0]
        head[0] = n
        n += 1
    fc[init] = 0
    for i in range(len(sched_f)):
        f, at = sched_f[i], sched_t[i]
        if at < fc[f]:
            fc[f] = at
            if at >= limit:
                head[:] = -1
                return -2
            item[n] = f
            link[n] = head[at]
            head[at] = n
            n += 1
            if at > top:
                top = at
    for i in range(len(free)):
        a = free[i]
        supporter[a] = init
        c = cost[a]
        for j in range(add_start[a], add_start[a + 1]):
            e = add_idx[j]
            if c < fc[e]:
                fc[e] = c
                if c >= limit:
                    head[:] = -1
                    return -2
                item[n] = e
                link[n] = head[c]
                head[c] = n
                n += 1
                if c > top:
                    top = c
    level = 0
    while level <= top:
        while head[level] >= 0:
            x = head[level]
            head[level] = link[x]
            f = item[x]
            if fc[f] != level:
                continue
            if stop_at_goal and f == goal:
                head[level:top + 1] = -1
                return level
            for k in range(users_start[f], users_start[f + 1]):
                a = users_idx[k]
                left = remaining[a] - 1
                remaining[a] = left
                if left:
                    continue
                supporter[a] = f
                total = level + cost[a]
                for j in range(add_start[a], add_start[a + 1]):
                    e = add_idx[j]
                    if total < fc[e]:
                        fc[e] = total
                        if total >= limit:
                            head[:] = -1
                            return -2
                        item[n] = e
                        link[n] = head[total]
                        head[total] = n
                        n += 1
                        if total > top:
                            top = total
        level += 1
    return 0


@njit(cache=True)
def hmax_value(block, head, raw, sched_facts, sched_times):
    """h_max of the goal fact (-1: unreachable, -2: `head` too short)."""
    size, n_actions = block[0], block[1]
    fact_dense = _part(block, 9)
    true = _true_facts(fact_dense, raw)
    sf = np.empty(len(sched_facts), dtype=np.int64)
    st = np.empty(len(sched_facts), dtype=np.int64)
    m = 0
    for i in range(len(sched_facts)):
        fid = sched_facts[i]
        if fid < len(fact_dense) and fact_dense[fid] >= 0:
            sf[m] = fact_dense[fid]
            st[m] = sched_times[i]
            m += 1
    capacity = len(true) + m + len(_part(block, 3)) + 1
    work = np.empty(size + 2 * n_actions + 2 * capacity, dtype=np.int64)
    fc = work[:size]
    supporter = work[size:size + n_actions]
    remaining = work[size + n_actions:size + 2 * n_actions]
    link = work[size + 2 * n_actions:size + 2 * n_actions + capacity]
    item = work[size + 2 * n_actions + capacity:]
    level = _explore(block, true, _part(block, 1), head, fc, supporter, remaining, link, item, sf[:m], st[:m], True)
    if level == -2:
        return -2
    g = fc[block[3]]
    return -1 if g >= INF else g


@njit(cache=True)
def _lmcut(block, head, raw, want_cuts):
    size, n_actions, init, goal = block[0], block[1], block[2], block[3]
    add_start, add_idx = _part(block, 2), _part(block, 3)
    users_start, users_idx = _part(block, 4), _part(block, 5)
    adders_start, adders_idx = _part(block, 6), _part(block, 7)
    true = _true_facts(_part(block, 9), raw)
    capacity = len(true) + len(add_idx) + 1
    work = np.empty(4 * size + 4 * n_actions + 2 * capacity, dtype=np.int64)
    at = 0
    fc = work[at:at + size]
    at += size
    zone = work[at:at + size]
    at += size
    before = work[at:at + size]
    at += size
    stack = work[at:at + size]
    at += size
    cost = work[at:at + n_actions]
    at += n_actions
    supporter = work[at:at + n_actions]
    at += n_actions
    remaining = work[at:at + n_actions]
    at += n_actions
    cut = work[at:at + n_actions]
    at += n_actions
    link = work[at:at + capacity]
    at += capacity
    item = work[at:at + capacity]
    cost[:] = _part(block, 1)
    none = np.zeros(0, dtype=np.int64)
    flat = np.empty(16 if want_cuts else 0, dtype=np.int64)
    n_flat = 0
    bounds = [0]
    sizes = [0]
    sizes.pop()
    h = 0
    while True:
        if _explore(block, true, cost, head, fc, supporter, remaining, link, item, none, none, False) == -2:
            return -2, flat[:n_flat], bounds, sizes
        if fc[goal] >= INF:
            return -1, flat[:n_flat], bounds, sizes
        if fc[goal] == 0:
            return h, flat[:n_flat], bounds, sizes
        # goal zone: facts from which the goal is reached through zero-cost justification edges
        zone[:] = 0
        zone[goal] = 1
        stack[0] = goal
        sp = 1
        while sp:
            sp -= 1
            f = stack[sp]
            for k in range(adders_start[f], adders_start[f + 1]):
                a = adders_idx[k]
                if cost[a] == 0:
                    p = supporter[a]
                    if p >= 0 and p != init and not zone[p]:
                        zone[p] = 1
                        stack[sp] = p
                        sp += 1
        # from the state, follow justification edges until they would enter the zone
        before[:] = 0
        sp = 0
        before[init] = 1
        stack[sp] = init
        sp += 1
        for i in range(len(true)):
            before[true[i]] = 1
            stack[sp] = true[i]
            sp += 1
        n_cut = 0
        while sp:
            sp -= 1
            f = stack[sp]
            for k in range(users_start[f], users_start[f + 1]):
                a = users_idx[k]
                if supporter[a] != f:
                    continue
                crosses = False
                for j in range(add_start[a], add_start[a + 1]):
                    e = add_idx[j]
                    if zone[e]:
                        crosses = True
                    elif not before[e]:
                        before[e] = 1
                        stack[sp] = e
                        sp += 1
                if crosses:
                    cut[n_cut] = a
                    n_cut += 1
        if n_cut == 0:
            return h, flat[:n_flat], bounds, sizes
        m = cost[cut[0]]
        for i in range(1, n_cut):
            if cost[cut[i]] < m:
                m = cost[cut[i]]
        if m <= 0:
            return h, flat[:n_flat], bounds, sizes
        h += m
        if want_cuts:
            if n_flat + n_cut > len(flat):
                flat = _grown(flat, n_flat, n_flat + n_cut)
            flat[n_flat:n_flat + n_cut] = cut[:n_cut]
            n_flat += n_cut
            bounds.append(n_flat)
            sizes.append(m)
        for i in range(n_cut):
            cost[cut[i]] -= m


@njit(cache=True)
def _grown(flat, used, wanted):
    size = max(1, len(flat))
    while size < wanted:
        size *= 2
    out = np.empty(size, dtype=np.int64)
    out[:used] = flat[:used]
    return out


@njit(cache=True)
def lmcut_value(block, head, raw):
    """h^LM-cut (-1: a dead end, -2: `head` too short)."""
    return _lmcut(block, head, raw, False)[0]


@njit(cache=True)
def lmcut_cuts(block, head, raw):
    """h^LM-cut with its landmarks: (h, the cuts' actions end to end, where each starts, each cost)."""
    h, flat, bounds, sizes = _lmcut(block, head, raw, True)
    return h, flat, np.asarray(bounds, dtype=np.int64), np.asarray(sizes, dtype=np.int64)
