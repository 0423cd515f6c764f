"""`plan-eval suite`: run a paper's protocol (a suite, `evals/suites/NAME.yaml`) with one command.

    plan-eval suite --list                                   # the suites, what each runs and costs
    plan-eval suite ppnl --show                              # its parts, sets, settings, episodes, requests
    plan-eval suite all --model openai/gpt-4o-mini --out runs/all
    plan-eval suite all --model openai/gpt-4o-mini --out runs/all --resume   # after a stop
    plan-eval suite robotouille --model M --limit 2          # two problems of every part: a quick try

Each part is an ordinary plan-eval run (`evals.cli.run`, the same machinery, options and exit
codes) in `OUT/PART`, whose manifest says `"suite": {"name", "hash", "part", "subset"}`; `OUT/suite.json`
names the parts, and `OUT/paper.md` holds the paper's table with the published rows beside the
run's (`evals.suites.paper_table`). The protocol's own settings (strategy, temperature, step cap,
budget, samples) come from the suite and are not options here; a subset (`--limit`, `--sample`,
`--part`) is allowed and recorded as such.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from groundplan.engine.command import handles_errors


def _list(ctx, _param, value):
    if value and not ctx.resilient_parsing:
        from . import list_table

        click.echo(list_table())
        ctx.exit(0)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, is_eager=True, expose_value=False, callback=_list,
              help="List the shipped suites with their parts, episodes and expected requests, and exit.")
@click.option("--show", is_flag=True, help="Say what the suite runs (parts, sets, settings, episodes, expected requests) and exit.")
@click.option("--model", help="litellm model string, e.g. openai/gpt-4o-mini.")
@click.option("--api-base", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, ...).")
@click.option("--out", type=click.Path(file_okay=False), help="The suite's run folder (default: runs/suite-NAME-DATE-TIME); "
                                                              "one plan-eval run folder per part inside it.")
@click.option("--resume", is_flag=True, help="Continue the suite run in --out: finished episodes of every part are kept.")
@click.option("--part", "parts", multiple=True, help="Run only this part (repeat for several); recorded as a subset.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N problems of each part (a subset, recorded).")
@click.option("--sample", "sample_n", type=click.IntRange(min=1), default=None, metavar="N",
              help="N problems of each part, chosen as plan-eval --sample chooses them (a subset, recorded).")
@click.option("--sample-seed", type=int, default=0, show_default=True, help="The seed of --sample.")
@click.option("--seed", type=int, default=0, show_default=True, help="The run's seed (each episode's is drawn from it), as plan-eval's.")
@click.option("--llm-timeout", type=click.FloatRange(min=0, min_open=True), default=None, help="As plan-eval's.")
@click.option("--llm-retries", type=click.IntRange(0), default=None, help="As plan-eval's.")
@click.option("--cache", "cache_mode", type=click.Choice(("on", "off", "read", "write", "refresh")), default=None, help="As plan-eval's.")
@click.option("--llm-seed/--no-llm-seed", default=None, help="As plan-eval's.")
@click.option("--workers", type=click.IntRange(1, 256), default=None, help="As plan-eval's.")
@click.option("--concurrency", type=click.IntRange(1, 256), default=None, help="As plan-eval's.")
@click.option("--backend", type=click.Choice(("local", "ray")), default=None, help="As plan-eval's.")
@click.option("--ray-address", metavar="ADDRESS", help="As plan-eval's.")
@click.option("--episode-time", type=float, help="As plan-eval's.")
@click.option("--episode-memory", type=click.FloatRange(min=1), metavar="MB", help="As plan-eval's.")
@click.option("--steps-to-go-time", type=float, default=None, help="As plan-eval's (default 10; 0: skip).")
@click.option("--observations/--no-observations", default=None, help="As plan-eval's.")
@handles_errors
def suite(name, show, model, api_base, out, resume, parts, limit, sample_n, sample_seed, seed, llm_timeout, llm_retries,
          cache_mode, llm_seed, workers, concurrency, backend, ray_address, episode_time, episode_memory, steps_to_go_time,
          observations):
    """Run the suite NAME (a paper's protocol, evals/suites/NAME.yaml) with --model, or --show it; --list lists them."""
    from groundplan.engine.errors import GroundplanError

    from . import load, manifest_entry, paper_table, plan

    if not name:
        raise GroundplanError("name a suite (plan-eval suite --list lists them), e.g. plan-eval suite all --model M")
    loaded = load(name)
    planned = plan(loaded, limit=limit, sample=sample_n, sample_seed=sample_seed, only=tuple(parts))
    if show:
        from . import show as describe

        click.echo(describe(planned))
        return
    if not model:
        raise GroundplanError("a suite runs an LLM: give --model (a litellm model string, e.g. openai/gpt-4o-mini), or --show to see it")
    if resume and not out:
        raise GroundplanError("--resume continues the suite run in --out DIR: give the folder of the interrupted run")
    folder = Path(out) if out else _new_folder(loaded.name)
    info_path = folder / "suite.json"
    if info_path.exists():
        try:
            old = json.loads(info_path.read_text())
        except (OSError, ValueError):
            old = {}
        if old.get("hash") != loaded.hash:
            raise GroundplanError(f"{folder} holds a run of another suite or version ({old.get('name')}, hash "
                                  f"{str(old.get('hash'))[:16]}); this is {loaded.name}, hash {loaded.hash[:16]}: choose another --out")
    from groundplan.evals.store import write_json

    folder.mkdir(parents=True, exist_ok=True)
    write_json(info_path, {"name": loaded.name, "version": loaded.data["version"], "hash": loaded.hash,
                           "parts": [p.name for p in planned.parts], "subset": planned.subset or None})
    passed = _passed(api_base=api_base, seed=seed, llm_timeout=llm_timeout, llm_retries=llm_retries, cache=cache_mode,
                     workers=workers, concurrency=concurrency, backend=backend, ray_address=ray_address,
                     episode_time=episode_time, episode_memory=episode_memory, steps_to_go_time=steps_to_go_time)
    if llm_seed is not None:
        passed.append("--llm-seed" if llm_seed else "--no-llm-seed")
    if observations is not None:
        passed.append("--observations" if observations else "--no-observations")
    worst = 0
    for k, part in enumerate(planned.parts, 1):
        click.echo(f"\n== part {k}/{len(planned.parts)}: {part.name} ({part.shown_sets}; "
                   f"{part.episodes} episode(s)) ==", err=True)
        if not part.refs:
            click.echo("no problems in this part after the subset: skipped", err=True)
            continue
        code = _run_part(part, model, folder / part.name, resume, passed, json.dumps(manifest_entry(loaded, part.name, planned.subset)))
        if code in (2, 3, 130):  # usage, a folder that cannot be written, an interrupt: the rest would fare no better
            click.echo(f"the suite stopped at part {part.name}; continue it with --out {folder} --resume", err=True)
            sys.exit(code)
        worst = max(worst, code)
    from . import load_run
    from groundplan.evals.store import write_text

    label, rows = load_run(folder)
    text = paper_table(str(loaded.path), {label: rows})
    write_text(folder / "paper.md", text)
    click.echo("\n" + paper_table(str(loaded.path), {label: rows}, fmt="text"))
    click.echo(f"paper table: {folder / 'paper.md'}; runs of the parts: {folder}/PART")
    if worst:
        sys.exit(worst)


def _passed(**options) -> list[str]:
    args = []
    for key, value in options.items():
        if value is not None:
            args += [f"--{key.replace('_', '-')}", str(value)]
    return args


def _run_part(part, model, folder: Path, resume: bool, passed: list[str], info: str) -> int:
    """One part as a plan-eval run; its exit code."""
    from groundplan.evals.cli import run

    agent = part.agent
    args = [*part.refs, "--agent", "llm", "--model", model, "--out", str(folder), "--suite-info", info, *passed]
    for key in ("strategy", "temperature", "max_steps", "max_steps_factor", "budget", "samples"):
        if agent.get(key) is not None:
            args += [f"--{key.replace('_', '-')}", str(agent[key])]
    if resume:
        args.append("--resume")
    try:
        run.main(args=args, prog_name="plan-eval", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except click.exceptions.Abort:
        return 130
    except click.ClickException as exc:
        exc.show()
        return 2
    return 0


def _new_folder(name: str) -> Path:
    import time

    base = Path("runs") / time.strftime(f"suite-{name}-%Y%m%d-%H%M%S")
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder
