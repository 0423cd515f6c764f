"""Breadth-first search over bitset STRIPS, compiled (_compiled_bfs.py): the same search as
strips.bfs, which hands over to it, with the same plans, costs, statuses and counts.

Why: blind search is all successor walk and duplicate test, which interpreted Python does at
about 0.45x of Fast Downward's rate (issue 35). This module packs the view's ops and
successor tree into arrays once per view, runs the kernel in chunks of expansions (the time and
memory limits are checked between chunks, which are kept between 2 and 10 ms long), grows the
state arrays between chunks, and turns the goal's chain of parents back into the view's ops.

strips.bfs uses it when the compiled kernels are loaded (heuristics/kernels.py: at once under
GROUNDPLAN_JIT=1, after 0.6 s of search under the default, never under GROUNDPLAN_JIT=0); a
search that began in Python moves here between two expansions, carrying its states over.
"""
from __future__ import annotations

import time

from ..result import SOLVED_OPTIMAL, UNSOLVABLE_PROVEN

MAX_BUDGET = 1 << 20  # expansions in one kernel call, at most


class Packed:
    """A StripsView's ops and successor tree as numpy arrays (built once per view)."""

    def __init__(self, view, top: int):
        import numpy as np

        ops = view.ops
        number = {id(op): i for i, op in enumerate(ops)}
        top = max([top, 1] +
                  [max(op.pre_pos.bit_length(), op.pre_neg.bit_length(), op.add.bit_length(), (~op.keep).bit_length())
                   for op in ops])
        self.facts = top  # every fact number (a state's, an op's, the goal's) is below it
        self.words = words = (top + 63) // 64
        size = 8 * words

        def pack(values):
            raw = b"".join(v.to_bytes(size, "little") for v in values)
            return np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(len(values), words)

        self.neg = pack([op.pre_neg for op in ops])
        self.has_neg = np.asarray([op.pre_neg != 0 for op in ops], dtype=np.bool_).reshape(len(ops))
        self.keep = ~pack([~op.keep for op in ops])
        self.add = pack([op.add for op in ops])
        integral = all(isinstance(op.cost, (int, float)) and float(op.cost).is_integer() and 0 <= op.cost < 1 << 40
                       for op in ops)
        self.cost = np.asarray([int(op.cost) for op in ops], dtype=np.int64) if integral else None  # None: no A* here
        nodes = [view.tree]
        ops_start, node_ops, child_start, child_fact, child_node = [0], [], [0], [], []
        for node in nodes:  # breadth-first numbering: the root is 0
            node_ops.extend(number[id(op)] for op in node.actions)
            ops_start.append(len(node_ops))
            for f in sorted(node.children):
                child_fact.append(f)
                child_node.append(len(nodes))
                nodes.append(node.children[f])
            child_start.append(len(child_fact))
        as64 = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
        self.tree = (as64(ops_start), as64(node_ops), as64(child_start), as64(child_fact), as64(child_node))
        self.stack = np.zeros(len(nodes) + 1, dtype=np.int64)
        self.ops = ops

    def row(self, bits: int):
        import numpy as np

        return np.frombuffer(bits.to_bytes(8 * self.words, "little"), dtype="<u8").astype(np.uint64)

    def bits(self, row) -> int:
        return int.from_bytes(row.astype("<u8").tobytes(), "little")


def packed(view, top: int) -> Packed:
    """The view's Packed, with room for fact number `top` - 1 (a state's or the goal's)."""
    p = getattr(view, "_packed", None)
    if p is None or 64 * p.words < top:
        p = view._packed = Packed(view, top)
    return p


def _paced(budget: int, spent: float) -> int:
    """The next chunk's expansions: doubled while a chunk takes under 2 ms (the limits check and
    the call cost more than the work), halved above 10 ms (a limit is checked only between chunks)."""
    if spent < 0.002 and budget < MAX_BUDGET:
        return budget * 2
    if spent > 0.01 and budget > 1:
        return budget // 2
    return budget


def search(view, kernel, parents, next_index, expanded, generated, limits, result):
    """Breadth-first search from the states of `parents` (a dict, bits -> (parent bits, op) or
    None, in the order they were generated), expanding from the `next_index`-th on; `result`
    is strips._result."""
    import numpy as np

    from .strips import _stopped

    p = packed(view, max(max(bits.bit_length() for bits in parents), view.goal_pos.bit_length(),
                         view.goal_neg.bit_length()))
    room = len(p.ops)
    carried = _carry(p, parents, 2 * (len(parents) + room), limits)
    if isinstance(carried, str):
        return result(view, _stopped(carried), "bfs", {}, None, expanded, generated, limits, None)
    states, parent, via, _ = carried
    n, cap = len(parents), len(states)
    parents.clear()  # the caller only returns what this returns: its states live on in the arrays
    table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
    kernel.rehash(states, n, table)
    counters = np.array([n, next_index, expanded, generated], dtype=np.int64)
    t = np.zeros(p.words, dtype=np.uint64)
    goal_pos, goal_neg = p.row(view.goal_pos), p.row(view.goal_neg)
    budget = 64
    ops_start, node_ops, child_start, child_fact, child_node = p.tree
    while True:
        began = time.perf_counter()
        found = kernel.expand(states, parent, via, table, counters, p.neg, p.has_neg, p.keep, p.add, ops_start, node_ops,
                              child_start, child_fact, child_node, goal_pos, goal_neg, p.stack, t, budget)
        n, _, expanded, generated = (int(c) for c in counters)
        if found >= 0:
            chain, bits = _chain(p, states, parent, via, found)
            return result(view, SOLVED_OPTIMAL, "bfs", chain, bits, expanded, generated, limits, None)
        if found == -2:
            return result(view, UNSOLVABLE_PROVEN, "bfs", {}, None, expanded, generated, limits, None)
        if found == -3:
            while n + room > cap or 2 * (n + room) > len(table):
                cap *= 2
            states, parent, via = _grow(states, n, cap, 0), _grow(parent, n, cap, -1), _grow(via, n, cap, -1)
            table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
            kernel.rehash(states, n, table)
        else:
            budget = _paced(budget, time.perf_counter() - began)
        stop = limits.exceeded()
        if stop:
            return result(view, _stopped(stop), "bfs", {}, None, expanded, generated, limits, None)


def astar(view, kernel, tables, which, heap, best_g, parents, counter, expanded, generated, limits, result,
          heuristic_name, planner="astar"):
    """A* (weight 1) with the compiled h_max (`which` 0), LM-cut (1) or blind estimate (2) over `tables`
    (heuristics/kernels.Tables), carrying on from strips.best_first's heap (its tuples), best_g
    and parents (same keys, same order) and counts. Every state is expanded as strips.best_first
    would: the same plan, counts and status."""
    import numpy as np

    from .strips import _stopped

    p = packed(view, max(max(bits.bit_length() for bits in parents), view.goal_pos.bit_length(),
                         view.goal_neg.bit_length()))
    room = len(p.ops)
    cap = 2 * (len(parents) + room)
    carried = _carry(p, parents, cap, limits)
    f = heap[0][0] if heap else 0

    def stopped(stop):
        return result(view, _stopped(stop), planner, {}, None, expanded, generated, limits, None,
                      heuristic=heuristic_name, lower_bound=float(f))
    if isinstance(carried, str):
        return stopped(carried)
    states, parent, via, number = carried
    n, cap = len(parents), len(states)
    gval = np.full(cap, _NO_G, dtype=np.int64)
    for bits, g in best_g.items():
        gval[number[bits]] = g
    rows = np.zeros((max(1024, 2 * (len(heap) + room)), 5), dtype=np.int64)
    for i, (f_, h_, c_, bits, g_) in enumerate(heap):  # a heapq heap is a binary heap as the kernel's
        rows[i] = (f_, h_, c_, number[bits], g_)
    del number
    size = len(heap)
    heap.clear(), best_g.clear(), parents.clear()  # as in search(): the arrays hold them now
    table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
    kernel.rehash(states, n, table)
    counters = np.array([n, size, counter, expanded, generated, f], dtype=np.int64)
    t = np.zeros(p.words, dtype=np.uint64)
    goal_pos, goal_neg = p.row(view.goal_pos), p.row(view.goal_neg)
    budget = 64
    ops_start, node_ops, child_start, child_fact, child_node = p.tree
    astar_kernel = _state_kernels()["astar"]
    while True:
        began = time.perf_counter()
        found, tables.head = astar_kernel.astar(
            states, parent, via, gval, table, rows, counters, p.neg, p.has_neg, p.keep, p.add, p.cost, ops_start, node_ops,
            child_start, child_fact, child_node, goal_pos, goal_neg, p.stack, t, which, tables.block, tables.head, budget)
        n, size, _, expanded, generated, f = (int(c) for c in counters)
        if found >= 0:
            chain, bits = _chain(p, states, parent, via, found)
            return result(view, SOLVED_OPTIMAL, planner, chain, bits, expanded, generated, limits, None,
                          heuristic=heuristic_name, bound=None)
        if found == -2:
            return result(view, UNSOLVABLE_PROVEN, planner, {}, None, expanded, generated, limits, None,
                          heuristic=heuristic_name)
        if found == -3:
            while n + room > cap:
                cap *= 2
            if cap > len(states):
                states, parent, via = _grow(states, n, cap, 0), _grow(parent, n, cap, -1), _grow(via, n, cap, -1)
                gval = _grow(gval, n, cap, _NO_G)
                table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
                kernel.rehash(states, n, table)
            if size + room > len(rows):
                rows = _grow(rows, size, 2 * (size + room), 0)
        else:
            budget = _paced(budget, time.perf_counter() - began)
        stop = limits.exceeded()
        if stop:
            return stopped(stop)


def lazy(view, kernel, h, heap, parents, counter, expanded, generated, limits, result, heuristic_name):
    """strips.lazy_greedy carried on from its heap (its tuples) and parents, with the successors
    generated and the duplicates dropped by the compiled breadth-first kernel, one expansion a
    call (an expansion there is what lazy_greedy does after the evaluation; no state is the
    goal for it: goals are tested when popped). The heap and the evaluations stay here, so the
    same states are pushed in the same order: the same plan and counts."""
    import heapq
    import math

    import numpy as np

    from .strips import _stopped
    from ..result import SOLVED_SATISFICING

    top = max(max(bits.bit_length() for bits in parents), view.goal_pos.bit_length(), view.goal_neg.bit_length())
    p = packed(view, top)
    if 64 * p.words <= p.facts:
        p = packed(view, p.facts + 1)  # room for one fact past every fact: `never` below
    room = len(p.ops)
    carried = _carry(p, parents, 2 * (len(parents) + room), limits)

    def ended(status, chain=None, bits=None):
        return result(view, status, "gbfs", chain or {}, bits, expanded, generated, limits, None,
                      heuristic=heuristic_name)
    if isinstance(carried, str):
        return ended(_stopped(carried))
    states, parent, via, number = carried
    carried_heap, heap = heap, [(value, c, number[bits]) for value, c, bits in heap]  # the same keys: still a heap
    del number
    n, cap = len(parents), len(states)
    carried_heap.clear(), parents.clear()  # as in search(): the arrays hold them now
    table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
    kernel.rehash(states, n, table)
    counters = np.array([n, 0, 0, generated], dtype=np.int64)
    t = np.zeros(p.words, dtype=np.uint64)
    never = p.row(1 << p.facts)  # a goal no state reaches: the fact past every fact
    nothing = np.zeros(p.words, dtype=np.uint64)
    ops_start, node_ops, child_start, child_fact, child_node = p.tree
    gpos, gneg = view.goal_pos, view.goal_neg
    heappop, heappush, exceeded, pace, inf = heapq.heappop, heapq.heappush, limits.exceeded, limits.pace, math.inf
    expand, bits_of = kernel.expand, p.bits
    countdown = 1
    while heap:
        value, c, i = heappop(heap)
        countdown -= 1
        if not countdown:
            stop = exceeded()
            if stop:
                generated = int(counters[3])
                return ended(_stopped(stop))
            countdown = pace()
        s = bits_of(states[i])
        if s & gpos == gpos and not s & gneg:
            generated = int(counters[3])
            chain, bits = _chain(p, states, parent, via, i)
            return ended(SOLVED_SATISFICING, chain, bits)
        value = h(s)
        if value == inf:
            continue
        expanded += 1
        counters[1] = i
        while expand(states, parent, via, table, counters, p.neg, p.has_neg, p.keep, p.add, ops_start, node_ops,
                     child_start, child_fact, child_node, never, nothing, p.stack, t, 1) == -3:
            while n + room > cap:
                cap *= 2
            states, parent, via = _grow(states, n, cap, 0), _grow(parent, n, cap, -1), _grow(via, n, cap, -1)
            table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
            kernel.rehash(states, n, table)
        added = int(counters[0])
        for j in range(n, added):
            counter += 1
            heappush(heap, (value, counter, j))
        n = added
    generated = int(counters[3])
    return ended(UNSOLVABLE_PROVEN)


def _state_kernels():
    from ..heuristics.kernels import _state

    return _state


_NO_G = 1 << 62  # _compiled_astar.NO_G: no best g known (numba is not imported here)


def _carry(p, parents, cap, limits):
    """(states, parent, via, number) arrays of `cap` rows holding the states of `parents` (bits ->
    (parent bits, op) or None, in the order generated) and `number` (bits -> row); or the
    status, when a limit ran out meanwhile (millions of states may come over from an
    interpreted search)."""
    import numpy as np

    n = len(parents)
    cap = max(1024, cap)
    states = np.zeros((cap, p.words), dtype=np.uint64)
    parent = np.full(cap, -1, dtype=np.int64)
    via = np.full(cap, -1, dtype=np.int64)
    number = {}
    op_number = {id(op): i for i, op in enumerate(p.ops)}
    raw = bytearray()
    size = 8 * p.words
    for k, bits in enumerate(parents):
        if not k & 0xFFFF and k:
            stop = limits.exceeded()
            if stop:
                return stop
        number[bits] = k
        raw += bits.to_bytes(size, "little")
    for k, link in enumerate(parents.values()):  # in A*, a better path may come from a later state
        if link is not None:
            parent[k] = number[link[0]]
            via[k] = op_number[id(link[1])]
    states[:n] = np.frombuffer(bytes(raw), dtype="<u8").reshape(n, p.words)
    return states, parent, via, number


def _chain(p, states, parent, via, found):
    """The parents dict of the path to state `found` only, and its bits (what strips._result reads)."""
    path = [found]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    path.reverse()
    before = p.bits(states[path[0]])
    chain = {before: None}
    for k in path[1:]:
        bits = p.bits(states[k])
        chain[bits] = (before, p.ops[int(via[k])])
        before = bits
    return chain, before


def _grow(array, n, cap, fill):
    import numpy as np

    grown = np.full((cap,) + array.shape[1:], fill, dtype=array.dtype)
    grown[:n] = array[:n]
    return grown


def _power_of_two(at_least: int) -> int:
    return 1 << max(at_least - 1, 1).bit_length()
