"""LLM-BabyBench's three tasks as plan-eval questions (the contract is agents/questions.py).

A row of problems/babyai/{predict,plan,decompose}.jsonl.gz names its task in its metadata; the
loop then asks once and this module scores the answer with tasks.py (the paper's metrics). The
oracle answers: Predict, the stored final pose; Plan, the exact oracle's optimal action sequence
(so its efficiency, expert length / answer length, is at least 1); Decompose, the subgoals read
off the OmniBot's own run, or, where that run fails (the 8 rows the expert fails on), off the
exact oracle's plan or else a greedy search's. The random baseline
answers with a random pose, a random action sequence as long as the expert's, or a random list
of subgoals as long as the expert's help count.

`playback(task, answer)` gives the viewer action sequences to play on the grid step by step: the
answer's own (Plan: the actions the scoring ran; Decompose: what the OmniBot did with the answered
subgoals) and the reference's (the expert's actions), with a line saying how each was scored.

`check_answer_key(task)` holds a row's answer key to the world before anything is scored against
it (engine.validate.check_answer_keys calls it for `groundplan validate` and before plan-eval's
first episode of the row): Predict's target is where the row's own actions leave the agent;
Plan's red-ball cell holds the red ball, and the expert's actions reach the mission's goal at
their last step (their count is the efficiency's numerator); Decompose's mission is the row's
and its help count is the OmniBot's own run's (ACI divides by it).
"""
from __future__ import annotations

from . import tasks
from . import text as T

STRATEGIES = {"zero-shot": "zero_shot", "few-shot": "few_shot", "cot": "cot", "tot": "tot"}


def kind(task) -> str | None:
    return tasks.task_kind(task)


def messages(task, strategy: str) -> list[dict]:
    from groundplan.engine.errors import GroundplanError

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
        from groundplan.planners.search import best_first

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


# ---------------------------------------------------------------- the viewer's playback
def playback(task, answer: str) -> list[dict]:
    """[{"name", "actions": action words, "note"}]: what to play on the picture for this answer,
    the answer's sequence first, then the reference's. Plays what the scoring ran, no more: a Plan
    stops at the step its mission first holds, and a Decompose answer is what the OmniBot did."""
    which = kind(task)
    meta = tasks.metadata(task)
    limit = tasks.max_steps(task)
    if which == "predict":
        given = tasks.split_actions(meta.get("actions", ""))
        (tx, ty), td = tasks.pose(task, tasks.replay(task, given, stop_at_goal=False)["state"])
        try:
            predicted = T.state_text(tasks.parse_predict(answer))
        except tasks.ParseError as exc:
            predicted = f"unreadable ({exc})"
        return [{"name": "the row's actions (where they really end)", "actions": given[:limit],
                 "note": f"predicted {predicted}; the actions end at {T.state_text(((tx, ty), td))}"}]
    if which == "plan":
        expert = tasks.split_actions(meta.get("expert_actions", ""))
        try:
            words, unknown = tasks.parse_plan(answer)
        except tasks.ParseError as exc:
            words, unknown, note = [], [], f"nothing to play: {exc}"
        else:
            run = tasks.replay(task, words)
            note = (f"{len(words)} action(s) read" + (f", {len(unknown)} unknown word(s) dropped" if unknown else "") +
                    (f"; the mission holds after step {run['reached_at']}, where scoring stops" if run["reached"]
                     else "; the mission never holds"))
            words = words[:run["steps"]]
        return [{"name": "the answer", "actions": words, "note": note},
                {"name": "the reference (the expert's actions)", "actions": expert[:limit],
                 "note": f"{len(expert)} action(s): the efficiency's numerator"}]
    if which == "decompose":
        from .omnibot import SubgoalError, execute

        out = []
        try:
            subgoals = tasks.parse_decompose(answer)
            run = execute(task, subgoals, max_steps=limit)
            out.append({"name": "the answer (the OmniBot following its subgoals)", "actions": list(run.actions),
                        "note": f"{len(subgoals)} subgoal(s); {run.help_count} help(s); "
                                + ("completed" if run.success else "not completed")})
        except (tasks.ParseError, SubgoalError, ValueError) as exc:
            out.append({"name": "the answer", "actions": [], "note": f"nothing to play: {exc}"})
        reference = tasks.bot_run(task)
        out.append({"name": "the reference (the OmniBot's own run)", "actions": list(reference.actions),
                    "note": f"{reference.help_count} help(s): ACI's denominator"})
        return out
    return []


# ---------------------------------------------------------------- answer keys
def check_answer_key(task) -> list:
    """What is wrong with the row's answer key (see the module docstring), as Diagnostics at the
    row's file and line and the JSON pointer of the key; empty when it holds or the problem is
    no LLM-BabyBench row. About 10 ms a row (replays; Decompose runs the OmniBot once, which its
    oracle answer then reuses)."""
    which = kind(task)
    if which is None:
        return []
    meta = tasks.metadata(task)
    errors: list = []

    def error(key, message, hint=None):
        from groundplan.engine.errors import Diagnostic, pointer

        errors.append(Diagnostic(task.problem.file, pointer(["metadata", key]),
                                 f"{which.capitalize()} row '{task.problem.name}': {message}", hint))

    if which == "predict":
        _check_predict(task, meta, error)
    elif which == "plan":
        _check_plan(task, meta, error)
    else:
        _check_decompose(task, meta, error)
    return errors


def _known_actions(meta, key, error) -> list[str] | None:
    """The row's action words, or None (with an error naming the first unknown word)."""
    from .world import ACTIONS

    actions = tasks.split_actions(meta.get(key, ""))
    bad = next((i for i, a in enumerate(actions) if a not in ACTIONS), None)
    if bad is not None:
        error(key, f"action {bad + 1} '{actions[bad]}' is not an action of the world ({', '.join(ACTIONS)})",
              "store the action words as the generator writes them")
        return None
    return actions


def _pose_of(value):
    """((x, y), d) from a stored [[x, y], d], or None when it is not that shape."""
    try:
        (x, y), d = value
        if all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y, d)):
            return (x, y), d
    except (TypeError, ValueError):
        pass
    return None


def _check_predict(task, meta, error) -> None:
    target = _pose_of(meta.get("target"))
    if target is None:
        error("target", f"the target {meta.get('target')!r} is not a pose [[x, y], d]",
              "store where the row's actions leave the agent, as [[x, y], d]")
        return
    actions = _known_actions(meta, "actions", error)
    if actions is None:
        return
    run = tasks.replay(task, actions)
    reached = tasks.pose(task, run["state"])
    if reached == target:
        return
    (x, y), d = reached
    how = f"its {len(actions)} actions (/metadata/actions)"
    if run["steps"] < len(actions):  # the replay stops where the mission holds, or at max_steps
        why = "the mission holds" if run["reached"] else "max_steps runs out"
        how += f", which stop after step {run['steps']} where {why},"
    error("target", f"replaying {how} leaves the agent at {T.state_text(reached)}, not at the stored target "
          f"{T.state_text(target)}", f"set the target to [[{x}, {y}], {d}], or store the actions it belongs to")


def _check_plan(task, meta, error) -> None:
    target = meta.get("target_subgoal")
    balls = [o["position"] for o in T.objects(task, task.initial_state()) if o["type"] == "ball" and o["color"] == "red"]
    if not (isinstance(target, list) and len(target) == 2 and tuple(target) in balls):
        where = ", ".join(T.pos_text(b) for b in balls) or "nowhere"
        error("target_subgoal", f"the target {target!r} is not the red ball's cell (the red ball is at {where})",
              f"set it to {list(balls[0])}" if len(balls) == 1 else "store the red ball's cell [x, y]")
    actions = _known_actions(meta, "expert_actions", error)
    if actions is None or meta.get("expert_failed"):
        return  # an expert that failed at generation reaches nothing, and says so
    run = tasks.replay(task, actions)
    n = len(actions)
    if not run["reached"]:
        error("expert_actions", f"the expert's {n} actions do not reach the mission's goal ({T.mission(task)!r})",
              "store the expert's whole action sequence: its length is the efficiency's numerator")
    elif run["reached_at"] != n:
        k = run["reached_at"]
        error("expert_actions", f"the mission holds after step {k} of the expert's {n} actions, so the efficiency's "
              f"numerator ({n}) counts {n - k} step(s) after it", f"keep the first {k} actions")


def _check_decompose(task, meta, error) -> None:
    if meta.get("mission") != T.mission(task):
        error("mission", f"the mission {meta.get('mission')!r} is not the row's goal text {T.mission(task)!r}",
              "store the row's goal_text as its mission")
    helps = meta.get("help_count")
    if not isinstance(helps, int) or isinstance(helps, bool) or helps < 0:
        error("help_count", f"the help count {helps!r} is not a whole number >= 0", "store the expert's subgoal pushes")
        return
    run = tasks.bot_run(task)
    if run.help_count != helps:
        error("help_count", f"the OmniBot's own run of the mission pushes {run.help_count} subgoals (its translation "
              f"included), not the stored {helps} (ACI divides by it)", f"set help_count to {run.help_count}")
    if bool(run.success) == bool(meta.get("expert_failed")):
        said = "fails" if meta.get("expert_failed") else "solves"
        did = "solves" if run.success else f"fails ({run.note or 'no plan'})"
        error("expert_failed", f"the row says the expert {said} the mission, but the OmniBot's run {did}",
              "remove expert_failed" if run.success else 'set "expert_failed": true')
