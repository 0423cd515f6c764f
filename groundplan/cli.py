"""The `groundplan` command: validate, show, actions, play, check, plan, new, view, import-pddl,
export-pddl.

It sits above every layer (the engine's checks, the planners' `plan`, the viewer of plan-eval's
runs), so that the engine imports nothing above it; what the commands share with plan-eval (errors
and exit codes, --json, resource limits) is the engine's `groundplan.engine.command`.
"""
from __future__ import annotations

import json
import sys

import click

from groundplan.engine.command import EXIT_INVALID, EXIT_USAGE, Group, fail, handles_errors, with_limits
from groundplan.engine.errors import GroundplanError, ModelError


def _load_task(problem: str):
    from groundplan.engine.task import Task

    return Task.load(problem)


def _replay(task, plan_path, as_json: bool = False):
    from groundplan.engine.validate import read_plan, validate_plan

    state = task.initial_state()
    if plan_path:
        result = validate_plan(task, read_plan(plan_path), require_goal=False)
        if not result.valid:
            fail(f"{plan_path}: {result.message()}", EXIT_INVALID, as_json)
        state = result.final_state
    return state


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="groundplan")
def main():
    """groundplan: planning worlds as data, one interpreter, exact oracles."""


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("plan", required=False, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handles_errors
@with_limits
def validate(file, plan, as_json):
    """Check a domain or problem file (a problem's stored reference plan and costs too, an
    optimum stored without a plan re-proven by a quick search, and the answer keys its world
    checks), and optionally a PLAN for that problem. Likely mistakes that still load print as
    warnings."""
    from groundplan.engine.files import read_data
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.task import Task
    from groundplan.engine.validate import check_initial_invariants, check_references, read_plan, validate_plan
    from pathlib import Path

    from groundplan.engine import catalog, problemsets

    file = catalog.locate(file) or file  # a shipped problem by name: ppnl/single_5x5#3
    if problemsets.is_set_reference(file):  # one problem of a problem set: FILE.jsonl#NAME
        data, shown = problemsets.read_problem(file)
        origin = Path(problemsets.split_reference(file)[0])
    else:
        data, shown, origin = read_data(file), file, Path(file)  # unreadable input: exit 2 through handles_errors
    is_problem = isinstance(data, dict) and "domain" in data
    if is_problem:  # read, and wrong: exit 1 through handles_errors
        task = Task(build_problem(data, shown, origin))
        wrong = check_initial_invariants(task) + check_references(task)
        if wrong:
            raise ModelError(wrong)
        warnings = task.problem.domain.warnings + task.problem.warnings + _stored_optimum_warnings(task)
    else:
        warnings = load_domain(file).warnings
    if not as_json:  # on stderr: the verdict on stdout stays one line
        for w in warnings:
            click.echo(f"warning: {w}", err=True)
    if plan is None:
        kind = "problem" if is_problem else "domain"
        if as_json:
            click.echo(json.dumps({"valid": True, "kind": kind, "warnings": [w.to_json() for w in warnings]}))
        else:
            click.echo(f"{file}: valid {kind}")
        return
    if not is_problem:
        fail("a plan is validated against a problem, not a domain", EXIT_USAGE, as_json)
    result = validate_plan(task, read_plan(plan))
    if as_json:
        click.echo(json.dumps({**result.to_json(), **({"warnings": [w.to_json() for w in warnings]} if warnings else {})}))
    else:
        click.echo(result.message())
    sys.exit(0 if result.valid else EXIT_INVALID)


def _stored_optimum_warnings(task) -> list:
    """An optimum stored without a plan, re-proven by a quick optimal search (planners.reference):
    an error when the search disproves it, a warning when it could not confirm it in time."""
    from groundplan.planners.reference import UNVERIFIED, reprove_or_refuse

    from groundplan.engine.errors import Diagnostic

    verdict = reprove_or_refuse(task)
    if verdict is None or verdict.status != UNVERIFIED:
        return []
    return [Diagnostic(task.problem.file, "/optimal/cost", verdict.message,
                       "store the plan (groundplan plan FILE --store), or scores against it are marked unverified")]


@main.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["narrative", "structured", "json", "observation"]), default="narrative")
@click.option("--after", "plan", type=click.Path(dir_okay=False), help="Show the state after this plan prefix.")
@handles_errors
@with_limits
def show(problem, fmt, plan):
    """Render a problem's state as text."""
    from groundplan.engine.render import render

    task = _load_task(problem)
    state = _replay(task, plan)
    click.echo(render(task, state, fmt))
    if fmt not in ("json", "observation") and task.problem.goal_text:
        click.echo(f"\nGoal: {task.problem.goal_text}")


@main.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--after", "plan", type=click.Path(dir_okay=False), help="List the actions after this plan prefix.")
@click.option("--json", "as_json", is_flag=True)
@handles_errors
@with_limits
def actions(problem, plan, as_json):
    """List the actions applicable in the initial state (or after a plan prefix)."""
    task = _load_task(problem)
    state = _replay(task, plan, as_json)
    if not as_json:  # texts only: listed in the state where the actions are too many to ground (Plancraft)
        for text in task.applicable_texts(state):
            click.echo(text)
        return
    found = task.applicable(state)
    click.echo(json.dumps([{"text": a.text, "name": a.name, "action": a.schema.name, "args": list(a.args)} for a in found]))


@main.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["narrative", "structured"]), default="narrative")
@handles_errors
def play(problem, fmt):
    """Step through a problem in the terminal: type an action's number or text; 'q' quits."""
    from groundplan.engine.render import render

    task = _load_task(problem)
    state = task.initial_state()
    steps = 0
    while True:
        click.echo("\n" + render(task, state, fmt))
        if task.problem.goal_text:
            click.echo(f"Goal: {task.problem.goal_text}")
        if task.is_goal(state):
            click.echo(f"\nGoal reached in {steps} steps.")
            return
        options = task.applicable_texts(state)
        click.echo("\nActions:")
        for i, text in enumerate(options, 1):
            click.echo(f"  {i}. {text}")
        try:
            answer = click.prompt("action", default="", show_default=False).strip()
        except (click.Abort, EOFError):
            click.echo("\nbye")
            return
        if answer.lower() in ("q", "quit", "exit"):
            return
        try:
            chosen = options[int(answer) - 1] if answer.isdigit() and 0 < int(answer) <= len(options) else answer
            action = task.parse_action(chosen, state)
        except GroundplanError as exc:
            click.echo(f"! {exc}")
            continue
        result = task.step(state, action)
        if result.message:
            click.echo(f"! {result.message}")
        if result.counted:
            steps += 1
        state = result.state


@main.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--examples", default=100, show_default=True, help="Random walks to try.")
@click.option("--max-steps", default=20, show_default=True, help="Longest walk.")
@click.option("--seed", default=0, show_default=True)
@click.option("--progress/--no-progress", default=None,
              help="A progress line on stderr (default: when stderr is a terminal).")
@handles_errors
@with_limits
def check(problem, examples, max_steps, seed, progress):
    """Drive random walks and check invariants and the engine's laws; print a shrunk counterexample."""
    from groundplan.engine.progress import Counter
    from groundplan.engine.render import render
    from groundplan.engine.testing import BRUTE_FORCE_LIMIT, check_task

    task = _load_task(problem)
    counter = Counter(examples) if progress or (progress is None and sys.stderr.isatty()) else None

    def show(walks, steps, shrinking):
        if shrinking:
            counter.show(walks, f"check: law violated, shrinking the walk: {walks} walks tried")
        else:
            rate = walks / max(counter.elapsed(), 1e-6)
            counter.show(walks, f"check: {walks}/{examples} walks, {steps} steps, {rate:.0f} walks/s")

    report = check_task(task, examples=examples, max_steps=max_steps, seed=seed, progress=show if counter else None)
    if counter:
        counter.finish(f"check: {report.walks} walks, {report.steps} steps in {counter.elapsed():.1f} s")
    if report.ok:
        click.echo(f"{problem}: {examples} random walks of up to {max_steps} steps, all laws and invariants hold")
        if not report.brute_forced:
            click.echo(f"  (more than {BRUTE_FORCE_LIMIT:,} possible actions: the applicable actions were not "
                       "compared with every precondition in each state)")
        return
    click.echo(f"{problem}: law violated; shrunk counterexample:", err=True)
    for i, a in enumerate(report.walk.actions, 1):
        click.echo(f"  {i}. {a.text}", err=True)
    for v in report.violations:
        click.echo(f"  - {v}", err=True)
    click.echo("failing state:\n" + render(task, report.walk.states[-1]), err=True)
    sys.exit(EXIT_INVALID)


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []})
@click.argument("world")
@click.pass_context
@handles_errors
def generate(ctx, world):
    """Run a world's problem generator: groundplan generate WORLD [its options] (--help for them)."""
    import importlib

    from groundplan.engine.loader import shipped_domains

    if world not in shipped_domains():
        fail(f"unknown world '{world}' (worlds: {', '.join(shipped_domains())})", EXIT_USAGE)
    try:
        module = importlib.import_module(f"groundplan.domains.{world}.generate")
    except ModuleNotFoundError:
        fail(f"the world '{world}' has no generator", EXIT_USAGE)
    sys.exit(module.main(list(ctx.args)))


@main.command()
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("plan", required=False, type=click.Path(dir_okay=False))
@click.option("--port", default=0, show_default="a free one", help="The loopback port to serve on.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), help="Write one self-contained HTML file instead of serving.")
@click.option("--togo-time", default=0.5, show_default=True, help="Seconds per steps-to-go search, at most 3 s in all (0: none).")
@click.option("--open/--no-open", "open_browser", default=True, help="Open the page in the browser.")
@handles_errors
def view(problem, plan, port, html_file, togo_time, open_browser):
    """See a problem and a plan (default: its stored optimal plan) step by step in the browser."""
    from groundplan.evals.cli import _show  # the viewer lives with plan-eval's (evals/view/); the CLI only reaches it
    from groundplan.evals.view import problem_runs

    _show(problem_runs(problem, plan, togo_time), None, port, html_file, open_browser)


@main.command()
def sets():
    """List the shipped problem sets by name, with their worlds and sizes: a name (kitchen/async,
    ppnl/single_5x5#3) works wherever a problem path does, from any folder."""
    from groundplan.engine.catalog import sets_table

    click.echo(sets_table())


@main.command(name="import-pddl")
@click.argument("domain", type=click.Path(dir_okay=False))
@click.argument("problems", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for domain.json and one JSON per problem.")
@handles_errors
def import_pddl_command(domain, problems, out):
    """Import a PDDL domain and problems (PDDL 2.1 level 1, derived predicates, action costs)."""
    from pathlib import Path

    from groundplan.engine.layout import dumps_problem
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.pddl.reader import import_pddl
    from groundplan.engine.files import read_file_text

    for path in (domain, *problems):
        read_file_text(path)  # a missing file, a FIFO or a huge file: the usual clear refusal
    ours, converted = import_pddl(domain, problems)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    loaded = load_domain(ours)  # what we write must load: checked before writing
    (folder / "domain.json").write_text(json.dumps(ours, indent=1) + "\n")
    click.echo(f"{folder / 'domain.json'}: {len(ours['actions'])} actions, {len(ours['predicates'])} predicates")
    for source, data in zip(problems, converted):
        target = folder / (Path(source).stem + ".json")
        build_problem(data, str(target), None, domain=loaded)
        target.write_text(dumps_problem(data))
        click.echo(f"{target}: {len(data['objects'])} objects, {len(data['init'])} facts")


@main.command(name="export-pddl")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for domain.pddl and <problem>.pddl.")
@click.option("--classical", is_flag=True,
              help="For planners without numbers or axioms (Fast Downward): numeric fluents as value facts, "
                   "a quantified goal as a goal action.")
@handles_errors
@with_limits
def export_pddl_command(problem, out, classical):
    """Write a problem and its domain as PDDL, or say which construct PDDL cannot express.

    Timers are compiled into a queue of slots ticked by bookkeeping actions of cost 0
    (docs/language.md, "Lowering"); a plan's bookkeeping steps have no counterpart here."""
    from pathlib import Path

    from groundplan.engine.pddl.writer import export_pddl

    task = _load_task(problem)
    export = export_pddl(task.problem, classical=classical)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "domain.pddl").write_text(export.domain)
    target = folder / (Path(problem).stem + ".pddl")
    target.write_text(export.problem)
    for note in export.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"{folder / 'domain.pddl'}\n{target}")


try:  # planners register `groundplan plan` when present
    from groundplan.planners.cli import plan as _plan_command

    main.add_command(_plan_command)
except ImportError:  # pragma: no cover - a partial checkout
    pass


if __name__ == "__main__":
    main()
