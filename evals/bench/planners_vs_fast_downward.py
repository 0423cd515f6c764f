"""Expansions per second of groundplan's planners against Fast Downward's and pyperplan's, in one run.

    pip install -e '.[bench]'     # pyperplan and up-fast-downward (the Fast Downward binary)
    python evals/bench/planners_vs_fast_downward.py [--repeats 3] [--profile]
        [--ipc ../shared/data/ipc --ipc-tasks elevators-opt08-strips/p01.pddl ...]
        [--only gripper/prob04 ...] [--configs hmax lmcut] [--no-pyperplan]

Fast Downward is the bar: the table prints, per task and search, the cost each found (they must
agree: every configuration here is optimal), the expansions, the expansions per second of
groundplan (search only: grounding excluded), of Fast Downward (its own "Search time", the
translator excluded) and of pyperplan, and the ratio groundplan / Fast Downward. Every side is
timed in CPU seconds (ours: the result's `cpu_seconds`; pyperplan: `time.process_time`), as Fast
Downward's search time is: wall time on a busy machine made groundplan look 3x slower (issue 35). Tasks: gripper
prob03 and prob04 and blocks-4-0 (our files, exported to PDDL for the other two), and two IPC
domains imported from the PDDL that unified-planning ships (depot, miconic). `--profile` adds
the three largest costs per expansion of our A* with LM-cut on gripper prob04 (cProfile, own
time), the places to work on next. `--ipc-tasks` adds IPC tasks read from `--ipc` (the shared
data folder, never committed): Fast Downward then reads the original files, we import them.
`--only` keeps the named tasks, `--configs` the named searches (bfs, hmax, lmcut).

h_max and LM-cut run compiled (planners/heuristics/kernels.py, numba) once loaded, and so do
breadth-first search and A*'s loop over plain STRIPS tasks (planners/search/strips_compiled.py:
a search moves there at a limits check, for A* once its heuristic runs compiled); a search
loads them only after 0.6 s of CPU, so which runs are compiled would depend on the order of the
tasks. The kernels are therefore loaded before any timing, as Fast Downward's search time leaves
out its start-up too, and the one-time cost (import and cache load, or compilation on a cold
cache) is printed first. `--no-jit` times the pure-Python path instead (GROUNDPLAN_JIT=0).
Measured on a busy 2-core machine (issue 35; two runs, each the median of 5 repeats, 3 for A*;
the median ratio over the five built-in tasks): breadth-first search 0.44-0.48x of Fast Downward
before the compiled search, 1.20-1.26x with it (gripper prob04 0.33x -> 4.3x, satellite p03
0.21x -> 1.8-1.9x; blocks-4-0's 87 expansions 1.2x -> 0.8x, packing the arrays costs more than
they take); A* with h_max 0.30x -> 0.40-0.44x (satellite p03 0.12-0.13x -> 0.52x, gripper
0.27-0.31x -> 1.1x; tasks of a few hundred expansions end before the hand-over and stay where
they were).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CONFIGS = [  # (ours: planner, heuristic), Fast Downward's search, pyperplan's (None: not comparable)
    ("bfs", None, "astar(blind())", "bfs"),
    ("astar", "hmax", "astar(hmax())", "astar-hmax"),
    ("astar", "lmcut", "astar(lmcut())", "astar-lmcut"),
]


def ipc_tasks(ipc: Path, names):
    """(name, Task, (domain file, problem file)) for IPC tasks of the shared data folder."""
    import json

    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.pddl.reader import import_pddl

    index = json.loads((ipc / "index.json").read_text())
    out = []
    for name in names:
        folder, problem = name.split("/")
        domain_file = next(d for d, p in index[folder]["problems"] if p == problem)
        files = (ipc / folder / domain_file, ipc / folder / problem)
        domain, problems = import_pddl(str(files[0]), [str(files[1])])
        out.append((name, Task(build_problem(problems[0], name, None, domain=load_domain(domain))), files))
    return out


def tasks():
    """(name, Task) for every benchmark task; the IPC ones imported from unified-planning's files."""
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.pddl.reader import import_pddl

    out = [(name, Task.load(str(ROOT / path))) for name, path in (
        ("gripper/prob03", "problems/gripper/prob03.json"), ("gripper/prob04", "problems/gripper/prob04.json"),
        ("blocks-4-0", "problems/blocksworld/blocks-4-0.json"))]
    try:
        import unified_planning
    except ImportError:
        print("unified-planning is not installed: the IPC domains are left out", file=sys.stderr)
        return out
    base = Path(unified_planning.__file__).parent / "test" / "pddl"
    for name in ("depot", "miconic"):
        domain, problems = import_pddl(str(base / name / "domain.pddl"), [str(base / name / "problem.pddl")])
        out.append((f"ipc/{name}", Task(build_problem(problems[0], name, None, domain=load_domain(domain)))))
    return out


def run_ours(task, planner, heuristic):
    from groundplan.planners import solve

    task.applicable(task.initial_state())  # grounding, excluded as for the others
    result = solve(task, planner=planner, heuristic=heuristic)
    assert result.status == "solved-optimal", result
    return result.cost, result.expanded, result.cpu_seconds  # CPU, as Fast Downward's "Search time"


def fast_downward_process(folder: Path, search: str, domain="domain.pddl", problem="problem.pddl", options=(),
                          timeout: float | None = None):
    """Run Fast Downward's driver in `folder` (its plan and SAS files land there); `options` go
    before the PDDL files (`--overall-time-limit 60s`). None when `timeout` wall seconds pass."""
    from groundplan.planners.fast_downward import _run, driver

    return _run([sys.executable, str(driver()), "--plan-file", "plan", "--sas-file", "output.sas", *options,
                 str(domain), str(problem), "--search", search], folder, timeout)


def read_fast_downward(stdout: str):
    """(plan cost, expansions, search CPU seconds) from the driver's output; None without a plan."""
    costs = re.findall(r"Plan cost: ([0-9.]+)", stdout)
    if not costs:
        return None
    expanded = int(re.findall(r"Expanded (\d+) state", stdout)[-1])
    seconds = float(re.findall(r"Search time: ([0-9.]+)s", stdout)[-1])
    return float(costs[-1]), expanded, seconds


def run_fast_downward(folder: Path, search: str):
    run = fast_downward_process(folder, search)
    if run is None or run.returncode != 0:
        return None
    return read_fast_downward(run.stdout)


def run_pyperplan(folder: Path, algorithm: str):
    import logging

    from pyperplan.heuristics.lm_cut import LmCutHeuristic
    from pyperplan.heuristics.relaxation import hMaxHeuristic
    from pyperplan.planner import _ground, _parse
    from pyperplan.search import astar_search, breadth_first_search

    try:
        task = _ground(_parse(str(folder / "domain.pddl"), str(folder / "problem.pddl")))
    except Exception:  # outside pyperplan's STRIPS fragment
        return None
    expanded = []

    class Count(logging.Handler):
        def emit(self, record):
            found = re.match(r"(\d+) Nodes expanded", record.getMessage())
            if found:
                expanded.append(int(found.group(1)))
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    root.handlers, _ = [Count()], root.setLevel(logging.INFO)
    try:
        began = time.process_time()  # CPU, as every side here
        if algorithm == "bfs":
            plan = breadth_first_search(task)
        else:
            plan = astar_search(task, (hMaxHeuristic if algorithm == "astar-hmax" else LmCutHeuristic)(task))
        seconds = time.process_time() - began
    finally:
        root.handlers = saved
        root.setLevel(level)
    return len(plan), (expanded or [0])[-1], seconds


def profile(task) -> list[str]:
    """The three functions with the most own time in our A* + LM-cut, per expansion."""
    from groundplan.planners import solve

    task.applicable(task.initial_state())
    profiler = cProfile.Profile()
    profiler.enable()
    result = solve(task, planner="astar", heuristic="lmcut")
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:3]
    out = []
    for (file, line, name), (_, calls, own, _, _) in rows:
        out.append(f"{name} ({Path(file).name}:{line}): {own / max(result.expanded, 1) * 1e6:.1f} us per expansion, "
                   f"{calls} calls")
    return out


def warm_kernels() -> str:
    """Load the compiled heuristics (kernels.py) now, and say what it cost."""
    from groundplan.engine import Task
    from groundplan.planners.heuristics import kernels, make

    began = time.process_time()
    if kernels.kernels() is None:
        return "compiled kernels: numba is not installed, the Python path is timed"
    saved = os.environ.get("GROUNDPLAN_JIT")
    os.environ["GROUNDPLAN_JIT"] = "1"
    try:
        task = Task.load(str(ROOT / "problems" / "gripper" / "prob01.json"))
        for name in ("lmcut", "hmax"):
            h = make(task, name)
            h.from_bits(h.r.initial_facts(task.initial_state()))
    finally:
        if saved is None:
            os.environ.pop("GROUNDPLAN_JIT")
        else:
            os.environ["GROUNDPLAN_JIT"] = saved
    return f"compiled kernels loaded before timing: {time.process_time() - began:.2f} s CPU, once per process"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--pyperplan-lmcut", action="store_true",
                        help="also time pyperplan's LM-cut (about 5 minutes a run on gripper prob04)")
    parser.add_argument("--ipc", default=str(ROOT.parent / "shared" / "data" / "ipc"))
    parser.add_argument("--ipc-tasks", nargs="*", default=[])
    parser.add_argument("--only", nargs="*", default=None, help="task names to keep")
    parser.add_argument("--configs", nargs="*", default=None, help="searches to keep: bfs, hmax, lmcut")
    parser.add_argument("--no-pyperplan", action="store_true")
    parser.add_argument("--no-jit", action="store_true", help="the pure-Python heuristics (GROUNDPLAN_JIT=0)")
    args = parser.parse_args(argv)
    if args.no_jit:
        os.environ["GROUNDPLAN_JIT"] = "0"
    else:
        print(warm_kernels())
    from groundplan.engine.pddl.writer import export_pddl
    from groundplan.planners.fast_downward import driver

    if driver() is None:
        print("Fast Downward is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    try:
        import pyperplan  # noqa: F401
        have_pyperplan = True
    except ImportError:
        have_pyperplan = False
    have_pyperplan = have_pyperplan and not args.no_pyperplan
    configs = [c for c in CONFIGS if args.configs is None or (c[1] or c[0]) in args.configs]
    chosen = [(n, t, None) for n, t in tasks() if args.only is None or n in args.only]
    chosen += ipc_tasks(Path(args.ipc), args.ipc_tasks)
    print(f"{'task':30} {'search':12} {'cost':>6} {'gp exp':>8} {'gp exp/s':>10} {'fd exp':>8} {'fd exp/s':>10} "
          f"{'pp exp/s':>10} {'gp/fd':>7}")
    ratios: dict[str, list] = {}
    for name, task, files in chosen:
        with tempfile.TemporaryDirectory() as work:
            folder = Path(work)
            if files is None:
                export = export_pddl(task.problem)
                (folder / "domain.pddl").write_text(export.domain)
                (folder / "problem.pddl").write_text(export.problem)
            else:
                (folder / "domain.pddl").write_text(files[0].read_text())
                (folder / "problem.pddl").write_text(files[1].read_text())
            for planner, heuristic, search, pp_name in configs:
                ours, theirs, pp = [], [], []
                for _ in range(args.repeats):
                    ours.append(run_ours(task, planner, heuristic))
                    theirs.append(run_fast_downward(folder, search))
                    if have_pyperplan and (pp_name != "astar-lmcut" or args.pyperplan_lmcut):
                        pp.append(run_pyperplan(folder, pp_name))
                label = f"{planner}-{heuristic}" if heuristic else planner
                if theirs[0] is None:
                    print(f"{name:30} {label:12} Fast Downward refused {search}")
                    continue
                assert abs(theirs[0][0] - ours[0][0]) < 1e-9, f"{name} {label}: Fast Downward {theirs[0][0]}, ours {ours[0][0]}"
                g_rate = statistics.median(e / max(s, 1e-9) for _, e, s in ours)
                f_rate = statistics.median(e / max(s, 1e-4) for _, e, s in theirs)
                p_rate = statistics.median(e / max(s, 1e-9) for _, e, s in pp) if pp and pp[0] else float("nan")
                ratio = g_rate / f_rate
                ratios.setdefault(label, []).append(ratio)
                print(f"{name:30} {label:12} {ours[0][0]:>6g} {ours[0][1]:>8} {g_rate:>10.0f} {theirs[0][1]:>8} {f_rate:>10.0f} "
                      f"{p_rate:>10.0f} {ratio:>7.3f}", flush=True)
    for label, values in ratios.items():
        print(f"median ratio groundplan / Fast Downward, {label}: {statistics.median(values):.3f}")
    if args.profile:
        task = next(t for n, t in tasks() if n == "gripper/prob04")
        print("largest costs per expansion, our A* + LM-cut on gripper prob04:")
        for line in profile(task):
            print("  " + line)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
