"""GRASP baselines: seeded determinism and the reference code's behaviour (spec section 4)."""
from groundplan.domains.grasp import baselines, scoring
from groundplan.domains.grasp.grid import OPPOSITE, Grid

RULES4 = {"moves": 4, "carry_limit": 100, "step_cost": 0}
RULES8 = {"moves": 8, "carry_limit": 2, "step_cost": 0.3}
# start (5,5); one unit two cells up, one at (5,8), one far away in the corner; an obstacle left of the start
GRID = Grid((5, 5), frozenset({(5, 4)}), {(3, 5): 1, (5, 8): 1, (0, 0): 1})


def test_same_seed_same_plan_and_seeds_differ():
    for name, rules in (("random-walk", RULES4), ("greedy", RULES8)):
        f = baselines.BASELINES[name]
        assert f(GRID, rules, 7) == f(GRID, rules, 7)
    walks = {tuple(baselines.random_walk(GRID, RULES8, seed)) for seed in range(20)}
    assert len(walks) > 15


def test_random_walk_is_six_moves_and_takes_then_the_way_back_then_drop():
    for seed in range(30):
        plan = baselines.random_walk(GRID, RULES4, seed)
        assert len(plan) == 19 and plan[-1] == "DROP"
        out, back = plan[0:12:2], plan[12:18]
        assert plan[1:12:2] == ["TAKE"] * 6
        assert back == [OPPOSITE[d] for d in reversed(out)]
        assert set(out) <= {"UP", "DOWN", "LEFT", "RIGHT"}
    diagonal = any(set(baselines.random_walk(GRID, RULES8, s)[0:12:2]) & {"UPLEFT", "UPRIGHT", "DOWNLEFT", "DOWNRIGHT"}
                   for s in range(10))
    assert diagonal


def test_greedy_goes_to_the_nearest_then_retraces_everything():
    plan = baselines.greedy(GRID, RULES4, 0)
    # nearest first (2 up), then (5,8), 5 moves away: 2*5 + 2 + 2 = 14 <= 17 steps left; then the
    # corner, 13 moves away, does not fit: retrace all 7 moves and drop (2 + 1 + 5 + 1 + 7 + 1 = 17)
    assert plan[:3] == ["UP", "UP", "TAKE"]
    assert plan.count("TAKE") == 2 and plan[-1] == "DROP"
    moves = [w for w in plan if w not in ("TAKE", "DROP")]
    half = len(moves) // 2
    assert moves[half:] == [OPPOSITE[d] for d in reversed(moves[:half])]   # retrace, not the shortest way home
    out = scoring.run(GRID, plan, 4, 100, 0)
    assert out.delivered == 2 and out.final_cell == (5, 5) and len(plan) == 17


def test_greedy_stops_without_returning_when_no_energy_is_reachable():
    walled = Grid((0, 0), frozenset({(0, 1), (1, 0), (1, 1)}), {(5, 5): 1})
    assert baselines.greedy(walled, RULES4, 3) == []
    # energy taken, then none left to find: the plan ends away from the start, carrying it
    lone = Grid((0, 0), frozenset(), {(0, 2): 1})
    plan = baselines.greedy(lone, RULES4, 1)
    assert plan == ["RIGHT", "RIGHT", "TAKE"]


def test_greedy_ignores_the_carry_limit_and_never_exceeds_20_actions():
    row = Grid((0, 0), frozenset(), {(0, c): 1 for c in range(1, 11)})
    plan = baselines.greedy(row, {"moves": 4, "carry_limit": 2, "step_cost": 0.3}, 0)
    assert plan.count("TAKE") == 6 and len(plan) == 19  # 6 x (RIGHT, TAKE), 6 x LEFT, DROP
    out = scoring.run(row, plan, 4, 2, 0.3)
    assert out.delivered == 2 and out.invalid == plan.count("TAKE") - 2
