"""The GRASP optimum: branch and bound (exact.py), OR-Tools (oracle.py) and a brute-force search.

The brute force below is a third, deliberately naive implementation: a layered search over
complete states (position, carried, energy everywhere) with every action word at every step,
so it also covers DROPs away from the start, failed TAKEs and re-taking dropped units, which the
two solvers rule out by argument. The full agreement of exact.py and OR-Tools on all 16,000
environments is the benchmark's job (evals/bench/grasp_optima.py --check all)."""
import random
import statistics

import pytest

from groundplan.domains.grasp import environments, exact, oracle, scoring
from groundplan.domains.grasp.grid import BUDGET, DIAGONAL, DIRECTIONS, Grid


def brute_force(grid: Grid, moves: int, limit: int, cost: float, budget: int = BUDGET) -> float:
    words = [d for d in DIRECTIONS if moves == 8 or d not in DIAGONAL] + ["TAKE", "DROP"]
    start = (grid.start, 0, frozenset(grid.energy.items()))
    layer, best = {start}, 0.0
    for step in range(1, budget + 1):
        nxt = set()
        for pos, carried, energy in layer:
            cells = dict(energy)
            for w in words:
                if w in DIRECTIONS:
                    r, c = pos[0] + DIRECTIONS[w][0], pos[1] + DIRECTIONS[w][1]
                    if grid.free(r, c):
                        nxt.add(((r, c), carried, energy))
                elif w == "TAKE" and cells.get(pos, 0) > 0 and carried < limit:
                    left = dict(cells)
                    left[pos] -= 1
                    nxt.add((pos, carried + 1, frozenset((k, v) for k, v in left.items() if v)))
                elif w == "DROP" and carried:
                    left = dict(cells)
                    left[pos] = left.get(pos, 0) + carried
                    nxt.add((pos, 0, frozenset(left.items())))
        layer = nxt
        for pos, carried, energy in layer:
            best = max(best, dict(energy).get(grid.start, 0) - cost * step)
    return round(best, 10)


def random_grid(rng, units, spread):
    start = (rng.randint(3, 7), rng.randint(3, 7))
    near = [(r, c) for r in range(11) for c in range(11)
            if 0 < abs(r - start[0]) + abs(c - start[1]) <= spread]
    chosen = rng.sample(near, units + 3)
    return Grid(start, frozenset(chosen[units:]), {cell: 1 for cell in chosen[:units]})


@pytest.mark.slow
@pytest.mark.parametrize("seed, spread, moves, limit, cost, budget", [
    (1, 4, 4, 100, 0, 14), (2, 4, 8, 2, 0, 11), (5, 4, 8, 2, 0, 12), (6, 4, 4, 100, 0, 12),
    (2, 2, 4, 100, 0.3, 14), (3, 2, 8, 2, 0.3, 12), (4, 2, 4, 2, 0.3, 14),
])
def test_branch_and_bound_equals_brute_force(seed, spread, moves, limit, cost, budget):
    rng = random.Random(seed)
    grid = random_grid(rng, 5, spread)
    value, legs = exact.solve(grid, moves, limit, cost, budget=budget)  # a short budget keeps the brute force small
    assert value == brute_force(grid, moves, limit, cost, budget)


@pytest.mark.slow
def test_or_tools_equals_branch_and_bound_on_a_sample():
    envs = environments.load(tags=["outer_cluster_free", "inner_spiral_block"], indices=[3, 41])
    assert len(envs) == 32
    for env in envs[::3]:
        value, legs = exact.solve(env.grid, env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"])
        found, plan, proven = oracle.solve(env.grid, env.rules, time_limit=30)
        assert proven and found == pytest.approx(value), env.ref
        assert scoring.score(env.grid, plan, env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"]) \
            == pytest.approx(found)


def test_stored_optima_reproduce_the_spec_means():
    """Spec section 9B: 3.62 over instances 0-9, 3.60 over 0-99; 0 for mu1, limit 2, cost 0.3."""
    envs = environments.load()
    assert len(envs) == 16000
    assert round(statistics.mean(e.optimum for e in envs if e.index < 10), 2) == 3.62
    assert round(statistics.mean(e.optimum for e in envs), 2) == 3.60
    assert all(e.optimum == 0 for e in envs if e.rules == {"moves": 4, "carry_limit": 2, "step_cost": 0.3})
    assert max(e.optimum for e in envs if e.rules["step_cost"] == 0 and e.rules["carry_limit"] == 100) == 9
    assert max(e.optimum for e in envs if e.rules["moves"] == 4 and e.rules["carry_limit"] == 2) == 5
    assert max(e.optimum for e in envs if e.rules["moves"] == 8 and e.rules["carry_limit"] == 2) == 6


def test_stored_plans_score_their_optimum_and_a_sample_is_recomputed():
    envs = environments.load(indices=[7])
    for env in envs:
        r = env.rules
        assert scoring.score(env.grid, env.plan, r["moves"], r["carry_limit"], r["step_cost"]) == pytest.approx(env.optimum)
        assert len(env.plan) <= 20
    for env in envs[::9]:
        r = env.rules
        assert exact.solve(env.grid, r["moves"], r["carry_limit"], r["step_cost"])[0] == pytest.approx(env.optimum)


def test_cut_off_grids_have_optimum_zero_under_mu1():
    """Spec section 2: obstacles or distance leave these five grids with nothing to gain under mu1."""
    cases = [("outer_leftRight_block", 25), ("outer_spiral_block", 50), ("outer_cluster_block", 68),
             ("outer_cluster_free", 19), ("outer_cluster_free", 26)]
    for tag, index in cases:
        envs = environments.load(tags=[tag], indices=[index])
        assert all(e.optimum == 0 for e in envs if e.rules["moves"] == 4), (tag, index)


def _brute_trips(dist, n, budget, capacity, cost):
    """Best value over every ordered subset of targets, cut into consecutive trips of <= capacity."""
    import itertools

    best = 0.0
    for k in range(1, n + 1):
        for order in itertools.permutations(range(1, n + 1), k):
            options = [False, True] if capacity else [False]   # no capacity: one trip
            for chosen in itertools.product(options, repeat=k - 1):
                trips, current = [], [order[0]]
                for target, cut in zip(order[1:], chosen):
                    if cut:
                        trips.append(current)
                        current = []
                    current.append(target)
                trips.append(current)
                if capacity and any(len(t) > capacity for t in trips):
                    continue
                steps = sum(dist[0][t[0]] + sum(dist[a][b] for a, b in zip(t, t[1:])) + dist[t[-1]][0] + len(t) + 1
                            for t in trips)
                if steps <= budget:
                    best = max(best, k - cost * steps)
    return round(best, 10)


@pytest.mark.parametrize("seed, capacity, cost", [(1, None, 0), (2, None, 0.3), (3, 2, 0), (4, 2, 0.3), (5, 3, 0.1)])
def test_orienteering_model_equals_enumeration_on_small_matrices(seed, capacity, cost):
    from groundplan.planners.routing.orienteering import solve_trips

    rng = random.Random(seed)
    points = [(0, 0)] + [(rng.randint(-3, 3), rng.randint(-3, 3)) for _ in range(6)]
    dist = [[max(1, abs(a[0] - b[0]) + abs(a[1] - b[1])) if i != j else 0 for j, b in enumerate(points)]
            for i, a in enumerate(points)]
    expected = _brute_trips(dist, 6, 20, capacity, cost)
    value, route, steps, proven = solve_trips(dist, [0] + [1] * 6, budget=20, capacity=capacity, step_cost=cost)
    assert proven and value == pytest.approx(expected) and steps <= 20
    # a poor hint (one target) changes nothing but the starting point
    hinted = solve_trips(dist, [0] + [1] * 6, budget=20, capacity=capacity, step_cost=cost, hint=[1, 0])
    assert hinted[0] == pytest.approx(expected)
