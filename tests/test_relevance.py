"""The law of relevance pruning (planners/search/relevance.py): dropping the actions that change
no fact the goal depends on keeps the optimal cost, and solvability, of every STRIPS task."""
from __future__ import annotations

import heapq
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from groundplan.planners.search.relevance import relevant_actions

FACTS = 6
masks = st.integers(min_value=0, max_value=(1 << FACTS) - 1)


@st.composite
def actions(draw):
    pre_pos, pre_neg, add, delete = draw(masks), draw(masks), draw(masks), draw(masks)
    pre_neg &= ~pre_pos
    return SimpleNamespace(pre_pos=pre_pos, pre_neg=pre_neg, effect=SimpleNamespace(add=add, delete=delete),
                           cost=draw(st.integers(1, 3)))


def optimal_cost(ops, start, goal_pos, goal_neg):
    """Uniform-cost search over fact bitsets: the add wins where an action adds and deletes a fact."""
    best = {start: 0}
    heap = [(0, start)]
    while heap:
        g, s = heapq.heappop(heap)
        if g > best[s]:
            continue
        if s & goal_pos == goal_pos and not s & goal_neg:
            return g
        for a in ops:
            if s & a.pre_pos == a.pre_pos and not s & a.pre_neg:
                t = (s & ~a.effect.delete) | a.effect.add
                if g + a.cost < best.get(t, float("inf")):
                    best[t] = g + a.cost
                    heapq.heappush(heap, (g + a.cost, t))
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(actions(), max_size=10), masks, masks, masks)
def test_pruning_keeps_the_optimal_cost(ops, start, goal_pos, goal_neg):
    goal_neg &= ~goal_pos
    kept = relevant_actions(ops, goal_pos, goal_neg)
    assert all(any(k is a for a in ops) for k in kept)
    assert [a for a in ops if any(a is k for k in kept)] == kept  # the original order
    assert optimal_cost(kept, start, goal_pos, goal_neg) == optimal_cost(ops, start, goal_pos, goal_neg)


def test_no_ops_and_actions_on_facts_no_goal_needs_are_dropped():
    def op(pre=0, neg=0, add=0, delete=0):
        return SimpleNamespace(pre_pos=pre, pre_neg=neg, effect=SimpleNamespace(add=add, delete=delete))
    move = op(pre=0b001, add=0b010, delete=0b001)        # reaches the goal fact 1
    noop = op(pre=0b010, add=0b010, delete=0b010)        # drive x from a to a
    stray = op(pre=0b001, add=0b100)                     # fact 2: no goal, no precondition needs it
    enabler = op(pre=0b100, add=0b1000)                  # adds fact 3, which `guarded` needs absent...
    guarded = op(pre=0b001, neg=0b1000, add=0b10000)     # ...so it stays relevant through a negative precondition
    assert relevant_actions([move, noop, stray], 0b010, 0) == [move]
    # `move` deletes fact 0, which `guarded` needs: changing a relevant fact either way keeps an action
    assert relevant_actions([move, noop, stray, enabler, guarded], 0b10000, 0) == [move, stray, enabler, guarded]
