"""Interpreter speed: successor generation and state throughput, and load time at scale.

    python evals/bench/engine_speed.py [--repeats 5]

1. Breadth-first exhaustion of gripper prob04 (every reachable state, no goal test) through
   the public interpreter API (`Task.applicable` + `Task.successor`, with State tuples),
   reporting successor generations per second and distinct states per second; and the same
   exhaustion through the STRIPS bitset path the planners use when a task allows it.
2. room32-180 (32x32 grid, 180 obstacles): time to load and validate the problem, and time to
   the first list of applicable actions (grounding included).
Medians over --repeats runs; this machine is noisy.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _exhaust(start, successors):
    """Breadth-first over every reachable state; returns (states, successors generated, seconds)."""
    began = time.perf_counter()
    seen = {start}
    layer = [start]
    generated = 0
    while layer:
        nxt = []
        for state in layer:
            for child in successors(state):
                generated += 1
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        layer = nxt
    return len(seen), generated, time.perf_counter() - began


def exhaust_api(path):
    from groundplan.engine import Task

    task = Task.load(path)
    s0 = task.initial_state()
    task.applicable(s0)
    return _exhaust(s0, lambda s: [task.successor(s, a) for a in task.applicable(s)])


def exhaust_bitsets(path):
    from groundplan.engine import Task
    from groundplan.planners.search.strips import _successors, strips_view

    task = Task.load(path)
    view = strips_view(task)
    return _exhaust(task.initial_state().facts, lambda s: [t for _, t in _successors(view.tree, s)])


def load_scale(path):
    from groundplan.engine import Task
    from groundplan.engine.loader import _load_domain_cached

    _load_domain_cached.cache_clear()
    start = time.perf_counter()
    task = Task.load(path)
    loaded = time.perf_counter() - start
    task.applicable(task.initial_state())
    first = time.perf_counter() - start
    return loaded, first, len(task.universe().actions or ())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    gripper = str(ROOT / "problems/gripper/prob04.json")
    for label, fn in (("interpreter API", exhaust_api), ("STRIPS bitsets", exhaust_bitsets)):
        runs = [fn(gripper) for _ in range(args.repeats)]
        states, generated = runs[0][0], runs[0][1]
        seconds = statistics.median(r[2] for r in runs)
        print(f"gripper prob04 BFS exhaustion ({label}): {states} states, {generated} successors, "
              f"median {seconds:.2f} s -> {generated / seconds:,.0f} successors/s, {states / seconds:,.0f} states/s")
    room = str(ROOT / "problems/gridnav/room32-180.json")
    runs = [load_scale(room) for _ in range(args.repeats)]
    print(f"room32-180: load+validate median {statistics.median(r[0] for r in runs) * 1000:.0f} ms, "
          f"to first applicable actions median {statistics.median(r[1] for r in runs) * 1000:.0f} ms "
          f"({runs[0][2]} ground actions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
