"""The compiled h_max and LM-cut against the Python reference on IPC tasks (issue 35).

    python evals/bench/heuristic_values.py ../shared/data/ipc [--walks 20] [--steps 25] [--tasks 3]

The tests hold the numba kernels (planners/heuristics/kernels.py) to exactly the values and cuts
of planners/heuristics/lmcut_reference.py and the interpreted h_max on the shipped problems; the
IPC tasks are competition data the tests never read, so this check runs them here: the initial
state and the states of seeded random walks of the first tasks of each domain. Any difference is
printed and the run exits 1.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path


def load(domain: Path, problem: Path):
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.pddl.reader import import_pddl

    d, problems = import_pddl(str(domain), [str(problem)])
    return Task(build_problem(problems[0], problem.name, None, domain=load_domain(d)))


def differences(task, walks: int, steps: int, seed: int) -> tuple[int, list[str]]:
    """(states compared, what differed) over the initial state and `walks` random walks."""
    from groundplan.planners.heuristics import HMax, kernels
    from groundplan.planners.heuristics import lmcut as fast
    from groundplan.planners.heuristics import lmcut_reference as reference
    from groundplan.planners.heuristics.relaxation import Relaxation

    r = Relaxation(task, time_aware=False)
    data, ref = fast.LMCutData(r), reference.LMCutData(r)
    hmax = HMax(Relaxation(task))
    tables = kernels.Tables(fast.LMCutData(hmax.r)) if hmax.r.integral else None
    rng = random.Random(seed)
    states = [task.initial_state()]
    for _ in range(walks):
        state = task.initial_state()
        for _ in range(rng.randint(1, steps)):
            actions = task.applicable(state)
            if not actions:
                break
            state = task.apply(state, rng.choice(actions))
            states.append(state)
    found = []
    for k, state in enumerate(states):
        bits = r.initial_facts(state)
        if not r.goal_unreachable:
            cuts, ref_cuts = [], []
            got, want = kernels.lmcut(data.compiled(), bits, cuts), reference.lmcut(ref, bits, ref_cuts)
            if got != want or cuts != ref_cuts:
                found.append(f"state {k}: LM-cut {got} (cuts {len(cuts)}), reference {want} (cuts {len(ref_cuts)})")
        hr = hmax.relaxation(state)
        if tables is not None and hr is hmax.r and not hr.goal_unreachable:
            reached = hr.initial_facts(state)
            got, want = kernels.hmax(tables, reached), hmax.python(hr, reached, {})
            if got != want:
                found.append(f"state {k}: h_max {got}, Python {want}")
    return len(states), found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ipc", type=Path, help="the IPC folder (its index.json lists each domain's domain and problem files)")
    parser.add_argument("--tasks", type=int, default=3, help="the first N tasks of each domain")
    parser.add_argument("--walks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from groundplan.planners.heuristics import kernels

    if not kernels.kernels():
        print("numba is not installed: nothing to compare", file=sys.stderr)
        return 2
    index = json.loads((args.ipc / "index.json").read_text())
    bad = 0
    for folder, entry in index.items():
        for domain, problem in entry["problems"][:args.tasks]:
            task = load(args.ipc / folder / domain, args.ipc / folder / problem)
            n, found = differences(task, args.walks, args.steps, args.seed)
            print(f"{folder}/{problem}: {n} states, {'equal' if not found else f'{len(found)} DIFFERENCES'}")
            for line in found[:5]:
                print("  " + line)
            bad += bool(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
