"""Running an evaluation: agents x problems -> episode lines, resumable and parallel.

Every episode has an id (agent label and problem reference) and a seed derived from the run's
seed and that id, never from the order of execution, so `--workers 1`, `--workers 8` and
`--backend ray` (`evals.ray_pool`) give the same episodes, and `--resume` can skip what is
already written.

`--samples N` runs each (problem, agent) N times, as N episodes: sample 0 is the episode a run
without the option has (its id `LABEL::REF` and its seed unchanged, so older run folders resume
and compare), sample i > 0 has the id `LABEL::REF@sI` and a seed drawn from the same three and i
(`episode_id`, `episode_seed`). An LLM agent's replies are cached by the episode's seed
(`agents/llm/cache.py`), so each sample asks the model anew, and a rerun replays each sample's own.
A job is (ref, spec, settings) or (ref, spec, settings, sample) (`job_parts`).

Jobs go to the workers problem by problem (every agent's episode of one problem in one batch), so
a problem is loaded and grounded once per worker however many agents are compared: grounding is
most of an episode's time in worlds of many small problems (GRASP: about 28 of 32 ms).

One episode cannot sink the run: whatever an agent, a world's metrics plug-in or a resource limit
does to an episode becomes that episode's outcome (`agent-error`, `metric-error`, `memout`,
`time-limit`), with its message in `error`, on a line the summary counts like any other; a worker
process that dies is replaced and its episodes re-run (`evals.pool`), and an episode whose worker
died twice ends as `worker-died`.

An episode's `seconds` is its own time, not its process's start-up: every process that runs LLM
episodes (plan-eval itself, each worker, each Ray worker) loads litellm before its first one
(`start_up`: 5 s and more, which the first episode used to count), and the run says how long that
took apart, on stderr and in the manifest's `startup`. A run without an LLM agent loads nothing.
"""
from __future__ import annotations

import functools
import hashlib
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import store
from .metrics import METRIC_ERROR

# outcomes the harness gives (the agents' own are in agents.loop)
AGENT_ERROR = "agent-error"  # the agent could not be made, or failed outside the step loop
MEMOUT = "memout"  # the episode (or its problem's grounding) did not fit --episode-memory
TIME_LIMIT = "time-limit"  # the engine stopped loading the problem as too long (as agents.loop scores a timeout)
WORKER_DIED = "worker-died"  # the worker process running the episode died twice
UNSCORED = (METRIC_ERROR, WORKER_DIED)  # the run's numbers miss these episodes' scores: exit code 1
NOT_RUN = (AGENT_ERROR,)  # the agent could not be run to an answer (a provider down after retries): exit code 1 too


@dataclass(frozen=True)
class AgentSpec:
    name: str
    options: tuple = ()  # sorted (key, value) pairs, hashable for the process pool
    label: str = ""

    def make(self):
        from groundplan.agents import make_agent

        return make_agent(self.name, **dict(self.options))


def agent_specs(names, model=None, strategy=None, plans=None, api_base=None, llm_options=None) -> list[AgentSpec]:
    """One spec per distinct agent named (`baseline:NAME` is the world baseline NAME)."""
    specs = []
    for name in dict.fromkeys(names):
        options = {}
        label = name
        if name.startswith("baseline:"):
            options = {"baseline": name.partition(":")[2]}
            name = "baseline"
        elif name == "llm":
            if not model:
                from groundplan.engine.errors import GroundplanError

                raise GroundplanError("the llm agent needs --model (a litellm model string, e.g. openai/gpt-4o-mini)")
            if strategy is not None:
                from groundplan.agents.profile import check_strategy

                check_strategy(strategy)  # a name no world has is refused before the run folder is made
            # no strategy named: each world's default (its paper's); the episode line says which one ran
            options = {"model": model, **({"strategy": strategy} if strategy else {}), **({"api_base": api_base} if api_base else {}),
                       **(llm_options or {})}
            label = f"llm:{model}:{strategy}" if strategy else f"llm:{model}"
        elif name == "replay":
            options = {"plans": plans}
            label = f"replay:{Path(plans).name}" if plans else "replay"
        specs.append(AgentSpec(name, tuple(sorted(options.items())), label))
    return specs


@dataclass
class Settings:
    seed: int = 0
    max_steps: int | None = None
    max_steps_factor: float | None = None
    episode_seconds: float | None = None
    steps_to_go_time: float | None = 10.0
    record_observations: bool | None = None
    budget: str | None = None  # a named variant of the world's loop rules (Plancraft: paper or current)
    episode_memory: float | None = None  # MB of address space per episode (worker), beyond the worker's size at start
    reference: str | None = None  # what scores are measured against (REFERENCES); None: 'plan', as before the option
    reference_time: float | None = None  # seconds of the optimal planner per problem under 'optimum' (None: REFERENCE_TIME)
    samples: int = 1  # episodes per (problem, agent): --samples


# --reference: 'plan' the stored optimum, else the stored upper bound (a plan's cost); 'optimum' also
# runs the optimal planner, within --reference-time, on a problem with no stored optimum; 'none'
# scores against no reference cost (no optimality, no steps-to-go, no cap from a factor).
REFERENCES = ("plan", "optimum", "none")
REFERENCE_TIME = 30.0


def episode_id(label: str, ref: str, sample: int = 0) -> str:
    """`LABEL::REF` for sample 0 (the only one without --samples), `LABEL::REF@sI` for sample I."""
    return f"{label}::{ref}" + (f"@s{int(sample)}" if sample else "")


def episode_seed(seed: int, label: str, ref: str, sample: int = 0) -> int:
    text = f"{seed}|{label}|{ref}" + (f"|{int(sample)}" if sample else "")
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big")


def job_parts(job: tuple) -> tuple:
    """(ref, spec, settings, sample) of a job, which may leave out the sample (0)."""
    ref, spec, settings = job[:3]
    return ref, spec, settings, (job[3] if len(job) > 3 else 0)


def job_id(job: tuple) -> str:
    """The id of a job's episode (the pools' key)."""
    ref, spec, _, sample = job_parts(job)
    return episode_id(spec.label, ref, sample)


def problem_set(ref: str) -> str:
    """'async' for problems/async/x.json; the set file's stem for a problem set."""
    from groundplan.engine.problemsets import is_set_reference, set_name

    from .shipping import shipped

    source = shipped(ref)
    if source is not None:  # named where the run was started, not after a worker's folder
        return source.problem_set

    path = Path(ref.split("#", 1)[0])
    if is_set_reference(path):
        return set_name(path)
    # files in the current folder are named by it, not '.' (which says nothing once the run is reported elsewhere)
    return path.parent.name or path.absolute().parent.name or str(path.absolute().parent)


def difficulty(task) -> str:
    """The problem's own `metadata.difficulty`, else a bin of its reference cost."""
    return _difficulty(task.problem.metadata, task.problem.optimal)


def _difficulty(meta: dict | None, entry: dict | None) -> str:
    meta, entry = meta or {}, entry or {}
    if meta.get("difficulty") is not None:
        return str(meta["difficulty"])
    if entry.get("solvable") is False:
        return "unsolvable"
    cost = entry.get("cost") if entry.get("cost") is not None else entry.get("upper_bound")
    if cost is None:
        return "unknown"
    for top in (10, 20, 40, 80):
        if cost <= top:
            return f"h<={top}"
    return "h>80"


def _task(ref: str):
    """The problem, refused when its stored reference is not what it claims (a plan that does not
    replay, a cost it does not have, an answer key its world disproves, an optimum stored without
    a plan that a quick search disproves: `evals.references`): every score of the problem is
    measured against it.

    The check replays the stored plan on the task the episodes then use, so it costs no second
    grounding (a pre-pass over the whole run would: about 32 ms per GRASP problem, 8 minutes for
    the 16,000). It therefore runs before the problem's first episode, not before the whole run,
    and a bad reference is that problem's load error, like any other unusable problem file.

    A problem sent by content (`evals.shipping`, the Ray backend) is built from what was sent."""
    from .shipping import shipped

    source = shipped(ref)
    return _loaded_task(ref, source.digest if source is not None else None)


@functools.lru_cache(maxsize=8)
def _loaded_task(ref: str, digest: str | None):
    # keyed by content too: a worker that outlives a run must not serve a problem edited since
    from groundplan.engine.errors import ModelError
    from groundplan.engine.task import Task
    from groundplan.engine.validate import check_references

    from .shipping import load_task, shipped

    task = load_task(shipped(ref)) if digest is not None else Task.load(ref)
    wrong = check_references(task)
    if wrong:
        raise ModelError(wrong)
    from .references import check_loaded

    check_loaded(task)  # an optimum stored without a plan: re-proven, disproved (raises) or unverified
    return task


def forget_tasks() -> None:
    """Drop the grounded problems a worker keeps: under --episode-memory, a problem's grounding
    counts toward the limit of the episodes on it, not of those on the next problem."""
    import gc

    _loaded_task.cache_clear()
    gc.collect()


_computed: dict = {}  # (problem reference, seconds) -> (reference, where from): the optimal planner's answer, once per worker


def episode_reference(ref: str, task, settings: Settings, compute: bool = True) -> tuple[tuple | None, str | None]:
    """The reference an episode is scored against under --reference, with where it came from, or
    (None, None) for the problem's stored one (the loop reads it itself: 'plan', the default).

    'optimum' runs the optimal planner (`planners.solve(..., 'auto')`) once per problem and worker
    when no optimum is stored; what it proves within the time replaces the stored upper bound,
    and when it proves nothing the stored reference stays, with the reason. `compute=False` asks
    only what is known already (a failed episode's line must not start a search)."""
    from groundplan.agents.loop import reference

    mode = settings.reference or "plan"
    if mode == "plan":
        return None, None
    stored = reference(task)
    if mode == "none":
        return (None, False, stored[2]), "--reference none"
    if stored[1]:  # a proven optimum, or proven unsolvable: nothing to compute
        return None, None
    seconds = settings.reference_time if settings.reference_time is not None else REFERENCE_TIME
    key = (ref, seconds)
    if key not in _computed:
        if not compute:
            return None, None
        _computed[key] = _optimum(task, stored, seconds)
    return _computed[key]


def _optimum(task, stored: tuple, seconds: float) -> tuple[tuple | None, str]:
    """The optimal planner's reference for a problem with no stored optimum, or the stored one
    with why the planner did not replace it."""
    kept = "the stored upper bound kept" if stored[0] is not None else "no reference"
    try:
        from groundplan.planners import SOLVED_OPTIMAL, SOLVED_SATISFICING, UNSOLVABLE_PROVEN, solve

        result = solve(task, "auto", time_limit=seconds)
    except MemoryError:
        return stored, f"optimum not computed: out of memory ({kept})"
    except Exception as exc:  # a planner bug costs the computed reference, not the episode
        return stored, f"optimum not computed: {type(exc).__name__}: {exc} ({kept})"
    if result.status == SOLVED_OPTIMAL:
        return (float(result.cost), True, True), f"optimum computed by the {result.planner} planner"
    if result.status == UNSOLVABLE_PROVEN:
        return (None, True, False), f"proven unsolvable by the {result.planner} planner"
    if result.status == SOLVED_SATISFICING and result.cost is not None and (stored[0] is None or result.cost < stored[0]):
        return (float(result.cost), False, True), f"upper bound computed by the {result.planner} planner; optimum not proven in {seconds:g} s"
    return stored, f"optimum not proven in {seconds:g} s ({result.status}); {kept}"


def steps_to_go_time(task, settings: Settings) -> float | None:
    """The run's budget for proving a failure's steps-to-go, or 0 when the world's metrics plug-in
    says the measure does not apply to it (`STEPS_TO_GO = False`: GRASP, whose episodes end at a
    fixed budget and are ranked by score; there the search cost about 0.5 s per failed episode)."""
    from .metrics import plugin

    module = plugin(task.domain)
    if module is not None and getattr(module, "STEPS_TO_GO", True) is False:
        return 0
    return settings.steps_to_go_time


def start_up(specs) -> float | None:
    """Load what the agents of `specs` need before this process's first episode, so that its clock
    does not count it: litellm and each model's request path, for LLM agents (`agents.llm.client.start_up`).
    The seconds it took, or None when there was nothing to load (no LLM agent, or loaded before in
    this process): a run without an LLM agent never imports litellm. Never raises: it runs where a
    failure would cost a worker (evals.pool) or a whole Ray task, and an episode that needs what
    could not be loaded meets the failure itself, as its own outcome."""
    models = [dict(spec.options).get("model") for spec in specs if spec.name == "llm"]
    if not models:
        return None
    try:
        from groundplan.agents.llm.client import start_up as load_llm

        return load_llm(model for model in models if model)
    except Exception:  # (see the docstring)
        return None


def run_job(job: tuple) -> dict:
    """One episode (in a worker process or thread): a line for episodes.jsonl, or a load error.

    Never raises: what goes wrong in the episode is its outcome (see the module docstring)."""
    ref, spec, settings, sample = job_parts(job)
    eid = episode_id(spec.label, ref, sample)
    task, stage = None, AGENT_ERROR
    try:
        from groundplan.agents import Limits, run_episode
        from groundplan.engine.errors import GroundplanError, ResourceLimit

        from .metrics import episode_row

        try:
            task = _task(ref)
        except (ResourceLimit, MemoryError):
            raise
        except GroundplanError as exc:
            return {"id": eid, "load_error": str(exc), "problem_ref": ref}
        except Exception as exc:  # a bug the problem triggers in the engine: the problem is reported, the run goes on
            return {"id": eid, "load_error": f"{ref}: could not be loaded ({type(exc).__name__}: {exc})", "problem_ref": ref}
        seed = episode_seed(settings.seed, spec.label, ref, sample)
        given, given_from = episode_reference(ref, task, settings)
        limits = Limits(settings.max_steps, settings.max_steps_factor, settings.episode_seconds, settings.budget, given, given_from)
        agent = spec.make()
        episode = run_episode(task, agent, limits, seed=seed, record_observations=settings.record_observations)
        if episode.outcome in (AGENT_ERROR, MEMOUT) and "MemoryError" in (episode.error or ""):
            episode.outcome, episode.error = MEMOUT, _memout_message(settings)  # say which limit it was
        stage = METRIC_ERROR
        to_go = 0 if episode.outcome == MEMOUT else steps_to_go_time(task, settings)
        row = episode_row(task, episode, to_go)
        row.update(id=eid, problem_ref=ref, problem_set=problem_set(ref), difficulty=difficulty(task), agent_label=spec.label,
                   seed=seed, world=task.domain.name, plugin_world=task.domain.plugin_world)
        if getattr(agent, "strategy", None):  # the prompt strategy that ran (a world's default when none was named)
            row["strategy"] = agent.strategy
        if sample:
            row["sample"] = sample
        from .references import flags

        row.update(flags(task, row))  # scored against an unverified optimum, or below a proven one
        return row
    except MemoryError:
        return failed_row(job, MEMOUT, _memout_message(settings, loading=task is None), task)
    except Exception as exc:
        from groundplan.engine.errors import ResourceLimit

        if isinstance(exc, ResourceLimit):  # 'memout' or 'timeout', named as the step loop names them
            return failed_row(job, TIME_LIMIT if exc.status == "timeout" else MEMOUT, str(exc), task)
        where = "the world's metrics" if stage == METRIC_ERROR else "the agent"
        return failed_row(job, stage, f"{where} failed: {type(exc).__name__}: {exc}", task)


def _memout_message(settings: Settings, loading: bool = False) -> str:
    what = "loading and grounding the problem" if loading else "the episode"
    within = f" within --episode-memory {settings.episode_memory:g} MB" if settings.episode_memory else ""
    return f"{what} ran out of memory (MemoryError){within}"


def failed_row(job: tuple, outcome: str, message: str, task=None) -> dict:
    """The line of an episode that could not run or be scored: a failed episode with the core
    fields the summary reads, its outcome and, in `error`, why. `unscored` tells the summary it
    has none of its world's own metrics."""
    from groundplan.agents.loop import Episode, Limits, reference, reference_from

    ref, spec, settings, sample = job_parts(job)
    limits = Limits(reference=None, reference_from=None)
    if task is not None:
        try:
            given, given_from = episode_reference(ref, task, settings, compute=False)
            limits = Limits(reference=given, reference_from=given_from)
        except Exception:  # the line of a failed episode is written whatever its reference
            pass
    cost, proven, solvable = reference(task, limits) if task is not None else (None, False, None)
    name = task.problem.name if task is not None else ref.rsplit("#", 1)[-1]
    try:
        from groundplan.agents.llm.redact import redact

        message = redact(message)
    except Exception:  # redaction is a courtesy here: the message names no key of ours
        pass
    row = Episode(problem=name, file=ref, agent=spec.name, success=False, outcome=outcome, steps=0, cost=0.0, max_steps=0,
                  reference_cost=cost, reference_proven=proven, solvable=solvable, error=message,
                  reference_from=reference_from(task, limits) if task is not None else "").to_json()
    if task is not None:
        level, world = difficulty(task), task.domain.name
    else:
        world = None
        try:
            from .shipping import shipped

            source = shipped(ref)
            data = source.data if source is not None else store.problem_data(ref)[0]
            level = _difficulty(data.get("metadata"), data.get("optimal"))
        except Exception:
            level = "unknown"
    row.update(id=episode_id(spec.label, ref, sample), problem_ref=ref, problem_set=problem_set(ref), difficulty=level,
               agent_label=spec.label, seed=episode_seed(settings.seed, spec.label, ref, sample), world=world, unscored=True)
    if sample:
        row["sample"] = sample
    return row


def worker_died_row(job: tuple, reason: str) -> dict:
    """The line of an episode given up after its worker died twice (`evals.pool` says why)."""
    return failed_row(job, WORKER_DIED, reason)


def run_batch(jobs: list, threads: int = 1) -> list[dict]:
    """Jobs of one worker process: one after the other, or by `threads` threads (for LLM agents,
    whose time is spent waiting)."""
    if threads <= 1 or len(jobs) == 1:
        return [run_job(job) for job in jobs]
    with ThreadPoolExecutor(min(threads, len(jobs))) as pool:
        return list(pool.map(run_job, jobs))


def batches(jobs: list, concurrency: int = 1, workers: int = 1) -> list[list]:
    """Jobs in batches of `concurrency` (threads in one worker), whole problems together when
    run one at a time, so each worker grounds a problem once for all the agents compared (unless
    there are fewer problems than workers, which would then sit idle)."""
    if concurrency > 1 or len({job[0] for job in jobs}) < workers:
        return [jobs[i:i + concurrency] for i in range(0, len(jobs), concurrency)]
    out: list[list] = []
    for job in jobs:
        if out and out[-1][0][0] == job[0]:
            out[-1].append(job)
        else:
            out.append([job])
    return out


def check_agents(specs: list[AgentSpec], domains) -> None:
    """Refuse, before anything runs, a world baseline that some domain of the run does not have, or
    a prompt strategy that some world of the run does not accept (asked of the loaded domains, whose
    plug-ins are bound to their files, not to their names): an episode that could only fail is
    never started, and never scored as the agent's failure."""
    from groundplan.agents.baselines import check_baseline
    from groundplan.agents.profile import check_strategy_for

    ordered = sorted(domains, key=lambda d: (d.name, str(d.file)))
    for spec in specs:
        if spec.name == "llm":
            check_strategy_for(dict(spec.options).get("strategy"), ordered)
        if spec.name == "baseline":
            for domain in ordered:
                check_baseline(domain, dict(spec.options)["baseline"])


@dataclass
class Progress:
    total: int
    done: int = 0
    successes: int = 0
    tokens: int = 0
    dollars: float = 0.0
    errors: list = field(default_factory=list)

    def __post_init__(self):
        self.bar = None
        try:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, unit="ep", file=sys.stderr, disable=not sys.stderr.isatty(), dynamic_ncols=True)
        except ImportError:
            pass

    def update(self, row: dict) -> None:
        self.done += 1
        if "load_error" in row:
            self.errors.append(row)
        else:
            self.successes += bool(row.get("success"))
            self.tokens += row.get("tokens", 0)
            self.dollars += row.get("cost_usd") or 0.0
        if self.bar is not None:
            self.bar.set_postfix_str(f"success {self.successes}/{self.done - len(self.errors)} tokens {self.tokens} ${self.dollars:.4f}",
                                     refresh=False)
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def manifest(folder: Path, refs: list[str], specs: list[AgentSpec], settings: Settings, loaded: list | None = None) -> dict:
    """What the numbers of a run depend on. Problems are read, not built: the domain of each
    distinct reference is loaded once, so a manifest of 16,000 problems stays cheap. The loaded
    domains are appended to `loaded` when given (the agents are checked against them)."""
    from groundplan.agents.profile import profile_for_domain
    from groundplan.engine.loader import load_domain, resolve_domain_reference

    problems, domains, prompts = {}, {}, {}
    resolved: dict = {}
    for ref in refs:
        try:
            data, digest, origin = store.problem_data(ref)
            problems[ref] = digest
            key = (str(data.get("domain")), str(origin.parent))
            if key not in resolved:
                path = resolve_domain_reference(str(data.get("domain")), origin)
                resolved[key] = load_domain(path) if path is not None else None
            domain = resolved[key]
        except Exception:  # an unreadable problem is reported by the run itself
            problems.setdefault(ref, None)
            continue
        if domain is not None and loaded is not None and all(d is not domain for d in loaded):
            loaded.append(domain)
        if domain is not None and domain.name not in domains:
            domains[domain.name] = store.file_hash(domain.file) if Path(domain.file).is_file() else None
            prompts[domain.name] = profile_for_domain(domain).hashes()
    return {
        "groundplan_version": store.version(),
        "git_commit": store.git_commit(),
        "agents": [{"label": s.label, "name": s.name, "options": {k: v for k, v in s.options if k != "api_key"}} for s in specs],
        "settings": asdict(settings),
        "prompt_templates": prompts,
        "domains": domains,
        "problems": problems,
    }


def _comparable(m: dict) -> dict:
    # a setting added later with its default (None) matches a manifest written before it existed
    # (and a newer setting given its default value, e.g. --reference plan, matches one without it)
    settings = {k: v for k, v in (m.get("settings") or {}).items()
                if k not in UNCOMPARED_SETTINGS and (k not in NEW_SETTINGS or (v is not None and v != NEW_SETTING_DEFAULTS.get(k)))}
    agents = [dict(a, options={k: v for k, v in (a.get("options") or {}).items() if k not in UNCOMPARED_OPTIONS})
              if isinstance(a, dict) else a for a in (m.get("agents") or [])]
    return {"agents": agents, "settings": settings, "problems": m.get("problems"), "suite": m.get("suite")}


NEW_SETTINGS = ("budget", "episode_memory", "reference", "reference_time")  # settings newer than some run folders
NEW_SETTING_DEFAULTS = {"reference": "plan"}  # what a newer setting left at None means
# what a resumed run may change: the number of samples (more adds episodes, fewer reports the first
# ones; an episode's id and seed do not depend on it), and how the LLM cache is used (a reply's
# source, not what is asked)
UNCOMPARED_SETTINGS = ("samples",)
UNCOMPARED_OPTIONS = ("cache",)


BACKENDS = ("local", "ray")


def execute(refs: list[str], specs: list[AgentSpec], settings: Settings, folder: Path, workers: int | None = 1, resume: bool = False,
            concurrency: int = 1, say=None, backend: str = "local", ray_address: str | None = None,
            then=None, suite: dict | None = None) -> tuple[list[dict], list[dict]]:
    """Run every (agent, problem) episode not yet in `folder`; returns (episode rows, load errors).

    The folder is locked for the run (`store.one_writer`): another plan-eval writing it makes this
    one raise `store.FolderBusy` before it reads or writes anything there. `then(rows)` runs while
    the lock is still held (plan-eval writes the summaries there), so no other run's lines can
    land between the rows and the summary made of them.

    `say(text)` is told what the repair of a resumed run's episodes.jsonl did, and what went wrong
    with a worker. Episodes run in this process, unless there are several workers or a memory limit
    (which needs a process to bound), or the backend is Ray (`evals.ray_pool`; `workers` is then
    the CPUs of the local instance it starts, all of the machine's when None, and is not used with
    `ray_address`, where the cluster's CPUs decide).

    `suite` ({"name", "hash", ...}: `plan-eval suite`, `evals.suites`) goes into the manifest as
    its "suite", so two runs can be shown to follow the same protocol; a run folder is resumed
    only under the suite it was started with."""
    say = say or (lambda text: print(text, file=sys.stderr))
    loaded: list = []
    new = manifest(folder, refs, specs, settings, loaded)
    if suite is not None:
        new["suite"] = suite
    check_agents(specs, loaded)
    with store.one_writer(folder):  # a second plan-eval on this folder is refused here (store.FolderBusy)
        rows, errors = _execute(refs, specs, settings, folder, new, workers, resume, concurrency, say, backend, ray_address)
        if then is not None:
            then(rows)
    return rows, errors


def _execute(refs, specs, settings, folder, new, workers, resume, concurrency, say, backend, ray_address):
    from groundplan.engine.errors import GroundplanError

    old_path = folder / store.MANIFEST
    if old_path.exists() and (folder / store.EPISODES).exists() and store.read_episodes(folder):
        import json

        try:
            old = json.loads(old_path.read_text())
        except (OSError, ValueError) as exc:
            raise GroundplanError(f"{old_path} cannot be read ({exc}), so the run cannot be checked before resuming it: "
                                  "restore the file, or choose another --out") from None
        if not resume:
            raise GroundplanError(f"{folder} already holds a run: continue it with --resume, or choose another --out")
        if _comparable(old) != _comparable(new):
            raise GroundplanError(f"{folder} holds a run with other agents, settings or problems: it cannot be resumed with these; "
                                  "choose another --out")
    store.write_json(old_path, new)
    found = store.repair_episodes(folder)
    _tell_repair(found, folder, say)
    done = {row["id"] for row in found.rows}
    samples = range(max(1, settings.samples))
    jobs = [(ref, spec, settings, i) for ref in refs for spec in specs for i in samples if episode_id(spec.label, ref, i) not in done]
    progress = Progress(len(jobs))
    writer = store.EpisodeWriter(folder)
    errors: list[dict] = []
    threads = max(1, concurrency)
    startup: list[float] = []  # seconds, one per process that started up (start_up) before its first episode
    where = "plan-eval"
    try:
        if backend == "ray":
            from .ray_pool import RayPool

            pool = RayPool(key=job_id, died=worker_died_row, threads=threads,
                           address=ray_address, cpus=None if ray_address else workers, say=say, local=run_job)
            startup, where = pool.startup, "Ray worker"
            with closing(pool.run(batches(jobs, threads, workers or 2))) as rows:
                for row in rows:
                    _take(row, writer, progress, errors)
        elif (workers or 1) <= 1 and not settings.episode_memory:  # None: the default, one
            took = start_up(specs) if jobs else None
            if took is not None:
                startup.append(took)
            for batch in batches(jobs, threads):
                for row in run_batch(batch, threads):
                    _take(row, writer, progress, errors)
        else:
            from .pool import Pool

            needs = any(spec.name == "llm" for spec in specs)  # else no worker loads anything
            pool = Pool(workers or 1, run_job, key=job_id, died=worker_died_row,
                        memory_mb=settings.episode_memory, threads=threads,
                        after_batch=forget_tasks if settings.episode_memory else None,
                        prepare=functools.partial(start_up, tuple(specs)) if needs else None)
            startup, where = pool.startup, "worker"
            with closing(pool.run(batches(jobs, threads, workers or 1))) as rows:
                for row in rows:
                    _take(row, writer, progress, errors)
    finally:
        try:
            writer.close()
        finally:
            progress.close()
    if startup:
        say(startup_note(startup, where))
        store.write_json(old_path, dict(new, startup={"llm_seconds": [round(s, 3) for s in startup]}))
    wanted = {episode_id(s.label, ref, i) for s in specs for ref in refs for i in samples}  # once: in the filter it cost O(rows x refs)
    rows = [r for r in store.read_episodes(folder) if r["id"] in wanted]
    return rows, errors


def startup_note(seconds: list[float], where: str) -> str:
    """The line that says how long LLM start-up took, apart from the episodes' time: `seconds`, one
    per process that started up, `where` names those processes ('plan-eval', 'worker', 'Ray worker')."""
    if where == "plan-eval":
        took = f"{seconds[0]:.1f} s in plan-eval's process"
    elif len(seconds) == 1:
        took = f"{seconds[0]:.1f} s in its one {where}"
    else:
        took = f"{min(seconds):.1f}-{max(seconds):.1f} s in each of its {len(seconds)} {where}s"
    return (f"LLM start-up (loading litellm, once per process, before its first episode): {took}; "
            "not counted in any episode's seconds")


def _tell_repair(found, folder: Path, say) -> None:
    if found.torn:
        say(f"{folder / store.EPISODES}: cut a torn last line (a kill during a write); its episode runs again")
    if found.bad:
        lines = ", ".join(str(n) for n, _, _ in found.bad[:10]) + (" ..." if len(found.bad) > 10 else "")
        say(f"{folder / store.EPISODES}: {len(found.bad)} unreadable line(s) (line {lines}: {found.bad[0][2]}) moved to "
            f"{folder / store.REJECTED}; their episodes run again, the {len(found.rows)} good ones are kept")
    if found.duplicates:
        lines = ", ".join(str(n) for n, _, _ in found.duplicates[:10]) + (" ..." if len(found.duplicates) > 10 else "")
        say(f"{folder / store.EPISODES}: {len(found.duplicates)} duplicate line(s) of episodes an earlier line already holds "
            f"(line {lines}: {found.duplicates[0][2]}) moved to {folder / store.REJECTED}; each episode is counted once")


def _take(row: dict, writer, progress: Progress, errors: list) -> None:
    if "load_error" in row:
        errors.append(row)
    else:
        writer.write(row)
    progress.update(row)
