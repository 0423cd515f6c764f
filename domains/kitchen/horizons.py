"""The paper's horizons and the reference's step cap, recorded in every sync and async problem.

The reference runner stops an agent after ceil(1.5 x h) steps, where h is the task's horizon in
the paper's Table 3, the same cap for all ten seeded instances of a task. plan-eval's cap is
1.5 x the instance's own reference cost instead (its proven optimum, else its best known plan):
while many of our instance plans are longer than the paper's hand-made horizons, the reference
cap would stop even the oracle. Both numbers are kept in `metadata` (`paper_horizon`,
`reference_max_steps`) so a report can apply the reference's cap, and `--max-steps` reproduces
it for one task.

    python -m groundplan.domains.kitchen.horizons          # record them in tasks/ and problems/
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

# Robotouille paper, Table 3 (horizons "h"), tasks 1..10
PAPER_HORIZON = {
    "sync": [10, 14, 24, 10, 15, 23, 36, 44, 63, 57],
    "async": [21, 27, 37, 42, 46, 19, 42, 46, 68, 82],
}
CAP_FACTOR = 1.5


def horizon(task_set: str, number: int) -> int | None:
    row = PAPER_HORIZON.get(task_set)
    return row[number - 1] if row and 1 <= number <= len(row) else None


def step_cap(task_set: str, number: int) -> int | None:
    h = horizon(task_set, number)
    return None if h is None else math.ceil(CAP_FACTOR * h)


def stamp(problem: dict, task_set: str, number: int) -> dict:
    """Record the paper's horizon and the reference's cap in a problem dict's metadata."""
    h = horizon(task_set, number)
    if h is not None:
        meta = problem.setdefault("metadata", {})
        meta["paper_horizon"] = h
        meta["reference_max_steps"] = step_cap(task_set, number)
    return problem


def main(argv=None) -> int:
    root = Path(__file__).resolve().parents[2]
    changed = 0
    for task_set in PAPER_HORIZON:
        paths = sorted((root / "domains" / "kitchen" / "tasks" / task_set).glob("*.json"))
        paths += sorted((root / "problems" / task_set).glob("*.json"))
        for path in paths:
            problem = json.loads(path.read_text())
            before = json.dumps(problem.get("metadata", {}), sort_keys=True)
            stamp(problem, task_set, int(path.name[:2]))
            if json.dumps(problem["metadata"], sort_keys=True) != before:
                path.write_text(json.dumps(problem, indent=1) + "\n")
                changed += 1
    print(f"{changed} problem files updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
