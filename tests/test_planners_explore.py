"""Satisficing kitchen machinery: exploration search, plan shortening, goal parts and the agenda."""
import math

import pytest
from generated import blocks_problems, blocks_task
from hypothesis import given, settings
from hypothesis import strategies as st

from groundplan.engine import Task, validate_plan
from groundplan.planners import heuristics as H
from groundplan.planners.decompose.agenda import legs
from groundplan.planners.search.explore import explore
from groundplan.planners.heuristics.relaxation import Relaxation
from groundplan.planners.improve.shorten import shorten

TASKS = "domains/kitchen/tasks"


def test_explore_finds_a_valid_plan_where_plain_greedy_search_is_deceived():
    t = Task.load("problems/async/01_cheese_chicken_sandwich_s42.json")
    result = explore(t, H.make(t, "hff"), time_limit=60)
    assert result.solved
    check = validate_plan(t, result.plan)
    assert check.valid and check.cost == result.cost >= 1


def test_explore_with_a_bound_finds_nothing_at_or_above_it():
    t = Task.load("problems/blocksworld/sussman.json")  # optimum 6 (pick up / put down counted)
    assert not explore(t, H.make(t, "hff"), weight=1, bound=6, lower=H.make(t, "hmax"), time_limit=30).solved
    found = explore(t, H.make(t, "hff"), weight=1, bound=7, lower=H.make(t, "hmax"), time_limit=30)
    assert found.solved and found.cost == 6


def test_shorten_removes_a_needless_round_trip():
    t = Task.load("problems/blocksworld/sussman.json")
    state = t.initial_state()
    optimal = ["unstack c from a", "put down c", "pick up b", "stack b on c", "pick up a", "stack a on b"]
    detour = ["pick up b", "put down b"]
    actions = []
    for text in detour + optimal:
        a = t.parse_action(text, state)
        actions.append(a)
        state = t.successor(state, a)
    short = shorten(t, actions)
    assert [a.text for a in short] != [a.text for a in actions]
    assert len(short) == 6 and validate_plan(t, [a.text for a in short]).valid


def test_an_order_of_three_dishes_splits_into_three_goal_parts():
    t = Task.load(f"{TASKS}/async/09_onion_tomato_soup_and_two_chicken_sandwich.json")
    r = Relaxation(t)
    assert len(r.part_choices) == 3 and len(r.disjuncts) == 1
    # the two sandwiches have the same shape: as many ways to bind one as the other
    sizes = sorted(len(c) for c in r.part_choices)
    assert sizes[1] == sizes[2] > 1
    value = H.make(t, "hff")(t.initial_state())
    assert 0 < value < math.inf
    agenda = legs(t)
    assert len(agenda) == 3
    assert [len(g.params) for g in agenda] == sorted(len(g.params) for g in agenda)  # each leg adds a dish


def test_single_dish_goals_do_not_split():
    t = Task.load(f"{TASKS}/async/01_cheese_chicken_sandwich.json")
    assert legs(t) is None and Relaxation(t).part_choices == []


def test_explore_is_a_planner_of_solve_and_claims_no_optimality():
    from groundplan.planners import SOLVED_SATISFICING, solve
    t = Task.load("problems/gripper/prob01.json")  # optimum 11
    result = solve(t, planner="explore", time_limit=30)
    assert result.status == SOLVED_SATISFICING and result.cost >= 11
    assert validate_plan(t, result.plan).cost == result.cost


def _existential_blocks(data):
    """The generated problem with an existential goal: some tower of three (x on y on z)."""
    data = dict(data)
    data["goal"] = {"exists": [["?x", "block"], ["?y", "block"], ["?z", "block"]],
                    "formula": {"and": [["on", "?x", "?y"], ["on", "?y", "?z"]]}}
    return data


@settings(max_examples=25, deadline=None)
@given(blocks_problems(), st.integers(0, 2**16))
def test_a_goal_too_large_to_list_as_disjuncts_relaxes_exactly_as_one_goal_part(data, seed):
    """Beyond MAX_GOAL_DISJUNCTS bindings the goal becomes one part (a zero-cost relaxed action
    per binding). That must not change any relaxation estimate: the same min over bindings."""
    import random

    from groundplan.planners.heuristics import relaxation

    data = _existential_blocks(data)
    listed = blocks_task(data)
    as_part = blocks_task(data)
    limit = relaxation.MAX_GOAL_DISJUNCTS
    relaxation.MAX_GOAL_DISJUNCTS = 0
    try:
        estimates = {name: H.make(as_part, name) for name in ("hmax", "hadd", "hff", "lmcut")}
    finally:
        relaxation.MAX_GOAL_DISJUNCTS = limit
    assert estimates["hmax"].r.part_choices  # the goal did become a part
    reference = {name: H.make(listed, name) for name in estimates}
    assert not reference["hmax"].r.part_choices
    rng, state = random.Random(seed), listed.initial_state()
    for _ in range(12):
        for name, h in estimates.items():
            assert h(state) == reference[name](state), name
        moves = listed.applicable(state)
        if not moves:
            break
        state = listed.successor(state, rng.choice(moves))


@pytest.mark.slow
def test_a_soup_leg_is_not_estimated_done_once_its_water_exists():
    """Regression: after the pot is filled (water1 created), a single soup of multi-agent task 10
    has 1,280 bindings and no fact common to them all; summarised by that common part the goal
    was empty, h_FF said 0 short of the goal, and the search never found the soup."""
    t = Task.load(f"{TASKS}/multiagent/10_potato_tomato_chicken_soup_potato_cheese_onion_soup.json")
    leg = t.with_goal(legs(t)[0])
    h = H.make(leg, "hff")
    state, seen_water = leg.initial_state(), False
    for action in leg.parse_plan(t.problem.optimal["plan"]):
        if leg.is_goal(state):
            break
        seen_water |= bool(state.created)
        assert h(state) > 0
        state = leg.successor(state, action)
    assert seen_water and leg.is_goal(state)
