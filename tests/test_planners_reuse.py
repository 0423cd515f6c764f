"""Plan reuse (repairing a similar task's plan) and serial plans scheduled into turns."""
import json

import pytest

from groundplan.engine import Task, validate_plan
from groundplan.planners import heuristics as H
from groundplan.planners.decompose.agenda import repair
from groundplan.planners.search.explore import explore
from groundplan.planners.decompose.solo import schedule, serial_task

from generated import in_turns

BASE = "domains/kitchen/tasks/async/02_lettuce_chicken_sandwich.json"


def _leg(sub, start, left):
    return explore(sub, H.make(sub, "hff"), start=start, time_limit=left, weight=1)


def _stored_plan(path):
    return json.load(open(path))["optimal"]["plan"]


@pytest.mark.slow
def test_repair_replans_around_a_distractor_on_the_stove_the_old_plan_used():
    base, plan = Task.load(BASE), _stored_plan(BASE)
    instance = Task.load("problems/async/02_lettuce_chicken_sandwich_s42.json")  # patty1 sits on stove1
    assert not validate_plan(instance, plan).valid
    result = repair(instance, base, plan, _leg, time_limit=60)
    assert result.solved
    check = validate_plan(instance, result.plan)
    assert check.valid and check.cost == result.cost
    assert any("patty1 from stove1" in text for text in result.plan)  # the detour clears the stove
    assert len(plan) < result.cost


def test_repair_keeps_a_plan_that_still_works_without_searching():
    base, plan = Task.load(BASE), _stored_plan(BASE)
    instance = Task.load("problems/async/02_lettuce_chicken_sandwich_s84.json")
    assert validate_plan(instance, plan).valid
    result = repair(instance, base, plan, _leg, time_limit=60)
    assert result.plan == plan and result.expanded == 0


def test_a_serial_plan_is_scheduled_into_valid_turns():
    task = in_turns("domains/kitchen/tasks/multiagent/04_lettuce_chicken_sandwich.json")
    assert task.turn_based
    serial = serial_task(task)
    assert not serial.turn_based
    found = explore(serial, H.make(serial, "hff"), time_limit=60, weight=5)
    assert found.solved
    turns = schedule(task, found.plan)
    assert turns is not None
    check = validate_plan(task, [a.text for a in turns])
    assert check.valid
    # never worse than one agent working while the other waits every turn
    assert check.cost <= len(task.agents) * len(found.plan)
    # both robots act: the schedule uses the turns of the agent that is not working
    assert {a.actor for a in turns if a.text != "Do nothing"} == set(task.agents)


def test_a_serial_plan_that_cannot_run_in_turns_is_refused():
    task = in_turns("domains/kitchen/tasks/multiagent/04_lettuce_chicken_sandwich.json")
    assert schedule(task, ["Move robot9 from table1 to table2"]) is None


def test_relaxation_heuristics_leave_idle_agents_out():
    """An agent that never acts must not do the relaxed plan's work: with robot2 idle, the
    estimates of the same state count robot1's own trips, so they never fall below the full task's."""
    from groundplan.planners.heuristics.relaxation import Relaxation
    from groundplan.planners.decompose.solo import acting_only
    task = Task.load("domains/kitchen/tasks/multiagent/04_lettuce_chicken_sandwich.json")
    serial = serial_task(task)
    alone = acting_only(serial, task.agents[0], task.agents)
    actors = {a.source.actor for a in Relaxation(alone).actions if a.source is not None} - {None}  # None: "Do nothing"
    assert actors == {task.agents[0]}
    assert {a.source.actor for a in Relaxation(serial).actions if a.source is not None} - {None} == set(task.agents)
    state = serial.initial_state()
    for name in ("hmax", "hff", "lmcount"):
        assert H.make(alone, name)(state) >= H.make(serial, name)(state)
    assert H.make(alone, "hff")(state) > H.make(serial, "hff")(state)  # robot2 stands nearer some of the work


@pytest.mark.slow
def test_a_relay_gives_each_dish_to_one_agent_and_schedules_the_whole_into_turns():
    from groundplan.planners.decompose.solo import relay
    task = in_turns("domains/kitchen/tasks/multiagent/09_two_lettuce_cheeseburger.json")
    result, turns = relay(task, lambda sub, start, left: explore(sub, H.make(sub, "hff"), start=start,
                                                                  time_limit=left, weight=5), time_limit=120)
    assert result.solved and turns is not None
    check = validate_plan(task, [a.text for a in turns])
    assert check.valid and check.cost == len(turns)
    assert {a.actor for a in turns if a.text != "Do nothing"} == set(task.agents)
    assert len(turns) <= len(task.agents) * result.cost


def test_repair_moves_from_where_the_robot_stands_without_searching(tmp_path):
    """The same kitchen with the robot starting at the board: the old first step 'Move robot1 from
    table1 to table2' is done as 'Move robot1 from board1 to table2', no search, no extra step."""
    from generated import copy_problem
    path, data = copy_problem(tmp_path, BASE, "domains/kitchen/domain.json")
    swap = {("loc", "robot1", "table1"): ["loc", "robot1", "board1"], ("vacant", "board1"): ["vacant", "table1"]}
    data["init"] = [swap.get(tuple(f), f) for f in data["init"]]
    path.write_text(json.dumps(data))
    base, plan = Task.load(BASE), _stored_plan(BASE)
    moved = Task.load(str(path))
    assert not validate_plan(moved, plan).valid
    result = repair(moved, base, plan, _leg, time_limit=60)
    assert result.solved and result.expanded == 0
    assert result.plan[0] == "Move robot1 from board1 to table2" and result.plan[1:] == plan[1:]
    assert validate_plan(moved, result.plan).cost == len(plan)


@pytest.mark.slow
def test_a_task_expands_each_goal_once_for_all_its_relaxations():
    """Every search builds a relaxation; expanding an order's existential goal is what costs
    (a minute on the largest multi-agent instances), so it is remembered per goal."""
    from groundplan.planners.heuristics.relaxation import Relaxation
    task = Task.load("domains/kitchen/tasks/multiagent/09_two_lettuce_cheeseburger.json")
    first, second = Relaxation(task), Relaxation(task)
    assert first.disjuncts == second.disjuncts and first._goal_parts is second._goal_parts
    assert len(task._relaxed_goal_cache) == 1
    from groundplan.planners.decompose.agenda import legs
    other = task.with_goal(legs(task)[0])
    assert Relaxation(other)._goal_parts != first._goal_parts  # another goal, another expansion
