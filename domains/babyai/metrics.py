"""LLM-BabyBench metrics: per-answer scores (tasks.py) grouped as the paper reports them.

Groups (spec sections 4 and 5):
- Predict: per level and per difficulty (Easy / Moderate / Hard / Very Hard, the row's metadata);
  success rate, mean Manhattan distance over all parsed answers and over wrong ones.
- Plan: per size (Small / Medium / Large / Ultra, from the environment name); success rate and
  mean efficiency (0 for failures, as the paper's efficiency column averages).
- Decompose: per SA class of the row's help_count (0-2, 3-6, 7-9, 10+); CR, PR and ACI means.
Every group also reports how many answers could not be parsed (they count as failures). Rows
flagged `expert_failed` (the generation-time expert did not solve them) are left out of the rates
and counted separately.

plan-eval plug-in: `episode_metrics(task, episode)` scores the episode's answer text (see
`answer_text`) when the problem is an LLM-BabyBench row, under the key 'babyai';
`summary_metrics(rows)` turns those per-episode dicts into the columns below, prefixed
'babyai_'. `summarise(scores)` does the same for plain score dicts from `tasks.score`.
"""
from __future__ import annotations

from collections import defaultdict

SIZES = ("Small", "Medium", "Large", "Ultra")
SA_CLASSES = ("0-2", "3-6", "7-9", "10+")
DIFFICULTIES = ("Easy", "Moderate", "Hard", "Very Hard")


def plan_size(level: str | None) -> str | None:
    """'Large' for 'GoToRedBall-Large-80Dists' (None if the name has no size)."""
    for part in str(level or "").split("-"):
        if part in SIZES:
            return part
    return None


def sa_class(help_count) -> str | None:
    """The paper's class of 'subgoals added' for a help count."""
    if help_count is None:
        return None
    h = int(help_count)
    if h <= 2:
        return "0-2"
    if h <= 6:
        return "3-6"
    if h <= 9:
        return "7-9"
    return "10+"


def groups(kind: str, meta: dict) -> dict:
    """The grouping fields of one row: level and difficulty (predict), size (plan), SA class (decompose)."""
    if kind == "predict":
        return {"difficulty": meta.get("difficulty")}
    if kind == "plan":
        return {"size": plan_size(meta.get("level"))}
    if kind == "decompose":
        return {"sa_class": sa_class(meta.get("help_count")), "difficulty": meta.get("difficulty")}
    return {}


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def rates(kind: str, scores: list[dict]) -> dict:
    """The task's rates over a list of score dicts (all of one task)."""
    out = {"n": len(scores), "parse_errors": sum(1 for s in scores if s.get("parse_error"))}
    if kind == "predict":
        out["success_rate"] = _mean([float(s["success"]) for s in scores])
        out["manhattan"] = _mean([s.get("manhattan") for s in scores])
        out["manhattan_wrong"] = _mean([s.get("manhattan") for s in scores if not s["success"]])
    elif kind == "plan":
        out["success_rate"] = _mean([float(s["success"]) for s in scores])
        out["efficiency"] = _mean([s.get("efficiency", 0.0) for s in scores])
        out["efficiency_successes"] = _mean([s.get("efficiency") for s in scores if s["success"]])
    elif kind == "decompose":
        out["cr"] = _mean([float(s["completed"]) for s in scores])
        out["pr"] = _mean([float(s["perfect"]) for s in scores])
        out["aci"] = _mean([s.get("aci", 0.0) for s in scores])
    return out


GROUP_KEYS = {"predict": ("level", "difficulty"), "plan": ("size", "level"), "decompose": ("sa_class", "level")}
ORDER = {"difficulty": DIFFICULTIES, "size": SIZES, "sa_class": SA_CLASSES}


def summarise(scores: list[dict], include_expert_failed: bool = False) -> dict:
    """{task: {"all": rates, "by_<key>": {group: rates}}} for score dicts of any mix of tasks.

    Rows whose generation-time expert failed are left out unless `include_expert_failed`; their
    number is reported as all.excluded_expert_failed."""
    by_task = defaultdict(list)
    excluded = defaultdict(int)
    for s in scores:
        if s.get("expert_failed") and not include_expert_failed:
            excluded[s.get("babyai_task")] += 1
            continue
        by_task[s.get("babyai_task")].append(s)
    out = {}
    for kind, items in by_task.items():
        if kind not in GROUP_KEYS:
            continue
        entry = {"all": {**rates(kind, items), "excluded_expert_failed": excluded[kind]}}
        for key in GROUP_KEYS[kind]:
            grouped = defaultdict(list)
            for s in items:
                if s.get(key) is not None:
                    grouped[s[key]].append(s)
            order = ORDER.get(key)
            names = [g for g in order if g in grouped] if order else list(grouped)
            names += [g for g in grouped if g not in names]
            entry[f"by_{key}"] = {g: rates(kind, grouped[g]) for g in names}
        out[kind] = entry
    return out


def table(summary: dict) -> str:
    """A plain-text table of `summarise`'s result (one line per group)."""
    lines = []
    for kind, entry in summary.items():
        for section, value in entry.items():
            rows = {"all": value} if section == "all" else value
            for name, r in rows.items():
                cells = ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items())
                lines.append(f"{kind:9s} {section:13s} {str(name):16s} {cells}")
    return "\n".join(lines)


# ---------------------------------------------------------------- plan-eval plug-in
def answer_text(episode) -> str | None:
    """The model's whole reply in a plan-eval episode: an `answer` attribute if the harness sets
    one, else the last whole model reply of the trajectory (an open-loop agent's plan), else the
    actions of a step-by-step agent joined by commas (usable as a Plan answer)."""
    direct = getattr(episode, "answer", None)
    if isinstance(direct, str):
        return direct
    steps = [s for s in getattr(episode, "trajectory", []) or [] if isinstance(s, dict) and s.get("answer")]
    # the loop records a model reply as an entry with its tokens and no parsed action; the
    # lines it then replays one by one follow as entries of their own
    replies = [s["answer"] for s in steps if s.get("action") is None and "tokens" in s]
    if replies:
        return str(replies[-1])
    # an agent that answered step by step: its actions, in order (a Plan answer)
    words = [str(s.get("action") or s["answer"]).strip("() ") for s in steps]
    return ", ".join(words) if words else None


def episode_metrics(task, episode) -> dict:
    """LLM-BabyBench scores of one episode (key 'babyai'), for problems that are benchmark rows.

    For Plan the harness's own replay is also valid evidence, but the answer text is re-scored here
    so that the efficiency uses the whole answer's length, as the benchmark does."""
    from . import tasks

    kind = tasks.task_kind(task)
    if kind is None:
        return {}
    text = answer_text(episode)
    if text is None:
        return {"babyai": {"babyai_task": kind, "parse_error": "no answer text in the episode",
                           **_failure(kind), **groups(kind, tasks.metadata(task)),
                           "level": tasks.metadata(task).get("level")}}
    try:
        return {"babyai": tasks.score(kind, task, text)}
    except RuntimeError as exc:  # e.g. the Decompose executor is missing
        return {"babyai": {"babyai_task": kind, "error": str(exc)}}


def _failure(kind: str) -> dict:
    if kind == "predict":
        return {"success": False, "manhattan": None}
    if kind == "plan":
        return {"success": False, "efficiency": 0.0}
    return {"completed": False, "perfect": False, "aci": 0.0}


PAPER_GROUPS = {"predict": ("difficulty", ("success_rate", "manhattan")),
                "plan": ("size", ("success_rate", "efficiency")),
                "decompose": ("sa_class", ("cr", "pr", "aci"))}


def summary_metrics(rows: list[dict]) -> dict:
    """Flat columns for a group of plan-eval lines: 'babyai_<task>_<rate>' over all of them, and
    'babyai_<task>_<rate>@<group>' per paper group (Predict by difficulty, Plan by size, Decompose
    by SA class). Per-level tables: `summarise` on the lines' 'babyai' dicts."""
    scores = [r["babyai"] for r in rows if isinstance(r.get("babyai"), dict) and "error" not in r["babyai"]]
    if not scores:
        return {}
    summary = summarise(scores)
    flat = {}
    for kind, entry in summary.items():
        for k, v in entry["all"].items():
            flat[f"babyai_{kind}_{k}"] = v
        key, wanted = PAPER_GROUPS[kind]
        for name, r in entry.get(f"by_{key}", {}).items():
            for k in wanted:
                flat[f"babyai_{kind}_{k}@{name}"] = r[k]
    return flat
