"""Landmark counting with disjoint achievers: an admissible estimate as cheap as h_max and
additive where h_max is not.

A fact the goal needs and the state lacks must be made true by some action; so must every
fact that all of that fact's achievers require (backchaining, as in Hoffmann, Porteous and
Sebastia's fact landmarks, here per state). When the achievers of several such landmarks are
pairwise disjoint, each needs its own action occurrence, so their cheapest achievers add up
(Karpas and Domshlak's admissible landmark heuristic with the simplest cost partitioning:
none needed, because no action is shared).

It sees what h_max cannot: the kitchen's "move to the board", "move to the fryer", "place the
lettuce on the board" and each of the three cuts are separate occurrences, while h_max charges
only the longest chain. Counter levels make repetitions count: the relaxation's "cut from 1 to
2" and "cut from 2 to 3" are different occurrences of the same ground action, and a real
occurrence starts from exactly one counter value, so their achiever sets are disjoint.

Timers are free here (a timer's completion is no action): a goal fact a running timer will
add costs nothing, and the action that starts a timer is counted through the facts its
completion needs. Combine with the time-aware h_max for waiting.
"""
from __future__ import annotations

import math


class LandmarkData:
    """Per relaxation: for every fact, what all its achievers require, and which occurrence
    classes (ground action, counter value) can achieve it; None when a free action can."""

    def __init__(self, r):
        classes: dict[tuple, int] = {}
        action_class = []
        for a in r.actions:
            if a.cost == 0 or a.source is None:
                action_class.append(None)
            else:
                action_class.append(classes.setdefault((id(a.source), a.level), len(classes)))
        self.common: dict[int, int] = {}
        self.classes: dict[int, int | None] = {}
        self.cheapest: dict[int, float] = {}
        for f, achievers in r.achievers.items():
            common = -1
            mask = 0
            free = False
            cheapest = math.inf
            for i in achievers:
                action = r.actions[i]
                common &= action.pre_pos
                c = action_class[i]
                if c is None:
                    free = True
                else:
                    mask |= 1 << c
                    cheapest = min(cheapest, action.cost)
            self.common[f] = common
            self.classes[f] = None if free else mask
            self.cheapest[f] = cheapest
        # per fact counted as a landmark: (how many achiever classes, which, the cheapest cost);
        # fewest first is the greedy order for picking pairwise-disjoint ones
        self.entry = {f: (mask.bit_count(), mask, self.cheapest[f]) for f, mask in self.classes.items()
                      if mask is not None}


def landmark_count(data: LandmarkData, r, reached: int) -> float:
    """The best, over the goal's disjuncts, of the disjoint-achiever landmark count."""
    best = math.inf
    common, entry = data.common, data.entry
    closures: dict[int, int | None] = {}  # goal fact -> it and what it backchains to (None: unreachable)

    def close(f):
        found = 1 << f
        stack = [f]
        while stack:
            needs = common.get(stack.pop())
            if needs is None:
                return None  # nothing adds it
            more = needs & ~reached & ~found
            while more:
                low = more & -more
                more ^= low
                found |= low
                stack.append(low.bit_length() - 1)
        return found

    for disjunct in r.disjuncts:
        todo = disjunct & ~reached
        found = 0
        while todo:
            low = todo & -todo
            todo ^= low
            f = low.bit_length() - 1
            c = closures.get(f, 0)
            if c == 0:
                c = closures[f] = close(f)
            if c is None:
                found = None
                break
            found |= c
        if found is None:
            continue
        chosen = []
        while found:
            low = found & -found
            found ^= low
            e = entry.get(low.bit_length() - 1)
            if e is not None:
                chosen.append(e)
        chosen.sort()
        used = 0
        value = 0
        for _, mask, cost in chosen:
            if not mask & used:
                used |= mask
                value += cost
                if value >= best:
                    break
        if value < best:
            best = value
    return best
