"""Window re-optimisation of plans (planners/windows.py) and the accept hook of bounded search."""
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Task, validate_plan
from planners import solve
from planners.layered import bounded_breadth_first
from planners.windows import reoptimize

from generated import blocks_problems, blocks_task


def _actions(task, texts):
    state, out = task.initial_state(), []
    for text in texts:
        a = task.parse_action(text, state)
        out.append(a)
        state = task.successor(state, a)
    return out


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


def test_a_detour_that_action_elimination_cannot_drop_is_bridged():
    """Sync 02's optimal plan (14) with one move replaced by two through another table: no block
    of steps can be dropped (the robot would stand in the wrong place), a window finds the bridge."""
    name = "domains/kitchen/tasks/sync/02_lettuce_sandwich.json"
    task = Task.load(name)
    optimal = solve(task, planner="prove", time_limit=60)
    assert optimal.cost == 14
    texts = list(optimal.plan)
    k = next(i for i, t in enumerate(texts) if t.startswith("Move"))
    _, robot, _, origin, _, target = texts[k].split()
    state = task.initial_state()
    for t in texts[:k]:
        state = task.successor(state, task.parse_action(t, state))
    via = next(a.text.split()[-1] for a in task.applicable(state)
               if a.text.startswith(f"Move {robot} from {origin} to ") and not a.text.endswith(" " + target))
    texts[k:k + 1] = [f"Move {robot} from {origin} to {via}", f"Move {robot} from {via} to {target}"]
    detour = _actions(task, texts)
    assert validate_plan(task, texts).cost == 15
    from planners.shorten import shorten
    assert len(shorten(task, detour)) == 15  # elimination alone cannot repair it
    better = reoptimize(task, detour, windows=(4,))
    check = validate_plan(task, [a.text for a in better])
    assert check.valid and check.cost == 14


def test_windows_keep_plans_valid_where_steps_create_objects():
    """A soup's plan fills a pot (creating water); a bridge may create it under another universe,
    and the rest of the plan is rebound to it."""
    task = Task.load("domains/kitchen/tasks/async/06_potato_soup.json")
    import json
    plan = json.load(open("domains/kitchen/tasks/async/06_potato_soup.json"))["optimal"]["plan"]
    actions = _actions(task, plan)
    out = reoptimize(task, actions, windows=(6,), time_limit=60)
    check = validate_plan(task, [a.text for a in out])
    assert check.valid and check.cost == len(plan)  # 19 is optimal: nothing shorter exists


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
