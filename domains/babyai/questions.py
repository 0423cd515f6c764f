"""LLM-BabyBench's three tasks as plan-eval questions (the contract is agents/questions.py).

A row of problems/babyai/{predict,plan,decompose}.jsonl.gz names its task in its metadata; the
loop then asks once and this module scores the answer with tasks.py (the paper's metrics). The
oracle answers: Predict, the stored final pose; Plan, the exact oracle's optimal action sequence
(so its efficiency, expert length / answer length, is at least 1); Decompose, the subgoals read
off the OmniBot's own run, or, where that run fails (the 8 rows the expert fails on), off the
exact oracle's plan or else a greedy search's. The random baseline
answers with a random pose, a random action sequence as long as the expert's, or a random list
of subgoals as long as the expert's help count.
"""
from __future__ import annotations

from . import tasks

STRATEGIES = {"zero-shot": "zero_shot", "few-shot": "few_shot", "cot": "cot", "tot": "tot"}


def kind(task) -> str | None:
    return tasks.task_kind(task)


def messages(task, strategy: str) -> list[dict]:
    from engine.errors import GroundplanError

    if strategy not in STRATEGIES:
        raise GroundplanError(f"BabyAI questions are asked with the strategies {', '.join(STRATEGIES)}, "
                              f"not '{strategy}' (plan-eval ... --strategy tot)")
    return tasks.build_messages(kind(task), STRATEGIES[strategy], task)


def score(task, answer: str) -> dict:
    scored = tasks.score(kind(task), task, answer)
    if "completed" in scored:  # Decompose: completion is its success
        scored["success"] = scored["completed"]
    return scored


def _optimal_actions(task, satisficing: bool = False) -> list[str] | None:
    """The exact oracle's plan; with `satisficing`, a greedy search's when A* runs out of time."""
    from .oracle import Estimate, solve

    result = solve(task, time_limit=60)
    if result.status == "solved-optimal":
        return list(result.plan)
    if satisficing:
        from planners.search import best_first

        result = best_first(task, heuristic=Estimate(task), greedy=True, time_limit=60)
        return list(result.plan) if result.plan else None
    return None


def oracle_answer(task) -> str:
    which = kind(task)
    if which == "plan":
        actions = _optimal_actions(task)
        if actions is not None:
            return tasks.format_plan(actions)
    answer = tasks.oracle_answer(task)
    if which == "decompose" and not score(task, answer)["success"]:
        actions = _optimal_actions(task, satisficing=True)  # the OmniBot's own run failed (8 rows): a plan's subgoals
        if actions is not None:
            return tasks.oracle_answer(task, actions)
    return answer


def random_answer(task, rng) -> str:
    which = kind(task)
    meta = tasks.metadata(task)
    settings = task.settings
    side = (int(settings["room_size"]) - 1) * max(int(settings["num_cols"]), int(settings["num_rows"])) + 1
    if which == "predict":
        return tasks.format_predict(((rng.randrange(side), rng.randrange(side)), rng.randrange(4)))
    if which == "plan":
        length = max(1, len(meta.get("expert_actions", "").split(",")))
        return tasks.format_plan([rng.choice(tasks.PROMPT_ACTIONS) for _ in range(length)])
    count = max(1, int(meta.get("help_count", 1)))
    items = []
    for _ in range(count):
        name = rng.choice(tasks.SUBGOALS)
        items.append(("GoNextTo", (rng.randrange(1, side - 1), rng.randrange(1, side - 1))) if name == "GoNextTo" else (name,))
    return tasks.format_subgoals(items)
