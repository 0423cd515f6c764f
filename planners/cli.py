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
@handles_errors
def plan(problem, planner, heuristic, weight, time_limit, memory_limit, as_json):
    """Compute a plan; optimal planners prove their cost (status solved-optimal)."""
    from engine.task import Task

    from . import solve

    task = Task.load(problem)
    result = solve(task, planner=planner, heuristic=heuristic, weight=weight, time_limit=time_limit,
                   memory_limit=memory_limit)
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
