"""A goal agenda for orders of several independent parts (dishes): plan for them one at a time.

An existential goal whose conjuncts split into groups sharing no variable (see
relaxation.goal_groups) is served incrementally, as in FF's goal agenda: plan from the initial
state to the first group, from there to the first two groups (with the inequalities between
them, so no object serves two parts), and so on. Each leg is a much smaller search than the
whole; the concatenated plan is a plan of the task, replayed by the interpreter. Incomplete (an
early leg may spoil a later one) and satisficing: nothing is claimed about cost.
"""
from __future__ import annotations

import time

from groundplan.engine import model as m

from ..heuristics.relaxation import goal_groups
from ..result import SOLVED_SATISFICING, TIMEOUT, PlanResult


def parts(task) -> int:
    """How many independent parts (dishes) the goal splits into (1 when it does not split)."""
    groups = goal_groups(task.goal.goal)[0]
    return 1 if groups is None else len([k for k in groups if k is not None])


def legs(task, order: tuple[int, ...] | None = None) -> list | None:
    """The goals of the agenda's legs (model formulas), or None when the goal does not split.

    order: a permutation of the parts (default: as written). An early part can spoil a later one
    in one order and not in another (a soup's vegetable parked on the sandwich)."""
    groups, cross, params, find = goal_groups(task.goal.goal)
    if groups is None:
        return None
    order = [k for k in groups if k is not None] if order is None else [
        [k for k in groups if k is not None][i] for i in order]
    ground = groups.get(None, [])
    out = []
    for n in range(1, len(order) + 1):
        chosen = set(order[:n])
        conjuncts = list(ground) + [c for k in order[:n] for c in groups[k]]
        conjuncts += [node for node, roots in cross if roots <= chosen]
        variables = tuple((v, t) for v, t in params if find(v) in chosen)
        out.append(m.Quantified("exists", variables, m.And(tuple(conjuncts))))
    return out


def solve_agenda(task, search, time_limit: float | None = None, planner: str = "agenda",
                 order: tuple[int, ...] | None = None) -> PlanResult:
    """`search(task, start, time_limit) -> PlanResult` solves each leg from where the last ended."""
    goals = legs(task, order)
    began = time.perf_counter()
    if goals is None:
        return search(task, None, time_limit)
    state = task.initial_state()
    actions, expanded, generated = [], 0, 0
    for goal in goals:
        left = None if time_limit is None else time_limit - (time.perf_counter() - began)
        if left is not None and left <= 0:
            return PlanResult(TIMEOUT, planner, expanded=expanded, generated=generated, seconds=time.perf_counter() - began)
        leg = task.with_goal(goal)
        result = search(leg, state, left)
        expanded += result.expanded
        generated += result.generated
        if not result.solved:
            return PlanResult(result.status if result.status == TIMEOUT else TIMEOUT, planner, expanded=expanded,
                              generated=generated, seconds=time.perf_counter() - began,
                              reason=f"leg {len(actions)} failed: {result.status}")
        for a in result.actions:
            state = task.successor(state, a)
        actions += result.actions
    cost, replay = 0, task.initial_state()
    for a in actions:
        if not task.is_applicable(replay, a):
            raise AssertionError("agenda plan does not replay")
        cost += task.action_cost(replay, a)
        replay = task.successor(replay, a)
    assert task.is_goal(replay)
    return PlanResult(SOLVED_SATISFICING, planner, plan=[a.text for a in actions], actions=actions, cost=cost,
                      expanded=expanded, generated=generated, seconds=time.perf_counter() - began)



def _pre_atoms(task, action) -> tuple[list, list]:
    """The positive and negative precondition atoms of a ground action (mask part only)."""
    return list(task.facts.decode(action.pre_pos)), list(task.facts.decode(action.pre_neg))


def _same_purpose(task, state, action, purpose, keep):
    """An applicable action of the same schema and actor after which every fact in `purpose`
    (what the old plan's later steps read from this step) holds and none in `keep` was deleted,
    or None: the old step done from where this task's state actually is, without a search (a
    move from where the robot stands instead of where it stood)."""
    ids = task.facts.ids

    def mask(atoms):
        out = 0
        for atom in atoms:
            i = ids.get(atom)
            if i is None:
                return None  # a fact never seen in this task: nothing here can be relied on for it
            out |= 1 << i
        return out

    wanted, kept = mask(purpose), mask(keep) or 0
    if wanted is None:
        return None
    bits = task.bits(state)
    for other in task.applicable(state):
        if other.schema is not action.schema or other.actor != action.actor:
            continue
        effect = other.effect
        holds = effect.add | (bits & ~effect.delete)
        if wanted & ~holds == 0 and not effect.delete & kept:
            return other
    return None


def _static_signatures(task) -> dict[tuple, list[str]]:
    """Objects grouped by what the static facts say of them (interchangeable where equal)."""
    about: dict[str, set] = {o: set() for o in task.problem.objects}
    for pred, args in task.static_facts:
        for i, x in enumerate(args):
            if x in about:
                about[x].add((pred, i, tuple(a if a != x else "" for a in args)))
    groups: dict[tuple, list[str]] = {}
    for o, facts in about.items():
        groups.setdefault((task.problem.objects[o], tuple(sorted(facts))), []).append(o)
    return groups


def _replays(task, old, rename) -> int:
    """How many steps of the old plan, renamed, apply in turn from the initial state (n: all, goal reached)."""
    state = task.initial_state()
    for j, a in enumerate(old):
        mine = task.ground_action(a.schema.name, tuple(rename.get(x, x) for x in a.args))
        if mine is None or not task.is_applicable(state, mine):
            return j
        state = task.successor(state, mine)
    return len(old) + (1 if task.is_goal(state) else 0)


def _renaming(task, old, signature) -> dict:
    """Swaps of interchangeable objects that let the old plan replay further (hill climbing).

    Where the first blocked step names an object (a table now holding a distractor), the same
    plan with that object swapped for an equal one (another table) may run on."""
    signature_of = {o: sig for sig, members in signature.items() for o in members}
    rename: dict[str, str] = {}
    reached = _replays(task, old, rename)
    while reached < len(old):
        blocked, best = old[reached], None
        for x in blocked.args:
            here = rename.get(x, x)
            for other in signature.get(signature_of.get(here), ()):
                if other == here:
                    continue
                inverse = {v: k for k, v in rename.items()}
                trial = dict(rename)
                trial[inverse.get(here, here)], trial[inverse.get(other, other)] = other, here
                far = _replays(task, old, trial)
                if far > reached and (best is None or far > best[0]):
                    best = (far, trial)
        if best is None:
            break
        reached, rename = best
    return rename


def repair(task, source, plan: list[str], search, time_limit: float | None = None,
           planner: str = "plan repair") -> PlanResult:
    """Reuse a plan of a similar task (`source`): run its steps, replanning where one is blocked.

    An instance that adds objects to a solved task (a distractor on the stove the old plan used)
    breaks the old plan at a few steps only. Each old step is applied when it is applicable;
    otherwise a short search reaches its preconditions first, while keeping true every fact the
    old plan still relies on (its open causal links: produced before, consumed later), so the
    detour does not bury what a later step needs. Steps naming objects this task lacks are
    skipped; the last leg reaches the goal. Satisficing, and incomplete like every agenda."""
    began = time.perf_counter()
    old = source.parse_plan(plan)
    # causal links of the old plan: atom p produced at step i (or initially, i = -1), needed at step j
    produced_at: dict[tuple, int] = {}
    state = source.initial_state()
    before = set(source.true_atoms(state, include_static=False, include_derived=False))
    for atom in before:
        produced_at[atom] = -1
    protect: list[set] = [set() for _ in old]  # atoms to keep true while preparing step j
    used: list[set] = [set() for _ in old]  # atoms step i produced that a later step reads
    for j, a in enumerate(old):
        pos, _ = _pre_atoms(source, a)
        for atom in pos:
            i = produced_at.get(atom)
            if i is not None:
                for k in range(i + 1, j):
                    protect[k].add(atom)
                if i >= 0:
                    used[i].add(atom)
        state = source.successor(state, a)
        after = set(source.true_atoms(state, include_static=False, include_derived=False))
        for atom in after - before:
            produced_at[atom] = j
        before = after
    objects = set(task.problem.objects)
    signature = _static_signatures(task)
    rename: dict[str, str] = {}  # old plan's object -> this task's object (a permutation)
    state = task.initial_state()
    actions, expanded, generated, skipped = [], 0, 0, 0

    def mapped(args):
        return tuple(rename.get(x, x) for x in args)

    rename.update(_renaming(task, old, signature))

    def leg(goal) -> bool:
        nonlocal state, expanded, generated
        left = None if time_limit is None else time_limit - (time.perf_counter() - began)
        if left is not None and left <= 0:
            return False
        result = search(task.with_goal(goal), state, left if goal is None else (left and max(left / 4, 0.05)))
        expanded += result.expanded
        generated += result.generated
        if not result.solved:
            return False
        for x in result.actions:
            state = task.successor(state, x)
        actions.extend(result.actions)
        return True

    for j, a in enumerate(old):
        if task.is_goal(state):
            break
        if not set(mapped(a.args)) <= objects:
            skipped += 1
            continue
        mine = task.ground_action(a.schema.name, mapped(a.args))
        if mine is None:
            skipped += 1
            continue
        if not task.is_applicable(state, mine):
            keep = [(p, mapped(args)) for p, args in protect[j]]
            keep = [p for p in keep if set(p[1]) <= objects and task.atom_holds(state, p[0], p[1])]
            purpose = [(p, mapped(args)) for p, args in used[j]]
            substitute = _same_purpose(task, state, mine, purpose, keep) if purpose else None
            if substitute is not None:  # a move from where the robot stands instead of where it stood
                actions.append(substitute)
                state = task.successor(state, substitute)
                continue
            pos, neg = _pre_atoms(task, mine)
            parts = [m.Atom(p, args) for p, args in set(pos) | set(keep)] + [m.Not(m.Atom(p, args)) for p, args in neg]
            if not leg(m.And(tuple(parts))) or not task.is_applicable(state, mine):
                skipped += 1
                continue
        actions.append(mine)
        state = task.successor(state, mine)
    if not task.is_goal(state):
        left = None if time_limit is None else time_limit - (time.perf_counter() - began)
        if left is None or left > 0:
            result = search(task, state, left)
            expanded += result.expanded
            generated += result.generated
            if result.solved:
                for x in result.actions:
                    state = task.successor(state, x)
                actions += result.actions
    seconds = time.perf_counter() - began
    if not task.is_goal(state):
        return PlanResult(TIMEOUT, planner, expanded=expanded, generated=generated, seconds=seconds,
                          reason=f"goal not reached ({skipped} old steps skipped)")
    cost, replay = 0, task.initial_state()
    for x in actions:
        cost += task.action_cost(replay, x)
        replay = task.successor(replay, x)
    return PlanResult(SOLVED_SATISFICING, planner, plan=[x.text for x in actions], actions=actions, cost=cost,
                      expanded=expanded, generated=generated, seconds=seconds,
                      reason=f"{skipped} old steps skipped" if skipped else "")
