"""Window re-optimisation against action elimination, on satisficing plans of the kitchen tasks.

    python evals/bench/plan_polish.py [--time-limit 60] [--match 05_] [--sets sync async]

For each base task that is not proven optimal: a fresh satisficing plan (exploration search,
weighted w = 5, the same seeds every run), then, within the same time limit each,
  - action elimination (planners/improve/shorten.py: drop blocks of up to four steps while the plan still
    replays), the usual post-processing of satisficing planners and the reference here;
  - window re-optimisation (planners/improve/windows.py, which starts from the eliminated plan).
Prints the plan lengths, the paper's horizon where known, and the ratio windows / elimination
(lower is better) with its median over the tasks. Time-limited: a slower machine finds less.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds for each post-processing")
    parser.add_argument("--sets", nargs="*", default=["sync", "async"])
    parser.add_argument("--match", default="", help="only tasks whose file name contains this")
    args = parser.parse_args(argv)

    import json

    from groundplan.domains.kitchen.horizons import PAPER_HORIZON
    from groundplan.engine import Task
    from groundplan.planners import heuristics as H
    from groundplan.planners.search.explore import explore
    from groundplan.planners.improve.shorten import shorten
    from groundplan.planners.improve.windows import reoptimize

    rows, ratios = [], []
    for s in args.sets:
        for path in sorted((ROOT / "domains" / "kitchen" / "tasks" / s).glob("*.json")):
            if args.match not in path.name:
                continue
            stored = json.loads(path.read_text()).get("optimal") or {}
            if stored.get("cost") is not None and "upper_bound" not in stored:
                continue  # proven: nothing to show
            task = Task.load(path)
            found = explore(task, H.make(task, "hff"), time_limit=args.time_limit, weight=5)
            if not found.solved:
                rows.append((f"{s}/{path.stem[:40]}", "-", "-", "-", "-", "no plan"))
                continue
            began = time.perf_counter()
            eliminated = shorten(task, found.actions, time_limit=args.time_limit)
            t_elim = time.perf_counter() - began
            began = time.perf_counter()
            polished = reoptimize(task, found.actions, time_limit=args.time_limit)
            t_win = time.perf_counter() - began
            horizons = PAPER_HORIZON.get(s)
            paper = horizons[int(path.name[:2]) - 1] if horizons else "-"
            ratio = len(polished) / len(eliminated)
            ratios.append(ratio)
            rows.append((f"{s}/{path.stem[:40]}", paper, len(found.actions), f"{len(eliminated)} ({t_elim:.0f} s)",
                         f"{len(polished)} ({t_win:.0f} s)", f"{ratio:.2f}"))
            print(*rows[-1], sep="  ", flush=True)
    print()
    header = ("task", "paper h", "explore", "elimination", "windows", "windows/elim")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))
    if ratios:
        print(f"\nmedian windows/elimination: {statistics.median(ratios):.2f} over {len(ratios)} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
