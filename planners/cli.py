"""`groundplan plan`: solve a problem with one of the planners and print the plan or JSON."""
from __future__ import annotations

import json
import sys

import click

from engine.cli import handles_errors

from . import PLANNERS


@click.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--planner", type=click.Choice(PLANNERS), default="auto", show_default=True)
@click.option("--heuristic", default=None, help="blind, goal-count, hmax, hadd, hff or a heuristic the domain declares.")
@click.option("--weight", default=2.0, show_default=True, help="Weight for wastar.")
@click.option("--time-limit", type=float, default=None, help="Seconds.")
@click.option("--memory-limit", type=float, default=None, help="MB above the start-up footprint.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--store", is_flag=True, help="Write the result into the problem file's 'optimal' entry.")
@click.option("--symmetry/--no-symmetry", default=True, show_default=True,
              help="Merge states that differ only by renaming interchangeable objects.")
@handles_errors
def plan(problem, planner, heuristic, weight, time_limit, memory_limit, as_json, store, symmetry):
    """Compute a plan; optimal planners prove their cost (status solved-optimal)."""
    from engine.task import Task

    from . import solve

    task = Task.load(problem)
    result = solve(task, planner=planner, heuristic=heuristic, weight=weight, time_limit=time_limit,
                   memory_limit=memory_limit, symmetry=symmetry)
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
        click.echo(f"expanded {result.expanded}, generated {result.generated}, {result.seconds:.3f} s")
    sys.exit(0 if result.solved or result.status == "unsolvable-proven" else 1)


def store_result(path: str, result) -> None:
    """Record a proven optimum (or the best known bound) in the problem file, keeping its layout.

    A proven optimum is never replaced by a weaker entry; a lower bound never lowers one found before."""
    from pathlib import Path

    file = Path(path)
    data = json.loads(file.read_text())
    old = data.get("optimal") or {}
    if result.status == "solved-optimal":
        method = f"{result.planner}" + (f" + {result.heuristic}" if result.heuristic else "")
        data["optimal"] = {"cost": result.to_json()["cost"], "method": method, "plan": result.plan}
    elif result.status == "unsolvable-proven":
        data["optimal"] = {"cost": None, "method": result.planner, "solvable": False}
    elif old.get("method") and old.get("cost") is not None and "lower_bound" not in old:
        return  # already proven
    elif result.lower_bound is not None:
        bound = max(result.lower_bound, old.get("lower_bound", 0))
        data["optimal"] = {**old, "cost": old.get("cost"), "method": old.get("method", "unproven"), "lower_bound": bound}
    else:
        return
    temporary = file.with_name(file.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    temporary.replace(file)  # atomic: a run killed mid-write leaves the old file whole
