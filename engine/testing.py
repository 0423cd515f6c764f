"""Property-based testing of transition rules, for any domain and problem.

Hypothesis strategies draw random walks (sequences of applicable actions) from a task, so the
states they reach are reachable by construction and shrink to short counterexamples. The laws
below are what every world must satisfy; authors add their own through the domain's
`invariants`. `groundplan check` runs them; the project's tests run them on every shipped world.

    from hypothesis import given
    from groundplan.engine.testing import walks
    @given(walks(task, max_steps=20))
    def test_my_rule(walk): ...
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import strategies as st

from . import model as m
from .task import GroundAction, State, Task

# The brute-force law compiles every binding the static facts allow, once per universe, and
# tests them all in every state: it is skipped when there are more than this many of them, or
# when finding them takes more than ten times as many partial bindings.
BRUTE_FORCE_LIMIT = 20_000


@dataclass
class Walk:
    """A random walk: the actions taken and the states visited (states[0] is the initial state)."""

    actions: list[GroundAction]
    states: list[State]

    def __repr__(self):
        return "Walk(" + " -> ".join(a.text for a in self.actions) + ")"


def replay_choices(task: Task, choices: list[int], start: State | None = None) -> Walk:
    """Follow choice indices through the applicable actions (index modulo their number)."""
    state = start if start is not None else task.initial_state()
    actions, states = [], [state]
    for choice in choices:
        applicable = task.applicable(state)
        if not applicable:
            break
        action = applicable[choice % len(applicable)]
        state = task.successor(state, action)
        actions.append(action)
        states.append(state)
    return Walk(actions, states)


def walks(task: Task, max_steps: int = 20) -> st.SearchStrategy[Walk]:
    """Random walks of up to `max_steps` applicable actions from the initial state."""
    return st.lists(st.integers(min_value=0, max_value=10_000), max_size=max_steps).map(lambda c: replay_choices(task, c))


def reachable_states(task: Task, max_steps: int = 20) -> st.SearchStrategy[State]:
    return walks(task, max_steps).map(lambda w: w.states[-1])


# ---------------------------------------------------------------- laws
def all_groundings(task: Task, state: State):
    """Every type-correct binding of every schema in the state's universe (for brute-force checks)."""
    u = task.universe(state.created)
    for schema in task.domain.actions.values():
        pools = [u.compiler.objects_of(t) for _, t in schema.params]
        for args in itertools.product(*pools):
            yield schema, args


_PENDING = object()


class _Compiled:
    """The laws' formulas for one universe, compiled once instead of in every state.

    Compiling is what made `check` slow: a condition depends only on the universe (its objects,
    static facts and settings) and the binding, never on the state, yet the invariants and every
    binding of every schema used to be compiled afresh in each state (gridnav's 8x8 room: 16,384
    bindings, about 0.06 s a state and half a second a walk)."""

    def __init__(self, task: Task, created: tuple):
        self.universe = u = task.universe(created)
        self.task = task
        self.invariants = [(inv, u.compiler.condition(inv.formula, {})) for inv in task.domain.invariants]
        self._by_actor = _PENDING

    @property
    def by_actor(self) -> dict | None:
        """actor (None: no actor) -> [(name, args, pos, neg, test)]; None when there are too many
        bindings. Built on first use: walks checked without the brute-force law never pay for it."""
        if self._by_actor is _PENDING:
            possible = _possible_actions(self.task, self.universe)
            self._by_actor = None if possible is None else {}
            for name, args, actor, cond in possible or ():
                pos, neg, test = (0, 0, None) if cond is True else (cond.pos, cond.neg, cond.test)
                self._by_actor.setdefault(actor, []).append((name, args, pos, neg, test))
        return self._by_actor

    def candidates(self, task: Task, state: State):
        """The compiled bindings whose actor may act in `state` (whose turn it is; never an idle one)."""
        if task.turn_based:
            return [self.by_actor.get(None, []), self.by_actor.get(task.agents[state.turn], [])]
        return [entries for actor, entries in self.by_actor.items() if actor is None or actor not in task.idle]


def _conjuncts(formula) -> list:
    if isinstance(formula, m.And):
        return [c for part in formula.parts for c in _conjuncts(part)]
    return [formula]


def _possible_actions(task: Task, u) -> list[tuple] | None:
    """(schema name, args, actor, compiled precondition) for every type-correct binding that the
    static atoms of its precondition's top-level conjunction allow; None when there are too many.

    A plain nested loop over the parameters in the order written, testing each static atom as
    soon as its variables are bound: deliberately not the grounder's join (the law checks that),
    and exact, since a false conjunct makes the whole precondition false in every state."""
    found, visits, budget = [], 0, 10 * BRUTE_FORCE_LIMIT
    for schema in task.domain.actions.values():
        names = [v for v, _ in schema.params]
        pools = [u.compiler.objects_of(t) for _, t in schema.params]
        atoms = [c for c in _conjuncts(schema.precondition) if isinstance(c, m.Atom) and c.pred in task.static_preds]
        checks = [[] for _ in names]
        for atom in atoms:
            last = max((names.index(x) for x in atom.args if x in names), default=-1)
            if last < 0:  # no parameter: decided once
                if (atom.pred, atom.args) not in task.static_facts:
                    break
            else:
                checks[last].append(atom)
        else:
            actor_at = names.index(schema.actor) if schema.actor else None
            binding: dict = {}
            stack = [iter(pools[0])] if names else []
            cond = u.compiler.condition(schema.precondition, {}) if not names else False
            if cond is not False:
                found.append((schema.name, (), None, cond))
            while stack:
                depth = len(stack) - 1
                obj = next(stack[-1], None)
                if obj is None:
                    stack.pop()
                    continue
                visits += 1
                if visits > budget or len(found) > BRUTE_FORCE_LIMIT:
                    return None
                binding[names[depth]] = obj
                if not all((a.pred, tuple(binding.get(x, x) for x in a.args)) in task.static_facts for a in checks[depth]):
                    continue
                if depth + 1 < len(names):
                    stack.append(iter(pools[depth + 1]))
                    continue
                args = tuple(binding[v] for v in names)
                cond = u.compiler.condition(schema.precondition, binding)
                if cond is not False:
                    found.append((schema.name, args, args[actor_at] if actor_at is not None else None, cond))
    return found


def _compiled(task: Task, state: State) -> _Compiled:
    # kept on the task, so it lives and dies with it (a module-level table keyed by task would
    # keep every task alive: what it holds refers back to the task)
    per_task = task.__dict__.setdefault("_laws_compiled", {})
    found = per_task.get(state.created)
    if found is None:
        found = per_task[state.created] = _Compiled(task, state.created)
    return found


def _holds(cond, state: State, bits: int) -> bool:
    return cond if cond is True or cond is False else cond.holds(state, bits)


def law_violations(task: Task, walk: Walk, brute_force: bool = True) -> list[str]:
    """Every broken law along a walk, as sentences (empty when all hold)."""
    problems: list[str] = []
    for step, state in enumerate(walk.states):
        where = f"after {step} step(s)"
        compiled = _compiled(task, state)
        bits = task.bits(state)
        for inv, cond in compiled.invariants:
            if not _holds(cond, state, bits):
                problems.append(f"invariant '{inv.name}' ({inv.text or 'no text'}) is false {where}")
        applicable = task.applicable(state)
        for action in applicable:
            first, second = task.successor(state, action), task.successor(state, action)
            if first != second:
                problems.append(f"apply is not deterministic for '{action.text}' {where}")
        if brute_force and compiled.by_actor is not None:
            found = {(a.schema.name, a.args) for a in applicable}
            expected = {(name, args) for entries in compiled.candidates(task, state)
                        for name, args, pos, neg, test in entries
                        if bits & pos == pos and not bits & neg and (test is None or test(state, bits))}
            for name, args in sorted(expected - found):
                problems.append(f"({name} {' '.join(args)}) has its precondition met {where} but is not listed as applicable")
            for name, args in sorted(found - expected):
                problems.append(f"({name} {' '.join(args)}) is listed as applicable {where} but its precondition is false")
    # purity: the walk's states are unchanged by having been expanded, and replay reproduces them
    state = walk.states[0]
    for i, action in enumerate(walk.actions):
        state = task.apply(state, action)
        if state != walk.states[i + 1]:
            problems.append(f"replaying the walk diverges at step {i + 1} ('{action.text}')")
            break
    from .validate import validate_plan

    result = validate_plan(task, [a.text for a in walk.actions], require_goal=False)
    if not result.valid:
        problems.append(f"the walk does not validate as a plan: {result.message()}")
    elif result.final_state != walk.states[-1]:
        problems.append("validating the walk as a plan reaches a different final state")
    return problems


@dataclass
class CheckReport:
    examples: int
    violations: list[str]
    walk: Walk | None
    walks: int = 0  # walks tried, shrinking included
    steps: int = 0  # actions taken over all of them
    brute_forced: bool = True  # False: too many bindings to test the applicable actions against every precondition

    @property
    def ok(self) -> bool:
        return not self.violations


def check_task(task: Task, examples: int = 100, max_steps: int = 20, seed: int = 0, progress=None) -> CheckReport:
    """Search for a walk that breaks a law; return the shrunk counterexample if one exists.

    `progress(walks, steps, shrinking)`, when given, is called after every walk tried, so a
    caller can show that a long check is moving (`shrinking` once a counterexample was found)."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    strategy = st.lists(st.integers(min_value=0, max_value=10_000), max_size=max_steps)
    config = settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    counts = {"walks": 0, "steps": 0, "shrinking": False}

    def breaks_a_law(choices) -> bool:
        walk = replay_choices(task, choices)
        broken = bool(law_violations(task, walk))
        counts["walks"] += 1
        counts["steps"] += len(walk.actions)
        if progress is not None:
            progress(counts["walks"], counts["steps"], counts["shrinking"])
        counts["shrinking"] = counts["shrinking"] or broken
        return broken

    brute_forced = _compiled(task, task.initial_state()).by_actor is not None
    try:
        import random

        random.seed(seed)
        choices = find(strategy, breaks_a_law, settings=config)
    except NoSuchExample:
        return CheckReport(examples, [], None, counts["walks"], counts["steps"], brute_forced)
    walk = replay_choices(task, choices)
    return CheckReport(examples, law_violations(task, walk), walk, counts["walks"], counts["steps"], brute_forced)
