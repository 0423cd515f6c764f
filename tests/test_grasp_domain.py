"""GRASP semantics through the engine (domains/grasp/domain.json), on small hand-made grids.

Expected outcomes are worked out by hand from the rules in the spec, and a random-plan test
checks that the engine and the fast scorer (domains/grasp/scoring.py) never disagree."""
import random

import pytest

from groundplan.domains.grasp import scoring
from groundplan.domains.grasp.grid import DIRECTIONS, Grid, to_problem
from groundplan.engine import Task
from groundplan.engine.loader import build_problem
from groundplan.engine.task import UnknownAction

#  start (2,2); energy at (1,2), (0,2), (3,3); obstacles at (2,1), (1,1)
GRID = Grid((2, 2), frozenset({(2, 1), (1, 1)}), {(1, 2): 1, (0, 2): 1, (3, 3): 1})


def task(moves=4, limit=100, cost=0, grid=GRID):
    rules = {"moves": moves, "carry_limit": limit, "step_cost": cost}
    return Task(build_problem(to_problem(grid, rules), "<grasp>", None))


def play(t, words):
    """Run words with the engine's step (the `noop` policy); unknown words are skipped here."""
    state, cost, counted = t.initial_state(), 0.0, 0
    for word in words:
        try:
            action = t.parse_action(word, state)
        except UnknownAction:
            counted += 1
            continue
        result = t.step(state, action)
        state, cost, counted = result.state, cost + result.cost, counted + result.counted
    return state, cost, counted


def at(t, state):
    return next(args[0] for pred, args in t.true_atoms(state) if pred == "at")


def test_moves_go_in_the_four_directions_with_row_0_at_the_top():
    t = task()
    assert at(t, play(t, ["UP"])[0]) == "c1_2"
    assert at(t, play(t, ["DOWN"])[0]) == "c3_2"
    assert at(t, play(t, ["RIGHT"])[0]) == "c2_3"


def test_obstacles_and_the_border_stop_a_move_which_still_counts_and_costs():
    t = task(cost=0.3)
    state, cost, counted = play(t, ["LEFT"])           # (2,1) is an obstacle
    assert at(t, state) == "c2_2" and counted == 1 and cost == pytest.approx(0.3)
    state, cost, counted = play(t, ["UP", "UP", "UP"])  # the third would leave the grid
    assert at(t, state) == "c0_2" and counted == 3 and cost == pytest.approx(0.9)


def test_diagonals_only_under_mu2_and_without_a_corner_cutting_check():
    t4, t8 = task(moves=4), task(moves=8)
    assert at(t4, play(t4, ["DOWNRIGHT"])[0]) == "c2_2"
    assert at(t8, play(t8, ["DOWNRIGHT"])[0]) == "c3_3"
    # (1,2) -> (0,1) passes the obstacle (1,1) at its corner: only the target cell matters
    assert at(t8, play(t8, ["UP", "UPLEFT"])[0]) == "c0_1"
    assert at(t8, play(t8, ["UPLEFT"])[0]) == "c2_2"   # into the obstacle (1,1)


def test_take_and_drop_move_energy_and_drop_puts_down_everything():
    t = task()
    state, _, _ = play(t, ["UP", "TAKE", "UP", "TAKE", "DOWN", "DOWN", "DROP"])
    assert t.value(state, "energy", ("c2_2",)) == 2 and t.value(state, "carried", ()) == 0
    state, _, _ = play(t, ["UP", "TAKE", "TAKE"])      # the second TAKE finds the cell empty
    assert t.value(state, "carried", ()) == 1 and t.value(state, "energy", ("c1_2",)) == 0
    state, _, _ = play(t, ["UP", "TAKE", "DOWN", "RIGHT", "DROP", "TAKE"])  # a dropped unit can be taken back
    assert t.value(state, "carried", ()) == 1 and t.value(state, "energy", ("c2_3",)) == 0


def test_the_carry_limit_makes_a_third_take_a_paid_noop():
    grid = Grid((0, 0), frozenset(), {(0, 1): 1, (0, 2): 1, (0, 3): 1})
    t = task(limit=2, cost=0.3, grid=grid)
    state, cost, counted = play(t, ["RIGHT", "TAKE", "RIGHT", "TAKE", "RIGHT", "TAKE"])
    assert t.value(state, "carried", ()) == 2 and t.value(state, "energy", ("c0_3",)) == 1
    assert counted == 6 and cost == pytest.approx(1.8)
    t = task(limit=100, grid=grid)
    state, _, _ = play(t, ["RIGHT", "TAKE", "RIGHT", "TAKE", "RIGHT", "TAKE"])
    assert t.value(state, "carried", ()) == 3


def test_unknown_words_are_not_actions_and_problems_carry_the_20_step_budget():
    t = task()
    with pytest.raises(UnknownAction):
        t.parse_action("JUMP", t.initial_state())
    assert t.problem.max_steps == 20
    assert t.domain.on_inapplicable == "noop"


@pytest.mark.slow
@pytest.mark.parametrize("moves, limit, cost", [(4, 100, 0), (8, 2, 0.3), (8, 100, 0.3), (4, 2, 0)])
def test_the_engine_and_the_fast_scorer_agree_on_random_plans(moves, limit, cost):
    rng = random.Random(moves * 1000 + limit)
    grid = Grid((5, 5), frozenset({(4, 5), (6, 6), (5, 3)}),
                {(r, c): 1 for r in range(3, 8) for c in range(3, 8) if (r + c) % 2 and (r, c) not in {(4, 5)}})
    t = task(moves, limit, cost, grid)
    words = list(DIRECTIONS) + ["TAKE"] * 4 + ["DROP"] * 2
    for _ in range(25):
        plan = [rng.choice(words) for _ in range(rng.randint(0, 20))]
        state, engine_cost, counted = play(t, plan)
        out = scoring.run(grid, plan, moves, limit, cost)
        assert counted == out.length and engine_cost == pytest.approx(cost * out.length)
        assert t.value(state, "energy", ("c5_5",)) == out.delivered
        assert at(t, state) == f"c{out.final_cell[0]}_{out.final_cell[1]}"
        assert t.value(state, "carried", ()) == out.carried
