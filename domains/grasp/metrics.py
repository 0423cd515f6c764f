"""GRASP's plan-eval plug-in: score, length, energy delivered and ratio to the optimum.

An episode is re-scored from what the agent answered (every answer, valid or not, since GRASP
counts unknown and disallowed actions as paid no-ops) with `scoring.metrics`, corrected rules."""
from __future__ import annotations

from . import grid as G
from .scoring import metrics


def _answers(episode) -> list[str]:
    words = []
    for step in episode.trajectory:
        answer = step.get("answer")
        if answer is None or (step.get("action") is None and "\n" in answer):
            continue  # an open-loop agent's whole reply: its lines follow one by one
        words.append(str(step.get("action") or answer).strip())
    return words


def episode_metrics(task, episode) -> dict:
    data = task.problem.raw
    optimum = (task.problem.metadata or {}).get("optimum_score")
    return {"grasp": metrics(G.from_problem(data), _answers(episode), G.rules(data), optimum)}


def summary_metrics(rows: list[dict]) -> dict:
    scores = [r["grasp"] for r in rows if isinstance(r.get("grasp"), dict)]
    if not scores:
        return {}

    def mean(key):
        values = [s[key] for s in scores if s.get(key) is not None]
        return sum(values) / len(values) if values else None

    return {"grasp_score": mean("score"), "grasp_length": mean("length"), "grasp_delivered": mean("delivered"),
            "grasp_ratio_to_optimum": mean("ratio_to_optimum")}
