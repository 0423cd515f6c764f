"""Summaries of a run: grouped by agent, problem set and difficulty; as a terminal table,
Markdown, CSV and JSON. Computed from the episode lines alone, in sorted order, so a resumed or
parallel run summarises exactly like an uninterrupted serial one.

With several samples per problem (`plan-eval --samples N`), the success rate stays the mean over
all episodes, and a group also has `samples` (N, the most any of its problems has), `pass@1` and
`pass@N`: the unbiased estimator of Chen et al. (2021), 1 - C(n-c, k) / C(n, k) for a problem of n
samples of which c succeeded, per problem, then averaged over the problems with at least k samples.

Tokens and dollars are those spent by the run; what was replayed from the LLM cache is apart
(`cached_tokens`, `cached_cost_usd`: what those replies cost when first asked). Dollars of a model
litellm has no price for are unknown, not 0: a group none of whose episodes could be priced shows
`unknown`; one where some could shows `>=` the priced part, and a note says how many were not
(`unpriced_episodes`)."""
from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

from .metrics import OPTIMALITY_BINS, STEPS_TO_GO_BINS, plugin

COLUMNS = ("agent", "problem_set", "difficulty", "episodes", "success_rate", "samples", "pass@1", "mean_optimality",
           *(f"opt {b}" for b in OPTIMALITY_BINS), *(f"togo {b}" for b in STEPS_TO_GO_BINS), "togo dead-end", "togo unknown",
           "mean_steps", "invalid_actions", "tokens", "cost_usd", "cached_tokens", "cached_cost_usd", "unpriced_episodes",
           "reference_proven")
COLUMNS += ("reference_unverified", "beats_reference")  # episodes (counts): reference_counts


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def group(rows: list[dict]) -> dict:
    episodes = len(rows)
    successes = [r for r in rows if r.get("success")]
    failures = [r for r in rows if not r.get("success")]
    out = {
        "episodes": episodes,
        "successes": len(successes),
        "success_rate": len(successes) / episodes if episodes else None,
        "mean_optimality": _mean(r.get("optimality") for r in successes),
        "mean_steps": _mean(r.get("steps") for r in rows),
        "invalid_actions": sum(r.get("invalid_actions", 0) for r in rows),
        "repeated_transitions": sum(r.get("repeated_transitions", 0) for r in rows),
        "tokens": sum(r.get("tokens", 0) for r in rows),
        **_dollars(rows),
        "reference_proven": sum(1 for r in rows if r.get("reference_proven")) / episodes if episodes else None,
        "outcomes": dict(sorted(_count(r.get("outcome") for r in rows).items())),
    }
    out.update(reference_counts(rows))
    for b in OPTIMALITY_BINS:
        out[f"opt {b}"] = sum(1 for r in successes if r.get("optimality_bin") == b)
    for b in STEPS_TO_GO_BINS:
        out[f"togo {b}"] = sum(1 for r in failures if r.get("steps_to_go_bin") == b)
    # the failures no bin holds: proven dead ends (the goal unreachable from where the agent stopped),
    # and the rest (no reference to measure against, or not proven within --steps-to-go-time)
    out["togo dead-end"] = sum(1 for r in failures if r.get("steps_to_go_bin") is None and r.get("dead_end"))
    out["togo unknown"] = sum(1 for r in failures if r.get("steps_to_go_bin") is None and not r.get("dead_end"))
    out.update(pass_at(rows))
    return out


def _unpriced(row: dict) -> bool:
    return row.get("cost_usd", 0.0) is None or bool(row.get("unpriced"))


def _dollars(rows: list[dict]) -> dict:
    """Spent and cached tokens and dollars; dollars None when no episode could be priced."""
    priced = [r for r in rows if not _unpriced(r)]
    unpriced = len(rows) - len(priced)
    out = {"cost_usd": round(sum(r.get("cost_usd") or 0.0 for r in priced), 6) if priced else None,
           "cached_tokens": sum(r.get("cached_tokens", 0) for r in rows),
           "cached_cost_usd": round(sum(r.get("cached_cost_usd") or 0.0 for r in priced), 6) if priced else None,
           "unpriced_episodes": unpriced}
    return out


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one problem: n samples, c of them successes (Chen et al. 2021)."""
    from math import comb

    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at(rows: list[dict]) -> dict:
    """{'samples': N, 'pass@1': ..., 'pass@N': ...} when some problem has several samples, else {}."""
    by_problem = defaultdict(list)
    for r in rows:
        by_problem[r.get("problem_ref") or r.get("file") or r["id"]].append(bool(r.get("success")))
    most = max((len(v) for v in by_problem.values()), default=0)
    if most < 2:
        return {}
    out = {"samples": most}
    for k in (1, most):
        scored = [pass_at_k(len(v), sum(v), k) for v in by_problem.values() if len(v) >= k]
        out[f"pass@{k}"] = sum(scored) / len(scored) if scored else None
    return out


def _count(values):
    counts = defaultdict(int)
    for v in values:
        counts[v] += 1
    return counts


def summarise(rows: list[dict]) -> dict:
    """{'by_set': [...], 'by_difficulty': [...]}: per agent and problem set, then also per difficulty."""
    rows = sorted(rows, key=lambda r: r["id"])
    by_set, by_difficulty = defaultdict(list), defaultdict(list)
    for r in rows:
        by_set[(r["agent_label"], r["problem_set"])].append(r)
        by_difficulty[(r["agent_label"], r["problem_set"], str(r.get("difficulty")))].append(r)
    sets = []
    for (agent, pset), members in sorted(by_set.items()):
        entry = {"agent": agent, "problem_set": pset, **group(members)}
        entry.update(_plugin_columns(members))
        sets.append(entry)
    diffs = [{"agent": a, "problem_set": s, "difficulty": d, **group(m)} for (a, s, d), m in sorted(by_difficulty.items(), key=_difficulty_order)]
    return {"by_set": sets, "by_difficulty": diffs, "notes": notes(rows)}


STORED = ("stored optimum", "stored upper bound", "stored: unsolvable", "none stored", "")


def notes(rows: list[dict]) -> list[str]:
    """What the table's numbers rest on where it is not the stored reference, per problem set:
    the problems scored without a reference cost (their optimality is '-', their steps-to-go
    unmeasured, and their step cap came from somewhere else: the cap and its source are said),
    and the references --reference optimum computed."""
    out = []
    by_set = defaultdict(list)
    for r in rows:
        by_set[r["problem_set"]].append(r)
    for pset, members in sorted(by_set.items()):
        bare = [r for r in members if r.get("reference_cost") is None and r.get("solvable") is not False]
        if bare:
            problems = sorted({r.get("problem_ref") or r["id"] for r in bare})
            why = "; ".join(sorted({_reference_words(r.get("reference_from")) for r in bare}))
            caps = _count(f"{r['max_steps']} from {r['max_steps_from']}" if r.get("max_steps_from") else f"{r.get('max_steps')} (source not recorded)"
                          for r in bare if r.get("max_steps"))
            cap = "; ".join(f"{c}" + (f" ({n} episodes)" if len(caps) > 1 else "") for c, n in sorted(caps.items()))
            named = ", ".join(_short(p) for p in problems[:3]) + (" ..." if len(problems) > 3 else "")
            out.append(f"{pset}: {len(problems)} problem(s) without a reference cost ({why}: {named}): optimality is '-' and "
                       f"steps-to-go is not measured there" + (f"; step cap {cap}" if cap else "") + "." +
                       (" Give --max-steps, --reference optimum, or store an optimum (groundplan plan PROBLEM --store)."
                        if "no stored optimum" in why else ""))
        computed = defaultdict(set)  # where a reference not stored came from -> the problems it scored
        for r in members:
            if r.get("reference_from") not in STORED and (r.get("reference_cost") is not None or r.get("solvable") is False):
                computed[r["reference_from"]].add(r.get("problem_ref") or r["id"])
        for source, refs in sorted(computed.items()):
            out.append(f"{pset}: reference of {len(refs)} problem(s): {source}")
        out.extend(reference_notes(pset, members))
    out += _price_notes(rows)
    return out


def reference_counts(rows: list[dict]) -> dict:
    """Episodes scored against a stored optimum nothing confirmed (stored without a plan and not
    re-proven in time: `evals.references`), and episodes whose cost beat a proven optimum."""
    return {"reference_unverified": sum(1 for r in rows if r.get("reference_unverified")),
            "beats_reference": sum(1 for r in rows if r.get("beats_reference"))}


def reference_notes(pset: str, rows: list[dict]) -> list[str]:
    """The notes of one problem set on its references: unverified optima, and optima beaten."""
    out = []
    for key, what in (("reference_unverified", "scored against an unverified optimum (stored without a plan, not "
                                               "re-proven in time; the episode lines say why)"),
                      ("beats_reference", "cost less than the proven optimum of their problem, which proves that "
                                          "optimum wrong; re-prove it (groundplan plan PROBLEM --store)")):
        hit = [r for r in rows if r.get(key)]
        if hit:
            problems = sorted({r.get("problem_ref") or r["id"] for r in hit})
            named = ", ".join(_short(p) for p in problems[:5]) + (" ..." if len(problems) > 5 else "")
            out.append(f"{pset}: {len(hit)} episode(s) on {len(problems)} problem(s) {what}: {named}")
    return out


def _price_notes(rows: list[dict]) -> list[str]:
    """Per agent and problem set: the episodes whose dollars are unknown (a model litellm has no price for)."""
    by_group = defaultdict(list)
    for r in rows:
        by_group[(r.get("agent_label") or r.get("agent"), r["problem_set"])].append(r)
    out = []
    for (agent, pset), members in sorted(by_group.items(), key=lambda item: (str(item[0][0]), str(item[0][1]))):
        unknown = sum(1 for r in members if _unpriced(r))
        if unknown:
            said = ("so its dollars are unknown" if unknown == len(members) else
                    f"so cost_usd and cached_cost_usd count only the other {len(members) - unknown} (a lower bound)")
            out.append(f"{agent} on {pset}: {unknown} of {len(members)} episode(s) used a model litellm has no price for "
                       f"(not in its cost map), {said}.")
    return out


def _reference_words(source: str | None) -> str:
    return {None: "no stored optimum", "": "no stored optimum", "none stored": "no stored optimum"}.get(source, source)


def _short(ref: str) -> str:
    """A problem reference as the note names it: the file (and the name within a problem set)."""
    path, _, name = ref.partition("#")
    return path.replace("\\", "/").rsplit("/", 1)[-1] + (f"#{name}" if name else "")


def _difficulty_order(item):
    (agent, pset, difficulty), _ = item
    digits = "".join(ch if ch.isdigit() else " " for ch in difficulty).split()
    return agent, pset, int(digits[0]) if digits else 10**9, difficulty


def _plugin_columns(rows: list[dict]) -> dict:
    """A world's own summary columns, over the lines its plug-in scored (not those `unscored`: a
    metric-error, memout or dead worker has none of its fields). A plug-in that raises costs its
    columns, which then say why, not the summary."""
    worlds = {r.get("world") for r in rows}
    out = {}
    for world in sorted(w for w in worlds if w):
        # the world folder whose plug-in scored the rows (a domain merely named like a shipped
        # world has none); rows written before it was recorded name it by the domain's name
        bound = {r["plugin_world"] for r in rows if r.get("world") == world and "plugin_world" in r}
        module = plugin(world) if not bound else (plugin(bound.pop()) if len(bound) == 1 and None not in bound else None)
        if module is not None and hasattr(module, "summary_metrics"):
            try:
                out.update(module.summary_metrics([r for r in rows if r.get("world") == world and not r.get("unscored")]) or {})
            except Exception as exc:
                out[f"{world}_metrics_error"] = f"{type(exc).__name__}: {exc}"
    return out


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


DOLLARS = ("cost_usd", "cached_cost_usd")


def _cell(entry: dict, column: str) -> str:
    """A cell as the table, Markdown and CSV show it: dollars no price is known for are 'unknown',
    and a sum that leaves some out is a lower bound."""
    value = entry.get(column)
    if column in DOLLARS and entry.get("unpriced_episodes"):
        return "unknown" if value is None else f">={_fmt(value)}"
    return _fmt(value)


TABLE = ("agent", "problem_set", "episodes", "success_rate", "mean_optimality", "opt =1", "opt (1,1.25]", "opt (1.25,1.5]",
         "togo [0,0.5]", "togo (0.5,1]", "togo >1", "togo dead-end", "invalid_actions", "tokens", "cost_usd")


def _shown(entries: list[dict], columns) -> list[str]:
    """`columns`, with those that say something in these entries: pass@k after the success rate
    when there are several samples, what was replayed from the cache after the dollars spent."""
    columns = list(columns)
    passes = sorted({k for e in entries for k in e if k.startswith("pass@")}, key=lambda k: int(k[5:]))
    if passes and "success_rate" in columns:
        at = columns.index("success_rate") + 1
        columns[at:at] = ["samples"] + passes
    if any(e.get("cached_tokens") for e in entries) and "cost_usd" in columns:
        at = columns.index("cost_usd") + 1
        columns[at:at] = ["cached_tokens", "cached_cost_usd"]
    return columns


def table(entries: list[dict], columns=TABLE) -> str:
    """A plain-text table for the terminal."""
    columns = _shown(entries, columns)
    extra = [k for e in entries for k in e if k not in columns and k not in COLUMNS and not k.startswith("pass@") and k not in
             ("successes", "repeated_transitions", "outcomes", "togo unknown", "difficulty")]
    columns = list(columns) + sorted(set(extra), key=extra.index)
    cells = [[_cell(e, c) for c in columns] for e in entries]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def markdown(summary: dict) -> str:
    def md(entries, columns):
        columns = _shown(entries, columns)
        head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
        return head + "\n".join("| " + " | ".join(_cell(e, c) for c in columns) + " |" for e in entries)

    said = summary.get("notes") or []
    return ("# plan-eval summary\n\n## By agent and problem set\n\n" + md(summary["by_set"], TABLE) +
            "\n\n## By difficulty\n\n" + md(summary["by_difficulty"], ("agent", "problem_set", "difficulty") + TABLE[2:]) + "\n" +
            ("\n## Notes\n\n" + "\n".join(f"- {n}" for n in said) + "\n" if said else ""))


def to_csv(summary: dict) -> str:
    buffer = io.StringIO()
    entries = [dict(e, level="problem_set") for e in summary["by_set"]] + [dict(e, level="difficulty") for e in summary["by_difficulty"]]
    keys = ["level"] + [c for c in COLUMNS if any(c in e for e in entries)]
    passes = sorted({k for e in entries for k in e if k.startswith("pass@") and k not in keys}, key=lambda k: int(k[5:]))
    if passes:
        at = keys.index("pass@1") + 1 if "pass@1" in keys else len(keys)
        keys[at:at] = passes
    keys += sorted({k for e in entries for k in e} - set(keys) - {"outcomes"})
    writer = csv.DictWriter(buffer, fieldnames=keys, extrasaction="ignore")
    writer.writeheader()
    for e in entries:
        writer.writerow({k: ("unknown" if k in DOLLARS and e.get(k) is None and e.get("unpriced_episodes") else e.get(k)) for k in keys})
    return buffer.getvalue()


def to_json(summary: dict) -> str:
    return json.dumps(summary, indent=1, sort_keys=True)
