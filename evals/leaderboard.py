"""The leaderboard: any number of run folders in one table, so that a new model can be put beside
others (and beside a paper's published rows) with error bars, from one command
(`plan-eval leaderboard RUN...`, `plan-eval report RUN RUN...`).

Rows are keyed by (model, strategy, settings), never by agent label alone, so two models or two
strategies of several runs are rows of one table, and runs of one (model, strategy) pool their
episodes (another --seed adds samples of the same problems). Every key has a row per world and an
`overall` row (all its episodes, whatever the world). A row holds the success rate, pass@k when
problems have several samples, mean optimality and steps, the world's own metrics (its plug-in's
`summary_metrics`), tokens and dollars; every rate and mean has a 95% interval (`evals.intervals`:
Wilson over episodes for a success rate of one episode per problem, else a seeded percentile
bootstrap over problems), and the outputs say which.

One table, one protocol: runs are compared through their manifests (`check_protocols`): the
problems (by content hash, so the same problems reached by other paths match), the settings
except the seed and those that change no score shown here (steps-to-go time, recorded
observations), the llm agent's request settings except the model, strategy and transport
(temperature, token limit, ...), and the suite: runs of a suite must record the same suite name
and hash, and those of one part of it agree on the rest (a suite's parts differ by design). Runs
that differ are refused with the difference, unless `mixed`; then what differs joins each row's
key, so that rows of different settings are never pooled.

A suite run (`plan-eval suite NAME --out DIR`: a run folder per part, `DIR/PART`) records
`"suite": {"name", "hash", "part", ...}` in each part's manifest. When `groundplan.evals.suites`
exists, its `paper_table(name, {label: episode lines tagged with suite_part}, fmt)` gives the
paper's layout with the published rows beside ours (a label per model); without the module, or
when it fails, a note says so and the rest of the leaderboard stands. Its import is guarded: this
module works without it.

A folder given that is not a run folder (no episodes.jsonl) but holds run folders below it (a
suite's or a study's folder of runs) stands for those runs.
"""
from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from groundplan.engine.errors import GroundplanError

from . import intervals as I
from . import store

OVERALL = "overall"
# settings that are not part of a protocol: seed-related ones, and those that change no score shown here
UNPROTOCOL_SETTINGS = ("seed", "steps_to_go_time", "record_observations")
# llm agent options that are not part of a protocol: what the row is keyed by, and the transport
UNPROTOCOL_OPTIONS = ("model", "strategy", "api_base", "api_key", "cache", "send_seed", "timeout", "max_retries")
SETTING_DEFAULTS = {"reference": "plan", "samples": 1}  # what None (or a manifest without the setting) means
# the worlds' own metrics are recomputed by their plug-in on each resample: at most this many
# episodes in all a row (a world of 5,000 episodes gets 100 resamples, not 1000), at least MIN_WORLD_RESAMPLES
WORLD_VISITS, MIN_WORLD_RESAMPLES = 500_000, 100


@dataclass
class Run:
    folder: Path
    rows: list[dict]
    manifest: dict | None
    manifest_problem: str = ""  # why there is no usable manifest ('' when there is one)
    warnings: list[str] = field(default_factory=list)

    @property
    def agents(self) -> dict:
        return {a.get("label"): a for a in (self.manifest or {}).get("agents") or () if isinstance(a, dict)}


# ------------------------------------------------------------------ reading runs
def run_folders(paths) -> tuple[list[Path], list[str]]:
    """The run folders the arguments name (a folder of runs stands for the runs below it), each
    once; and warnings for folders given twice."""
    out, warnings, seen = [], [], {}
    for path in map(Path, paths):
        if (path / store.EPISODES).exists():
            found = [path]
        else:
            found = sorted({p.parent for p in path.rglob(store.EPISODES)})
            if not found:
                raise GroundplanError(f"{path}: not a run folder (no {store.EPISODES}), and no run folder below it")
        for folder in found:
            key = folder.resolve()
            if key in seen:
                warnings.append(f"{folder} is given twice (also as {seen[key]}): its episodes are counted once")
                continue
            seen[key] = folder
            out.append(folder)
    return out, warnings


def read_run(folder: Path) -> Run:
    """A run folder's good episode lines (with warnings for the lines left out, as `report` says
    them) and its manifest, or why it has none."""
    folder = Path(folder)
    found = store.scan(folder)
    warnings = []
    if found.unreadable:
        warnings.append(f"{folder / store.EPISODES}: {found.unreadable} line(s) could not be read as episode lines and are left "
                        f"out of the tables ({store.unreadable_where(found)}); `plan-eval ... --out {folder} --resume` moves "
                        f"them to {store.REJECTED} and runs their episodes again")
    if found.duplicates:
        warnings.append(f"{folder / store.EPISODES}: {len(found.duplicates)} duplicate line(s) ignored: each episode is counted "
                        f"once, from its first line ({store.duplicates_where(found)}); `plan-eval ... --out {folder} --resume` "
                        f"moves them to {store.REJECTED}")
    if not found.rows:
        raise GroundplanError(f"{folder}: no {store.EPISODES} with episodes in it")
    manifest, problem = None, ""
    path = folder / store.MANIFEST
    if not path.exists():
        problem = f"{path} is missing"
    else:
        try:
            manifest = json.loads(path.read_text())
            if not isinstance(manifest, dict):
                manifest, problem = None, f"{path} is not a JSON object"
        except (OSError, ValueError) as exc:
            problem = f"{path} cannot be read ({exc})"
    return Run(folder, found.rows, manifest, problem, warnings)


# ------------------------------------------------------------------ protocols
def protocol(run: Run) -> dict | None:
    """What must be equal for two runs to be one protocol (None: the run has no manifest)."""
    m = run.manifest
    if m is None:
        return None
    settings = {k: v for k, v in (m.get("settings") or {}).items() if k not in UNPROTOCOL_SETTINGS}
    for key, default in SETTING_DEFAULTS.items():
        settings[key] = default if settings.get(key) is None else settings[key]
    settings = {k: v for k, v in settings.items() if v is not None}
    agent = {}
    for a in (m.get("agents") or ()):
        if isinstance(a, dict) and a.get("name") == "llm":
            agent = {k: v for k, v in (a.get("options") or {}).items() if k not in UNPROTOCOL_OPTIONS}
            break
    suite = m.get("suite") if isinstance(m.get("suite"), dict) else None
    problems = m.get("problems") if isinstance(m.get("problems"), dict) else {}
    return {"settings": settings, "agent": agent, "has_llm": any(isinstance(a, dict) and a.get("name") == "llm"
                                                                 for a in m.get("agents") or ()),
            "suite": suite, "problems": problems}


def _content(problems: dict) -> dict:
    """{content hash (or the reference where none is known): a reference}: problems as content."""
    return {(h or f"ref:{ref}"): ref for ref, h in sorted(problems.items())}


def _suite(run: Run) -> dict | None:
    suite = (run.manifest or {}).get("suite")
    return suite if isinstance(suite, dict) and suite.get("name") else None


def differences(a: Run, b: Run) -> list[str]:
    """Why run b is not of run a's protocol ([] when it is)."""
    return [text for _, text in _differences(a, b)]


def _differences(a: Run, b: Run) -> list[tuple[str, str]]:
    """(what differs: a setting's or llm option's name, 'problems', 'suite' or 'manifest'; why)."""
    pa, pb = protocol(a), protocol(b)
    if pa is None or pb is None:
        return [("manifest", f"{(a if pa is None else b).manifest_problem}, so its protocol cannot be checked")]
    out = []
    sa, sb = pa["suite"], pb["suite"]
    if sa and sb and (sa.get("name"), sa.get("hash")) != (sb.get("name"), sb.get("hash")):
        out.append(("suite", f"suite {sa.get('name')} (hash {sa.get('hash')}) in {a.folder}, {sb.get('name')} "
                             f"(hash {sb.get('hash')}) in {b.folder}"))
    ca, cb = _content(pa["problems"]), _content(pb["problems"])
    only_a, only_b = sorted(set(ca) - set(cb)), sorted(set(cb) - set(ca))
    if only_a or only_b:
        said = []
        for only, run, content in ((only_a, a, ca), (only_b, b, cb)):
            if only:
                named = ", ".join(content[h] for h in only[:3]) + (" ..." if len(only) > 3 else "")
                said.append(f"{len(only)} problem(s) only in {run.folder} ({named})")
        out.append(("problems", "other problems: " + "; ".join(said)))
    for key in sorted(set(pa["settings"]) | set(pb["settings"])):
        va, vb = pa["settings"].get(key), pb["settings"].get(key)
        if va != vb:
            out.append((key, f"setting {key}: {_shown(va)} in {a.folder}, {_shown(vb)} in {b.folder}"))
    if pa["has_llm"] and pb["has_llm"]:
        for key in sorted(set(pa["agent"]) | set(pb["agent"])):
            va, vb = pa["agent"].get(key), pb["agent"].get(key)
            if va != vb:
                out.append((key, f"llm option {key}: {_shown(va)} in {a.folder}, {_shown(vb)} in {b.folder}"))
    return out


def _shown(value) -> str:
    return "not set" if value is None else json.dumps(value)


def check_protocols(runs: list[Run], mixed: bool) -> tuple[list[str], list[str]]:
    """(the settings that differ between the runs, which then key the rows; notes). Raises, naming
    the runs and the differences, when they are not one protocol and `mixed` is not given.

    Runs of a suite are one protocol when they record the same suite (name and hash) and those of
    one part of it agree on the rest (the parts of a suite differ by design: other sets, another
    strategy); runs of no suite are compared with the first such run; a run of a suite and one of
    none are not proven to be one protocol."""
    found: list[tuple[str, str]] = []
    suited = [r for r in runs if _suite(r)]
    plain = [r for r in runs if not _suite(r)]
    if suited and plain:
        found.append(("suite", f"{suited[0].folder} is a run of suite {_suite(suited[0])['name']}, {plain[0].folder} of none "
                               f"(the runs of a suite are compared with runs of the same suite)"))
    parts: dict[tuple, list[Run]] = defaultdict(list)
    for run in suited:
        suite = _suite(run)
        if (suite["name"], suite.get("hash")) != (_suite(suited[0])["name"], _suite(suited[0]).get("hash")):
            found += [(what, f"{run.folder} against {suited[0].folder}: {why}") for what, why in _differences(suited[0], run)
                      if what == "suite"]
        parts[(suite["name"], suite.get("hash"), json.dumps(suite.get("part")))].append(run)
    for group in [*parts.values(), plain]:
        for run in group[1:]:
            found += [(what, f"{run.folder} against {group[0].folder}: {why}") for what, why in _differences(group[0], run)]
    reasons = [why for _, why in found]
    if reasons and not mixed:
        raise GroundplanError("these runs are not of one protocol, so they are not put in one table:\n  " + "\n  ".join(reasons) +
                              "\nGive --mixed to put them in one table anyway (the settings that differ then key the rows).")
    varying = sorted({what for what, _ in found if what != "problems"})
    notes = [f"mixed protocols (--mixed): {why}" for why in reasons]
    return varying, notes


def run_settings(run: Run, varying: list[str]) -> dict:
    """The values of the varying settings in one run (its part of a row's key)."""
    p = protocol(run)
    out = {}
    for key in varying:
        if p is None:
            out[key] = "missing" if key == "manifest" else None
        elif key == "suite":
            suite = p["suite"] or {}
            out[key] = f"{suite['name']} ({str(suite.get('hash'))[:12]})" if suite.get("name") else None
        elif key == "manifest":
            out[key] = "present"
        else:
            out[key] = p["settings"].get(key, p["agent"].get(key))
    return out


# ------------------------------------------------------------------ rows
def identity(row: dict, run: Run) -> tuple[str, str]:
    """(model, strategy) of an episode: the llm agent's model and the strategy it was given
    ('default': each world's own), from the manifest, else from its label; another agent's
    label and '-'."""
    label = row["agent_label"]
    agent = run.agents.get(label)
    if agent is not None:
        if agent.get("name") != "llm":
            return label, "-"
        options = agent.get("options") or {}
        return str(options.get("model") or label), str(options.get("strategy") or "default")
    if not label.startswith("llm:"):
        return label, "-"
    ran = row.get("strategy")
    if ran and label.endswith(f":{ran}"):
        return label[4:-len(ran) - 1], str(ran)
    return label[4:], "default"


def _problem_key(row: dict, run: Run) -> str:
    ref = row.get("problem_ref") or row.get("file") or row["id"]
    digest = ((run.manifest or {}).get("problems") or {}).get(ref)
    return f"{row.get('world')}|{digest}" if digest else f"{row.get('world')}|ref:{ref}"


def build(runs: list[Run], mixed: bool = False, replicates: int = I.BOOTSTRAP, seed: int = 0) -> dict:
    """The leaderboard of the runs, as plain data (its JSON)."""
    varying, notes = check_protocols(runs, mixed)
    keyed: dict[tuple, list[dict]] = defaultdict(list)
    key_runs: dict[tuple, list[str]] = defaultdict(list)
    seen: dict[tuple, str] = {}
    repeated = 0
    for run in runs:
        settings = tuple(sorted(run_settings(run, varying).items()))
        for row in sorted(run.rows, key=lambda r: r["id"]):
            model, strategy = identity(row, run)
            key = (model, strategy, settings)
            episode = (key, row["id"], row.get("seed"))
            if episode in seen:  # the same episode (id and seed) in two run folders: a copy, counted once
                repeated += 1
                continue
            seen[episode] = str(run.folder)
            keyed[key].append(dict(row, _problem=_problem_key(row, run), _folder=str(run.folder)))
            if str(run.folder) not in key_runs[key]:
                key_runs[key].append(str(run.folder))
    if repeated:
        notes.append(f"{repeated} episode(s) appear in more than one run folder (same id and seed): each is counted once")
    entries_by_key = {}
    for key, rows in keyed.items():
        model, strategy, settings = key
        base = {"model": model, "strategy": strategy, "settings": dict(settings), "runs": key_runs[key]}
        label = f"{seed}|{model}|{strategy}|{json.dumps(settings)}"
        worlds = defaultdict(list)
        for r in rows:
            worlds[r.get("world") or "-"].append(r)
        per_world = [dict(base, world=w, episode_links=episode_links(members, w),
                          **measure(members, replicates, f"{label}|{w}", world_metrics=True))
                     for w, members in sorted(worlds.items())]
        overall = dict(base, world=OVERALL, episode_links=episode_links(rows, None),
                       **measure(rows, replicates, f"{label}|{OVERALL}", world_metrics=False))
        entries_by_key[key] = (per_world, overall)
    order = sorted(entries_by_key, key=lambda k: (-(_value(entries_by_key[k][1], "success_rate") or 0), k[0], k[1], k[2]))
    entries = [e for k in order for e in entries_by_key[k][0]]
    entries.sort(key=lambda e: e["world"])  # stable: by world, keys in leaderboard order within each
    entries += [entries_by_key[k][1] for k in order]
    fewer = sorted({m["resamples"] for e in entries for m in e["world_metrics"].values()
                    if m.get("resamples") and m["resamples"] < replicates})
    if fewer:
        notes.append(f"the worlds' own metrics of rows with many episodes were bootstrapped with fewer resamples "
                     f"({', '.join(map(str, fewer))}, not {replicates}): each resample re-runs the world's plug-in "
                     f"(at most {WORLD_VISITS:,} episodes a row); the JSON gives each interval's number")
    if len({frozenset(e["problem_keys"]) for e in entries if e["world"] == OVERALL}) > 1:
        notes.append("the rows do not all cover the same problems, so their overall rows average different problems")
    for e in entries:
        del e["problem_keys"]
    board = {"runs": [_run_entry(r) for r in runs], "settings_in_key": varying, "entries": entries,
             "intervals": intervals_said(replicates, seed), "notes": notes, "published": []}
    board["published"] = published(runs, varying)
    notes += [p["note"] for p in board["published"] if p.get("note")]
    return board


def episode_links(rows: list[dict], world: str | None) -> list[dict]:
    """Where a row's episodes are in the viewer: per run folder, the URL fragment that filters the
    viewer's list to them (`#agent=...&world=...`: `plan-eval view FOLDER`, or a page `--viewer` wrote)."""
    from urllib.parse import urlencode

    agents: dict[str, list[str]] = {}
    for r in rows:
        labels = agents.setdefault(r["_folder"], [])
        if r["agent_label"] not in labels:
            labels.append(r["agent_label"])
    out = []
    for folder, labels in agents.items():
        for label in labels:
            query = {"agent": label, **({"world": world} if world and world != "-" else {})}
            out.append({"folder": folder, "agent": label, "world": world, "fragment": urlencode(query)})
    return out


def viewer_pages(board: dict, folder: Path, progress=None) -> list[Path]:
    """One self-contained viewer page per run under `folder`/episodes/, which the Markdown's rows
    link to (each row to its own episodes, by the fragment that filters the page's list)."""
    from .view import Runs, write_html

    written, pages = [], {}
    for n, run in enumerate(board["runs"], 1):
        name = f"{n}-{Path(run['folder']).name or 'run'}.html"
        runs = Runs([Path(run["folder"])], togo_time=0)
        written.append(write_html(runs, Path(folder) / "episodes" / name, progress=progress))
        pages[run["folder"]] = f"episodes/{name}"
    board["viewer_pages"] = pages
    return written


def _episodes_cell(entry: dict, pages: dict) -> str:
    links = []
    for link in entry.get("episode_links") or []:
        page = pages.get(link["folder"])
        if page:
            name = Path(link["folder"]).name
            links.append(f"[{name}]({page}#{link['fragment']})")
    return " ".join(links) or "-"


def _run_entry(run: Run) -> dict:
    m = run.manifest or {}
    return {"folder": str(run.folder), "episodes": len(run.rows), "agents": sorted({r["agent_label"] for r in run.rows}),
            "suite": m.get("suite"), "seed": (m.get("settings") or {}).get("seed"), "manifest": run.manifest_problem or "present"}


def intervals_said(replicates: int, seed: int) -> str:
    return (f"95% intervals: Wilson score for success rates (over episodes with one episode per problem; with several "
            f"samples, for the success rate and pass@k, over problems, n = problems: conservative); a percentile bootstrap "
            f"over problems ({replicates} resamples, seed {seed}) for means (optimality over successes, steps, the "
            f"worlds' own metrics).")


def _value(entry: dict, metric: str):
    return (entry["metrics"].get(metric) or {}).get("value")


def _metric(value, lo=None, hi=None, method=None, n=None) -> dict:
    lo, hi = (None if x is None else round(x, 12) for x in (lo, hi))  # no 1.0000000000000002 from interpolation
    return {"value": value, "lo": lo, "hi": hi, "method": method if lo is not None else None, "n": n}


def measure(rows: list[dict], replicates: int, seed: str, world_metrics: bool) -> dict:
    """The numbers of one row: episodes of one key (and one world, or all)."""
    from .summary import _dollars, _plugin_columns, pass_at_k

    by_problem = defaultdict(list)
    for r in rows:
        by_problem[r["_problem"]].append(r)
    keys = sorted(by_problem)
    groups = [by_problem[k] for k in keys]
    n = len(rows)
    successes = sum(1 for r in rows if r.get("success"))
    samples = max(len(g) for g in groups)
    metrics = {}
    if samples == 1:  # one trial per problem: Wilson over the episodes
        lo, hi = I.wilson(successes, n)
        metrics["success_rate"] = _metric(successes / n, lo, hi, I.WILSON, n)
    else:  # the samples of a problem are not independent trials: Wilson over the problems
        lo, hi = I.wilson_rate(successes / n, len(groups))
        metrics["success_rate"] = _metric(successes / n, lo, hi, I.WILSON_PROBLEMS, len(groups))
        for k in (1, samples):
            scored = [pass_at_k(len(g), sum(1 for r in g if r.get("success")), k) for g in groups if len(g) >= k]
            value = sum(scored) / len(scored) if scored else None
            lo, hi = I.wilson_rate(value, len(scored)) if scored else (None, None)
            metrics[f"pass@{k}"] = _metric(value, lo, hi, I.WILSON_PROBLEMS, len(scored))
    optimal = [[r["optimality"] for r in g if r.get("success") and isinstance(r.get("optimality"), (int, float))] for g in groups]
    counted = sum(len(o) for o in optimal)
    lo, hi = I.bootstrap_ratio([sum(o) for o in optimal], [len(o) for o in optimal], replicates, seed + "|optimality")
    metrics["mean_optimality"] = _metric(sum(map(sum, optimal)) / counted if counted else None, lo, hi, I.PERCENTILE_BOOTSTRAP, counted)
    steps = [[r["steps"] for r in g if isinstance(r.get("steps"), int)] for g in groups]
    counted = sum(len(s) for s in steps)
    lo, hi = I.bootstrap_ratio([sum(s) for s in steps], [len(s) for s in steps], replicates, seed + "|steps")
    metrics["mean_steps"] = _metric(sum(map(sum, steps)) / counted if counted else None, lo, hi, I.PERCENTILE_BOOTSTRAP, counted)
    own = {}
    if world_metrics:
        point = _plugin_columns(rows)
        numeric = [k for k, v in point.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for k, v in point.items():
            if k not in numeric:
                own[k] = {"value": v, "lo": None, "hi": None, "method": None, "n": None}
        if numeric:
            # each resample re-runs the world's plug-in on all the episodes drawn: bounded work on a big run
            world_replicates = replicates if n * replicates <= WORLD_VISITS else max(MIN_WORLD_RESAMPLES, WORLD_VISITS // n)
            values = {k: [] for k in numeric}
            for chunk in I.resamples(len(groups), world_replicates, seed + "|world"):
                for indices in chunk.tolist():
                    drawn = _plugin_columns([r for i in indices for r in groups[i]])
                    for k in numeric:
                        values[k].append(drawn.get(k))
            for k in numeric:
                lo, hi = I.interval_of(values[k], world_replicates)
                own[k] = dict(_metric(point[k], lo, hi, I.PERCENTILE_BOOTSTRAP, len(groups)), resamples=world_replicates)
    return {"problem_sets": sorted({str(r.get("problem_set")) for r in rows}), "problems": len(groups), "episodes": n,
            "samples": samples, "metrics": metrics, "world_metrics": own, "tokens": sum(r.get("tokens", 0) for r in rows),
            **_dollars(rows), "strategies_ran": sorted({str(r["strategy"]) for r in rows if r.get("strategy")}),
            "problem_keys": keys}


# ------------------------------------------------------------------ the paper's rows
def published(runs: list[Run], varying: list[str]) -> list[dict]:
    """The paper layouts of the suites the runs carry, from `groundplan.evals.suites.paper_table`
    when that module exists: [{"suite", "hash", "runs", "table" (Markdown), "text" (the same for
    the terminal) or None, "note"}]. paper_table(name, {label: episode lines tagged with their
    `suite_part`}, fmt) is given one label per model (and varying settings), over every run of
    the suite."""
    suites: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        suite = _suite(run)
        if suite is not None:
            suites[(str(suite["name"]), suite.get("hash"))].append(run)
    if not suites:
        return []
    import importlib
    import importlib.util

    try:
        module = importlib.import_module("groundplan.evals.suites") if importlib.util.find_spec("groundplan.evals.suites") else None
    except (ImportError, ValueError):
        module = None
    paper_table = getattr(module, "paper_table", None)
    out = []
    for (name, digest), members in sorted(suites.items(), key=lambda item: str(item[0])):
        entry = {"suite": name, "hash": digest, "runs": [str(r.folder) for r in members], "table": None, "text": None, "note": ""}
        out.append(entry)
        if paper_table is None:
            entry["note"] = f"suite {name}: its published rows are not shown (this groundplan has no groundplan.evals.suites.paper_table)"
            continue
        labelled: dict[str, list[dict]] = defaultdict(list)
        for run in members:
            part = _suite(run).get("part")
            settings = ", ".join(f"{k}={v}" for k, v in run_settings(run, varying).items())
            for row in run.rows:
                model = identity(row, run)[0]
                labelled[model + (f" ({settings})" if settings else "")].append(dict(row, suite_part=part))
        try:
            entry["table"] = str(paper_table(name, dict(labelled), fmt="markdown"))
            entry["text"] = str(paper_table(name, dict(labelled), fmt="text"))
        except Exception as exc:  # the suite's layout is an extra: the leaderboard stands without it
            entry["note"] = f"suite {name}: its paper table could not be made ({type(exc).__name__}: {exc})"
            continue
        try:
            current = module.load(name).hash if hasattr(module, "load") else None
        except Exception:
            current = None
        if current and digest and current != digest:
            entry["note"] = (f"suite {name} has changed since these runs (hash {current[:16]} now, {str(digest)[:16]} in the runs): "
                             f"its paper table is today's layout")
    return out


# ------------------------------------------------------------------ outputs
def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def cell(metric: dict | None) -> str:
    """'0.667 [0.300, 0.903]': a value and its 95% interval (or the value alone, or '-')."""
    if not metric or metric.get("value") is None:
        return "-"
    if not isinstance(metric["value"], (int, float)) or isinstance(metric["value"], bool):
        return str(metric["value"])
    if metric.get("lo") is None:
        return _fmt(metric["value"])
    return f"{_fmt(metric['value'])} [{_fmt(metric['lo'])}, {_fmt(metric['hi'])}]"


def _dollar_cell(entry: dict, key: str = "cost_usd") -> str:
    value = entry.get(key)
    if entry.get("unpriced_episodes"):
        return "unknown" if value is None else f">={_fmt(value)}"
    return _fmt(value)


def _settings_cell(entry: dict) -> str:
    return ", ".join(f"{k}={_fmt(v) if not isinstance(v, (list, dict)) else json.dumps(v)}" for k, v in entry["settings"].items()) or "-"


def _strategy_cell(entry: dict) -> str:
    ran = entry.get("strategies_ran") or []
    if entry["strategy"] == "default" and ran:
        return f"default ({', '.join(ran)})"
    return entry["strategy"]


def _passes(entries: list[dict]) -> list[str]:
    return sorted({k for e in entries for k in e["metrics"] if k.startswith("pass@")}, key=lambda k: int(k[5:]))


def main_columns(board: dict) -> list[tuple[str, callable]]:
    entries = board["entries"]
    columns = [("world", lambda e: e["world"]), ("model", lambda e: e["model"]), ("strategy", _strategy_cell)]
    if board["settings_in_key"]:
        columns.append(("settings", _settings_cell))
    columns += [("problems", lambda e: _fmt(e["problems"])), ("episodes", lambda e: _fmt(e["episodes"])),
                ("success rate [95% CI]", lambda e: cell(e["metrics"].get("success_rate")))]
    if any(e["samples"] > 1 for e in entries):
        columns.append(("samples", lambda e: _fmt(e["samples"])))
    columns += [(f"{k} [95% CI]", lambda e, k=k: cell(e["metrics"].get(k))) for k in _passes(entries)]
    columns += [("mean optimality [95% CI]", lambda e: cell(e["metrics"].get("mean_optimality"))),
                ("mean steps [95% CI]", lambda e: cell(e["metrics"].get("mean_steps"))),
                ("tokens", lambda e: _fmt(e["tokens"])), ("cost_usd", _dollar_cell)]
    if any(e.get("cached_tokens") for e in entries):
        columns += [("cached_tokens", lambda e: _fmt(e["cached_tokens"])), ("cached_cost_usd", lambda e: _dollar_cell(e, "cached_cost_usd"))]
    return columns


def world_tables(board: dict) -> list[tuple[str, list, list[dict]]]:
    """(world, columns, entries) for each world with metrics of its own."""
    out = []
    worlds = sorted({e["world"] for e in board["entries"] if e["world"] != OVERALL})
    for world in worlds:
        entries = [e for e in board["entries"] if e["world"] == world]
        names = list(dict.fromkeys(k for e in entries for k in e["world_metrics"]))
        if not names:
            continue
        columns = [("model", lambda e: e["model"]), ("strategy", _strategy_cell)]
        if board["settings_in_key"]:
            columns.append(("settings", _settings_cell))
        columns += [(f"{k} [95% CI]", lambda e, k=k: cell(e["world_metrics"].get(k))) for k in names]
        out.append((world, columns, entries))
    return out


def _plain(columns, entries) -> str:
    cells = [[fn(e) for _, fn in columns] for e in entries]
    heads = [name for name, _ in columns]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip(), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def _md(columns, entries) -> str:
    def escape(text: str) -> str:
        return text.replace("|", "\\|")
    head = "| " + " | ".join(escape(name) for name, _ in columns) + " |\n|" + "---|" * len(columns) + "\n"
    return head + "\n".join("| " + " | ".join(escape(fn(e)) for _, fn in columns) + " |" for e in entries)


def _runs_said(board: dict) -> list[str]:
    out = []
    for r in board["runs"]:
        suite = f", suite {r['suite'].get('name')}" if isinstance(r.get("suite"), dict) else ""
        manifest = "" if r["manifest"] == "present" else f" ({r['manifest']})"
        out.append(f"{r['folder']}: {r['episodes']} episodes of {', '.join(r['agents'])}, seed {_fmt(r['seed'])}{suite}{manifest}")
    return out


def table(board: dict) -> str:
    """The leaderboard for the terminal."""
    parts = [_plain(main_columns(board), board["entries"])]
    for world, columns, entries in world_tables(board):
        parts.append(f"\n{world}: its own metrics\n" + _plain(columns, entries))
    for p in board["published"]:
        if p.get("text"):
            parts.append(f"\nsuite {p['suite']}: the paper's layout, published rows beside ours\n{p['text'].rstrip()}")
    parts.append("\n" + board["intervals"])
    parts += [f"note: {n}" for n in board["notes"]]
    return "\n".join(parts)


def markdown(board: dict) -> str:
    columns = main_columns(board)
    pages = board.get("viewer_pages")
    if pages:  # each row links to its episodes in the viewer pages written beside it
        columns.append(("episodes", lambda e: _episodes_cell(e, pages)))
    out = ["# plan-eval leaderboard", "", "Runs:", "", *[f"- {line}" for line in _runs_said(board)], "",
           "## All worlds", "", _md(columns, board["entries"]), ""]
    for world, columns, entries in world_tables(board):
        out += [f"## {world}: its own metrics", "", _md(columns, entries), ""]
    for p in board["published"]:
        if p.get("table"):
            out += [f"## Suite {p['suite']}: the paper's layout, published rows beside ours", "", p["table"].rstrip(), ""]
    out += ["## Intervals", "", board["intervals"], ""]
    if board["notes"]:
        out += ["## Notes", "", *[f"- {n}" for n in board["notes"]], ""]
    return "\n".join(out)


def flat(entry: dict) -> dict:
    """One entry as a CSV line: each metric as value, lo, hi and method columns."""
    out = {"world": entry["world"], "model": entry["model"], "strategy": entry["strategy"],
           "strategies_ran": ";".join(entry.get("strategies_ran") or []), "settings": _settings_cell(entry) if entry["settings"] else "",
           "runs": ";".join(entry["runs"]), "problem_sets": ";".join(entry["problem_sets"]), "problems": entry["problems"],
           "episodes": entry["episodes"], "samples": entry["samples"]}
    for group in ("metrics", "world_metrics"):
        for name, m in entry[group].items():
            out[name] = m.get("value")
            out[f"{name}_lo"], out[f"{name}_hi"], out[f"{name}_ci"] = m.get("lo"), m.get("hi"), m.get("method")
    for key in ("tokens", "cost_usd", "cached_tokens", "cached_cost_usd", "unpriced_episodes"):
        out[key] = entry.get(key)
    if entry.get("unpriced_episodes"):
        for key in ("cost_usd", "cached_cost_usd"):
            out[key] = "unknown" if entry.get(key) is None else out[key]
    return out


def to_csv(board: dict) -> str:
    lines = [flat(e) for e in board["entries"]]
    keys = list(dict.fromkeys(k for line in lines for k in line))
    head = keys[:keys.index("samples") + 1]
    core = [f"{name}{end}" for name in ("success_rate", *_passes(board["entries"]), "mean_optimality", "mean_steps")
            for end in ("", "_lo", "_hi", "_ci") if f"{name}{end}" in keys]
    tail = ["tokens", "cost_usd", "cached_tokens", "cached_cost_usd", "unpriced_episodes"]
    keys = head + core + [k for k in keys if k not in head + core + tail] + tail  # then the worlds' own metrics
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=keys)
    writer.writeheader()
    for line in lines:
        writer.writerow(line)
    return buffer.getvalue()


def to_json(board: dict) -> str:
    return json.dumps(board, indent=1, sort_keys=True)


def write(board: dict, folder: Path) -> list[Path]:
    """leaderboard.md, leaderboard.csv and leaderboard.json in `folder` (made if need be)."""
    folder = Path(folder)
    with store.writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("leaderboard.md", markdown(board)), ("leaderboard.csv", to_csv(board)), ("leaderboard.json", to_json(board) + "\n")):
        store.write_text(folder / name, text)
        written.append(folder / name)
    return written
