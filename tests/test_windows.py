"""Window re-optimisation of plans (planners/improve/windows.py) and the accept hook of bounded search."""
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task, validate_plan
from groundplan.planners import solve
from groundplan.planners.search.layered import bounded_breadth_first
from groundplan.planners.improve.windows import reoptimize

from generated import blocks_problems, blocks_task


def _actions(task, texts):
    return task.parse_plan(texts)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(blocks_problems(), st.integers(0, 2**16), st.integers(0, 6))
def test_a_window_as_long_as_the_plan_gives_the_optimum_and_shorter_ones_never_cost_more(data, seed, wander):
    task = blocks_task(data)
    optimum = solve(task, planner="bfs").cost
    rng = random.Random(seed)
    state, plan = task.initial_state(), []
    for _ in range(wander):
        plan.append(rng.choice(task.applicable(state)))
        state = task.successor(state, plan[-1])
    rest = bounded_breadth_first(task, 40, start=state)
    plan += rest.actions
    assert validate_plan(task, [a.text for a in plan]).cost == len(plan)
    small = reoptimize(task, plan, windows=(3,))
    assert validate_plan(task, [a.text for a in small]).valid and len(small) <= len(plan)
    whole = reoptimize(task, plan, windows=(len(plan) + 1,))
    assert validate_plan(task, [a.text for a in whole]).valid and len(whole) == optimum


def _with_detour(task, texts, k):
    """The plan with its k-th step, a move, replaced by two moves through another station: no
    block of steps can be dropped (the robot would stand in the wrong place), only bridged."""
    _, robot, _, origin, _, target = texts[k].split()
    state = task.initial_state()
    for t in texts[:k]:
        state = task.successor(state, task.parse_action(t, state))
    via = next(a.text.split()[-1] for a in task.applicable(state)
               if a.text.startswith(f"Move {robot} from {origin} to ") and not a.text.endswith(" " + target))
    return texts[:k] + [f"Move {robot} from {origin} to {via}", f"Move {robot} from {via} to {target}"] + texts[k + 1:]


def test_a_detour_that_action_elimination_cannot_drop_is_bridged():
    from groundplan.planners.improve.shorten import shorten
    task = Task.load("domains/kitchen/tasks/sync/02_lettuce_sandwich.json")
    optimal = solve(task, planner="prove", time_limit=60)
    assert optimal.cost == 14
    texts = _with_detour(task, list(optimal.plan), next(i for i, t in enumerate(optimal.plan) if t.startswith("Move")))
    detour = _actions(task, texts)
    assert validate_plan(task, texts).cost == 15
    assert len(shorten(task, detour)) == 15  # elimination alone cannot repair it
    better = reoptimize(task, detour, windows=(4,))
    check = validate_plan(task, [a.text for a in better])
    assert check.valid and check.cost == 14


def test_windows_rebind_the_rest_of_the_plan_where_steps_create_objects():
    """Async 06 (potato soup, 19 proven optimal): a detour after the pot is filled (which creates
    the water) is bridged from a state with created objects, and the rest rebound to them."""
    import json
    name = "domains/kitchen/tasks/async/06_potato_soup.json"
    task = Task.load(name)
    plan = json.load(open(name))["optimal"]["plan"]
    state, k = task.initial_state(), None
    for i, t in enumerate(plan):
        if k is None and state.created and t.startswith("Move"):
            k = i  # the first move once the fill's timer has made the water
        state = task.successor(state, task.parse_action(t, state))
    assert k is not None
    texts = _with_detour(task, plan, k)
    assert validate_plan(task, texts).cost == len(plan) + 1
    out = reoptimize(task, _actions(task, texts), windows=(4,), time_limit=120)
    check = validate_plan(task, [a.text for a in out])
    assert check.valid and check.cost == len(plan)


def test_a_goal_state_the_accept_test_refuses_is_searched_past():
    task = blocks_task({"groundplan": "1", "name": "g", "domain": "blocksworld",
                        "objects": {"a": "block", "b": "block"},
                        "init": [["ontable", "a"], ["ontable", "b"], ["clear", "a"], ["clear", "b"], ["handempty"]],
                        "goal": {"and": [["handempty"]]}})
    plain = bounded_breadth_first(task, 5)
    assert plain.cost == 0
    # accept only states where a is on b: the search goes on past the goal states it refuses
    accepted = bounded_breadth_first(task, 5, accept=lambda s: task.atom_holds(s, "on", ("a", "b")))
    assert accepted.cost == 2 and accepted.plan == ["pick up a", "stack a on b"]
    refused = bounded_breadth_first(task, 1, accept=lambda s: task.atom_holds(s, "on", ("a", "b")))
    assert refused.status == "no-plan-within-bound"


def test_a_bridge_that_breaks_an_always_goal_is_refused(monkeypatch):
    """A bridge is searched without the temporal goal's memory, so the whole new plan is replayed
    from the start: one passing through a forbidden state (a on c) is refused, even when it ends
    exactly where the old plan did."""
    import groundplan.planners.improve.windows as W
    task = blocks_task({"groundplan": "1", "name": "g", "domain": "blocksworld",
                        "objects": {"a": "block", "b": "block", "c": "block"},
                        "init": [["ontable", "a"], ["ontable", "b"], ["ontable", "c"], ["clear", "a"],
                                 ["clear", "b"], ["clear", "c"], ["handempty"]],
                        "goal": {"all": [{"always": {"not": ["on", "a", "c"]}}, ["on", "b", "c"]]}})
    plan = _actions(task, ["pick up b", "stack b on c"])
    forbidden = ["pick up a", "stack a on c", "unstack a from c", "put down a", "pick up b", "stack b on c"]
    assert not validate_plan(task, forbidden).valid
    offered = []

    def fake_bridge(task_, actions, states, i, j, time_limit=None):
        if offered:
            return None
        offered.append(i)
        return _actions(task, forbidden)

    monkeypatch.setattr(W, "bridge", fake_bridge)
    out = W.reoptimize(task, plan, windows=(3,))
    assert offered and [a.text for a in out] == ["pick up b", "stack b on c"]
