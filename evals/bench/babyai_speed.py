"""BabyAI speed: the interpreter against MiniGrid, and the exact oracle against the expert bot.

    python evals/bench/babyai_speed.py [--repeats 5] [--steps 3000] [--plan-seeds 10]

Needs MiniGrid (`pip install -e '.[babyai]'`), the reference measured in the same run.

1. Steps per second on GoToObj, GoTo and BossLevel: the same random action sequence (no
   resets: an episode that ends is replayed from its start) through MiniGrid's `env.step` and
   through `Task.apply` with the domain's seven ground actions. Medians over --repeats.
2. Per Plan environment size (Small, Medium, Large, Ultra; --plan-seeds instances of each
   distractor count): the exact oracle's time (grounding included) against the expert bot's
   time for the same instance, and the two plans' lengths.
This machine has 2 cores and is noisy: read the ratios and medians.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.domains.babyai.conformance import ACTIONS  # noqa: E402
from groundplan.domains.babyai.convert import problem_from_env  # noqa: E402
from groundplan.domains.babyai.generate import expert_run, reset  # noqa: E402
from groundplan.domains.babyai.levels import PLAN_SIZES  # noqa: E402
from groundplan.domains.babyai.oracle import solve  # noqa: E402
from groundplan.engine import Task  # noqa: E402
from groundplan.engine.loader import build_problem  # noqa: E402


def _minigrid_rate(env, actions) -> float:
    env = copy.deepcopy(env)
    start = copy.deepcopy(env)
    began = time.perf_counter()
    for index in actions:
        _, _, terminated, truncated, _ = env.step(index)
        if terminated or truncated:
            env = copy.deepcopy(start)
    return len(actions) / (time.perf_counter() - began)


def _interpreter_rate(task, actions) -> float:
    ground = [task.ground_action(name, ()) for name in ACTIONS]
    start = task.initial_state()
    state = start
    steps = 0
    began = time.perf_counter()
    for index in actions:
        state = task.apply(state, ground[index])
        steps += 1
        if task.is_goal(state) or steps >= task.problem.max_steps:
            state, steps = start, 0
    return len(actions) / (time.perf_counter() - began)


def step_speed(levels, steps: int, repeats: int) -> None:
    print(f"{'level':12s} {'MiniGrid steps/s':>17s} {'interpreter steps/s':>20s} {'ratio':>6s}")
    for level in levels:
        env = reset(level, 1)
        task = Task(build_problem(problem_from_env(env, level), f"<{level}>", None))
        rng = random.Random(0)
        actions = [rng.choice((2, 2, 2, 0, 1, 3, 4, 5)) for _ in range(steps)]
        ours, theirs = [], []
        for _ in range(repeats):
            theirs.append(_minigrid_rate(env, actions))
            ours.append(_interpreter_rate(task, actions))
        a, b = statistics.median(theirs), statistics.median(ours)
        print(f"{level:12s} {a:17,.0f} {b:20,.0f} {b / a:6.2f}")


def plan_speed(seeds: int) -> None:
    print(f"\n{'Plan size':10s} {'instances':>9s} {'oracle s (median, max)':>24s} {'bot s (median)':>15s} "
          f"{'oracle/bot':>10s} {'optimal/bot length':>19s} {'shorter':>8s}")
    for size, (_, counts) in PLAN_SIZES.items():
        ours, theirs, ratio, shorter = [], [], [], 0
        for n in counts:
            name = f"GoToRedBall-{size}-{n}Dists"
            for seed in range(1, seeds + 1):
                env = reset(name, seed)
                began = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    actions, _, _ = expert_run(env)
                theirs.append(time.perf_counter() - began)
                began = time.perf_counter()
                task = Task(build_problem(problem_from_env(env, name), f"<{name}>", None))
                result = solve(task, time_limit=60)
                ours.append(time.perf_counter() - began)
                if result.cost is not None:
                    ratio.append(result.cost / len(actions))
                    shorter += result.cost < len(actions)
        print(f"{size:10s} {len(ours):9d} {statistics.median(ours):11.3f}, {max(ours):10.3f} "
              f"{statistics.median(theirs):15.3f} {statistics.median(ours) / statistics.median(theirs):10.2f} "
              f"{statistics.mean(ratio):19.3f} {shorter:8d}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--plan-seeds", type=int, default=10)
    args = parser.parse_args(argv)
    step_speed(("GoToObj", "GoTo", "BossLevel"), args.steps, args.repeats)
    plan_speed(args.plan_seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
