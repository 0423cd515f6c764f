"""`plan-eval`: score agents on problems.

    plan-eval problems/async/*.json                      # oracle and random side by side
    plan-eval problems/sync/*.json --agent llm --model openai/gpt-4o-mini --strategy react --workers 4
    plan-eval problems/grasp/*.jsonl --agent baseline:greedy --agent baseline:random-walk --workers 2
    plan-eval problems/async/*.json --out runs/a --resume  # continue an interrupted run
    plan-eval report runs/a                                # rebuild the tables of a run
    plan-eval leaderboard runs/a runs/b runs/c --out board # runs side by side, with 95% intervals
    plan-eval prompt problems/sync/01_cheese_sandwich_s126.json --strategy io   # what the model is sent first
    plan-eval problems/sync/*.json --agent llm --model openai/gpt-4o-mini --samples 5   # pass@1 and pass@5
    plan-eval ppnl/single_5x5 --sample 5 --seed 1          # five rows chosen by seed, the same on every machine
    plan-eval 'ppnl/single_5x5#1-20'                       # rows 1 to 20 of a set
    plan-eval suite all --model openai/gpt-4o-mini         # a paper's protocol (evals/suites/): plan-eval suite --list

Exit codes: 0 every episode ran and was scored; 1 some problem could not be loaded (a stored
reference or answer key its check disproves is a load error), or some episode could not be
scored (`metric-error`), killed its worker twice (`worker-died`), could not be run for the agent
(`agent-error`: a model provider that failed after its retries) or reached the goal at a cost
below a proven optimum (`beats_reference`: the reference is wrong): the others ran; 2 usage; 3
the run folder could not be written (disk full, read-only): what was written is
kept, and --resume continues once the cause is gone; or another plan-eval is writing it (a run
folder has one writer at a time: the message names the PID that holds it, and this run wrote
nothing); 130 interrupted (--resume continues too).

`report` and `view` count each episode id once, and leave out (saying how many, and why) the lines
that are not episodes: unreadable, of the wrong shape (`evals.store.SHAPE`), or repeating an
episode an earlier line holds; `--resume` moves those lines to episodes.rejected.jsonl.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from groundplan.engine.command import handles_errors

FORMATS = ("table", "json", "csv")
EXIT_STOPPED = 3  # the run folder could not be written, or another plan-eval is writing it
AGENT_NAMES = ("oracle", "random", "replay", "llm")


class AgentName(click.ParamType):
    """oracle, random, replay, llm, or baseline:NAME (a world's own baseline, checked against the
    worlds of the problems once they are read)."""

    name = "agent"

    def get_metavar(self, param, *args, **kwargs) -> str:
        return "[" + "|".join(AGENT_NAMES) + "|baseline:NAME]"

    def convert(self, value, param, ctx):
        kind, colon, which = str(value).partition(":")
        if value in AGENT_NAMES or (kind == "baseline" and colon and which.strip()):
            return value
        if kind == "baseline":
            self.fail("name the world's baseline after 'baseline:', e.g. baseline:greedy", param, ctx)
        from groundplan.engine.errors import did_you_mean

        hint = did_you_mean(value, [*AGENT_NAMES, "baseline:NAME"])
        self.fail(f"'{value}' is not an agent" + (f" ({hint})" if hint else "") + ": choose from "
                  + ", ".join(AGENT_NAMES) + ", or baseline:NAME (a world's own baseline, e.g. baseline:greedy)", param, ctx)


class StrategyOption(click.Option):
    """--strategy, whose help lists each installed world's strategies as its profile declares them
    (read when --help is asked for, so start-up reads no profile)."""

    def get_help_record(self, ctx):
        record = super().get_help_record(ctx)
        if record is None:
            return record
        from groundplan.agents.profile import shipped_strategies

        listed = "; ".join(f"{world}: {names}" for world, names in shipped_strategies().items())
        return record[0], f"{record[1]} {listed}"


def _emit(summary: dict, fmt: str, folder: Path | None) -> None:
    from . import summary as S

    if fmt == "json":
        click.echo(S.to_json(summary))
    elif fmt == "csv":
        click.echo(S.to_csv(summary), nl=False)
    else:
        click.echo(S.table(summary["by_set"]))
        for note in summary.get("notes") or ():  # what the numbers rest on where it is not the stored optimum
            click.echo(f"note: {note}")
        if folder is not None:
            click.echo(f"\nby difficulty: {folder / 'summary.md'}; episodes: {folder / 'episodes.jsonl'}")


def _check_backend(backend: str, ray_address: str | None, workers: int | None, episode_memory: float | None) -> None:
    from groundplan.engine.errors import GroundplanError

    if backend != "ray":
        if ray_address:
            raise GroundplanError("--ray-address is the cluster of --backend ray: add --backend ray, or drop the address")
        return
    if episode_memory is not None:
        raise GroundplanError("--episode-memory bounds local worker processes; Ray's workers are bounded by its memory monitor "
                              "(an episode it kills is re-run, then given up as worker-died): drop --episode-memory, "
                              "or run with --backend local")
    if ray_address and workers is not None:
        raise GroundplanError("--workers sets the CPUs of a local Ray instance; on the cluster of --ray-address its own CPUs "
                              "decide: drop --workers")


def _write_summaries(folder: Path, summary: dict) -> None:
    from . import summary as S
    from .store import write_text

    write_text(folder / "summary.md", S.markdown(summary))
    write_text(folder / "summary.csv", S.to_csv(summary))
    write_text(folder / "summary.json", S.to_json(summary) + "\n")


def _new_run_folder() -> Path:
    """runs/plan-eval-DATE-TIME, or with -2, -3, ... after it: two runs started in the same
    second are two runs, not a clash."""
    base = Path("runs") / time.strftime("plan-eval-%Y%m%d-%H%M%S")
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def _stopped(exc, folder: Path) -> None:
    """A run folder that could not be written: what happened, what is kept, how to go on."""
    from . import store

    try:
        kept = len(store.scan(folder).rows)
    except OSError:
        kept = 0
    done = f"the {kept} episode(s) in {folder / store.EPISODES} are kept" if kept else "no episode had been written yet"
    click.echo(f"error: {exc}.\nThe run stopped; {done}. {exc.remedy}, then continue the run with the same command and "
               f"--out {folder} --resume", err=True)
    sys.exit(EXIT_STOPPED)


def _list_sets(ctx, _param, value):
    if value and not ctx.resilient_parsing:
        from groundplan.engine.catalog import sets_table

        click.echo(sets_table())
        ctx.exit(0)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("problems", nargs=-1, required=True)
@click.option("--list-sets", is_flag=True, is_eager=True, expose_value=False, callback=_list_sets,
              help="List the shipped problem sets by name (kitchen/async, ppnl/single_5x5, ...), with their sizes, and exit.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first N problems, after sets and globs are expanded (and after --sample): a quick try of a set.")
@click.option("--sample", "sample_n", type=click.IntRange(min=1), default=None, metavar="N",
              help="N problems chosen by --seed (or --sample-seed), the same on every machine: those whose sha256 of "
                   "'SEED:REF' sorts first, REF being the problem's place in its set (single_5x5.jsonl#NAME, "
                   "async/FILE.json), kept in the order given. Rows of a set: FILE#A-B (or NAME#A-B), from 1.")
@click.option("--sample-seed", type=int, default=None, metavar="S",
              help="The seed of --sample when it should differ from the run's --seed.")
@click.option("--suite-info", hidden=True, default=None)  # set by `plan-eval suite`: the suite's name and hash, for the manifest
@click.option("--agent", "agents", multiple=True, type=AgentName(),
              help="Repeat for several; default: oracle and random side by side. baseline:NAME runs a world's own "
                   "baseline from domains/<world>/baselines.py (GRASP: baseline:greedy, baseline:random-walk), "
                   "seeded by the episode seed.")
@click.option("--model", help="litellm model string for --agent llm, e.g. openai/gpt-4o-mini or ollama/llama3.")
@click.option("--strategy", cls=StrategyOption, default=None,
              help="prompt strategy of the llm agent; default: each world's own (its paper's). A strategy that "
                   "some world of the run does not accept is refused before the run. By world:")
@click.option("--api-base", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, ...).")
@click.option("--temperature", type=float, default=None, help="LLM sampling temperature (default 0.7, as Robotouille).")
@click.option("--llm-timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds to wait for each LLM request (default 60); --episode-time also cuts a request short.")
@click.option("--llm-retries", type=click.IntRange(0), default=None,
              help="Retries of an LLM request after a rate limit, timeout, connection error or 5xx (default 4).")
@click.option("--cache", "cache_mode", type=click.Choice(("on", "off", "read", "write", "refresh")), default=None,
              help="How the llm agent uses its reply cache, which lives in $GROUNDPLAN_CACHE/llm (default "
                   "~/.cache/groundplan/llm) and is keyed by the whole request and the episode's seed. "
                   "on (default): replay cached replies, ask and store the rest. off: no cache, every request is asked "
                   "and nothing stored. read: replay cached replies, ask the rest without storing them (the cache is left "
                   "as it is). write: never replay; ask every request and store the replies the cache has no entry for "
                   "(entries already there are kept). refresh: never replay; ask every request and store every reply, "
                   "replacing the entries there. Replayed tokens and dollars are reported apart from those spent.")
@click.option("--llm-seed/--no-llm-seed", default=None,
              help="Send each request's seed (drawn from the episode's) to providers that take one (OpenAI and "
                   "compatible servers, vLLM, Ollama, ...; never Anthropic). Default: on; --no-llm-seed for a server "
                   "that refuses the field. The seed is in the cache key either way.")
@click.option("--plans", type=click.Path(exists=True), help="Plan file or folder for --agent replay.")
@click.option("--out", type=click.Path(file_okay=False), help="Run folder (default: runs/plan-eval-DATE-TIME).")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Episodes in parallel processes (default 1); with --backend ray, the CPUs of the local Ray instance "
                   "(default: all of this machine's).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Episodes at once within a worker (threads; for LLM agents, which mostly wait).")
@click.option("--backend", type=click.Choice(("local", "ray")), default="local", show_default=True,
              help="Where episodes run: local processes, or Ray tasks (pip install 'groundplan[ray]'), on a local "
                   "instance or the cluster of --ray-address. The episodes and the run folder are the same.")
@click.option("--ray-address", metavar="ADDRESS", help="The Ray cluster to run on (HOST:PORT of its head, or 'auto' on a "
                                                       "node of it); default: a local instance, stopped at the end.")
@click.option("--resume", is_flag=True, help="Continue the run in --out, skipping finished episodes.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The run's seed: each episode's is drawn from it, the agent, the problem and the sample, so another "
                   "--seed gives an llm agent other requests (new replies, not the cache's) and the same one replays them.")
@click.option("--samples", type=click.IntRange(1), default=1, show_default=True,
              help="Episodes per problem and agent, each with its own id (LABEL::REF, then LABEL::REF@s1, @s2, ...) and "
                   "seed; the summary adds pass@1 and pass@N (unbiased, per problem then averaged), the success rate "
                   "stays the mean over all episodes. --resume may raise it to add samples.")
@click.option("--max-steps", type=click.IntRange(1, 1_000_000),  # the schema's maximum for a problem's max_steps
              help="Step cap for every episode (overrides the factor; at most 1000000).")
@click.option("--max-steps-factor", type=float, help="Step cap = ceil(F x reference cost); default: the world's (1.5 for the kitchen).")
@click.option("--episode-time", type=float, help="Wall-clock seconds per episode.")
@click.option("--episode-memory", type=click.FloatRange(min=1), metavar="MB",
              help="Memory per episode: episodes run in worker processes (even with --workers 1) whose address space "
                   "may grow this much beyond their size at start; an episode or grounding that does not fit ends as "
                   "memout, not the run. Linux.")
@click.option("--budget", help="A world's named step budget (its prompts.yaml loop.budgets), e.g. Plancraft's 'paper' "
                               "(80 actions, stuck after 10, 3 tool turns in a row) or 'current' (30 turns of any kind).")
@click.option("--reference", type=click.Choice(("plan", "optimum", "none")), default=None,
              help="What optimality, steps-to-go and the factor's step cap are measured against. plan (default): the "
                   "problem's stored optimum, else its stored upper bound (a plan's cost). optimum: the same, but a problem "
                   "with no stored optimum is first solved by the optimal planner within --reference-time. none: no "
                   "reference cost. A problem left without one is named under the summary, with its step cap.")
@click.option("--reference-time", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Seconds of the optimal planner per problem for --reference optimum (default 30).")
@click.option("--steps-to-go-time", type=float, default=10.0, show_default=True,
              help="Seconds for the oracle to prove a failure's remaining cost (0: skip).")
@click.option("--observations/--no-observations", default=None,
              help="Record every observation in the trajectory (default: those the agent read).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--plot", is_flag=True, help="Write PNG plots into the run folder (needs matplotlib: pip install 'groundplan[plot]').")
@handles_errors
def run(problems, limit, sample_n, sample_seed, suite_info, agents, model, strategy, api_base, temperature, llm_timeout, llm_retries, cache_mode, llm_seed, plans, out,
        workers, concurrency, backend, ray_address, resume, seed, samples, max_steps, max_steps_factor, episode_time, episode_memory, budget, reference, reference_time, steps_to_go_time,
        observations, fmt, plot):
    """Run agents on PROBLEMS (shipped sets by name, files, problem-set files or globs) and print the summary."""
    from groundplan.engine.errors import GroundplanError
    from groundplan.engine.problemsets import expand

    from . import run as R
    from .summary import summarise

    refs = expand(problems)
    if sample_seed is not None and sample_n is None:
        raise GroundplanError("--sample-seed is the seed of --sample N: give --sample too, or drop it")
    if sample_n is not None:
        from groundplan.engine.problemsets import sample

        refs = sample(refs, sample_n, seed if sample_seed is None else sample_seed)
    refs = refs[:limit]
    if not refs:
        raise GroundplanError("no problems given")
    if resume and not out:
        raise GroundplanError("--resume continues the run in --out DIR: give the folder of the interrupted run")
    if reference_time is not None and reference != "optimum":
        raise GroundplanError("--reference-time is the optimal planner's time under --reference optimum: give that too, or drop it")
    _check_backend(backend, ray_address, workers, episode_memory)
    if "replay" in agents and not plans:
        raise GroundplanError("--agent replay needs --plans FILE_OR_FOLDER")
    # only what the user gave, so a run folder made before an option existed resumes with the same command
    given = {"temperature": temperature, "timeout": llm_timeout, "max_retries": llm_retries, "cache": cache_mode,
             "send_seed": False if llm_seed is False else None}
    llm_options = {name: value for name, value in given.items() if value is not None}
    specs = R.agent_specs(agents or ("oracle", "random"), model=model, strategy=strategy, plans=plans, api_base=api_base,
                          llm_options=llm_options)
    folder = Path(out) if out else _new_run_folder()
    if episode_memory is not None:
        from .pool import supports_memory_limit

        if not supports_memory_limit():
            raise GroundplanError("--episode-memory needs Linux (its per-process address-space limit); run without it")
    settings = R.Settings(seed=seed, max_steps=max_steps, max_steps_factor=max_steps_factor, episode_seconds=episode_time,
                          steps_to_go_time=steps_to_go_time, record_observations=observations, budget=budget,
                          episode_memory=episode_memory, reference=None if reference == "plan" else reference,
                          reference_time=reference_time, samples=samples)
    from .store import FolderBusy, StoreError

    made: list = []

    def write_summaries(rows):  # while the run still holds its folder
        made.append(summarise(rows))
        _write_summaries(folder, made[0])

    try:
        rows, errors = R.execute(refs, specs, settings, folder, workers=workers, resume=resume, concurrency=concurrency,
                                 say=lambda text: click.echo(text, err=True), backend=backend, ray_address=ray_address,
                                 then=write_summaries, suite=json.loads(suite_info) if suite_info else None)
        summary = made[0]
    except FolderBusy as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_STOPPED)
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: finished episodes are kept in {folder}; continue with --out {folder} --resume", err=True)
        sys.exit(130)
    except StoreError as exc:
        _stopped(exc, folder)
    if plot:
        from .plots import write_plots

        for path in write_plots(folder, rows):
            click.echo(f"wrote {path}", err=True)
    _emit(summary, fmt, folder if fmt == "table" else None)
    if errors:
        seen = {}
        for e in errors:
            seen.setdefault(e["problem_ref"], e["load_error"])
        click.echo(f"\n{len(seen)} problem(s) could not be loaded and were skipped:", err=True)
        for ref, message in seen.items():
            click.echo(f"  {message}", err=True)
    unscored = [r for r in rows if r.get("outcome") in R.UNSCORED + R.NOT_RUN]
    if unscored:
        click.echo(f"\n{len(unscored)} episode(s) could not be scored or run to the end (their lines in "
                   f"{folder / 'episodes.jsonl'} say why, in 'error'):", err=True)
        for r in sorted(unscored, key=lambda r: r["id"])[:20]:
            click.echo(f"  {r['id']}: {r['outcome']}: {r.get('error')}", err=True)
        if len(unscored) > 20:
            click.echo(f"  ... and {len(unscored) - 20} more", err=True)
    beaten = _tell_beaten(rows, folder)
    if errors or unscored or beaten:
        sys.exit(1)


def _tell_beaten(rows: list[dict], folder: Path) -> bool:
    """Say which episodes beat a proven optimum (evals.references): their problems' references are wrong."""
    beaten = sorted((r for r in rows if r.get("beats_reference")), key=lambda r: r["id"])
    if beaten:
        click.echo(f"\n{len(beaten)} episode(s) reached the goal below a proven optimum, so those optima are wrong "
                   f"(their lines in {folder / 'episodes.jsonl'} say so, in 'beats_reference_message'):", err=True)
        for r in beaten[:20]:
            click.echo(f"  {r['id']}: {r.get('beats_reference_message')}", err=True)
        if len(beaten) > 20:
            click.echo(f"  ... and {len(beaten) - 20} more", err=True)
    return bool(beaten)


BOARD_FORMATS = ("table", "markdown", "csv", "json")


def board_options(fn):
    """The options of the leaderboard (`plan-eval leaderboard`, and `plan-eval report` of several runs)."""
    for option in reversed((
        click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False)),
        click.option("--format", "fmt", type=click.Choice(BOARD_FORMATS), default="table", show_default=True,
                     help="What is printed: the table, or the leaderboard as Markdown, CSV or JSON."),
        click.option("--out", type=click.Path(file_okay=False),
                     help="Also write leaderboard.md, leaderboard.csv and leaderboard.json into this folder (and the plots, with --plot)."),
        click.option("--plot", is_flag=True, help="A PNG per world, and one overall, of the rates with their 95% intervals "
                                                  "(needs --out and matplotlib: pip install 'groundplan[plot]')."),
        click.option("--viewer", is_flag=True, help="Also write a viewer page per run into --out DIR/episodes/ and link each "
                                                    "row of leaderboard.md to its episodes there."),
        click.option("--mixed", is_flag=True, help="Put runs of different protocols (problems, settings, suite) in one table; "
                                                   "the settings that differ then key the rows. Without it they are refused, with the reason."),
        click.option("--bootstrap", "replicates", type=click.IntRange(100, 100_000), default=1000, show_default=True,
                     help="Resamples of the percentile bootstrap over problems."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap's resamples (the intervals are reproducible)."),
    )):
        fn = option(fn)
    return fn


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@board_options
@handles_errors
def report(runs, fmt, out, plot, viewer, mixed, replicates, seed):
    """Rebuild the tables of a run (RUN), or put several runs in one leaderboard (RUN RUN...: as
    `plan-eval leaderboard`)."""
    from groundplan.engine.errors import GroundplanError

    from . import store

    folder = Path(runs[0])
    if len(runs) > 1 or not (folder / store.EPISODES).exists():  # several runs, or a folder of runs
        return _leaderboard(runs, fmt, out, plot, mixed, replicates, seed, viewer)
    given = [name for name, value in (("--out", out), ("--viewer", viewer), ("--mixed", mixed), ("--bootstrap", replicates != 1000), ("--seed", seed != 0)) if value]
    if given:
        raise GroundplanError(f"{', '.join(given)}: the leaderboard's; for one run's leaderboard, "
                              f"`plan-eval leaderboard {folder}`")
    from .leaderboard import read_run
    from .summary import summarise

    found = read_run(folder)
    for warning in found.warnings:
        click.echo(f"warning: {warning}", err=True)
    if plot:
        from .plots import write_plots

        for path in write_plots(folder, found.rows):
            click.echo(f"wrote {path}", err=True)
    if fmt == "markdown":
        from .summary import markdown

        click.echo(markdown(summarise(found.rows)), nl=False)
    else:
        _emit(summarise(found.rows), fmt, None)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@board_options
@handles_errors
def leaderboard(runs, fmt, out, plot, viewer, mixed, replicates, seed):
    """Put runs (RUN...: run folders, or folders of them) in one table: a row per (model, strategy,
    settings) and world, an overall row per key, 95% intervals, pass@k, the worlds' own metrics,
    tokens and dollars, and a suite's published rows in its paper's layout."""
    _leaderboard(runs, fmt, out, plot, mixed, replicates, seed, viewer)


def _leaderboard(runs, fmt, out, plot, mixed, replicates, seed, viewer=False):
    from groundplan.engine.errors import GroundplanError

    from . import leaderboard as L

    if plot and not out:
        raise GroundplanError("--plot writes its PNGs into --out DIR: give the folder")
    if viewer and not out:
        raise GroundplanError("--viewer writes its pages into --out DIR/episodes/: give the folder")
    folders, warnings = L.run_folders(runs)
    found = [L.read_run(f) for f in folders]
    for warning in warnings + [w for run in found for w in run.warnings]:
        click.echo(f"warning: {warning}", err=True)
    board = L.build(found, mixed=mixed, replicates=replicates, seed=seed)
    if viewer:
        for path in L.viewer_pages(board, Path(out)):
            click.echo(f"wrote {path}", err=True)
    if out:
        for path in L.write(board, Path(out)):
            click.echo(f"wrote {path}", err=True)
    if plot:
        from .plots import write_leaderboard_plots

        for path in write_leaderboard_plots(Path(out), board):
            click.echo(f"wrote {path}", err=True)
    if fmt == "json":
        click.echo(L.to_json(board))
    elif fmt == "csv":
        click.echo(L.to_csv(board), nl=False)
    elif fmt == "markdown":
        click.echo(L.markdown(board), nl=False)
    else:
        click.echo(L.table(board))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--episode", help="The episode to open first (its id, as in episodes.jsonl).")
@click.option("--port", default=0, show_default="a free one", help="The loopback port to serve on.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), help="Write one self-contained HTML file instead of serving.")
@click.option("--togo-time", default=0.5, show_default=True, help="Seconds per steps-to-go search, at most 3 s an episode (0: none).")
@click.option("--open/--no-open", "open_browser", default=True, help="Open the page in the browser.")
@handles_errors
def view(runs, episode, port, html_file, togo_time, open_browser):
    """See a run's episodes step by step in the browser (RUN), or two runs side by side (RUN RUN2)."""
    from groundplan.engine.errors import GroundplanError

    from .view import Runs

    if len(runs) > 2:
        raise GroundplanError("view takes one run folder, or two to show side by side")
    pages = Runs([Path(r) for r in runs], togo_time=togo_time)
    for warning in pages.left_out:
        click.echo(f"warning: {warning}", err=True)
    _show(pages, episode, port, html_file, open_browser)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("problem")
@click.option("--strategy", cls=StrategyOption, default=None, help="The prompt strategy; default: the world's own. By world:")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@handles_errors
def prompt(problem, strategy, fmt):
    """Print the first request the llm agent would send for PROBLEM (no model is asked)."""
    from groundplan.agents.llm.preview import as_text, first_request
    from groundplan.agents.profile import check_strategy_for
    from groundplan.engine.errors import GroundplanError
    from groundplan.engine.problemsets import expand
    from groundplan.engine.task import Task

    refs = expand([problem])
    if len(refs) != 1:
        raise GroundplanError(f"'{problem}' names {len(refs)} problems: name one (a file, or SET.jsonl#NAME)")
    task = Task.load(refs[0])
    check_strategy_for(strategy, [task.domain])
    used, messages = first_request(task, strategy)
    if fmt == "json":
        click.echo(json.dumps({"problem": refs[0], "strategy": used, "messages": messages}, indent=1, ensure_ascii=False))
    else:
        click.echo(f"# {refs[0]}, strategy {used}\n\n{as_text(messages)}")


def _show(pages, episode, port, html_file, open_browser):
    """Write the page (--html) or serve it on loopback; shared with `groundplan view`."""
    from .view import serve, write_html

    if episode:
        if episode not in pages.index["runs"][0]["ids"]:
            from groundplan.engine.errors import GroundplanError, did_you_mean

            hint = did_you_mean(episode, list(pages.index["runs"][0]["ids"]))
            raise GroundplanError(f"no episode '{episode}' in {pages.folders[0]}" + (f" ({hint})" if hint else ""))
        pages.index["start"] = episode
    if html_file:
        def progress(n, total):
            if n == total or n % 25 == 0:
                click.echo(f"\r{n}/{total} episodes", nl=n == total, err=True)
        out = write_html(pages, Path(html_file), progress)
        click.echo(f"wrote {out}", err=True)
        return

    def ready(url):
        click.echo(f"serving {url} (Ctrl-C to stop)", err=True)
        if open_browser:
            import webbrowser

            webbrowser.open(url)
    serve(pages, port, ready)


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from .suites.cli import suite

    commands = {"report": report, "leaderboard": leaderboard, "view": view, "prompt": prompt, "suite": suite}
    command = commands.get(args[0]) if args else None
    if command is not None:
        args = args[1:]
        return command.main(args=args, prog_name=f"plan-eval {command.name}")
    return run.main(args=args, prog_name="plan-eval")


if __name__ == "__main__":
    sys.exit(main())
