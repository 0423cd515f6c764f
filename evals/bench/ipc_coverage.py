"""Coverage, cost agreement and speed against Fast Downward on IPC tasks, one task at a time (issue 35).

    pip install -e '.[bench]'     # up-fast-downward (the Fast Downward binary)
    python evals/bench/ipc_coverage.py ../shared/data/ipc [--time 60] [--memory 4096]
           [--domains depot satellite ...] [--tasks N] [--configs optimal satisficing] [--json out.json [--resume]]
           [--repeat-solved run1.json ...]
    python evals/bench/ipc_coverage.py --summarise run1.json run2.json ... [--repeats]

Why: the figures that say whether groundplan's search core is fast enough are coverage under the
same limits as Fast Downward, not speed on a handful of small tasks. For every task of the IPC
folder (`index.json` lists the (domain, problem) pairs; the files are competition data, read from
where they lie and never committed) and of the classic PDDL tasks the project ships
(`evals/bench/pddl`), both sides run the same search pair under the same limits:

| config | groundplan | Fast Downward |
|---|---|---|
| optimal | A* + LM-cut (`solve(planner="astar", heuristic="lmcut")`) | `astar(lmcut())` |
| satisficing | lazy GBFS + h_FF (`solve(planner="lazy", heuristic="hff")`: deferred evaluation, no preferred operators) | `lazy_greedy([ff()])` |

Limits are CPU seconds (`--time`) and megabytes of address space (`--memory`) on both sides and
cover the whole run, parsing and grounding included: Fast Downward applies its own
(`--overall-time-limit`, `--overall-memory-limit`, which it enforces as CPU time and address
space), and our side runs in a worker process under the same `setrlimit` CPU and address-space
limits, so a blow-up ends that task (timeout/memout/crash), never the benchmark. An import
failure is reported for that task and counted as not solved.

Printed per domain: coverage (ours / Fast Downward) in both configs, optimal-cost disagreements
on commonly solved tasks (any is a bug: printed, and the run exits 1), the satisficing plan costs
compared (ours cheaper / equal / dearer), and the median ratio of expansions per CPU second of
search, ours / Fast Downward's (our `cpu_seconds` after grounding; Fast Downward's "Search time"),
over the tasks both solved whose Fast Downward search took at least `MIN_FD_SEARCH` seconds
(below that its clock is all rounding).

A full run takes hours (every unsolved task costs the limit twice per config), so nothing is lost
to a killed run: `--json F` is rewritten after every task, `--resume` skips the (task, config)
pairs F already holds under the same limits, and `--summarise F G ...` prints the summary of
several such files (runs of different domains in parallel processes, or a run in pieces).

Medians of repeated runs: both planners are deterministic (the same expansions every run), so a
repeat only re-measures CPU time and whether a task ends within the limit. `--repeat-solved F ...`
runs only the (task, config) pairs that either side solved in the runs F (the pairs both sides
left unsolved at the limit cost two limits each and made up 82-93% of a full run's CPU time); and
`--summarise ... --repeats` reads the same pair in several files as repeats, not as later
pieces: a side counts as solving it when it did in more than half of the runs that hold the
pair, and its CPU seconds are the median over the runs it solved.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

CONFIGS = {  # name: (our planner, our heuristic, Fast Downward's search, what counts as solved)
    "optimal": ("astar", "lmcut", "astar(lmcut())"),
    "satisficing": ("lazy", "hff", "lazy_greedy([ff()])"),  # both: deferred evaluation, no preferred operators
}
CLASSICS = ROOT / "evals" / "bench" / "pddl"  # the project's own PDDL twins (blocksworld, gripper)
MIN_FD_SEARCH = 0.01  # Fast Downward search seconds below which a rate is not compared
WALL_FACTOR, WALL_GRACE = 3.0, 30.0  # a run taking longer in wall time than this is killed (a loaded machine)


def natural(name: str):
    """Sort key putting pfile2 before pfile10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def task_list(ipc: Path | None, domains: list[str] | None, per_domain: int | None) -> list[dict]:
    """{'domain', 'name', 'domain_file', 'problem_file'} for every task to run, in natural order."""
    out = []
    if ipc is not None:
        index = json.loads((ipc / "index.json").read_text())
        for domain, entry in index.items():
            pairs = sorted(entry["problems"], key=lambda p: natural(p[1]))
            for domain_file, problem in pairs:
                out.append(dict(domain=domain, name=problem, domain_file=str(ipc / domain / domain_file),
                                problem_file=str(ipc / domain / problem)))
    for folder in sorted(p for p in CLASSICS.iterdir() if p.is_dir()):
        for problem in sorted((p for p in folder.glob("*.pddl") if p.name != "domain.pddl"), key=lambda p: natural(p.name)):
            out.append(dict(domain=f"classic-{folder.name}", name=problem.name, domain_file=str(folder / "domain.pddl"),
                            problem_file=str(problem)))
    if domains:
        out = [t for t in out if t["domain"] in domains or t["domain"].removeprefix("classic-") in domains]
    if per_domain is not None:
        kept, seen = [], {}
        for t in out:
            seen[t["domain"]] = seen.get(t["domain"], 0) + 1
            if seen[t["domain"]] <= per_domain:
                kept.append(t)
        out = kept
    return out


# ---------------------------------------------------------------- our side, in a worker process

def worker(spec: dict) -> dict:
    """Load, ground and solve one task with our planner; runs inside the limited worker process."""
    began = time.process_time()
    planner, heuristic, _ = CONFIGS[spec["config"]]
    try:
        from grounding_pruning import load_pddl
        task = load_pddl(spec["domain_file"], spec["problem_file"], spec["name"])
        task.applicable(task.initial_state())  # grounding, outside the search's clock (as Fast Downward's translator)
    except MemoryError:
        return dict(status="memout", message="out of memory while importing or grounding")
    except Exception as exc:  # an import or grounding failure is this task's result, not the benchmark's end
        return dict(status="import-error", message=f"{type(exc).__name__}: {exc}"[:300])
    loading = time.process_time() - began  # our imports, the PDDL import and grounding
    from groundplan.planners import solve

    result = solve(task, planner=planner, heuristic=heuristic, memory_limit=spec["memory"])
    return dict(status=result.status, cost=result.cost, expanded=result.expanded, search_cpu=result.cpu_seconds,
                load_cpu=loading, message=(result.reason or "")[:300])


def _on_cpu_limit(signum, frame):  # SIGXCPU: the soft CPU limit is spent
    sys.stdout.write(json.dumps(dict(status="timeout", message="CPU time limit")) + "\n")
    sys.stdout.flush()
    os._exit(0)


def worker_main(spec_text: str) -> int:
    signal.signal(signal.SIGXCPU, _on_cpu_limit)
    spec = json.loads(spec_text)
    try:
        out = worker(spec)
    except MemoryError:
        out = dict(status="memout", message="MemoryError")
    except Exception as exc:
        out = dict(status="crash", message=f"{type(exc).__name__}: {exc}"[:300])
    print(json.dumps(out), flush=True)
    return 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ours(task: dict, config: str, seconds: float, memory_mb: int) -> dict:
    spec = dict(task, config=config, memory=memory_mb)
    limit_bytes = int(memory_mb * 2**20)

    def limits():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (int(seconds), int(seconds) + 5))  # soft: SIGXCPU; hard: SIGKILL
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    cpu = _children_cpu()
    process = subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=limits,
                               env={**os.environ, "PYTHONHASHSEED": "0"})
    try:
        stdout, stderr = process.communicate(timeout=seconds * WALL_FACTOR + WALL_GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return dict(status="timeout", message="wall-clock backstop", total_cpu=_children_cpu() - cpu)
    total = _children_cpu() - cpu
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    if lines:
        out = json.loads(lines[-1])
    elif process.returncode in (-signal.SIGKILL, -signal.SIGXCPU):
        out = dict(status="timeout", message="killed at the hard CPU limit")
    else:
        tail = " / ".join(stderr.strip().splitlines()[-2:])
        memory = "MemoryError" in stderr or "memory" in tail.lower()
        out = dict(status="memout" if memory else "crash", message=f"exit {process.returncode}: {tail}"[:300])
    out["total_cpu"] = total
    return out


# ---------------------------------------------------------------- Fast Downward's side

def run_fd(task: dict, config: str, seconds: float, memory_mb: int) -> dict:
    from groundplan.planners.fast_downward import MEMOUT_CODES, TIMEOUT_CODES, UNSOLVABLE_CODES
    from planners_vs_fast_downward import fast_downward_process, read_fast_downward

    search = CONFIGS[config][2]
    options = ["--overall-time-limit", f"{int(seconds)}s", "--overall-memory-limit", f"{int(memory_mb)}M"]
    cpu = _children_cpu()
    with tempfile.TemporaryDirectory(prefix="ipc-coverage-") as work:
        run = fast_downward_process(Path(work), search, task["domain_file"], task["problem_file"], options,
                                    timeout=seconds * WALL_FACTOR + WALL_GRACE)
    total = _children_cpu() - cpu
    if run is None:
        return dict(status="timeout", message="wall-clock backstop", total_cpu=total)
    read = read_fast_downward(run.stdout) if run.returncode == 0 else None
    if read is not None:
        cost, expanded, search_cpu = read
        status = "solved-optimal" if config == "optimal" else "solved-satisficing"
        return dict(status=status, cost=cost, expanded=expanded, search_cpu=search_cpu, total_cpu=total, message="")
    code = run.returncode
    status = ("timeout" if code in TIMEOUT_CODES else "memout" if code in MEMOUT_CODES
              else "unsolvable-proven" if code in UNSOLVABLE_CODES else "error")
    tail = " / ".join((run.stderr.strip() or run.stdout.strip()).splitlines()[-2:])
    return dict(status=status, message=f"exit {code}: {tail}"[:300], total_cpu=total)


# ---------------------------------------------------------------- the run and its summary

def solved(row: dict | None) -> bool:
    return row is not None and str(row.get("status", "")).startswith("solved")


def summarise(records: list[dict], configs: list[str]) -> tuple[dict, list[str]]:
    """Per domain and config: coverage both sides, cost comparison, median rate ratio; and the bugs."""
    summary, bugs = {}, []
    for domain in dict.fromkeys(r["domain"] for r in records):
        rows = [r for r in records if r["domain"] == domain]
        entry = summary[domain] = {"tasks": len(rows)}
        for config in configs:
            ours = [r[config]["ours"] for r in rows if config in r]
            fd = [r[config]["fd"] for r in rows if config in r]
            both = [(a, b) for a, b in zip(ours, fd) if solved(a) and solved(b)]
            ratios = [(a["expanded"] / max(a["search_cpu"], 1e-9)) / (b["expanded"] / b["search_cpu"])
                      for a, b in both if b["search_cpu"] >= MIN_FD_SEARCH and a["expanded"] and b["expanded"]]
            e = entry[config] = dict(ours=sum(map(solved, ours)), fd=sum(map(solved, fd)), both=len(both),
                                     ratio_tasks=len(ratios),
                                     median_rate_ratio=statistics.median(ratios) if ratios else None)
            if config == "optimal":
                for r in (r for r in rows if config in r):
                    a, b = r[config]["ours"], r[config]["fd"]
                    if solved(a) and solved(b) and abs(a["cost"] - b["cost"]) > 1e-6:
                        bugs.append(f"{domain}/{r['name']}: optimal cost {a['cost']:g} (ours) vs {b['cost']:g} (Fast Downward)")
            else:
                e["cheaper"] = sum(a["cost"] < b["cost"] - 1e-6 for a, b in both)
                e["equal"] = sum(abs(a["cost"] - b["cost"]) <= 1e-6 for a, b in both)
                e["dearer"] = sum(a["cost"] > b["cost"] + 1e-6 for a, b in both)
    return summary, bugs


def print_summary(summary: dict, configs: list[str], file=None) -> None:
    def fmt(x):
        return "-" if x is None else f"{x:.3f}"
    head = f"{'domain':26} {'tasks':>5}"
    if "optimal" in configs:
        head += f" {'opt ours':>8} {'opt FD':>6} {'exp/s ratio':>11}"
    if "satisficing" in configs:
        head += f" {'sat ours':>8} {'sat FD':>6} {'cost <,=,>':>11} {'exp/s ratio':>11}"
    print(head, file=file)
    total = {c: [0, 0] for c in configs}
    for domain, e in summary.items():
        line = f"{domain:26} {e['tasks']:>5}"
        if "optimal" in configs:
            o = e["optimal"]
            line += f" {o['ours']:>8} {o['fd']:>6} {fmt(o['median_rate_ratio']):>11}"
        if "satisficing" in configs:
            s = e["satisficing"]
            costs = f"{s['cheaper']},{s['equal']},{s['dearer']}"
            line += f" {s['ours']:>8} {s['fd']:>6} {costs:>11} {fmt(s['median_rate_ratio']):>11}"
        for c in configs:
            total[c][0] += e[c]["ours"]
            total[c][1] += e[c]["fd"]
        print(line, file=file)
    tasks = sum(e["tasks"] for e in summary.values())
    for c in configs:
        print(f"{c} coverage: groundplan {total[c][0]} of {tasks}, Fast Downward {total[c][1]}", file=file)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ipc", nargs="?", default=None, help="the IPC folder (with index.json); omitted: the classics only")
    parser.add_argument("--time", type=float, default=60.0, help="CPU seconds per task and side (default 60)")
    parser.add_argument("--memory", type=int, default=4096, help="MB of address space per task and side (default 4096)")
    parser.add_argument("--domains", nargs="*", default=None, help="only these domains (IPC folder names, or blocksworld, gripper)")
    parser.add_argument("--tasks", type=int, default=None, help="only the first N tasks of each domain (natural order)")
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--json", default=None, help="write every run and the summary to this file ('-': stdout)")
    parser.add_argument("--resume", action="store_true", help="skip the tasks and configs the --json file already holds")
    parser.add_argument("--summarise", nargs="+", default=None, metavar="JSON",
                        help="print the summary of these runs' JSON files together, run nothing")
    parser.add_argument("--repeats", action="store_true",
                        help="with --summarise: the files are repeated runs of the same tasks (majority and medians)")
    parser.add_argument("--repeat-solved", nargs="+", default=None, metavar="JSON",
                        help="run only the (task, config) pairs that either side solved in these runs")
    parser.add_argument("--quiet", action="store_true", help="no line per task")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        return worker_main(args.worker)
    if args.summarise:
        return summarise_files(args.summarise, args.configs, args.repeats)
    if args.resume and not args.json:
        parser.error("--resume needs --json FILE (the run to continue)")
    from groundplan.planners.fast_downward import driver

    if driver() is None:
        print("Fast Downward is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    ipc = Path(args.ipc).resolve() if args.ipc else None  # absolute: Fast Downward runs in a scratch folder
    if ipc is not None and not (ipc / "index.json").is_file():
        print(f"{ipc} has no index.json", file=sys.stderr)
        return 2
    tasks = task_list(ipc, args.domains, args.tasks)
    log = sys.stderr if args.json == "-" else sys.stdout
    done = load_records([Path(args.json)], args.time, args.memory) if args.resume and args.json != "-" else {}
    wanted = solved_pairs([Path(p) for p in args.repeat_solved], args.time, args.memory) if args.repeat_solved else None
    records = []
    for t in tasks:
        record = done.get((t["domain"], t["name"]), dict(domain=t["domain"], name=t["name"]))
        for config in args.configs:
            if config in record or (wanted is not None and (t["domain"], t["name"], config) not in wanted):
                continue
            ours = run_ours(t, config, args.time, args.memory)
            fd = run_fd(t, config, args.time, args.memory)
            record[config] = dict(ours=ours, fd=fd)
            if not args.quiet:
                def show(r):
                    if solved(r):
                        return f"cost {r['cost']:g} exp {r['expanded']} cpu {r['total_cpu']:.1f}s"
                    return f"{r['status']} ({r.get('message', '')[:60]})" if r["status"] in ("import-error", "crash", "error") else r["status"]
                print(f"{t['domain'] + '/' + t['name']:56} {config[:3]}  ours: {show(ours):42} fd: {show(fd)}", file=log,
                      flush=True)
        if not any(c in record for c in CONFIGS):
            continue  # nothing to repeat here
        records.append(record)
        if args.json and args.json != "-":
            save(Path(args.json), args.time, args.memory, records, args.configs)
    return report(records, args.configs, args.time, args.memory, args.json, log)


def report(records: list[dict], configs: list[str], seconds: float, memory_mb: int, json_out: str | None, log) -> int:
    """Print the summary (and write the JSON); exit status 1 when an optimal cost disagrees."""
    summary, bugs = summarise(records, configs)
    print(file=log)
    print_summary(summary, configs, file=log)
    for bug in bugs:
        print(f"BUG: {bug}", file=log)
    if json_out == "-":
        print(json.dumps(dict(time=seconds, memory=memory_mb, records=records, summary=summary, bugs=bugs), indent=1))
    elif json_out:
        save(Path(json_out), seconds, memory_mb, records, configs)
    return 1 if bugs else 0


def save(path: Path, seconds: float, memory_mb: int, records: list[dict], configs: list[str]) -> None:
    """Write the records so far (and their summary) atomically: a run killed mid-write keeps the last file."""
    summary, bugs = summarise(records, configs)
    payload = json.dumps(dict(time=seconds, memory=memory_mb, records=records, summary=summary, bugs=bugs), indent=1)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(payload)
    os.replace(partial, path)


def load_records(paths: list[Path], seconds: float | None = None, memory_mb: int | None = None,
                 repeats: bool = False) -> dict:
    """(domain, task) -> record from earlier runs' JSON files; later files win a task's configs, or
    with `repeats` every file's run of a config is kept (a list, for combine_repeats).
    With `seconds`/`memory_mb`, a file run under other limits is refused: its results do not compare."""
    out: dict = {}
    for path in paths:
        if not path.is_file():
            continue
        data = json.loads(path.read_text())
        if seconds is not None and (data.get("time"), data.get("memory")) != (seconds, memory_mb):
            raise SystemExit(f"{path}: run with --time {data.get('time')} --memory {data.get('memory')}, "
                             f"not {seconds:g} and {memory_mb}: use another --json file or the same limits")
        for r in data["records"]:
            record = out.setdefault((r["domain"], r["name"]), dict(domain=r["domain"], name=r["name"]))
            for config in (k for k in r if k in CONFIGS):
                if repeats:
                    record.setdefault(config, []).append(r[config])
                else:
                    record[config] = r[config]
    return out


def combine_repeats(runs: list[dict]) -> dict:
    """One {ours, fd} from several runs of a (task, config): a side solved it when it did in more
    than half of the runs; then its cost and expansions are those of a solving run (every run
    expands the same states) and its CPU seconds the median over the solving runs."""
    out = {}
    for side in ("ours", "fd"):
        rows = [run[side] for run in runs]
        wins = [row for row in rows if solved(row)]
        if 2 * len(wins) <= len(rows):
            out[side] = dict(min((row for row in rows if not solved(row)), key=lambda row: row["status"]), runs=len(rows))
            continue
        out[side] = dict(wins[0], runs=len(rows), solved_runs=len(wins),
                         search_cpu=statistics.median(row["search_cpu"] for row in wins),
                         total_cpu=statistics.median(row.get("total_cpu") or 0.0 for row in wins))
    return out


def solved_pairs(paths: list[Path], seconds: float, memory_mb: int) -> set:
    """The (domain, task, config) triples that either side solved in these runs."""
    return {(domain, name, config) for (domain, name), record in load_records(paths, seconds, memory_mb).items()
            for config in CONFIGS if config in record and (solved(record[config]["ours"]) or solved(record[config]["fd"]))}


def summarise_files(paths: list[str], configs: list[str], repeats: bool = False) -> int:
    """The summary of several runs' JSON files together: each task counted once, from the last file
    that holds it, or with `repeats` from all of them (combine_repeats)."""
    files = [Path(p) for p in paths]
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        print(f"no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    limits = {(d.get("time"), d.get("memory")) for d in (json.loads(p.read_text()) for p in files)}
    if len(limits) > 1:
        print(f"these runs used different limits {sorted(limits)}: their coverage does not add up", file=sys.stderr)
        return 2
    records = list(load_records(files, repeats=repeats).values())
    if repeats:
        counts = [len(r[c]) for r in records for c in CONFIGS if c in r]
        print(f"repeats per (task, config): {min(counts)} to {max(counts)}, {sum(n >= 3 for n in counts)} of "
              f"{len(counts)} run at least 3 times", file=sys.stderr)
        records = [dict(r, **{c: combine_repeats(r[c]) for c in CONFIGS if c in r}) for r in records]
    configs = [c for c in configs if any(c in r for r in records)]
    incomplete = [f"{r['domain']}/{r['name']}" for r in records if any(c not in r for c in configs)]
    if incomplete:
        print(f"{len(incomplete)} tasks lack a config ({', '.join(incomplete[:5])}...): summarised without them", file=sys.stderr)
        records = [r for r in records if all(c in r for c in configs)]
    (seconds, memory_mb), = limits
    return report(records, configs, seconds, memory_mb, None, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
