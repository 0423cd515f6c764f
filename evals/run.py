"""Running an evaluation: agents x problems -> episode lines, resumable and parallel.

Every episode has an id (agent label and problem reference) and a seed derived from the run's
seed and that id, never from the order of execution, so `--workers 1` and `--workers 8` give
the same episodes, and `--resume` can skip what is already written.

Jobs go to the workers problem by problem (every agent's episode of one problem in one batch), so
a problem is loaded and grounded once per worker however many agents are compared: grounding is
most of an episode's time in worlds of many small problems (GRASP: about 28 of 32 ms).
"""
from __future__ import annotations

import functools
import hashlib
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import store


@dataclass(frozen=True)
class AgentSpec:
    name: str
    options: tuple = ()  # sorted (key, value) pairs, hashable for the process pool
    label: str = ""

    def make(self):
        from agents import make_agent

        return make_agent(self.name, **dict(self.options))


def agent_specs(names, model=None, strategy="react", plans=None, api_base=None, llm_options=None) -> list[AgentSpec]:
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
                from engine.errors import GroundplanError

                raise GroundplanError("the llm agent needs --model (a litellm model string, e.g. openai/gpt-4o-mini)")
            from agents.profile import check_strategy

            check_strategy(strategy)  # refused before the run folder is made
            options = {"model": model, "strategy": strategy, **({"api_base": api_base} if api_base else {}), **(llm_options or {})}
            label = f"llm:{model}:{strategy}"
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


def episode_id(label: str, ref: str) -> str:
    return f"{label}::{ref}"


def episode_seed(seed: int, label: str, ref: str) -> int:
    digest = hashlib.sha256(f"{seed}|{label}|{ref}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def problem_set(ref: str) -> str:
    """'async' for problems/async/x.json; the set file's stem for a problem set."""
    from engine.problemsets import is_set_reference, set_name

    path = Path(ref.split("#", 1)[0])
    return set_name(path) if is_set_reference(path) else (path.parent.name or ".")


def difficulty(task) -> str:
    """The problem's own `metadata.difficulty`, else a bin of its reference cost."""
    meta = task.problem.metadata or {}
    if meta.get("difficulty") is not None:
        return str(meta["difficulty"])
    entry = task.problem.optimal or {}
    if entry.get("solvable") is False:
        return "unsolvable"
    cost = entry.get("cost") if entry.get("cost") is not None else entry.get("upper_bound")
    if cost is None:
        return "unknown"
    for top in (10, 20, 40, 80):
        if cost <= top:
            return f"h<={top}"
    return "h>80"


@functools.lru_cache(maxsize=8)
def _task(ref: str):
    from engine.task import Task

    return Task.load(ref)


def steps_to_go_time(task, settings: Settings) -> float | None:
    """The run's budget for proving a failure's steps-to-go, or 0 when the world's metrics plug-in
    says the measure does not apply to it (`STEPS_TO_GO = False`: GRASP, whose episodes end at a
    fixed budget and are ranked by score; there the search cost about 0.5 s per failed episode)."""
    from .metrics import plugin

    module = plugin(task.domain.name)
    if module is not None and getattr(module, "STEPS_TO_GO", True) is False:
        return 0
    return settings.steps_to_go_time


def run_job(job: tuple) -> dict:
    """One episode (in a worker process or thread): a line for episodes.jsonl, or a load error."""
    ref, spec, settings = job
    from agents import Limits, run_episode
    from engine.errors import GroundplanError

    from .metrics import episode_row

    eid = episode_id(spec.label, ref)
    try:
        task = _task(ref)
    except GroundplanError as exc:
        return {"id": eid, "load_error": str(exc), "problem_ref": ref}
    seed = episode_seed(settings.seed, spec.label, ref)
    limits = Limits(settings.max_steps, settings.max_steps_factor, settings.episode_seconds, settings.budget)
    episode = run_episode(task, spec.make(), limits, seed=seed, record_observations=settings.record_observations)
    row = episode_row(task, episode, steps_to_go_time(task, settings))
    row.update(id=eid, problem_ref=ref, problem_set=problem_set(ref), difficulty=difficulty(task), agent_label=spec.label,
               seed=seed, world=task.domain.name)
    return row


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


def check_agents(specs: list[AgentSpec], worlds) -> None:
    """Refuse, before anything runs, a world baseline that some world of the run does not have."""
    from agents.baselines import check_baseline

    for spec in specs:
        if spec.name == "baseline":
            for world in sorted(worlds):
                check_baseline(world, dict(spec.options)["baseline"])


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
            self.dollars += row.get("cost_usd", 0.0)
        if self.bar is not None:
            self.bar.set_postfix_str(f"success {self.successes}/{self.done - len(self.errors)} tokens {self.tokens} ${self.dollars:.4f}",
                                     refresh=False)
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def manifest(folder: Path, refs: list[str], specs: list[AgentSpec], settings: Settings) -> dict:
    """What the numbers of a run depend on. Problems are read, not built: the domain of each
    distinct reference is loaded once, so a manifest of 16,000 problems stays cheap."""
    from agents.profile import profile_for_domain
    from engine.loader import load_domain, resolve_domain_reference

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
    settings = {k: v for k, v in (m.get("settings") or {}).items() if v is not None or k not in NEW_SETTINGS}
    return {"agents": m.get("agents"), "settings": settings, "problems": m.get("problems")}


NEW_SETTINGS = ("budget",)  # settings newer than some run folders


def execute(refs: list[str], specs: list[AgentSpec], settings: Settings, folder: Path, workers: int = 1, resume: bool = False,
            concurrency: int = 1) -> tuple[list[dict], list[dict]]:
    """Run every (agent, problem) episode not yet in `folder`; returns (episode rows, load errors)."""
    from engine.errors import GroundplanError

    new = manifest(folder, refs, specs, settings)
    check_agents(specs, new["domains"])
    folder.mkdir(parents=True, exist_ok=True)
    old_path = folder / store.MANIFEST
    if old_path.exists() and (folder / store.EPISODES).exists() and store.read_episodes(folder):
        import json

        old = json.loads(old_path.read_text())
        if not resume:
            raise GroundplanError(f"{folder} already holds a run: continue it with --resume, or choose another --out")
        if _comparable(old) != _comparable(new):
            raise GroundplanError(f"{folder} holds a run with other agents, settings or problems: it cannot be resumed with these; "
                                  "choose another --out")
    store.write_json(old_path, new)
    done = {row["id"] for row in store.read_episodes(folder, repair=True)}
    jobs = [(ref, spec, settings) for ref in refs for spec in specs if episode_id(spec.label, ref) not in done]
    progress = Progress(len(jobs))
    writer = store.EpisodeWriter(folder)
    errors: list[dict] = []
    threads = max(1, concurrency)
    try:
        if workers <= 1:
            for batch in batches(jobs, threads):
                for row in run_batch(batch, threads):
                    _take(row, writer, progress, errors)
        else:
            import multiprocessing

            context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
            with ProcessPoolExecutor(workers, mp_context=context) as pool:
                pending = set()
                for batch in batches(jobs, threads, workers):  # keep at most 2 batches per worker in flight
                    pending.add(pool.submit(run_batch, batch, threads))
                    if len(pending) >= 2 * workers:
                        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for future in finished:
                            for row in future.result():
                                _take(row, writer, progress, errors)
                for future in pending:
                    for row in future.result():
                        _take(row, writer, progress, errors)
    finally:
        writer.close()
        progress.close()
    wanted = {episode_id(s.label, ref) for s in specs for ref in refs}  # once: inside the filter it cost O(rows x refs)
    rows = [r for r in store.read_episodes(folder) if r["id"] in wanted]
    return rows, errors


def _take(row: dict, writer, progress: Progress, errors: list) -> None:
    if "load_error" in row:
        errors.append(row)
    else:
        writer.write(row)
    progress.update(row)
