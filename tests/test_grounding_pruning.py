"""Grounding drops the actions no reachable state can apply (issue 35, item 2), and nothing else.

The pruning (engine/task.py `Task._relaxed_reachable`) is a fixpoint of the delete relaxation from
the initial state: it may only drop an action whose precondition no state reachable from the
initial one satisfies. The law checked here: along random walks, in worlds where it drops some
(logistics, a grid, sokoban, a kitchen task with timers, a small depot-like PDDL world), the
actions applicable with pruning are exactly those applicable without it; optimal costs agree;
and an agent can still name a dropped action, which is parsed and explained, never applied."""
import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task
from groundplan.engine.loader import build_problem, load_domain, load_problem
from groundplan.planners import SOLVED_OPTIMAL, solve

WORLDS = ["problems/logistics/logistics-c2-p2-s1.json", "problems/gridnav/room8-10.json",
          "problems/sokoban/one-box-5x5.json", "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json",
          "depot"]

# A hoist lifts a crate only where it stands, and hoists never move; but `at` also places crates,
# which move, so it is no static predicate: every lift and drop at another place is grounded,
# and none can ever apply (as in IPC depot).
DEPOT = {"groundplan": "1", "name": "depotlike", "types": {"place": "object", "hoist": "object", "crate": "object"},
         "predicates": {"at": {"parameters": [["?x", "object"], ["?p", "place"]]},
                        "lifting": {"parameters": [["?h", "hoist"], ["?c", "crate"]]},
                        "free": {"parameters": [["?h", "hoist"]]},
                        "road": {"parameters": [["?a", "place"], ["?b", "place"]]}},
         "actions": {
             "lift": {"parameters": [["?h", "hoist"], ["?c", "crate"], ["?p", "place"]],
                      "precondition": {"and": [["at", "?h", "?p"], ["at", "?c", "?p"], ["free", "?h"]]},
                      "effect": [{"del": ["at", "?c", "?p"]}, {"del": ["free", "?h"]}, {"add": ["lifting", "?h", "?c"]}]},
             "drop": {"parameters": [["?h", "hoist"], ["?c", "crate"], ["?p", "place"]],
                      "precondition": {"and": [["at", "?h", "?p"], ["lifting", "?h", "?c"]]},
                      "effect": [{"add": ["at", "?c", "?p"]}, {"add": ["free", "?h"]}, {"del": ["lifting", "?h", "?c"]}]},
             "carry": {"parameters": [["?c", "crate"], ["?a", "place"], ["?b", "place"]],
                       "precondition": {"and": [["at", "?c", "?a"], ["road", "?a", "?b"]]},
                       "effect": [{"del": ["at", "?c", "?a"]}, {"add": ["at", "?c", "?b"]}]}}}
DEPOT_PROBLEM = {"groundplan": "1", "name": "p", "domain": "depotlike",
                 "objects": {"d1": "place", "d2": "place", "d3": "place", "h1": "hoist", "h2": "hoist", "c1": "crate", "c2": "crate"},
                 "init": [["at", "h1", "d1"], ["at", "h2", "d2"], ["free", "h1"], ["free", "h2"],
                          ["at", "c1", "d1"], ["at", "c2", "d3"], ["road", "d1", "d2"]],
                 "goal": {"and": [["lifting", "h2", "c1"]]}}


def _task(world: str, prune: bool = True) -> Task:
    if world == "depot":
        return Task(build_problem(DEPOT_PROBLEM, "<depot>", None, domain=load_domain(DEPOT)), prune=prune)
    return Task(load_problem(world), prune=prune)


@functools.cache
def _pair(world: str) -> tuple[Task, Task]:
    return _task(world), _task(world, prune=False)


@pytest.mark.parametrize("world", WORLDS)
def test_pruning_drops_actions_in_these_worlds(world):
    pruned, whole = _pair(world)
    kept = pruned.universe().actions
    assert pruned.pruned > 0 and len(kept) + pruned.pruned == len(whole.universe().actions)
    assert [a.index for a in kept] == list(range(len(kept)))  # the planners' arrays stay dense


@pytest.mark.parametrize("world", WORLDS)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(choices=st.lists(st.integers(0, 10**6), max_size=25))
def test_pruning_never_removes_an_action_that_applies_in_a_reached_state(world, choices):
    """A random walk, taken in both tasks at once: every state offers the same actions."""
    pruned, whole = _pair(world)
    a, b = pruned.initial_state(), whole.initial_state()
    for choice in [*choices, 0]:
        here, there = pruned.applicable(a), whole.applicable(b)
        assert [x.text for x in here] == [x.text for x in there]
        if not here or pruned.is_goal(a):
            break
        k = choice % len(here)
        a, b = pruned.successor(a, here[k]), whole.successor(b, there[k])


@pytest.mark.parametrize("world, planner, heuristic", [
    ("depot", "astar", "lmcut"), ("problems/logistics/logistics-c2-p2-s1.json", "astar", "lmcut"),
    ("problems/gridnav/room8-10.json", "astar", "hmax"), ("problems/sokoban/one-box-5x5.json", "astar", "lmcut")])
def test_optimal_costs_are_unchanged(world, planner, heuristic):
    with_pruning = solve(_task(world), planner=planner, heuristic=heuristic, time_limit=60)
    without = solve(_task(world, prune=False), planner=planner, heuristic=heuristic, time_limit=60)
    assert with_pruning.status == without.status == SOLVED_OPTIMAL and with_pruning.cost == without.cost


def test_an_agent_can_still_name_a_dropped_action_which_never_applies():
    """`lift h1 c2 d3`: h1 stands at d1 for ever; the step is refused with the reason, not 'unknown'."""
    task = _task("depot")
    start = task.initial_state()
    assert "(lift h1 c2 d3)" not in [a.text for a in task.universe().actions]
    action = task.parse_action("lift h1 c2 d3", start)
    assert action.text == "(lift h1 c2 d3)" and not task.is_applicable(start, action)
    assert action.index >= len(task.universe().actions)  # its own number, after the kept actions
    step = task.step(start, action)
    assert not step.valid and task.explain(start, action) == ["it is not true that at(h1, d3)"]
