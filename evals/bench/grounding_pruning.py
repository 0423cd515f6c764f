"""Ground actions kept by relaxed-reachability pruning, and what it does to search time (issue 35).

    python evals/bench/grounding_pruning.py [--ipc ../shared/data/ipc] [--tasks depot/pfile1.pddl ...]
                                            [--search astar:lmcut] [--repeats 3] [--time-limit 120]

For each task, grounded with and without pruning (engine/task.py `Task._relaxed_reachable`): the
ground actions, the CPU seconds to ground, and for an optimal search (default A* with LM-cut)
the cost, the expansions and the median CPU seconds of `--repeats` runs (`cpu_seconds`, grounding
excluded). The costs must agree, and the expansions too: pruning drops only actions no reachable
state can apply. IPC tasks are read from the shared data folder (never committed, never read by
tests); the shipped kitchen, logistics, gridnav and sokoban tasks are measured as well.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

IPC_TASKS = ["elevators-opt08-strips/p01.pddl", "elevators-opt08-strips/p10.pddl", "depot/pfile1.pddl",
             "depot/pfile2.pddl", "depot/pfile10.pddl", "satellite/p01-pfile1.pddl",
             "childsnack-opt14-strips/child-snack_pfile01.pddl", "scanalyzer-opt11-strips/p01.pddl"]
SHIPPED = ["domains/kitchen/tasks/sync/03_lettuce_tomato_sandwich.json",
           "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json",
           "domains/kitchen/tasks/multiagent/03_lettuce_fried_chicken_fried_onion_burger.json",
           "problems/logistics/logistics-c2-p4-s3.json", "problems/gridnav/room8-10.json", "problems/sokoban/one-box-5x5.json"]


def load(name: str, ipc: Path, prune: bool):
    from groundplan.engine import Task
    from groundplan.engine.loader import load_problem

    if name.endswith(".json"):
        return Task(load_problem(str(ROOT / name)), prune=prune)
    folder, problem = name.split("/")
    index = json.loads((ipc / "index.json").read_text())
    domain_file = next(d for d, p in index[folder]["problems"] if p == problem)
    return load_pddl(ipc / folder / domain_file, ipc / folder / problem, name, prune)


def load_pddl(domain_file, problem_file, name: str, prune: bool = True):
    """A Task from a PDDL domain and problem file (our importer, grounded lazily)."""
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.pddl.reader import import_pddl

    domain, problems = import_pddl(str(domain_file), [str(problem_file)])
    return Task(build_problem(problems[0], name, None, domain=load_domain(domain)), prune=prune)


def measure(name, ipc, prune, planner, heuristic, repeats, time_limit):
    from groundplan.planners import solve

    runs, grounding, kept, result = [], [], 0, None
    for _ in range(repeats):
        task = load(name, ipc, prune)
        began = time.process_time()
        kept = len(task.universe().actions or ())
        grounding.append(time.process_time() - began)
        if planner is None:
            continue
        result = solve(task, planner=planner, heuristic=heuristic, time_limit=time_limit)
        runs.append(result.cpu_seconds)
        if not result.solved:
            break
    return kept, statistics.median(grounding), result, statistics.median(runs) if runs else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ipc", default=str(ROOT.parent / "shared" / "data" / "ipc"))
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--search", default="astar:lmcut", help="planner:heuristic, or 'none' to count only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args(argv)
    ipc = Path(args.ipc)
    names = args.tasks or ((IPC_TASKS if ipc.exists() else []) + SHIPPED)
    planner, _, heuristic = args.search.partition(":")
    planner = None if planner == "none" else planner
    print(f"{'task':76} {'actions':>8} {'kept':>6} {'ground s':>9} {'ground s':>9} {'cost':>6} {'expanded':>9} "
          f"{'cpu s':>8} {'cpu s':>8}")
    print(f"{'':76} {'before':>8} {'after':>6} {'before':>9} {'after':>9} {'':>6} {'':>9} {'before':>8} {'after':>8}")
    for name in names:
        whole = measure(name, ipc, False, planner, heuristic or None, args.repeats, args.time_limit)
        pruned = measure(name, ipc, True, planner, heuristic or None, args.repeats, args.time_limit)
        cost = expanded = "-"
        if planner is not None:
            a, b = whole[2], pruned[2]
            if a.solved and b.solved:
                assert a.cost == b.cost, f"{name}: cost {a.cost} without pruning, {b.cost} with"
                cost, expanded = f"{b.cost:g}", f"{b.expanded}" + ("" if a.expanded == b.expanded else f" ({a.expanded})")
            else:
                cost = f"{a.status}/{b.status}"
        times = [f"{x[3]:.2f}" if x[3] is not None else "-" for x in (whole, pruned)]
        print(f"{name:76} {whole[0]:>8} {pruned[0]:>6} {whole[1]:>9.3f} {pruned[1]:>9.3f} {cost:>6} {expanded:>9} "
              f"{times[0]:>8} {times[1]:>8}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
