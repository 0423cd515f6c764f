"""`groundplan plan`: solve a problem with one of the planners and print the plan or JSON."""
from __future__ import annotations

import json
import sys

import click

from groundplan.engine.command import handles_errors

from . import PLANNERS
from .heuristics import ADMISSIBLE, NAMES as HEURISTICS


def _heuristic_help() -> str:
    """The --heuristic help, built from the heuristic registry so a new heuristic cannot be left out."""
    plain = [name for name in HEURISTICS if not name.startswith("max(")]
    example = next((name for name in HEURISTICS if name.startswith("max(")), "max(hmax,lmcut)")
    return (f"{', '.join(plain)}, the maximum of several such as {example}, or a heuristic the domain declares "
            f"(admissible: {', '.join(ADMISSIBLE)}).")


@click.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--planner", type=click.Choice(PLANNERS), default="auto", show_default=True)
@click.option("--heuristic", default=None, help=_heuristic_help())
@click.option("--fd-search", default=None, metavar="CONFIG",
              help="With --planner fd: Fast Downward's search, e.g. 'astar(lmcut())' (the default) or 'lazy_greedy([ff()])'.")
@click.option("--weight", default=2.0, show_default=True, help="Weight for wastar.")
@click.option("--time-limit", type=float, default=None, help="Seconds.")
@click.option("--memory-limit", type=float, default=None, help="MB above the start-up footprint.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--store", is_flag=True, help="Write the result into the problem file's 'optimal' entry.")
@click.option("--symmetry/--no-symmetry", default=True, show_default=True,
              help="Merge states that differ only by renaming interchangeable objects.")
@click.option("--polish", type=float, default=None, metavar="SECONDS",
              help="Then re-optimise a satisficing plan window by window for up to SECONDS (unit costs).")
@handles_errors
def plan(problem, planner, heuristic, weight, time_limit, memory_limit, as_json, store, symmetry, polish, fd_search=None):
    """Compute a plan; optimal planners prove their cost (status solved-optimal)."""
    import time

    from groundplan.engine.command import EXIT_USAGE, fail as _fail
    if fd_search is not None:
        if planner != "fd":
            _fail("error: --fd-search needs --planner fd", EXIT_USAGE, as_json)
        heuristic = fd_search

    from groundplan.engine.budget import alarm, cap_address_space
    from groundplan.engine.errors import ResourceLimit
    from groundplan.engine.task import Task

    from . import PlanResult, solve

    began, cpu_began = time.perf_counter(), time.process_time()
    cap_address_space(memory_limit)  # loading is bounded too: a JSON parse cannot poll a budget
    try:
        with alarm(time_limit):  # the limits cover loading and grounding, not only the search
            task = Task.load(problem)
            left = None if time_limit is None else max(time_limit - (time.perf_counter() - began), 1e-3)
            result = solve(task, planner=planner, heuristic=heuristic, weight=weight, time_limit=left,
                           memory_limit=memory_limit, symmetry=symmetry)
    except (ResourceLimit, MemoryError) as exc:
        status = exc.status if isinstance(exc, ResourceLimit) else "memout"
        reason = str(exc) if isinstance(exc, ResourceLimit) else "out of memory while loading the problem"
        result = PlanResult(status, planner, seconds=time.perf_counter() - began, cpu_seconds=time.process_time() - cpu_began,
                            reason=f"stopped while loading: {reason}")
        task = None
        store = polish = None
    if polish:
        from .improve.windows import polish as polish_plan

        result = polish_plan(task, result, polish)
    if store:
        store_result(problem, result)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        click.echo(f"status: {result.status}" + (f" ({result.reason})" if result.reason else ""))
        if result.solved:
            for i, step in enumerate(result.plan, 1):
                click.echo(f"{i:3d}. {step}")
            click.echo(f"cost: {result.to_json()['cost']}")
        cpu = "" if result.cpu_seconds is None else f" ({result.cpu_seconds:.3f} s CPU)"
        click.echo(f"expanded {result.expanded}, generated {result.generated}, {result.seconds:.3f} s{cpu}")
    sys.exit(0 if result.solved or result.status == "unsolvable-proven" else 1)


def store_result(path: str, result) -> None:
    """Merge a planner's result into the problem file's 'optimal' entry, keeping its layout.

    A proven optimum is final. Otherwise the entry keeps the best plan found so far (its cost as
    `upper_bound`) and the highest proven `lower_bound`; when the two meet, the optimum is proven."""
    from pathlib import Path

    from groundplan.engine import problemsets

    in_set = problemsets.is_set_reference(path)
    file = Path(path)
    data = problemsets.read_problem(path)[0] if in_set else json.loads(file.read_text())
    old = dict(data.get("optimal") or {})
    if old.get("cost") is not None and "lower_bound" not in old and "upper_bound" not in old:
        return  # already proven
    cost = result.to_json()["cost"]
    method = f"{result.planner}" + (f" + {result.heuristic}" if result.heuristic else "")
    if result.status == "solved-optimal":
        entry = {"cost": cost, "method": method, "plan": result.plan}
    elif result.status == "unsolvable-proven":
        entry = {"cost": None, "method": method, "solvable": False}
    else:
        entry = {"cost": None, "method": old.get("method", "unproven")}
        upper, plan = old.get("upper_bound"), old.get("plan")
        if result.status == "solved-satisficing" and (upper is None or cost < upper):
            upper, plan = cost, result.plan
        lower = max(x for x in (old.get("lower_bound"), result.lower_bound, 0) if x is not None)
        if isinstance(lower, float) and lower.is_integer():
            lower = int(lower)  # 28, not 28.0: step counts are integers wherever the bound is
        lower_method = old.get("lower_bound_method")
        if result.lower_bound is not None and result.lower_bound > (old.get("lower_bound") or 0):
            lower_method = method
        if upper is not None and lower >= upper:  # the best plan meets the proven bound
            proof = f" by {method}" if result.lower_bound is not None and result.lower_bound >= upper else ""
            entry = {"cost": upper, "method": f"plan of cost {upper} meets the lower bound proven{proof}", "plan": plan}
        else:
            if plan is not None:
                entry.update(upper_bound=upper, plan=plan)
            if lower:
                entry["lower_bound"] = lower
                if lower_method:
                    entry["lower_bound_method"] = lower_method
            if "upper_bound" not in entry and "lower_bound" not in entry:
                return
            if plan is not None and plan is result.plan:
                entry["method"] = f"unproven; best plan by {method}"
            elif plan is not None:
                entry["method"] = old.get("method", "unproven")
    data["optimal"] = entry
    if in_set:
        problemsets.replace_problem(path, data)
        return
    temporary = file.with_name(file.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    temporary.replace(file)  # atomic: a run killed mid-write leaves the old file whole
