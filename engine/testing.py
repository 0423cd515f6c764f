"""Property-based testing of transition rules, for any domain and problem.

Hypothesis strategies draw random walks (sequences of applicable actions) from a task, so the
states they reach are reachable by construction and shrink to short counterexamples. The laws
below are what every world must satisfy; authors add their own through the domain's
`invariants`. `groundplan check` runs them; the project's tests run them on every shipped world.

    from hypothesis import given
    from engine.testing import walks
    @given(walks(task, max_steps=20))
    def test_my_rule(walk): ...
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import strategies as st

from .task import GroundAction, State, Task

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


def grounding_size(task: Task, state: State) -> int:
    from .task import ground_action_bound

    return ground_action_bound(task.domain, task.universe(state.created).compiler.objects_of)


def law_violations(task: Task, walk: Walk, brute_force: bool = True) -> list[str]:
    """Every broken law along a walk, as sentences (empty when all hold)."""
    problems: list[str] = []
    for step, state in enumerate(walk.states):
        where = f"after {step} step(s)"
        for inv in task.domain.invariants:
            if not task.holds(inv.formula, state):
                problems.append(f"invariant '{inv.name}' ({inv.text or 'no text'}) is false {where}")
        applicable = task.applicable(state)
        for action in applicable:
            first, second = task.successor(state, action), task.successor(state, action)
            if first != second:
                problems.append(f"apply is not deterministic for '{action.text}' {where}")
        if brute_force and grounding_size(task, state) <= BRUTE_FORCE_LIMIT:
            found = {(a.schema.name, a.args) for a in applicable}
            expected = set()
            for schema, args in all_groundings(task, state):
                if task.turn_based and schema.actor:
                    actor = args[[v for v, _ in schema.params].index(schema.actor)]
                    if actor != task.agents[state.turn]:
                        continue
                binding = dict(zip([v for v, _ in schema.params], args))
                if task.holds(schema.precondition, state, binding):
                    expected.add((schema.name, args))
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

    @property
    def ok(self) -> bool:
        return not self.violations


def check_task(task: Task, examples: int = 100, max_steps: int = 20, seed: int = 0) -> CheckReport:
    """Search for a walk that breaks a law; return the shrunk counterexample if one exists."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    strategy = st.lists(st.integers(min_value=0, max_value=10_000), max_size=max_steps)
    config = settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    try:
        import random

        random.seed(seed)
        choices = find(strategy, lambda c: bool(law_violations(task, replay_choices(task, c))), settings=config)
    except NoSuchExample:
        return CheckReport(examples, [], None)
    walk = replay_choices(task, choices)
    return CheckReport(examples, law_violations(task, walk), walk)
