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

from engine.compile import set_bits


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


def landmark_count(data: LandmarkData, r, reached: int) -> float:
    """The best, over the goal's disjuncts, of the disjoint-achiever landmark count."""
    best = math.inf
    common, classes, cheapest = data.common, data.classes, data.cheapest
    for disjunct in r.disjuncts:
        found = disjunct & ~reached
        stack = set_bits(found)
        dead = False
        while stack:
            f = stack.pop()
            needs = common.get(f)
            if needs is None:
                dead = True  # nothing adds it: this disjunct is unreachable
                break
            more = needs & ~reached & ~found
            if more:
                found |= more
                stack.extend(set_bits(more))
        if dead:
            continue
        chosen = []
        for f in set_bits(found):
            mask = classes[f]
            if mask is not None:
                chosen.append((mask.bit_count(), mask, cheapest[f]))
        chosen.sort(key=lambda x: x[0])
        used = 0
        value = 0
        for _, mask, cost in chosen:
            if not mask & used:
                used |= mask
                value += cost
                if value >= best:
                    break
        best = min(best, value)
    return best
