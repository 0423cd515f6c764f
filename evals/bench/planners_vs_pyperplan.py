"""Expansions per second of groundplan's planners against pyperplan's, in the same run.

    pip install -e '.[bench]'     # pyperplan from PyPI (GPL, benchmark-only, never vendored)
    python evals/bench/planners_vs_pyperplan.py [--repeats 3]

Tasks: gripper prob01..prob04 and blocks-4-0, with PDDL twins in evals/bench/pddl/. Both sides
are timed on search only (parsing and grounding excluded), in CPU seconds (ours: the result's
`cpu_seconds`; pyperplan's: `time.process_time`, so a busy machine slows neither figure), each
configuration `--repeats` times;
the table shows medians and the ratio groundplan / pyperplan of expansions per second. Both
planners count a node as expanded when its successors are generated (pyperplan's BFS tests the
goal when a node is popped, ours when it is generated, so the counts differ slightly; the rate
is what is compared).
"""
from __future__ import annotations

import argparse
import logging
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TASKS = [
    ("gripper/prob01", "problems/gripper/prob01.json", "gripper/domain.pddl", "gripper/prob01.pddl"),
    ("gripper/prob02", "problems/gripper/prob02.json", "gripper/domain.pddl", "gripper/prob02.pddl"),
    ("gripper/prob03", "problems/gripper/prob03.json", "gripper/domain.pddl", "gripper/prob03.pddl"),
    ("gripper/prob04", "problems/gripper/prob04.json", "gripper/domain.pddl", "gripper/prob04.pddl"),
    ("blocks-4-0", "problems/blocksworld/blocks-4-0.json", "blocksworld/domain.pddl", "blocksworld/blocks-4-0.pddl"),
]
PDDL = ROOT / "evals" / "bench" / "pddl"


class _ExpansionCounter(logging.Handler):
    def __init__(self):
        super().__init__()
        self.expanded = None

    def emit(self, record):
        match = re.match(r"(\d+) Nodes expanded", record.getMessage())
        if match:
            self.expanded = int(match.group(1))


def run_pyperplan(domain, problem, algorithm):
    from pyperplan.heuristics.relaxation import hMaxHeuristic
    from pyperplan.planner import _ground, _parse
    from pyperplan.search import astar_search, breadth_first_search

    task = _ground(_parse(str(PDDL / domain), str(PDDL / problem)))
    counter = _ExpansionCounter()
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers = [counter]  # count expansions, print nothing
    root.setLevel(logging.INFO)
    try:
        start = time.process_time()
        if algorithm == "bfs":
            plan = breadth_first_search(task)
        else:
            plan = astar_search(task, hMaxHeuristic(task))
        seconds = time.process_time() - start
    finally:
        root.handlers = saved
        root.setLevel(logging.WARNING)
    return len(plan), counter.expanded, seconds


def run_groundplan(problem, algorithm):
    from groundplan.engine import Task
    from groundplan.planners import solve

    task = Task.load(str(ROOT / problem))
    task.applicable(task.initial_state())  # grounding, excluded as for pyperplan
    if algorithm == "bfs":
        result = solve(task, planner="bfs")
    else:
        result = solve(task, planner="astar", heuristic="hmax")
    assert result.status == "solved-optimal", result
    return result.cost, result.expanded, result.cpu_seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", nargs="*", default=None, help="subset of task names")
    args = parser.parse_args(argv)
    try:
        import pyperplan  # noqa: F401
    except ImportError:
        print("pyperplan is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    print(f"{'task':16} {'algo':6} {'cost':>4} {'gp exp':>8} {'gp exp/s':>10} {'pp exp':>8} {'pp exp/s':>10} {'ratio':>6}")
    ratios = {"bfs": [], "astar-hmax": []}
    for name, problem, domain, pddl_problem in TASKS:
        if args.tasks and name not in args.tasks:
            continue
        for algorithm in ("bfs", "astar-hmax"):
            ours, theirs = [], []
            for _ in range(args.repeats):
                cost, expanded, seconds = run_groundplan(problem, algorithm)
                ours.append((seconds, expanded, cost))
                length, p_expanded, p_seconds = run_pyperplan(domain, pddl_problem, algorithm)
                theirs.append((p_seconds, p_expanded, length))
                assert length == cost, f"{name}: pyperplan found {length}, groundplan {cost}"
            g_rate = statistics.median(e / max(s, 1e-9) for s, e, _ in ours)
            p_rate = statistics.median(e / max(s, 1e-9) for s, e, _ in theirs)
            ratio = g_rate / p_rate
            ratios[algorithm].append(ratio)
            print(f"{name:16} {algorithm:6} {cost:>4} {ours[0][1]:>8} {g_rate:>10.0f} {theirs[0][1]:>8} {p_rate:>10.0f} {ratio:>6.1f}x",
                  flush=True)
    for algorithm, values in ratios.items():
        if values:
            print(f"median ratio {algorithm}: {statistics.median(values):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
