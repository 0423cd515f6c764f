"""BabyAI conformance: the interpreter and MiniGrid 3.2 replay the same actions side by side.

256 trajectories over the 32 environments (16 levels, 16 Plan rooms; 8 seeds each): half are
the expert bot's runs with some actions replaced by random ones (doors closed again, objects
dropped elsewhere, no-ops), half random walks of up to 300 steps biased towards moving. After every step the agent's
pose, the carried object, every door's state, every object's cell, mission success and truncation
must agree. Plus the spec's worked figures. Needs MiniGrid (the test extra installs it).
The whole sweep, 32 seeds of each environment (1,024 trajectories), is a benchmark:
`python evals/bench/babyai_conformance.py`.
"""
import pytest

minigrid = pytest.importorskip("minigrid")

from groundplan.domains.babyai.conformance import replay_both, side_by_side, trajectory  # noqa: E402
from groundplan.domains.babyai.convert import problem_from_env  # noqa: E402
from groundplan.domains.babyai.levels import LEVELS, PLAN_ENVS  # noqa: E402
from groundplan.engine import Task  # noqa: E402
from groundplan.engine.loader import build_problem  # noqa: E402

SEEDS = range(1000, 1008)  # the first 8 of the benchmark's 32: 4 expert runs, 4 random walks


@pytest.mark.slow
@pytest.mark.parametrize("name", LEVELS + PLAN_ENVS)
def test_every_step_agrees_with_minigrid(name):
    steps = successes = 0
    for seed in SEEDS:
        env, problem, task, names = side_by_side(name, seed)
        actions = trajectory(env, seed)
        count, difference, done = replay_both(env, task, names, actions, problem["max_steps"])
        assert difference is None, f"{name} seed {seed}, step {count}: {difference}"
        steps += count
        successes += done
    # the expert's runs reach the mission's end most of the time, so success is compared too
    assert steps > 0 and successes >= len(SEEDS) // 4


def test_max_steps_follow_the_formula():
    expected = {"GoToObj": 64, "PutNextLocal": 128, "GoTo": 576, "GoToRedBall-Small-4Dists": 64,
                "GoToRedBall-Medium-20Dists": 256, "GoToRedBall-Large-60Dists": 576, "GoToRedBall-Ultra-120Dists": 1024}
    for name, steps in expected.items():
        assert side_by_side(name, 1)[1]["max_steps"] == steps
    for name in ("GoToSeq", "SynthSeq", "BossLevel"):
        for seed in range(1, 6):
            assert side_by_side(name, seed)[1]["max_steps"] % 576 == 0


def test_synthseq_166_layout_and_mission():
    env, problem, task, names = side_by_side("SynthSeq", 166)
    values = {tuple(k): v for k, v in problem["values"]}
    cell = {o: (values[("x", o)], values[("y", o)]) for o in problem["objects"]}
    colour = {a[1]: a[2] for a in problem["init"] if a[0] == "color"}
    locked = [a[1] for a in problem["init"] if a[0] == "locked"]
    assert (values[("agent-x",)], values[("agent-y",)], values[("dir",)]) == (4, 12, 3)
    assert len(problem["objects"]) == 29 and sum(t == "door" for t in problem["objects"].values()) == 10
    assert [(cell[d], colour[d]) for d in locked] == [((20, 14), "yellow")]
    room = [o for o, (x, y) in cell.items() if 14 < x < 21 and 7 < y < 14]
    assert room == []  # the locked room (2, 1) is empty
    assert sorted(cell[o] for o in problem["objects"] if problem["objects"][o] == "key" and colour[o] == "yellow") == [(5, 6), (10, 12)]
    assert problem["goal_text"] == ("pick up a grey ball and go to the ball in front of you, "
                                    "then go to a box and put a purple box next to the red door")
    first, second = problem["goal"]["sequence"]
    ball_in_front = first["all"][1]
    (only,) = [ball_in_front["and"][0]["="][0][1]]
    assert cell[only] == (4, 10) and colour[only] == "grey"
    assert "later" in second["all"][1]  # a put-next clause checked from the middle of the mission


def test_bosslevel_47_trajectory_ends_where_the_paper_says():
    env, problem, task, names = side_by_side("BossLevel", 47)
    letters = "F L F R F F R F L T" + " F" * 7 + " R T" + " F" * 3 + " L T" + " F" * 3 + " R" + " F" * 4 + " T" + \
        " F" * 5 + " L" + " F" * 3 + " P"
    words = {"F": "forward", "L": "left", "R": "right", "T": "toggle", "P": "pickup"}
    plan = [words[c] for c in letters.split()]
    assert len(plan) == 43
    state = task.initial_state()
    for word in plan:
        state = task.apply(state, task.parse_action(word, state))
    pose = tuple(task.value(state, f, ()) for f in ("agent-x", "agent-y", "dir"))
    assert pose == (19, 18, 0) and task.is_goal(state)


def test_unlock_63_is_proven_unsolvable():
    import contextlib
    import io

    import gymnasium as gym

    from groundplan.domains.babyai.oracle import solve

    env = gym.make("BabyAI-Unlock-v0").unwrapped
    with contextlib.redirect_stdout(io.StringIO()):
        env.reset(seed=63)
    task = Task(build_problem(problem_from_env(env, "Unlock-s63"), "<Unlock-s63>", None))
    assert task.problem.goal_text == "open the green door"
    assert solve(task, time_limit=30).status == "unsolvable-proven"
