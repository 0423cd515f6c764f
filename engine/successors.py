"""A successor generator: which ground actions have their positive preconditions met in a state.

A tree in the manner of Fast Downward's successor generator, specialised to bitsets: each node
holds the actions whose positive preconditions are all tested on the path to it, and children
keyed by one more fact. Evaluation visits only children whose fact is true in the state, found
by masking the state with the node's fact mask and walking the set bits, so the cost follows the
number of candidate actions, not the number of ground actions.
"""
from __future__ import annotations


class _Node:
    __slots__ = ("actions", "mask", "children")

    def __init__(self):
        self.actions: list = []
        self.mask = 0
        self.children: dict[int, _Node] = {}


def build_tree(actions) -> _Node:
    return _build(list(actions), 0)


def _build(actions, tested: int) -> _Node:
    node = _Node()
    rest = []
    for a in actions:
        if a.pre_pos & ~tested:
            rest.append(a)
        else:
            node.actions.append(a)
    while rest:
        # split on the fact shared by most remaining actions: fewer, fuller children
        counts: dict[int, int] = {}
        for a in rest:
            bits = a.pre_pos & ~tested
            while bits:
                low = bits & -bits
                counts[low] = counts.get(low, 0) + 1
                bits ^= low
        fact = max(counts, key=lambda f: (counts[f], -f.bit_length()))
        group = [a for a in rest if a.pre_pos & fact]
        rest = [a for a in rest if not a.pre_pos & fact]
        node.children[fact.bit_length() - 1] = _build(group, tested | fact)
        node.mask |= fact
    return node


def candidates(tree: _Node, bits: int) -> list:
    """Ground actions whose positive preconditions all hold in `bits`."""
    out = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.actions:
            out.extend(node.actions)
        live = bits & node.mask
        if live:
            children = node.children
            while live:
                low = live & -live
                stack.append(children[low.bit_length() - 1])
                live ^= low
    return out
