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
        self.words = words = (top + 63) // 64
        size = 8 * words

        def pack(values):
            raw = b"".join(v.to_bytes(size, "little") for v in values)
            return np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(len(values), words)

        self.neg = pack([op.pre_neg for op in ops])
        self.has_neg = np.asarray([op.pre_neg != 0 for op in ops], dtype=np.bool_).reshape(len(ops))
        self.keep = ~pack([~op.keep for op in ops])
        self.add = pack([op.add for op in ops])
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


def search(view, kernel, parents, next_index, expanded, generated, limits, result):
    """Breadth-first search from the states of `parents` (a dict, bits -> (parent bits, op) or
    None, in the order they were generated), expanding from the `next_index`-th on; `result`
    is strips._result."""
    import numpy as np

    from .strips import _stopped

    p = packed(view, max(max(bits.bit_length() for bits in parents), view.goal_pos.bit_length(),
                         view.goal_neg.bit_length()))
    n = len(parents)
    room = len(p.ops)
    cap = max(1024, 2 * (n + room))
    states = np.zeros((cap, p.words), dtype=np.uint64)
    parent = np.full(cap, -1, dtype=np.int64)
    via = np.full(cap, -1, dtype=np.int64)
    if n == 1:
        states[0] = p.row(next(iter(parents)))
    else:
        number = {}
        op_number = {id(op): i for i, op in enumerate(p.ops)}
        raw = bytearray()
        size = 8 * p.words
        for k, (bits, link) in enumerate(parents.items()):
            if not k & 0xFFFF:
                stop = limits.exceeded()  # millions of states may come over
                if stop:
                    return result(view, _stopped(stop), "bfs", {}, None, expanded, generated, limits, None)
            number[bits] = k
            raw += bits.to_bytes(size, "little")
            if link is not None:
                parent[k] = number[link[0]]
                via[k] = op_number[id(link[1])]
        states[:n] = np.frombuffer(bytes(raw), dtype="<u8").reshape(n, p.words)
        del number, raw
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
            path = [found]
            while parent[path[-1]] >= 0:
                path.append(int(parent[path[-1]]))
            path.reverse()
            chain = {p.bits(states[path[0]]): None}
            before = next(iter(chain))
            for k in path[1:]:
                bits = p.bits(states[k])
                chain[bits] = (before, p.ops[int(via[k])])
                before = bits
            return result(view, SOLVED_OPTIMAL, "bfs", chain, before, expanded, generated, limits, None)
        if found == -2:
            return result(view, UNSOLVABLE_PROVEN, "bfs", {}, None, expanded, generated, limits, None)
        if found == -3:
            while n + room > cap or 2 * (n + room) > len(table):
                cap *= 2
            grown = np.zeros((cap, p.words), dtype=np.uint64)
            grown[:n] = states[:n]
            states = grown
            parent = np.concatenate([parent[:n], np.full(cap - n, -1, dtype=np.int64)])
            via = np.concatenate([via[:n], np.full(cap - n, -1, dtype=np.int64)])
            table = np.full(_power_of_two(4 * cap), -1, dtype=np.int64)
            kernel.rehash(states, n, table)
        else:
            spent = time.perf_counter() - began
            if spent < 0.002 and budget < MAX_BUDGET:
                budget *= 2
            elif spent > 0.01 and budget > 1:
                budget //= 2
        stop = limits.exceeded()
        if stop:
            return result(view, _stopped(stop), "bfs", {}, None, expanded, generated, limits, None)


def _power_of_two(at_least: int) -> int:
    return 1 << max(at_least - 1, 1).bit_length()
