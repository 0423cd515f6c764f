"""Proving the optimal costs of the 30 base kitchen tasks, against the paper's horizons.

    python evals/bench/kitchen_optima.py [--time-limit 60] [--sets sync async multiagent]

For each task: the oracle's status and cost (or its proven lower bound), the paper's horizon
(Table 3; the multi-agent set has none), seconds and expansions. Sync tasks use uniform-cost
search with symmetry reduction; async and multi-agent tasks A* with max(h_max, LM-cut), both on
one core. The issue's target is all 30 proven within 10 minutes in total.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from domains.kitchen.horizons import PAPER_HORIZON  # noqa: E402  (the paper's Table 3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per task")
    parser.add_argument("--sets", nargs="*", default=["sync", "async", "multiagent"])
    parser.add_argument("--stored", action="store_true",
                        help="only summarise what the problem files store (proven optima, best plans, bounds)")
    args = parser.parse_args(argv)
    if args.stored:
        return summarise_stored(args.sets)
    from engine import Task
    from planners import solve

    print(f"{'task':58} {'paper h':>7} {'status':>15} {'cost':>5} {'bound':>5} {'seconds':>8} {'expanded':>9}")
    began = time.perf_counter()
    proven = total = 0
    for task_set in args.sets:
        for path in sorted((ROOT / "domains" / "kitchen" / "tasks" / task_set).glob("*.json")):
            number = int(path.name[:2])
            horizon = PAPER_HORIZON.get(task_set, [None] * 10)[number - 1]
            task = Task.load(path)
            if task_set == "sync":
                result = solve(task, planner="bfs", time_limit=args.time_limit)
            else:
                result = solve(task, planner="astar", heuristic="max(hmax,lmcut)", time_limit=args.time_limit)
            total += 1
            proven += result.status == "solved-optimal"
            cost = result.to_json()["cost"]
            bound = result.lower_bound if result.lower_bound is not None else ""
            print(f"{task_set + '/' + path.stem:58} {horizon if horizon else '-':>7} {result.status:>15} "
                  f"{cost if cost is not None else '-':>5} {bound:>5} {result.seconds:>8.1f} {result.expanded:>9}", flush=True)
    print(f"proven optimal: {proven}/{total} in {time.perf_counter() - began:.0f} s")
    return 0


def summarise_stored(sets) -> int:
    """Per set: how many problems store a proven optimum, a best plan with a lower bound, a bound only."""
    import json

    print(f"{'set':28} {'problems':>8} {'proven':>7} {'plan+bound':>11} {'bound only':>11} {'nothing':>8}")
    for task_set in sets:
        for label, folder in ((f"tasks/{task_set}", ROOT / "domains" / "kitchen" / "tasks" / task_set),
                              (f"problems/{task_set}", ROOT / "problems" / task_set)):
            counts = [0, 0, 0, 0]
            files = sorted(folder.glob("*.json"))
            for path in files:
                entry = json.loads(path.read_text()).get("optimal") or {}
                if entry.get("cost") is not None and "upper_bound" not in entry:
                    counts[0] += 1
                elif entry.get("plan"):
                    counts[1] += 1
                elif entry.get("lower_bound"):
                    counts[2] += 1
                else:
                    counts[3] += 1
            print(f"{label:28} {len(files):>8} {counts[0]:>7} {counts[1]:>11} {counts[2]:>11} {counts[3]:>8}")
    print()
    print(f"{'base task':58} {'paper h':>7} {'optimum':>8} {'lower':>6} {'upper':>6}  method")
    for task_set in sets:
        for path in sorted((ROOT / "domains" / "kitchen" / "tasks" / task_set).glob("*.json")):
            horizon = PAPER_HORIZON.get(task_set, [None] * 10)[int(path.name[:2]) - 1]
            entry = json.loads(path.read_text()).get("optimal") or {}
            exact = entry.get("cost") if "upper_bound" not in entry else None
            print(f"{task_set + '/' + path.stem:58} {horizon or '-':>7} {exact if exact is not None else '-':>8} "
                  f"{entry.get('lower_bound', exact if exact is not None else '-'):>6} "
                  f"{entry.get('upper_bound', exact if exact is not None else '-'):>6}  {entry.get('method', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
