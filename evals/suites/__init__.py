"""Suites: each paper's evaluation protocol as one versioned data file, run by one command.

A user who evaluates a model on the five benchmarks and wants its numbers beside the papers'
would otherwise rebuild each protocol by hand (which sets, which strategy, step cap, temperature,
samples). A suite (`evals/suites/NAME.yaml`, checked against `schema.json`) fixes it once:

- `parts`: the plan-eval runs it is made of, each a selection of shipped sets (a whole set, rows
  `A-B`, row names by glob, or a seeded `sample`, as `engine.problemsets.sample` picks them) and
  the agent settings (strategy, temperature, step cap or factor, budget, samples per problem);
- `tables`: the layout of the paper's main table, each cell a `PART.METRIC` of plan-eval's summary
  (a world's own columns included, and `optimal_share`: the share of successes at optimality 1),
  with the paper's published rows, cited by table (and page where the copy used has one);

`plan-eval suite NAME --model M --out DIR` (`evals.suites.cli`) runs every part through plan-eval
itself, one run folder per part (`DIR/PART`), whose manifest carries
`"suite": {"name", "hash", "part", "subset"}`; the hash is the sha256 of the suite's content
(canonical JSON of the parsed file, so comments and layout do not count), so two runs with the
same hash followed the same protocol. `paper_table(suite_name, runs)` prints the paper's layout
with the published rows beside a run's (or several runs').
"""
from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from groundplan.engine.errors import GroundplanError

SUITES_DIR = Path(__file__).resolve().parent
SCHEMA = SUITES_DIR / "schema.json"
AGENT_KEYS = ("strategy", "temperature", "max_steps", "max_steps_factor", "budget", "samples")
DERIVED = {"optimal_share"}  # metrics computed here from the summary's columns


class SuiteError(GroundplanError):
    """A suite file that cannot be used, named by file and JSON pointer, with the fix."""


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    data: dict
    hash: str

    @property
    def parts(self) -> list[dict]:
        return self.data["parts"]

    def agent(self, part: dict) -> dict:
        """The part's agent settings over the suite's defaults."""
        return {**(self.data.get("defaults") or {}), **(part.get("agent") or {})}


@dataclass
class PlannedPart:
    name: str
    refs: list[str]
    agent: dict
    selections: list[str]  # the sets as the part names them, for people
    requests_per_episode: float | None = None
    about: str = ""

    @property
    def shown_sets(self) -> str:
        if len(self.selections) <= 3:
            return "; ".join(self.selections)
        return f"{'; '.join(self.selections[:2])}; ... ({len(self.selections)} selections)"

    @property
    def episodes(self) -> int:
        return len(self.refs) * int(self.agent.get("samples") or 1)

    @property
    def requests(self) -> float | None:
        return None if self.requests_per_episode is None else self.episodes * self.requests_per_episode


@dataclass
class Plan:
    suite: Suite
    parts: list[PlannedPart] = field(default_factory=list)
    subset: dict = field(default_factory=dict)


def names() -> list[str]:
    """The shipped suites, by name."""
    return sorted(p.stem for p in SUITES_DIR.glob("*.yaml"))


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))


def _pointer(path) -> str:
    return "/" + "/".join(str(p) for p in path) if path else ""


def load(name_or_path: str) -> Suite:
    """A shipped suite by name, or a suite file by path; checked against the schema and for the
    references between its parts and tables."""
    path = Path(name_or_path)
    if not (path.suffix in (".yaml", ".yml") and path.is_file()):
        path = SUITES_DIR / f"{name_or_path}.yaml"
        if not path.is_file():
            from groundplan.engine.errors import did_you_mean

            hint = did_you_mean(str(name_or_path), names())
            raise SuiteError(f"no suite '{name_or_path}'" + (f" ({hint})" if hint else "") +
                             f": the shipped suites are {', '.join(names())} (plan-eval suite --list), or give a suite file's path")
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f":{where.line + 1}" if where is not None else ""
        raise SuiteError(f"{path}{line}: not YAML ({getattr(exc, 'problem', exc)}): fix the syntax there") from None
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SuiteError(f"{path}#{_pointer(e.absolute_path)}: {e.message}{more}: see the suite schema, "
                         f"{SCHEMA.name} (its property '{e.validator}' there)")
    _check(path, data)
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    return Suite(data["name"], path, data, digest)


def _check(path: Path, data: dict) -> None:
    """What the schema cannot say: unique part names, cells naming parts, published rows that fit."""
    parts = [p["name"] for p in data["parts"]]
    for i, name in enumerate(parts):
        if name in parts[:i]:
            raise SuiteError(f"{path}#/parts/{i}/name: the part '{name}' is named twice: give each part its own name")
    if path.stem != data["name"]:
        raise SuiteError(f"{path}#/name: '{data['name']}' is not the file's name: name the file {data['name']}.yaml, or the suite {path.stem}")
    for t, table in enumerate(data.get("tables") or []):
        width = len(table["columns"])
        labels = []
        for r, row in enumerate(table["rows"]):
            labels.append(row.get("label", ""))
            if len(row["cells"]) != width:
                raise SuiteError(f"{path}#/tables/{t}/rows/{r}/cells: {len(row['cells'])} cells for {width} columns: give one per column (null for none)")
            for c, cell in enumerate(row["cells"]):
                if cell is not None and cell.split(".", 1)[0] not in parts:
                    raise SuiteError(f"{path}#/tables/{t}/rows/{r}/cells/{c}: '{cell}' names no part of the suite: use PART.METRIC "
                                     f"with PART one of {', '.join(parts)}")
        for p, published in enumerate(table.get("published") or []):
            for label, values in published["values"].items():
                if label not in labels:
                    raise SuiteError(f"{path}#/tables/{t}/published/{p}/values/{label}: no row of the table is labelled '{label}': "
                                     f"use one of {', '.join(repr(x) for x in labels)}")
                if len(values) != width:
                    raise SuiteError(f"{path}#/tables/{t}/published/{p}/values/{label}: {len(values)} values for {width} columns: "
                                     "give one per column (null where the paper has none)")


def plan(suite: Suite, limit: int | None = None, sample: int | None = None, sample_seed: int = 0,
         only: tuple[str, ...] = ()) -> Plan:
    """The problems and settings of each part; `limit` and `sample` cut every part (a quick try:
    the manifest records the cut, so such a run is not mistaken for the whole protocol)."""
    from groundplan.engine.problemsets import expand
    from groundplan.engine.problemsets import sample as pick

    known = [p["name"] for p in suite.parts]
    for name in only:
        if name not in known:
            raise SuiteError(f"suite '{suite.name}' has no part '{name}': its parts are {', '.join(known)}")
    out = Plan(suite, subset={k: v for k, v in (("limit", limit), ("sample", sample),
                                               ("sample_seed", sample_seed if sample else None),
                                               ("parts", list(only) or None)) if v is not None})
    for i, part in enumerate(suite.parts):
        if only and part["name"] not in only:
            continue
        refs: list[str] = []
        shown = []
        for j, selection in enumerate(part["sets"]):
            where = f"{suite.path}#/parts/{i}/sets/{j}"
            refs.extend(_select(selection, where, expand, pick))
            shown.append(_shown(selection))
        if sample is not None:
            refs = pick(refs, sample, sample_seed)
        if limit is not None:
            refs = refs[:limit]
        out.parts.append(PlannedPart(part["name"], refs, suite.agent(part), shown, part.get("requests_per_episode"),
                                     part.get("about", "")))
    return out


def _select(selection, where: str, expand, pick) -> list[str]:
    if isinstance(selection, str):
        selection = {"set": selection}
    name = selection["set"]
    try:
        refs = expand([name + (f"#{selection['rows']}" if "rows" in selection else "")])
    except GroundplanError as exc:
        raise SuiteError(f"{where}: {exc}") from None
    from groundplan.engine.catalog import shipped_sets

    if "rows" in selection and name in shipped_sets() and not shipped_sets()[name].is_file:
        raise SuiteError(f"{where}/rows: '{name}' is a folder of problem files, and rows A-B select rows of a set file: "
                         "use names (globs of its file names) or sample instead")
    if not refs or (len(refs) == 1 and not Path(refs[0].split("#", 1)[0]).exists()):
        from groundplan.engine.catalog import did_you_mean

        raise SuiteError(f"{where}/set: '{name}' is no shipped set ({did_you_mean(name)}): name one of plan-eval --list-sets")
    if "names" in selection:
        refs = [r for r in refs if any(fnmatch.fnmatchcase(r.rpartition("#")[2] if "#" in r else Path(r).name, g)
                                       for g in selection["names"])]
        if not refs:
            raise SuiteError(f"{where}/names: no row of '{name}' matches {selection['names']}: check the patterns "
                             f"against the set's row names")
    if "sample" in selection:
        refs = pick(refs, selection["sample"], selection.get("seed", 0))
    return refs


def _shown(selection) -> str:
    if isinstance(selection, str):
        return selection
    text = selection["set"] + (f"#{selection['rows']}" if "rows" in selection else "")
    if "names" in selection:
        text += f" names {','.join(selection['names'])}"
    if "sample" in selection:
        text += f" sample {selection['sample']} seed {selection.get('seed', 0)}"
    return text


def manifest_entry(suite: Suite, part: str, subset: dict) -> dict:
    """What a part's run folder says of its suite (`manifest.json`, "suite")."""
    return {"name": suite.name, "version": suite.data["version"], "hash": suite.hash, "part": part, "subset": subset or None}


# --- listing and --show ----------------------------------------------------------------------

def _fmt_requests(value) -> str:
    return "?" if value is None else f"{value:,.0f}"


def list_table() -> str:
    """`plan-eval suite --list`: every shipped suite, what it runs and what it costs."""
    rows = [("suite", "parts", "episodes", "requests (est.)", "title")]
    for name in names():
        try:
            planned = plan(load(name))
        except GroundplanError as exc:
            rows.append((name, "-", "-", "-", f"unusable: {exc}"))
            continue
        episodes = sum(p.episodes for p in planned.parts)
        requests = None if any(p.requests is None for p in planned.parts) else sum(p.requests for p in planned.parts)
        rows.append((name, str(len(planned.parts)), f"{episodes:,}", _fmt_requests(requests), planned.suite.data["title"]))
    return _columns(rows)


def _columns(rows) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join([c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]).rstrip() for r in rows)


def show(planned: Plan) -> str:
    """`plan-eval suite NAME --show`: each part's sets, settings, episodes and expected requests."""
    suite = planned.suite
    lines = [f"suite {suite.name} (version {suite.data['version']}, hash {suite.hash[:16]}): {suite.data['title']}"]
    if suite.data.get("paper"):
        lines.append(f"paper: {suite.data['paper']}")
    if suite.data.get("about"):
        lines.append(" ".join(suite.data["about"].split()))
    if planned.subset:
        lines.append(f"subset: {planned.subset} (a cut of the protocol, recorded in the manifests)")
    rows = [("part", "sets", "agent", "episodes", "requests (est.)")]
    for p in planned.parts:
        agent = " ".join(f"{k}={p.agent[k]}" for k in AGENT_KEYS if k in p.agent) or "world defaults"
        rows.append((p.name, p.shown_sets, agent, f"{p.episodes:,}", _fmt_requests(p.requests)))
    episodes = sum(p.episodes for p in planned.parts)
    requests = None if any(p.requests is None for p in planned.parts) else sum(p.requests for p in planned.parts)
    rows.append(("total", "", "", f"{episodes:,}", _fmt_requests(requests)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines += ["", *("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)]
    lines.append("\nrequests (est.): episodes x the part's requests_per_episode, an estimate from the strategy "
                 "(one for a one-shot answer, about the step cap's worth for a step-by-step one); the run says what it spent.")
    for table in suite.data.get("tables") or []:
        source = table.get("source") or {}
        lines.append(f"table: {table['title']}" + (f" [{_cite(source)}]" if source else ""))
    for note in suite.data.get("notes") or []:
        lines.append(f"note: {' '.join(note.split())}")
    return "\n".join(lines)


def _cite(source: dict) -> str:
    text = source["table"] + (f", p. {source['page']}" if source.get("page") else "") + (f", {source['section']}" if source.get("section") else "")
    return text


# --- reading a suite run and its paper table ---------------------------------------------------

def load_run(folder) -> tuple[str, list[dict]]:
    """(label, episode lines) of a suite run folder (`plan-eval suite ... --out DIR`): every
    part's lines, each tagged with `suite_part`; the label is the model (from the manifests)."""
    from groundplan.evals import store

    folder = Path(folder)
    info = _read_json(folder / "suite.json")
    if not isinstance(info, dict) or "parts" not in info:
        raise SuiteError(f"{folder}: no suite.json: not a folder `plan-eval suite NAME --out DIR` wrote")
    rows, models = [], set()
    for part in info["parts"]:
        sub = folder / part
        if not (sub / store.EPISODES).is_file():
            continue
        for r in store.scan(sub).rows:
            rows.append(dict(r, suite_part=part))
        manifest = _read_json(sub / store.MANIFEST) or {}
        for agent in manifest.get("agents") or []:
            model = (agent.get("options") or {}).get("model")
            if model:
                models.add(model)
    return (", ".join(sorted(models)) or folder.name), rows


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _value(rows: list[dict], metric: str):
    """A metric of plan-eval's summary over `rows`, pooled as one group."""
    from groundplan.evals.summary import summarise

    if not rows:
        return None, 0
    pooled = [dict(r, agent_label="run", problem_set="part") for r in rows]
    entry = summarise(pooled)["by_set"][0]
    if metric == "optimal_share":
        return ((entry.get("opt =1") or 0) / entry["successes"] if entry.get("successes") else None), len(rows)
    value = entry.get(metric)
    return (value if isinstance(value, (int, float)) and not isinstance(value, bool) else None), len(rows)


def _where(rows: list[dict], where: dict | None) -> list[dict]:
    if not where:
        return rows
    out = []
    for r in rows:
        ref = r.get("problem_ref") or ""
        name = ref.rpartition("#")[2] if "#" in ref else Path(ref).name
        if "set" in where and not fnmatch.fnmatchcase(str(r.get("problem_set")), where["set"]):
            continue
        if "problem" in where and not fnmatch.fnmatchcase(name, where["problem"]):
            continue
        out.append(r)
    return out


def _number(value, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def paper_table(suite_name: str, runs, fmt: str = "markdown") -> str:
    """The suite's tables in the paper's layout: per row of the paper's table, its published rows
    (marked published, with the table cited) and then each run's.

    `runs`: one run's episode lines (each with `suite_part`, as `load_run` gives them), a suite run
    folder, or a dict {label: episode lines or folder} for several runs. `fmt`: 'markdown' or
    'text' (the same table, for the terminal). Cells no part or metric fills are '-'; the last
    column, `n`, is the episodes a run's row rests on."""
    suite = load(suite_name)
    if isinstance(runs, (str, Path)):
        runs = dict([load_run(runs)])
    elif isinstance(runs, list):
        runs = {"this run": runs}
    else:
        runs = {label: (load_run(v)[1] if isinstance(v, (str, Path)) else v) for label, v in runs.items()}
    by_part = {label: _group(rows) for label, rows in runs.items()}
    out = [f"# {suite.data['title']} (suite {suite.name}, hash {suite.hash[:16]})"]
    for table in suite.data.get("tables") or []:
        scale, digits = table.get("scale", 1), table.get("digits", 3)
        source = table.get("source")
        cite = f"published, {_cite(source)}" if source else "published"
        labelled = len(table["rows"]) > 1 or any(r.get("label") for r in table["rows"])
        head = ["model", "source"] + (["row"] if labelled else []) + list(table["columns"]) + ["n"]
        lines = []
        for row in table["rows"]:
            label = row.get("label", "")
            for published in table.get("published") or []:
                values = published["values"].get(label)
                if values is not None:
                    lines.append([published["model"], cite] + ([label] if labelled else []) +
                                 [_number(v, digits) if v is not None else "-" for v in values] + ["-"])
            for run_label, parts in by_part.items():
                cells, counts = [], []
                for cell in row["cells"]:
                    if cell is None:
                        cells.append("-")
                        continue
                    part, metric = cell.split(".", 1)
                    value, n = _value(_where(parts.get(part, []), row.get("where")), metric)
                    cells.append(_number(None if value is None else value * (1 if metric in _COUNTS else scale), digits))
                    counts.append(n)
                n = "-" if not counts else (str(counts[0]) if len(set(counts)) == 1 else f"{min(counts)}-{max(counts)}")
                lines.append([run_label, "this run"] + ([label] if labelled else []) + cells + [n])
        out.append("")
        out.append(f"## {table['title']}")
        if source and source.get("note"):
            out.append("")
            out.append(" ".join(source["note"].split()))
        out.append("")
        out.append(_render(head, lines, fmt))
    return "\n".join(out) + "\n"


_COUNTS = {"episodes", "successes", "invalid_actions", "tokens", "mean_steps", "samples"}


def _group(rows: list[dict]) -> dict[str, list[dict]]:
    parts: dict[str, list[dict]] = {}
    for r in rows:
        parts.setdefault(r.get("suite_part"), []).append(r)
    return parts


def _render(head: list[str], lines: list[list[str]], fmt: str) -> str:
    if fmt == "markdown":
        return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] +
                         ["| " + " | ".join(line) + " |" for line in lines])
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in [head, ["-" * w for w in widths], *lines])
