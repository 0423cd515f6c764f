"""Facts every goal state has although no single dish of the order needs them.

An order of two lettuce sandwiches is split into two goal parts (relaxation.py), and the
inequalities between the parts are dropped: either sandwich may use either lettuce, so neither
"lettuce1 is cut" nor "lettuce2 is cut" is needed by a part, and landmark counting and h_max see
no cut at all (0 at the start of sync 08). With the inequalities put back, every binding of the
whole goal cuts both lettuces when there are just two: both facts hold in every goal state.

A fact f is such a goal landmark when no choice of one binding per part, the parts' bindings
consistent with the inequalities between them, avoids f. That is a small constraint search per
candidate fact; it is cut off after a fixed amount of work, and a fact whose search was cut off
is not claimed (claiming fewer facts only weakens the estimates, never their admissibility).
"""
from __future__ import annotations

from engine import model as m

MAX_BINDINGS = 8192  # per part; beyond it, no goal landmarks are computed
MAX_STEPS = 200_000  # bindings tried per candidate fact before giving up on it


def goal_landmark_facts(compiler, groups: dict, cross: list, params, find, ground_dnf) -> int | None:
    """The mask of facts true in every state satisfying the goal `exists(params, and(groups, cross))`,
    or None when no binding satisfies it (three dishes, two tables: the goal can never hold).

    groups, cross, params, find: as relaxation.goal_groups returns them. ground_dnf(node): a
    ground node as positive fact masks (relaxation._dnf). Returns 0 when the goal is out of reach
    of this analysis (a cross-part constraint other than an inequality, too many bindings)."""
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
    if not _avoidable(options, pairs, 0):
        return None  # no consistent choice of bindings at all
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
        if not _avoidable(options, pairs, low):
            landmarks |= low
    return landmarks


def _avoidable(options, pairs, fact: int) -> bool:
    """Whether some consistent choice of one binding per part has no `fact` (True when unsure)."""
    lists = sorted(([b for b, mask in found if not mask & fact] for found in options), key=len)
    if any(not choices for choices in lists):
        return False
    steps = 0

    def consistent(binding: dict, chosen: dict) -> bool:
        for left, right in pairs:
            a = binding.get(left, chosen.get(left, left))
            b = binding.get(right, chosen.get(right, right))
            if a == b:
                return False
        return True

    def extend(i: int, chosen: dict) -> bool:
        nonlocal steps
        if i == len(lists):
            return True
        for binding in lists[i]:
            steps += 1
            if steps > MAX_STEPS:
                raise _GaveUp
            if consistent(binding, chosen) and extend(i + 1, {**chosen, **binding}):
                return True
        return False

    try:
        return extend(0, {})
    except _GaveUp:
        return True


class _GaveUp(Exception):
    """The constraint search for one candidate fact ran out of its budget."""
