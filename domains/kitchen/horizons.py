"""The paper's horizons and the reference's step cap, stored in every sync and async problem.

The reference runner stops an agent after ceil(1.5 x h) steps, where h is the task's horizon in
the paper's Table 3, the same cap for all ten seeded instances of a task (the instance's own
optimum plays no part). Storing that cap as the problem's `max_steps` makes plan-eval stop
where the reference stops, whatever our planners know of the instance's optimum. The
multi-agent tasks have no published horizon; their cap stays plan-eval's default (1.5 x the
best known cost).

    python -m domains.kitchen.horizons          # rewrite max_steps in tasks/ and problems/
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
    """Set the reference's cap (and record the horizon it comes from) on a problem dict."""
    h = horizon(task_set, number)
    if h is not None:
        problem["max_steps"] = step_cap(task_set, number)
        problem.setdefault("metadata", {})["paper_horizon"] = h
    return problem


def main(argv=None) -> int:
    root = Path(__file__).resolve().parents[2]
    changed = 0
    for task_set in PAPER_HORIZON:
        paths = sorted((root / "domains" / "kitchen" / "tasks" / task_set).glob("*.json"))
        paths += sorted((root / "problems" / task_set).glob("*.json"))
        for path in paths:
            problem = json.loads(path.read_text())
            before = (problem.get("max_steps"), problem.get("metadata", {}).get("paper_horizon"))
            stamp(problem, task_set, int(path.name[:2]))
            if (problem.get("max_steps"), problem["metadata"].get("paper_horizon")) != before:
                path.write_text(json.dumps(problem, indent=1) + "\n")
                changed += 1
    print(f"{changed} problem files updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
