"""Fast Downward as a planner over our problems: export, run, map the plan back, replay it.

Fast Downward is the bar this engine measures itself against and an independent check of its
optima, so its answer is never taken on trust: the plan it writes is read back through the
export's name maps, parsed as our actions and replayed by the interpreter, whose cost is the
one reported. `solved-optimal` is claimed only for A* with an admissible heuristic (Fast
Downward's own proof) on an export that is exact (the writer refuses what it cannot say).

The binary comes with the optional extra `fd` (`pip install 'groundplan[fd]'`, the
`up-fast-downward` package); nothing is downloaded at run time.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .result import MEMOUT, SOLVED_OPTIMAL, SOLVED_SATISFICING, TIMEOUT, UNSOLVABLE_PROVEN, UNSUPPORTED, PlanResult

DEFAULT_SEARCH = "astar(lmcut())"
AXIOM_SEARCH = "astar(blind())"  # the default when the export has axioms: LM-cut refuses them (h_max is unsafe with them)
CONDITIONAL_SEARCH = "astar(hmax())"  # the default with conditional effects, which LM-cut refuses
# what may appear inside an A* whose result is optimal: Fast Downward's admissible heuristics and
# the pieces they are built from; anything else (or another search) is reported as satisficing
ADMISSIBLE = ("blind", "hmax", "lmcut", "ipdb", "cpdbs", "pdb", "cegar", "merge_and_shrink", "hm", "zopdbs", "max",
              "operatorcounting", "lmcut_constraints", "pho_constraints", "state_equation_constraints",
              "landmark_cost_partitioning", "lm_rhw", "lm_hm", "lm_exhaust", "lm_merged", "systematic", "combo")
# the driver's exit codes (its driver/returncodes.py) in our status vocabulary
PLAN_FOUND_CODES = (0, 1, 2, 3)  # 1-3: a plan, then out of memory or time (anytime searches)
UNSOLVABLE_CODES = (10, 11)  # translate / search proved it unsolvable
INCOMPLETE_CODE = 12  # an incomplete search ended without a plan
MEMOUT_CODES = (20, 22, 24)
TIMEOUT_CODES = (21, 23)


def driver() -> Path | None:
    """The `fast-downward.py` driver of the installed `up-fast-downward` package, if any."""
    import importlib.util

    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "downward" / "fast-downward.py"
    return path if path.exists() else None


def is_admissible(search: str) -> bool:
    """Whether Fast Downward's search proves optimality: A* over admissible parts only."""
    text = search.replace(" ", "")
    if "=" in text:  # an option (cost_type=one, bound=...) may change what is minimised: not vouched for
        return False
    names = re.findall(r"([a-z_]+)\(", text)
    return len(names) > 1 and names[0] == "astar" and all(n in ADMISSIBLE for n in names[1:])


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its finished children (Fast Downward runs in one)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def plan_with_fast_downward(task, search: str = DEFAULT_SEARCH, time_limit: float | None = None,
                            memory_limit: float | None = None) -> PlanResult:
    """Run Fast Downward on the task's export; a PlanResult in our vocabulary, the plan replayed,
    its `cpu_seconds` Fast Downward's CPU time (translator and search) plus ours."""
    cpu_began = _cpu_with_children()
    result = _plan_with_fast_downward(task, search, time_limit, memory_limit)
    result.cpu_seconds = _cpu_with_children() - cpu_began
    return result


def _plan_with_fast_downward(task, search: str, time_limit: float | None, memory_limit: float | None) -> PlanResult:
    from groundplan.engine.pddl.writer import ExportError, export_pddl
    from groundplan.engine.validate import validate_plan

    began = time.perf_counter()
    name = "fd"
    path = driver()
    if path is None:
        return PlanResult(UNSUPPORTED, name, heuristic=search, reason="Fast Downward is not installed: pip install 'groundplan[fd]'")
    try:
        export = export_pddl(task.problem, classical=True)
    except ExportError as exc:
        return PlanResult(UNSUPPORTED, name, heuristic=search, reason=str(exc))
    if export.cost_expressions:
        return PlanResult(UNSUPPORTED, name, heuristic=search,
                          reason="Fast Downward reads an action cost only as a number or a function term")
    if export.numeric:
        return PlanResult(UNSUPPORTED, name, heuristic=search,
                          reason=f"Fast Downward plans with no numeric fluents besides action costs ({', '.join(export.numeric)})")
    if search == DEFAULT_SEARCH:  # LM-cut refuses axioms (which the translator also makes of
        if export.axioms:        # quantified or disjunctive conditions) and conditional effects
            search = AXIOM_SEARCH
        elif export.conditional:
            search = CONDITIONAL_SEARCH
    with tempfile.TemporaryDirectory(prefix="groundplan-fd-") as work:
        folder = Path(work)
        (folder / "domain.pddl").write_text(export.domain)
        (folder / "problem.pddl").write_text(export.problem)
        command = [sys.executable, str(path), "--plan-file", "plan", "--sas-file", "output.sas"]
        if time_limit:  # Fast Downward stops itself a little before our budget does, so its last f layer is read
            left = time_limit - (time.perf_counter() - began)
            command += ["--overall-time-limit", f"{max(1, int(left - min(5.0, 0.05 * left)))}s"]
        if memory_limit:
            command += ["--overall-memory-limit", f"{int(memory_limit)}M"]
        command += ["domain.pddl", "problem.pddl", "--search", search]
        run = _run(command, folder, (time_limit + 30) if time_limit else None)
        if run is None:
            return PlanResult(TIMEOUT, name, seconds=time.perf_counter() - began, reason="Fast Downward did not stop in time")
        seconds = time.perf_counter() - began
        expanded = _last_int(run.stdout, r"Expanded (\d+) state")
        generated = _last_int(run.stdout, r"Generated (\d+) state")
        code = run.returncode
        if code in UNSOLVABLE_CODES:
            return PlanResult(UNSOLVABLE_PROVEN, name, expanded=expanded, generated=generated, seconds=seconds,
                              reason="Fast Downward proved that no plan exists")
        if code in MEMOUT_CODES:
            return PlanResult(MEMOUT, name, expanded=expanded, seconds=seconds, heuristic=search,
                              lower_bound=_proven_bound(run.stdout, search), reason="Fast Downward ran out of memory")
        plan_file = folder / "plan"
        if code in TIMEOUT_CODES or (code in PLAN_FOUND_CODES[1:] and not plan_file.exists()):
            return PlanResult(TIMEOUT, name, expanded=expanded, seconds=seconds, heuristic=search,
                              lower_bound=_proven_bound(run.stdout, search), reason="Fast Downward ran out of time")

        if code == INCOMPLETE_CODE:
            return PlanResult(UNSUPPORTED, name, expanded=expanded, seconds=seconds,
                              reason="Fast Downward's search is incomplete and ended without a plan")
        if code not in PLAN_FOUND_CODES or not plan_file.exists():
            tail = (run.stderr.strip() or run.stdout.strip()).splitlines()[-3:]
            return PlanResult(UNSUPPORTED, name, seconds=seconds,
                              reason=f"Fast Downward exited with code {code}: {' / '.join(tail)}")
        lines = [ln for ln in plan_file.read_text().splitlines() if ln.strip() and not ln.startswith(";")]
    texts = export.plan_texts(lines)
    check = validate_plan(task, texts)
    if not check.valid:  # the two semantics disagree: a bug on one side, never a plan to hand out
        return PlanResult(UNSUPPORTED, name, seconds=seconds,
                          reason=f"Fast Downward's plan does not replay in groundplan: {check.message()}")
    actions = task.parse_plan(texts)
    optimal = is_admissible(search) and code == 0
    return PlanResult(SOLVED_OPTIMAL if optimal else SOLVED_SATISFICING, name, plan=[a.text for a in actions],
                      actions=actions, cost=check.cost, expanded=expanded, generated=generated, seconds=seconds,
                      lower_bound=check.cost if optimal else None, heuristic=search,
                      reason="" if optimal else "the search configuration is not admissible A*")


def _proven_bound(stdout: str, search: str) -> float | None:
    """What an interrupted A* over an admissible heuristic has proven: every state with a
    smaller f was expanded, so no plan is cheaper than the last f layer it reported ("f = 31")."""
    if not is_admissible(search):
        return None
    layers = re.findall(r"\bf = (\d+)", stdout)
    if layers:
        return float(layers[-1])
    start = re.findall(r"Initial heuristic value for [^:]*: (\d+)", stdout)
    return float(start[-1]) if start else None


def _run(command, folder, timeout):
    """The driver, in a session of its own so that a time-out ends its search process too."""
    import signal

    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    except BaseException:  # an alarm or Ctrl-C: no orphaned search left running
        os.killpg(process.pid, signal.SIGKILL)
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _last_int(text: str, pattern: str) -> int:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0
