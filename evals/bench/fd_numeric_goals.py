"""Fast Downward on numeric goals lowered to value facts: the time it takes as the values grow.

    pip install -e '.[test]'     # unified-planning (for its PDDL files) and up-fast-downward
    python evals/bench/fd_numeric_goals.py [--max-int 4 6 8 10]

unified-planning's counters problem.pddl (4 counters, the goal three comparisons of fluents),
with its static bound (max_int) set to each value given (10 is the file as shipped). The lowering
(engine/pddl/lower.py) turns each comparison into a disjunction of value pairs and Fast
Downward's translator multiplies the three out, so its time grows with the cube of the pairs.
tests/test_pddl.py runs this problem at max_int 5; this prints, per bound, our A*'s cost and
time, Fast Downward's cost and time, and whether they agree.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-int", type=int, nargs="+", default=[4, 6, 8, 10])
    args = parser.parse_args(argv)

    import unified_planning

    from groundplan.engine import Task, validate_plan
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.pddl.reader import import_pddl
    from groundplan.planners import solve
    from groundplan.planners.fast_downward import driver

    if driver() is None:
        print("Fast Downward is not installed: pip install up-fast-downward")
        return 1
    folder = Path(unified_planning.__file__).parent / "test" / "pddl" / "counters"
    text = (folder / "problem.pddl").read_text()
    print(f"{'max_int':>7} {'ours':>5} {'ours s':>8} {'fd':>5} {'fd s':>8}  agree")
    with tempfile.TemporaryDirectory() as work:
        for bound in args.max_int:
            problem = Path(work) / f"problem{bound}.pddl"
            problem.write_text(text.replace("(= (max_int) 10)", f"(= (max_int) {bound})"))
            domain, converted = import_pddl(str(folder / "domain.pddl"), [str(problem)])
            task = Task(build_problem(converted[0], "<imported>", None, domain=load_domain(domain)))
            began = time.perf_counter()
            ours = solve(task, planner="astar", heuristic="hmax", time_limit=600)
            middle = time.perf_counter()
            theirs = solve(task, planner="fd", time_limit=600)
            end = time.perf_counter()
            agree = theirs.solved and theirs.cost == ours.cost and validate_plan(task, theirs.plan).cost == ours.cost
            print(f"{bound:>7} {ours.cost!s:>5} {middle - began:>8.2f} {theirs.cost!s:>5} {end - middle:>8.2f}  {agree}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
