"""Summaries of a run: grouped by agent, problem set and difficulty; as a terminal table,
Markdown, CSV and JSON. Computed from the episode lines alone, in sorted order, so a resumed or
parallel run summarises exactly like an uninterrupted serial one."""
from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

from .metrics import OPTIMALITY_BINS, STEPS_TO_GO_BINS, plugin

COLUMNS = ("agent", "problem_set", "difficulty", "episodes", "success_rate", "mean_optimality", *(f"opt {b}" for b in OPTIMALITY_BINS),
           *(f"togo {b}" for b in STEPS_TO_GO_BINS), "mean_steps", "invalid_actions", "tokens", "cost_usd", "reference_proven")


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
        "cost_usd": round(sum(r.get("cost_usd", 0.0) for r in rows), 6),
        "reference_proven": sum(1 for r in rows if r.get("reference_proven")) / episodes if episodes else None,
        "outcomes": dict(sorted(_count(r.get("outcome") for r in rows).items())),
    }
    for b in OPTIMALITY_BINS:
        out[f"opt {b}"] = sum(1 for r in successes if r.get("optimality_bin") == b)
    for b in STEPS_TO_GO_BINS:
        out[f"togo {b}"] = sum(1 for r in failures if r.get("steps_to_go_bin") == b)
    out["togo unknown"] = sum(1 for r in failures if r.get("steps_to_go_bin") is None)
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
    return {"by_set": sets, "by_difficulty": diffs}


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
        module = plugin(world)
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


TABLE = ("agent", "problem_set", "episodes", "success_rate", "mean_optimality", "opt =1", "opt (1,1.25]", "opt (1.25,1.5]",
         "togo [0,0.5]", "togo (0.5,1]", "togo >1", "invalid_actions", "tokens", "cost_usd")


def table(entries: list[dict], columns=TABLE) -> str:
    """A plain-text table for the terminal."""
    extra = [k for e in entries for k in e if k not in columns and k not in COLUMNS and k not in
             ("successes", "repeated_transitions", "outcomes", "togo unknown", "difficulty")]
    columns = list(columns) + sorted(set(extra), key=extra.index)
    cells = [[_fmt(e.get(c)) for c in columns] for e in entries]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def markdown(summary: dict) -> str:
    def md(entries, columns):
        head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
        return head + "\n".join("| " + " | ".join(_fmt(e.get(c)) for c in columns) + " |" for e in entries)

    return ("# plan-eval summary\n\n## By agent and problem set\n\n" + md(summary["by_set"], TABLE) +
            "\n\n## By difficulty\n\n" + md(summary["by_difficulty"], ("agent", "problem_set", "difficulty") + TABLE[2:]) + "\n")


def to_csv(summary: dict) -> str:
    buffer = io.StringIO()
    entries = [dict(e, level="problem_set") for e in summary["by_set"]] + [dict(e, level="difficulty") for e in summary["by_difficulty"]]
    keys = ["level"] + [c for c in COLUMNS if any(c in e for e in entries)]
    keys += sorted({k for e in entries for k in e} - set(keys) - {"outcomes"})
    writer = csv.DictWriter(buffer, fieldnames=keys, extrasaction="ignore")
    writer.writeheader()
    for e in entries:
        writer.writerow({k: e.get(k) for k in keys})
    return buffer.getvalue()


def to_json(summary: dict) -> str:
    return json.dumps(summary, indent=1, sort_keys=True)
