"""Proving the optimal costs of the 30 base kitchen tasks, against the paper's horizons.

    python evals/bench/kitchen_optima.py [--time-limit 60] [--sets sync async multiagent] [--match 03_]
    python evals/bench/kitchen_optima.py --store ...   # also write each verdict into the task file
    python evals/bench/kitchen_optima.py --stored      # what the problem files store, no search

For each base task: the prover's verdict (planners/search/layered.py `prove_optimal`: breadth-first
search bounded by the best stored plan or the paper's horizon, whichever is lower, pruned by
landmark counting and h_max, with symmetry reduction), the paper's horizon (Table 3; the
multi-agent set has none), seconds, states expanded and peak memory, on one core. The stored
best plan is the upper bound; a search that finishes without a cheaper plan proves it optimal.
The issue's target is all 30 proven within 10 minutes in total.

`--tick-rule all` proves under the rule where every timer ticks every step instead of the
kitchen's default (the reference's skip after a finished timer). The skip never brings a timer's
result sooner (tests/test_kitchen_fidelity.py checks it), so no plan is shorter under the default
than under `all`: a stored plan that is valid under the default and optimal under `all` is
optimal under both. Under `all` the cut's bookkeeping timers are never started, and the state
space is smaller (async 04: 3.4 M states instead of more than 5.3 M, issue 35).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.domains.kitchen.horizons import PAPER_HORIZON  # noqa: E402  (the paper's Table 3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per task")
    parser.add_argument("--sets", nargs="*", default=["sync", "async", "multiagent"])
    parser.add_argument("--match", default="", help="only tasks whose file name contains this")
    parser.add_argument("--store", action="store_true",
                        help="write each verdict into the task file (a proof, or a higher lower bound)")
    parser.add_argument("--tick-rule", choices=["all"], default=None,
                        help="prove under this tick rule instead of the kitchen's default (see above)")
    parser.add_argument("--stored", action="store_true",
                        help="only summarise what the problem files store (proven optima, best plans, bounds)")
    args = parser.parse_args(argv)
    if args.stored:
        return summarise_stored(args.sets)
    if args.store and args.tick_rule:
        parser.error("--store writes proofs under the default rule only: record a --tick-rule proof by hand, with its method")
    from groundplan.planners.search.layered import prove_optimal

    print(f"{'task':52} {'paper h':>7} {'verdict':>9} {'cost':>5} {'lower':>5} {'upper':>5} {'seconds':>8} "
          f"{'expanded':>9} {'MB':>6}")
    began = time.perf_counter()
    proven = total = 0
    for task_set in args.sets:
        for path in sorted((ROOT / "domains" / "kitchen" / "tasks" / task_set).glob("*.json")):
            if args.match not in path.name:
                continue
            horizon = PAPER_HORIZON.get(task_set, [None] * 10)[int(path.name[:2]) - 1]
            stored = json.loads(path.read_text()).get("optimal") or {}
            upper = stored.get("upper_bound", stored.get("cost"))
            result = prove_optimal(load(path, args.tick_rule), upper_bound=upper, guess=horizon, time_limit=args.time_limit)
            total += 1
            if args.store and result.status != "unsupported":
                from groundplan.planners.cli import store_result

                store_result(str(path), result)
            if result.status == "solved-optimal":
                verdict, cost, lower, upper = "optimal", result.cost, result.cost, result.cost
            elif result.status == "no-plan-within-bound" and upper is not None and result.lower_bound >= upper:
                verdict, cost, lower = "optimal", upper, upper  # nothing cheaper than the stored plan
            else:
                verdict, cost, lower = result.status, None, result.lower_bound
            proven += verdict == "optimal"
            print(f"{task_set + '/' + path.stem[:44]:52} {horizon or '-':>7} {verdict[:9]:>9} {cost if cost is not None else '-':>5} "
                  f"{lower if lower is not None else '-':>5} {upper if upper is not None else '-':>5} {result.seconds:>8.1f} "
                  f"{result.expanded:>9} {result.peak_memory_mb:>6.0f}", flush=True)
    print(f"proven optimal: {proven}/{total} in {time.perf_counter() - began:.0f} s")
    return 0


def load(path: Path, tick_rule: str | None):
    """The task, under `tick_rule` when one is given (the problem file's own override)."""
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem

    if tick_rule is None:
        return Task.load(path)
    return Task(build_problem(dict(json.loads(path.read_text()), tick_rule=tick_rule), str(path), None))


def summarise_stored(sets) -> int:
    """Per set: how many problems store a proven optimum, a best plan with a lower bound, a bound only."""
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
