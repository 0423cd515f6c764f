"""Every stored kitchen plan replayed against its file, with the time each took.

    python evals/bench/stored_plans.py [--only multiagent/09] [--slowest 15]

tests/test_kitchen.py replays every stored plan but a sample of the two-dish multi-agent tasks
08-10, whose goals (an `exists` over 12 objects) take 4-47 s each to ground (tests/stored_plans.py
says which files); this replays all 333, as the test does each: the plan reaches the goal at the
stored cost (or, unproven, at the stored upper bound, above the lower bound). Prints each
failure, the slowest files and the total; exits 1 if any plan fails.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="replay only the files whose path contains this")
    parser.add_argument("--slowest", type=int, default=15)
    args = parser.parse_args(argv)
    os.chdir(ROOT)

    import stored_plans

    paths = [p for p in stored_plans.stored() if args.only in p]
    sampled = set(stored_plans.sampled())
    times, failures = [], []
    began = time.perf_counter()
    for path in paths:
        start = time.perf_counter()
        entry = json.load(open(path))["optimal"]
        result = stored_plans.replay(path)
        ok = result.valid and (result.cost == entry["cost"] and "upper_bound" not in entry if entry["cost"] is not None
                               else result.cost == entry["upper_bound"] > entry.get("lower_bound", 0))
        if not ok:
            failures.append(f"{path}: {result.message or f'cost {result.cost} against the stored {entry}'}")
        times.append((time.perf_counter() - start, path))
    for line in failures:
        print("FAIL", line)
    print(f"slowest ({'*' if sampled else ''}: also replayed by the test suite):")
    for seconds, path in sorted(times, reverse=True)[:args.slowest]:
        print(f"  {seconds:7.2f} s  {path}{' *' if path in sampled else ''}")
    print(f"{len(paths)} stored plans replayed, {len(failures)} failed, {time.perf_counter() - began:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
