"""An episode as the viewer shows it: each state's picture, what the agent read and answered,
the feedback, tokens and dollars, and the steps to go where they are known.

A run folder stores states only as hashes (episodes.jsonl stays small), so the states are
replayed here from the problem file and the recorded actions, and every replayed state is
checked against the recorded hash: a problem file edited since the run, or a step the replay
cannot redo, is said on the page ("not reconstructed"), never drawn wrong.

Steps to go come from the planners' any-state oracle, which caches every suffix of each optimal
plan it finds: an agent that follows an optimal plan costs one search, and each departure from
it one more. A search that does not finish in `togo_time` seconds leaves that state's value
unknown, and the page says so.

A question episode (agents/questions.py: one answer, no walk) would be one picture; where its
world says what an answer means as actions (`playback`), each sequence (the answer's, the
reference's) is played on the picture here, one frame per action, beside the score's fields.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

from groundplan.engine.errors import GroundplanError

LIST_FIELDS = ("id", "problem", "problem_set", "agent_label", "outcome", "success", "steps", "cost", "reference_cost",
               "reference_proven", "invalid_actions", "cost_usd", "world")


def list_entry(row: dict) -> dict:
    """What the episode list shows of one line of episodes.jsonl."""
    out = {k: row.get(k) for k in LIST_FIELDS}
    out["agent_label"] = out["agent_label"] or row.get("agent")
    out["tokens"] = int(row.get("prompt_tokens") or 0) + int(row.get("completion_tokens") or 0)
    out["load_error"] = row.get("load_error")
    return out


def resolve_problem(ref: str, run_folder: Path | None) -> str:
    """The problem reference as recorded if it still resolves here, else the same path below
    the package's root or beside the run folder (a run viewed from another directory)."""
    from groundplan.engine.paths import ROOT
    from groundplan.engine.problemsets import split_reference

    path, name = split_reference(ref)
    candidates = [Path(path), ROOT / path] + ([run_folder.parent / path] if run_folder else [])
    for candidate in candidates:
        if candidate.exists():
            return str(candidate) + (f"#{name}" if name else "")
    raise GroundplanError(f"{ref}: the episode's problem file is not found here (looked in {', '.join(map(str, candidates))}); "
                          "view the run from the directory it was run in")


def _togo_text(value) -> str | None:
    if value is None:
        return None
    return "dead end" if value == math.inf else f"{value:g}"


class _ToGo:
    """Steps to go per state, through one cached oracle per episode, within a time budget."""

    def __init__(self, task, togo_time: float, budget: float):
        self.enabled = togo_time > 0
        self.deadline = time.monotonic() + budget
        self.oracle = None
        if self.enabled:
            from groundplan.planners.oracle import Oracle

            self.oracle = Oracle(task, time_limit=togo_time)

    def __call__(self, state):
        if not self.enabled or state is None:
            return None
        known = self.oracle.known_cost(state)
        if known is not None or time.monotonic() > self.deadline:
            return known
        try:
            return self.oracle.cost(state)
        except (MemoryError, GroundplanError):
            return None


def replay_frames(task, trajectory: list[dict]) -> list:
    """The state before each recorded step and after the last (None where the replay could not
    reach the recorded hash)."""
    from groundplan.agents.loop import state_hash

    state = task.initial_state()
    known = {state_hash(state): state}
    states = []
    current = state
    for entry in trajectory:
        before = known.get(entry.get("state"))
        if before is None and current is not None:  # a step passed with no entry (a tool reply that used one up)
            waited = task.wait_step(current)
            before = waited if state_hash(waited) == entry.get("state") else None
        states.append(before)
        current = _after(task, before, entry, known) if before is not None else None
        if current is not None:
            known[state_hash(current)] = current
    states.append(current)
    return states


def _after(task, before, entry: dict, known: dict):
    from groundplan.agents.loop import state_hash

    target = entry.get("next_state")
    if target in known:
        return known[target]
    tries = []
    text = entry.get("action")
    if text:
        try:
            action = task.action_by_text(text, before) or task.parse_action(text, before)
            tries.append(lambda: task.step(before, action).state)
        except GroundplanError:
            pass  # a joint or unparsable action: only the wait below can still match the hash
    tries.append(lambda: task.wait_step(before))
    for attempt in tries:
        try:
            after = attempt()
        except GroundplanError:
            continue
        if target is None or state_hash(after) == target:
            return after
    return None


PLAYBACK_LIMIT = 400  # actions played per sequence: a runaway answer is cut, and the page says so


def playback_tracks(task, answer: str) -> list[dict]:
    """The world's playback of a question's answer (none when the world has no `playback`), each
    sequence played from the start: frame 0 the start, frame j the state after action j."""
    from groundplan.agents.questions import world_questions
    from groundplan.engine.picture import scene

    module = world_questions(task.domain)
    if module is None or not hasattr(module, "playback"):
        return []
    try:
        sequences = module.playback(task, answer)
    except (GroundplanError, ValueError) as exc:
        return [{"name": "the answer", "note": f"could not be played: {exc}", "frames": []}]
    tracks = []
    for seq in sequences:
        state = task.initial_state()
        frames = [{"scene": scene(task, state)}]
        note = seq.get("note")
        actions = [str(a) for a in seq.get("actions") or []]
        if len(actions) > PLAYBACK_LIMIT:
            note = (note + "; " if note else "") + f"only its first {PLAYBACK_LIMIT} of {len(actions)} actions are played"
            actions = actions[:PLAYBACK_LIMIT]
        for text in actions:
            try:
                result = task.step(state, task.parse_action(text, state))
            except GroundplanError as exc:
                frames.append({"action": text, "lost": f"'{text}' could not be played: {exc}"})
                break
            state = result.state
            frames.append({"action": text, "scene": scene(task, state), "valid": result.valid})
        tracks.append({"name": seq.get("name") or "", "note": note, "frames": frames})
    return tracks


def _costs_so_far(task, states: list, trajectory: list[dict]) -> list[float | None]:
    """The cost the episode has spent before each frame (None after a step that cannot be redone)."""
    out, total = [0.0], 0.0
    for k, entry in enumerate(trajectory):
        if total is not None and states[k] is not None:
            total += _step_cost(task, states[k], entry)
        else:
            total = None
        out.append(None if total is None else round(total, 6))
    return out


def episode_detail(task, row: dict, togo_time: float = 0.5, togo_budget: float = 5.0) -> dict:
    """Every frame of one episode, ready for the page: frame k is the state before step k (the
    last frame, the state the episode ended in). With `togo_time` 0 the steps to go are left
    for `steps_to_go` (the server sends the pictures first and the searches' results after)."""
    from groundplan.engine.picture import needs_context, scene

    from groundplan.agents.base import Observation

    trajectory = row.get("trajectory") or []
    states = replay_frames(task, trajectory)
    costs = _costs_so_far(task, states, trajectory) if needs_context(task) else None
    frames = []
    for k, state in enumerate(states):
        entry = trajectory[k] if k < len(trajectory) else {}
        frame = {"step": k}
        if state is not None:
            context = {"?steps": k} if costs is None or costs[k] is None else {"?steps": k, "?cost": costs[k]}
            frame["scene"] = scene(task, state, context)  # the page highlights what changed: it has both scenes
        else:
            frame["lost"] = ("the state could not be reconstructed from the recorded actions (the problem file may have "
                             "changed since the run)")
        if k < len(trajectory):
            for key in ("answer", "action", "valid", "feedback", "tokens", "cost_usd", "cached", "cached_tokens", "cached_cost_usd",
                        "tool", "question", "score", "trial"):
                if key in entry:
                    frame[key] = entry[key]
            if entry.get("observation") is not None:
                frame["observation"], frame["observation_read"] = entry["observation"], True
            elif state is not None:
                feedback = trajectory[k - 1].get("feedback") if k else None
                frame["observation"] = Observation(task, state, feedback, k, row.get("max_steps") or 0).text
                frame["observation_read"] = False
            if entry.get("detail"):
                frame["detail"] = entry["detail"]
        frames.append(frame)
    question = next((e for e in trajectory if e.get("question")), None)
    detail = {"id": row.get("id"), "problem": row.get("problem"), "agent": row.get("agent_label") or row.get("agent"),
              "outcome": row.get("outcome"), "success": row.get("success"), "goal": task.problem.goal_text or "",
              "world": task.domain.name, "reference_cost": row.get("reference_cost"), "cost": row.get("cost"),
              "error": row.get("error"), "frames": frames}
    if question is not None and question.get("answer") is not None:
        detail["question"] = question["question"]
        detail["tracks"] = playback_tracks(task, question["answer"])
    if togo_time > 0:
        merge_togo(detail, steps_to_go(task, row, togo_time, togo_budget, states))
    else:
        detail["togo_pending"] = True
    return detail


def steps_to_go(task, row: dict, togo_time: float = 0.5, togo_budget: float = 5.0, states: list | None = None) -> dict:
    """The steps to go of each frame where known, and how far each step was from an optimal one.

    Known for free: the states of the problem's stored plan when it is proven optimal, and the
    final state's remaining cost that plan-eval proved. The rest by the oracle, within budget."""
    trajectory = row.get("trajectory") or []
    states = states if states is not None else replay_frames(task, trajectory)
    togo = _ToGo(task, togo_time, togo_budget)
    stored = task.problem.optimal or {}
    if togo.enabled and stored.get("cost") is not None and stored.get("plan") and states and states[0] is not None:
        try:
            togo.oracle.remember(states[0], float(stored["cost"]), task.parse_plan(stored["plan"]))
        except GroundplanError:
            pass  # a stored plan the problem no longer accepts: the searches decide
    values = [togo(s) for s in states]
    if values and values[-1] is None and row.get("remaining_cost") is not None:
        values[-1] = float(row["remaining_cost"])
    out = []
    for k, value in enumerate(values):
        item = {"togo": _togo_text(value)}
        if k < len(trajectory) and value is not None and value != math.inf and values[k + 1] is not None:
            lost = values[k + 1] + _step_cost(task, states[k], trajectory[k]) - value
            item["off_plan"] = round(lost, 6) if lost > 1e-9 else 0
        out.append(item)
    first_off = next((k for k, item in enumerate(out) if item.get("off_plan")), None)
    return {"frames": out, "left_plan_at": first_off,
            "togo_note": None if togo.enabled else "steps to go were not computed (--togo-time 0)"}


def merge_togo(detail: dict, togo: dict) -> dict:
    for frame, item in zip(detail["frames"], togo["frames"]):
        frame.update(item)
    detail["left_plan_at"], detail["togo_note"] = togo["left_plan_at"], togo["togo_note"]
    detail.pop("togo_pending", None)
    return detail


def _step_cost(task, state, entry: dict) -> float:
    if state is None or not entry.get("action"):
        return 0.0
    try:
        action = task.action_by_text(entry["action"], state)
        return float(task.step(state, action).cost) if action is not None else 0.0
    except GroundplanError:
        return 0.0
