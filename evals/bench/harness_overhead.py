"""Harness overhead per step: everything the step loop does besides the agent's own thinking.

The oracle agent answers from a lookup table, so an oracle episode's time per step is the loop's
overhead (observation object, parsing the answer against the valid actions, the engine step,
trajectory bookkeeping). Reference in the same run: the bare engine replaying the same plans
(parse + apply only), which no harness can beat. Prints medians over repetitions.

    python evals/bench/harness_overhead.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import glob
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--problems", default="problems/sync/*.json")
    args = parser.parse_args()
    from groundplan.agents import make_agent, run_episode
    from groundplan.engine.task import Task

    tasks = []
    for path in sorted(glob.glob(args.problems)):
        task = Task.load(path)
        if (task.problem.optimal or {}).get("cost") is not None:
            tasks.append(task)
    for task in tasks:  # warm up groundings and caches
        run_episode(task, make_agent("oracle"))
    loop_times, bare_times = [], []
    steps = sum(int(t.problem.optimal["cost"]) for t in tasks)
    for _ in range(args.repeat):
        start = time.perf_counter()
        for task in tasks:
            episode = run_episode(task, make_agent("oracle"))
            assert episode.success
        loop_times.append((time.perf_counter() - start) / steps)
        start = time.perf_counter()
        for task in tasks:
            state = task.initial_state()
            for text in task.problem.optimal["plan"]:
                state = task.apply(state, task.parse_action(text, state))
        bare_times.append((time.perf_counter() - start) / steps)
    loop, bare = statistics.median(loop_times), statistics.median(bare_times)
    print(f"{len(tasks)} kitchen problems with stored optima, {steps} steps per repetition, {args.repeat} repetitions")
    print(f"step loop with the oracle agent: {loop * 1e3:.3f} ms per step (median)")
    print(f"bare engine replay (parse + apply): {bare * 1e3:.3f} ms per step (median)")
    print(f"harness overhead beyond the bare engine: {(loop - bare) * 1e3:.3f} ms per step; ratio loop/bare {loop / bare:.2f}x")


if __name__ == "__main__":
    main()
