"""A successor generator: which ground actions have their positive preconditions met in a state.

A tree in the manner of Fast Downward's successor generator, specialised to bitsets: each node
holds the actions whose positive preconditions are exactly the facts tested on the path to it,
and children keyed by one more fact. Evaluation visits only children whose fact is true in the state, found
by masking the state with the node's fact mask and walking the set bits, so the cost follows the
number of candidate actions, not the number of ground actions.
"""
from __future__ import annotations

from .budget import poll


class _Node:
    __slots__ = ("actions", "mask", "children")

    def __init__(self):
        self.actions: list = []
        self.mask = 0
        self.children: dict[int, _Node] = {}


def build_tree(actions) -> _Node:
    """A trie over each action's precondition facts, most widely shared facts first.

    Ordering every action's facts by how many actions share them makes common prefixes merge
    near the root; building is linear in the total number of precondition facts.
    """
    actions = list(actions)
    counts: dict[int, int] = {}
    fact_lists = []
    for n, a in enumerate(actions):
        if not n & 1023:
            poll()
        facts = []
        bits = a.pre_pos
        while bits:
            low = bits & -bits
            f = low.bit_length() - 1
            facts.append(f)
            counts[f] = counts.get(f, 0) + 1
            bits ^= low
        fact_lists.append(facts)
    root = _Node()
    for a, facts in zip(actions, fact_lists):
        facts.sort(key=lambda f: (-counts[f], f))
        node = root
        for f in facts:
            child = node.children.get(f)
            if child is None:
                child = node.children[f] = _Node()
                node.mask |= 1 << f
            node = child
        node.actions.append(a)
    return root


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
