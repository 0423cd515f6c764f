"""The exact BabyAI oracle and the world's laws, on committed rows (no MiniGrid needed).

A* with the relaxed-grid estimate must agree with blind breadth-first search where that can
finish, never be longer than the expert's stored sequence, and its estimate must never exceed
the true cost from any state of a plan (admissibility, checked along random walks too)."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from groundplan.domains.babyai.oracle import Estimate, solve
from groundplan.engine import Task, problemsets
from groundplan.engine.testing import law_violations, replay_choices
from groundplan.engine.validate import validate_plan
from groundplan.planners.search import best_first, breadth_first

PREDICT = "problems/babyai/predict.jsonl.gz"
PLAN = "problems/babyai/plan.jsonl.gz"


def load(path, name):
    return Task.load(f"{path}#{name}")


def expert_length(task):
    meta = task.problem.metadata
    return len((meta.get("actions") or meta["expert_actions"]).split(", "))


def test_astar_agrees_with_breadth_first_search_on_small_rooms():
    for path, name in [(PREDICT, "GoToObj-s1"), (PREDICT, "GoToObj-s2"), (PREDICT, "GoToLocal-s3"),
                       (PLAN, "GoToRedBall-Small-4Dists-s1"), (PLAN, "GoToRedBall-Small-7Dists-s2")]:
        task = load(path, name)
        exact = breadth_first(task, time_limit=120)
        found = solve(task)
        assert exact.status == found.status == "solved-optimal", name
        assert found.cost == exact.cost <= expert_length(task), name
        assert validate_plan(task, found.plan).valid


def test_the_oracle_is_never_longer_than_the_expert_and_its_plans_replay():
    for path, names in [(PREDICT, ["PutNextLocal-s2", "Open-s1", "UnblockPickup-s3", "BossLevel-s47", "GoToSeq-s5"]),
                        (PLAN, ["GoToRedBall-Ultra-180Dists-s1", "GoToRedBall-Large-120Dists-s2"])]:
        for name in names:
            task = load(path, name)
            result = solve(task, time_limit=60)
            assert result.status == "solved-optimal", name
            assert result.cost <= expert_length(task), name
            check = validate_plan(task, result.plan)
            assert check.valid and task.is_goal(check.final_state)
    assert solve(load(PREDICT, "BossLevel-s47")).cost == 38  # the paper's trace takes 43


def test_the_estimate_never_exceeds_the_cost_left_along_an_optimal_plan():
    for path, name in [(PREDICT, "PutNextLocal-s2"), (PREDICT, "GoToSeq-s5"), (PREDICT, "Open-s2")]:
        task = load(path, name)
        result = solve(task, time_limit=60)
        h = Estimate(task)
        states = validate_plan(task, result.plan).states
        for k, state in enumerate(states):
            assert h(state) <= result.cost - k, (name, k)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["GoTo-s7", "PutNextLocal-s9", "BossLevel-s12", "UnblockPickup-s5"]),
       st.lists(st.integers(0, 6), max_size=40))
def test_random_walks_keep_the_laws_and_the_domain_invariants(name, choices):
    task = load(PREDICT, name)
    walk = replay_choices(task, choices)
    assert law_violations(task, walk, brute_force=False) == []
    # admissible from wherever a walk ends: the estimate is at most the optimum from there
    h = Estimate(task)
    end = walk.states[-1]
    left = best_first(task, heuristic=h, start=end, time_limit=20)
    if left.status == "solved-optimal":
        assert h(end) <= left.cost
        blind = breadth_first(task, start=end, time_limit=20) if left.cost <= 12 else None
        if blind is not None and blind.status == "solved-optimal":
            assert blind.cost == left.cost


def test_sets_hold_every_environment_and_seed():
    for path, environments in [(PREDICT, 16), (PLAN, 16)]:
        names = problemsets.names(path)
        assert len(names) == 8000 and len({n.rpartition("-s")[0] for n in names}) == environments
