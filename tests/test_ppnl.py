"""PPNL world: moves, obstacles, the grid's edge, inspect, ordering constraints, unreachable goals.

Expected values are worked out by hand on small grids or taken from the paper's examples."""
import json

import pytest

from groundplan.domains.ppnl import problem as P
from groundplan.domains.ppnl.oracle import Answer, solve_multi, solve_single
from groundplan.engine import problemsets
from groundplan.engine.errors import ModelError
from groundplan.engine.task import Task
from groundplan.engine.validate import validate_plan
from groundplan.planners import solve


def _task(tmp_path, size, obstacles, start, goals, before=(), after=(), multi=None, name="t"):
    multi = len(goals) > 1 if multi is None else multi
    inst = dict(name=name, split="test", env="e", size=size, obstacles=obstacles, start=start, goals=goals,
                before=list(before), after=list(after), multi=multi)
    data = P.problem(inst, Answer(True, 0, []), "hand-made")
    path = tmp_path / f"{name}.jsonl"
    problemsets.write(path, [data], P.header(size, multi, "t"))
    return Task.load(f"{path}#{name}")


def _run(task, words):
    state = task.initial_state()
    for w in words:
        state = task.apply(state, task.parse_action(w, state))
    return state


def test_moves_follow_row_column_coordinates(tmp_path):
    # paper: "Go from (0,1) to (3,4)" -> right right right down down down, with an obstacle at (2,1)
    task = _task(tmp_path, 6, [[2, 1]], [0, 1], [[3, 4]])
    plan = "right right right down down down".split()
    assert validate_plan(task, plan).valid
    assert not validate_plan(task, plan[:-1]).valid
    state = _run(task, ["down", "right"])
    assert task.atom_holds(state, "at", ("i1", "i2"))


def test_passing_through_the_goal_is_not_success(tmp_path):
    task = _task(tmp_path, 6, [[5, 5]], [0, 0], [[0, 2]])
    assert validate_plan(task, ["right", "right"]).valid
    assert validate_plan(task, ["right", "right", "right"]).status == "goal-not-reached"


def test_a_refused_move_names_the_blocking_cell_and_leaves_the_agent(tmp_path):
    task = _task(tmp_path, 6, [[2, 1]], [1, 1], [[5, 5]])
    state = task.initial_state()
    result = task.step(state, task.parse_action("down", state))
    assert not result.valid and not result.counted and result.state == state
    assert "obstacle at (2,1)" in result.message
    edge = _run(task, ["up"])
    result = task.step(edge, task.parse_action("up", edge))
    assert not result.valid and result.state == edge
    assert "(-1,1) is outside the grid" in result.message
    check = validate_plan(task, ["down"])
    assert check.status == "inapplicable-action" and check.failed_step == 1


def test_the_observation_shows_cells_as_row_column(tmp_path):
    from groundplan.engine.render import render

    task = _task(tmp_path, 5, [[2, 1], [0, 4]], [4, 2], [[2, 2]])
    text = render(task, task.initial_state(), "observation")
    assert "you are at (4,2)" in text and "there is an obstacle at (2,1)" in text and "(0,4)" in text
    assert "Go from (4,2) to (2,2)." in text
    assert "inspect" not in text.split("You can do one of:")[1].split("Task:")[0]


def test_inspect_counts_only_on_the_goal_cell(tmp_path):
    task = _task(tmp_path, 4, [[3, 3]], [0, 0], [[0, 1], [2, 0]])
    # walking over (0,1) without inspecting does not visit it
    assert not validate_plan(task, "right left down down inspect".split()).valid
    # inspecting elsewhere changes nothing
    state = _run(task, ["down", "inspect"])
    assert state == _run(task, ["down"])
    assert validate_plan(task, "right inspect left down down inspect".split()).valid


def test_ordering_constraint_all_of_a_before_any_of_b(tmp_path):
    # p0 (0,1), p1 (0,3), p2 (3,0); A = [p2], B = [p0, p1]
    goals = [[0, 1], [0, 3], [3, 0]]
    task = _task(tmp_path, 4, [], [0, 0], goals, before=[2], after=[0, 1])
    greedy = "right inspect right right inspect left left left down down down inspect".split()
    assert not validate_plan(task, greedy).valid
    state = _run(task, greedy[:2])
    assert task.is_dead(state)  # a B goal inspected before A: lost for good
    ordered = "down down down inspect up up up right inspect right right inspect".split()
    assert validate_plan(task, ordered).valid
    free = _task(tmp_path, 4, [], [0, 0], goals, name="free")
    assert validate_plan(free, greedy).valid


def test_unreachable_goal_is_proven_and_can_be_declared(tmp_path):
    # (0,5) walled in by (0,4) and (1,5), the paper's example
    task = _task(tmp_path, 6, [[0, 4], [1, 5]], [3, 3], [[0, 5]])
    assert solve(task, "bfs").status == "unsolvable-proven"
    assert not solve_single(6, [[0, 4], [1, 5]], [3, 3], [0, 5]).solvable
    state = task.initial_state()
    declared = task.apply(state, task.parse_action("Goal not reachable", state))
    assert task.atom_holds(declared, "declared-unreachable", ())
    assert task.applicable(declared) == []  # declaring ends the episode
    multi = _task(tmp_path, 6, [[0, 4], [1, 5]], [3, 3], [[2, 2], [0, 5]], name="m")
    assert solve(multi, "tsp").status == "unsolvable-proven"
    assert not solve_multi(6, [[0, 4], [1, 5]], [3, 3], [[2, 2], [0, 5]]).solvable


def test_single_goal_problems_have_no_inspect(tmp_path):
    task = _task(tmp_path, 4, [], [0, 0], [[1, 1]])
    assert "inspect" not in [a.text for a in task.applicable(task.initial_state())]
    assert validate_plan(task, ["inspect", "down", "right"]).status == "inapplicable-action"


def test_multi_goal_oracle_on_the_papers_example(tmp_path):
    # paper: obstacle (2,1), start (0,3), p0 (0,1), p1 (4,4), "Visit p1 before p0": 14 actions
    answer = solve_multi(6, [[2, 1]], [0, 3], [[0, 1], [4, 4]], before=[1], after=[0])
    assert answer.cost == 14 and answer.order == [1, 0]
    # without the constraint p0 first is shorter: 2 + 1 + (4 + 3) + 1 = 11
    assert solve_multi(6, [[2, 1]], [0, 3], [[0, 1], [4, 4]]).cost == 11


def test_open_path_beats_the_closed_tour_minus_return():
    # start (0,0); goals on a line at (0,1) and (0,5) of a 1-row-like corridor (6x6 grid, no obstacles).
    # Closed tour from the start visits both and returns; any tour order costs the same (10),
    # dropping the return leg of order (0,5),(0,1) gives 5 + 4 = 9 moves, the open optimum is 1 + 4 = 5.
    answer = solve_multi(6, [], [0, 0], [[0, 5], [0, 1]])
    assert answer.cost == 5 + 2 and answer.order == [1, 0]


def test_bad_labels_are_reported_with_a_pointer(tmp_path):
    task = _task(tmp_path, 3, [], [0, 0], [[1, 1]])
    data = dict(task.problem.raw)
    data["labels"] = {"i0": "1", "i1": "1", "zz": "x"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError) as info:
        Task.load(str(path))
    text = str(info.value)
    assert "bad.json#/labels/zz: unknown object 'zz'" in text
    assert "#/labels/i1: the label '1' is already used for 'i0'" in text
