"""What `groundplan check` costs per walk and per step, against a plain random walk.

    python evals/bench/check_speed.py [--examples 200] [--repeats 5] [PROBLEM ...]

For each problem (default: the 6x6 two-box Sokoban, gridnav's 8x8 room and a two-cook kitchen),
`check_task` runs --examples walks on a freshly loaded task (so the one-off compiling of the
laws is counted), and reports walks per second and steps per second. In the same run a plain
random walk of the same number of steps (`Task.applicable` + `Task.successor` only, also on a
fresh task, grounding included) gives the engine's own cost per step; the last column is check's
cost per step over it: what the laws add (invariants, the brute-force applicable-actions law,
determinism, replay and plan validation on every state). Medians over --repeats runs; this
machine is noisy.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.engine import Task  # noqa: E402
from groundplan.engine.loader import load_problem  # noqa: E402
from groundplan.engine.testing import check_task  # noqa: E402

PROBLEMS = ["problems/sokoban/two-boxes-6x6.json", "problems/gridnav/room8-10.json",
            "problems/multiagent/01_lettuce_burger_s126.json"]


def time_check(problem, examples: int) -> tuple[float, int, int]:
    """Seconds, walks and steps of one `check_task` run on a fresh task."""
    task = Task(problem)
    began = time.perf_counter()
    report = check_task(task, examples=examples)
    seconds = time.perf_counter() - began
    if not report.ok:
        raise SystemExit(f"{problem.name}: check found a violation: {report.violations[:1]}")
    return seconds, report.walks, report.steps


def time_plain(problem, steps: int, max_steps: int = 20, seed: int = 0) -> float:
    """Seconds for random walks of `steps` steps in all through applicable + successor alone."""
    task = Task(problem)
    rng = random.Random(seed)
    began = time.perf_counter()
    done = 0
    while done < steps:
        state = task.initial_state()
        for _ in range(rng.randint(1, max_steps)):
            applicable = task.applicable(state)
            if not applicable or done >= steps:
                break
            state = task.successor(state, applicable[rng.randrange(len(applicable))])
            done += 1
    return time.perf_counter() - began


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problems", nargs="*", default=PROBLEMS)
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{'problem':48s} {'check s':>8s} {'walks/s':>8s} {'steps/s':>8s} {'plain steps/s':>14s} {'check/plain per step':>21s}")
    for path in args.problems:
        problem = load_problem(ROOT / path)
        runs, ratios = [], []
        for _ in range(args.repeats):
            seconds, walks, steps = time_check(problem, args.examples)
            plain = time_plain(problem, steps)
            runs.append((seconds, walks, steps, plain))
            ratios.append((seconds / steps) / (plain / steps))
        seconds = statistics.median(r[0] for r in runs)
        walks_per_s = statistics.median(r[1] / r[0] for r in runs)
        steps_per_s = statistics.median(r[2] / r[0] for r in runs)
        plain_per_s = statistics.median(r[2] / r[3] for r in runs)
        print(f"{path:48s} {seconds:8.2f} {walks_per_s:8.0f} {steps_per_s:8.0f} {plain_per_s:14.0f} "
              f"{statistics.median(ratios):20.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
