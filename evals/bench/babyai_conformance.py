"""BabyAI conformance, the whole sweep: the interpreter and MiniGrid 3.2 side by side.

    python evals/bench/babyai_conformance.py [--seeds 32] [--envs BossLevel,GoTo,...]

Needs MiniGrid (`pip install -e '.[babyai]'`). Replays --seeds trajectories (seeds 1000, 1001,
...; even seeds the expert bot's runs with 8% random actions, odd seeds random walks) of each of
the 32 environments (16 levels, 16 Plan rooms) in MiniGrid and in the interpreter, comparing pose,
carried object, doors, object cells, success and truncation after every step. With the default 32
seeds: 1,024 trajectories, 115,344 steps, 618 ending in mission success, and no difference.
tests/test_babyai_conformance.py replays the first 8 seeds of each environment (about 4x faster);
this is the sweep it was cut from. Exits 1 on the first environment with a difference.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.domains.babyai.conformance import replay_both, side_by_side, trajectory  # noqa: E402
from groundplan.domains.babyai.levels import LEVELS, PLAN_ENVS  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=32, help="trajectories per environment (seeds 1000, 1001, ...)")
    parser.add_argument("--envs", default="", help="comma-separated environment names (default: all 32)")
    args = parser.parse_args(argv)
    names = args.envs.split(",") if args.envs else LEVELS + PLAN_ENVS
    seeds = range(1000, 1000 + args.seeds)
    began = time.perf_counter()
    trajectories = all_steps = all_successes = 0
    for name in names:
        clock = time.perf_counter()
        steps = successes = 0
        for seed in seeds:
            env, problem, task, objects = side_by_side(name, seed)
            count, difference, done = replay_both(env, task, objects, trajectory(env, seed), problem["max_steps"])
            if difference is not None:
                print(f"{name} seed {seed}, step {count}: {difference}")
                return 1
            steps += count
            successes += done
        trajectories += len(seeds)
        all_steps += steps
        all_successes += successes
        print(f"{name:34s} {len(seeds):4d} trajectories {steps:7d} steps {successes:4d} successes "
              f"{time.perf_counter() - clock:6.1f} s", flush=True)
    print(f"all agree: {trajectories} trajectories, {all_steps} steps, {all_successes} ending in mission success; "
          f"{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
