"""Facts every goal state has although no single dish of the order needs them.

An order of two lettuce sandwiches is split into two goal parts (relaxation.py), and the
inequalities between the parts are dropped: either sandwich may use either lettuce, so neither
"lettuce1 is cut" nor "lettuce2 is cut" is needed by a part, and landmark counting and h_max see
no cut at all (0 at the start of sync 08). With the inequalities put back, every binding of the
whole goal cuts both lettuces when there are just two: both facts hold in every goal state.

A fact f is such a goal landmark when no choice of one binding per part, the parts' bindings
consistent with the inequalities between them, avoids f. That is a small constraint search per
candidate fact; all of them share a fixed budget, and the facts left undecided when it runs out
are not claimed (claiming fewer facts only weakens the estimates, never their admissibility).
"""
from __future__ import annotations

from groundplan.engine import model as m

MAX_BINDINGS = 8192  # per part; beyond it, no goal landmarks are computed
MAX_STEPS = 200_000  # bindings tried, over all candidate facts, before the rest are left unclaimed


def goal_landmark_facts(compiler, groups: dict, cross: list, params, find, ground_dnf,
                        placeholder: str | None = None) -> int | None:
    """The mask of facts true in every state satisfying the goal `exists(params, and(groups, cross))`,
    or None when no binding satisfies it (three dishes, two tables: the goal can never hold).

    groups, cross, params, find: as relaxation.goal_groups returns them. ground_dnf(node): a
    ground node as positive fact masks (relaxation._dnf). placeholder: the mark in the names of
    the relaxation's stand-ins for objects not yet created; one stand-in may become several real
    objects, so it never clashes with itself. Returns 0 when the goal is out of reach of this
    analysis (no split, a cross-part constraint other than an inequality, too many bindings, the
    search budget spent)."""
    if groups is None:
        return 0
    pairs = []
    for node, _ in cross:
        if not (isinstance(node, m.Not) and isinstance(node.part, m.Equal)):
            return 0
        pairs.append((node.part.left, node.part.right))
    options = []  # per part with variables: [(binding, the facts every satisfying state of it has)]
    for group, conjuncts in groups.items():
        if group is None:
            continue
        variables = tuple((v, t) for v, t in params if find(v) == group)
        names = [v for v, _ in variables]
        body = m.And(tuple(conjuncts))
        found = []
        for combo in compiler.static_bindings(variables, body, {}):
            binding = dict(zip(names, combo))
            dnf = ground_dnf(compiler.ground(body, binding))
            if dnf is False:
                continue
            common = dnf[0]
            for mask in dnf[1:]:
                common &= mask
            found.append((binding, common))
            if len(found) > MAX_BINDINGS:
                return 0
        if not found:
            return 0  # the goal cannot hold: the relaxation reports that on its own
        options.append(found)
    if len(options) < 2:
        return 0
    budget = [MAX_STEPS]  # shared by every candidate: a hard instance costs one budget, not one per fact
    try:
        if not _avoidable(options, pairs, 0, placeholder, budget):
            return None  # no consistent choice of bindings at all
    except _GaveUp:
        return 0
    candidates = 0
    for found in options:
        union = every = found[0][1]
        for _, mask in found[1:]:
            union |= mask
            every &= mask
        candidates |= union & ~every  # facts every binding of a part has need no cross-part argument
    landmarks = 0
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        try:
            if not _avoidable(options, pairs, low, placeholder, budget):
                landmarks |= low
        except _GaveUp:
            break  # the facts not yet decided are not claimed
    return landmarks


def _avoidable(options, pairs, fact: int, placeholder, budget: list) -> bool:
    """Whether some consistent choice of one binding per part has no `fact`; raises _GaveUp
    when the shared budget (a one-item list: steps left) runs out."""
    lists = sorted(([b for b, mask in found if not mask & fact] for found in options), key=len)
    if any(not choices for choices in lists):
        return False

    def consistent(binding: dict, chosen: dict) -> bool:
        for left, right in pairs:
            a = binding.get(left, chosen.get(left, left))
            b = binding.get(right, chosen.get(right, right))
            if a == b and not (placeholder and placeholder in a):
                return False
        return True

    def extend(i: int, chosen: dict) -> bool:
        if i == len(lists):
            return True
        for binding in lists[i]:
            budget[0] -= 1
            if budget[0] < 0:
                raise _GaveUp
            if consistent(binding, chosen) and extend(i + 1, {**chosen, **binding}):
                return True
        return False

    return extend(0, {})


class _GaveUp(Exception):
    """The constraint search spent its shared budget: what is undecided is not claimed."""
