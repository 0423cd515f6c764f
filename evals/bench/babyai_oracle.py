"""The exact BabyAI oracle against the expert bot, per level, on the committed problem sets.

    python evals/bench/babyai_oracle.py [--seeds 20] [--time-limit 30] [--set predict|plan] [--levels A,B]

For the first --seeds rows of each environment of the set, the oracle (A* over the interpreter
with the relaxed-grid estimate, domains/babyai/oracle.py) solves the mission, and its cost is
set against the length of the expert's action sequence stored in the row. Prints, per level:
instances solved optimally within the time limit (the rest are reported, never hidden), the
median and largest time (CPU seconds of this process, so that other work on the machine does
not inflate them; the time limit itself is wall time), the mean optimum/expert ratio, and how
many optima are strictly shorter than the expert. --costs FILE writes each instance's status and
cost as JSON lines, to compare two versions of the oracle. No MiniGrid needed.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.domains.babyai.oracle import solve  # noqa: E402
from groundplan.engine import Task, problemsets  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--set", default="predict", choices=("predict", "plan"))
    parser.add_argument("--levels", default=None, help="comma-separated levels to run (default: all)")
    parser.add_argument("--costs", default=None, help="write {name, status, cost, cpu} per instance here")
    args = parser.parse_args(argv)
    wanted = set(args.levels.split(",")) if args.levels else None
    costs = open(args.costs, "w") if args.costs else None
    path = ROOT / "problems" / "babyai" / f"{args.set}.jsonl.gz"
    by_level = defaultdict(list)
    for name in problemsets.names(str(path)):
        level, _, seed = name.rpartition("-s")
        if int(seed) <= args.seeds and (wanted is None or level in wanted):
            by_level[level].append(name)
    print(f"{'level':28s} {'optimal':>8s} {'median s':>9s} {'max s':>7s} {'optimum/expert':>15s} {'shorter':>8s}  unsolved")
    for level, names in by_level.items():
        times, ratios, shorter, missed = [], [], 0, []
        for name in names:
            task = Task.load(f"{path}#{name}")
            meta = task.problem.metadata
            expert = len((meta.get("actions") or meta.get("expert_actions")).split(", "))
            began = time.process_time()
            result = solve(task, time_limit=args.time_limit)
            times.append(time.process_time() - began)
            if costs:
                costs.write(json.dumps({"name": name, "status": result.status, "cost": result.cost,
                                        "cpu": round(times[-1], 3)}) + "\n")
                costs.flush()
            if result.status == "solved-optimal":
                ratios.append(result.cost / expert)
                shorter += result.cost < expert
            else:
                missed.append(f"s{meta['seed']}:{result.status}")
        mean = f"{statistics.mean(ratios):.3f}" if ratios else "-"
        print(f"{level:28s} {len(ratios):4d}/{len(names):<3d} {statistics.median(times):9.2f} {max(times):7.1f} "
              f"{mean:>15s} {shorter:8d}  {' '.join(missed)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
