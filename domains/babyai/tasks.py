"""LLM-BabyBench's three one-answer tasks on groundplan problems: prompts, parsers, scorers, oracles.

A problem row of `problems/babyai/{predict,plan,decompose}.jsonl[.gz]` is an ordinary babyai problem
whose `metadata` holds the task data (spec section 2):
- predict: `actions` ("left, forward, ...", the expert's whole solution) and `target` [[x, y], d];
- plan: `target_subgoal` [x, y] (the red ball: end up facing it) and `expert_actions`;
- decompose: `mission` and `help_count` (the expert's subgoal pushes, its own translation included).

    build_prompt(task_name, strategy, row)   -> prompt text (strategies: zero_shot, few_shot, cot, tot)
    build_messages(task_name, strategy, row) -> [system, user] chat messages
    parse_predict / parse_plan / parse_decompose(answer)      (ParseError on an unreadable answer)
    score(task_name, row, answer)  -> one flat dict per answer (never raises on a bad answer)
    oracle_answer(row)             -> the reference answer (100%; Decompose: see its docstring)

`row` may be a Task, a problem dict (a read problem-set row) or a reference such as
"problems/babyai/plan.jsonl.gz#GoToRedBall-Small-4Dists-s1".

Scoring follows spec section 4:
- Predict: success = position and direction equal the target; manhattan = |x - x*| + |y - y*|
  (reported for every parsed answer; None when unparsed).
- Plan: the actions are replayed through the interpreter from the initial state, stopping at the
  first step where the mission holds or at max_steps; success = the mission held at some step;
  efficiency = len(expert actions) / len(answer actions) on success, else 0 (the whole answer's
  length, even when the replay stopped early). Unknown action words are dropped (as the reference
  does) and counted in `unknown_actions`. Also reported: `optimal_actions`, the exact shortest
  navigation (BFS over (x, y, dir); the expert bot is not always shortest) and `optimality` =
  optimal_actions / len(answer actions) on success, else 0.
- Decompose: the subgoals are run by the OmniBot executor (`domains/babyai/omnibot.py`, imported
  lazily), which may add helper subgoals; CR = completed; PR = completed with 0 helps;
  ACI = max(0, (max_help - helps) / max_help) when completed, else 0, max_help = the row's
  help_count (ACI = 1 on success if a row had max_help 0).
A ParseError is scored as a failure with `parse_error` set, never raised by `score`.
Rows whose expert run failed at generation (`metadata.expert_failed`; 8 of 8,000 in the predict
and decompose sets, none in plan) are scored like the others and flagged `expert_failed`;
`metrics.summarise` leaves them out of the rates by default (their Decompose help_count comes
from a failed run and the mission may be unsolvable).
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from . import text as T

TASKS = ("predict", "plan", "decompose")
STRATEGIES = ("zero_shot", "few_shot", "cot", "tot")
from .world import ACTIONS
PROMPT_ACTIONS = T.ACTIONS  # the six the prompts list ('done' is a no-op the parser still accepts)
SUBGOALS = ("GoNextTo", "Open", "Pickup", "Drop", "Close")
PROMPTS_DIR = Path(__file__).with_name("prompts")
HIDDEN = {"named", "picked", "dropped", "opened"}


class ParseError(ValueError):
    """The answer could not be read in the task's answer format."""


# ---------------------------------------------------------------- rows and tasks
def as_task(row):
    """The interpreter Task for a Task, a problem dict or a problem reference."""
    from groundplan.engine import Task

    if isinstance(row, Task):
        return row
    if isinstance(row, dict):
        return _task_from_dict(row)
    return Task.load(str(row))


def _task_from_dict(data: dict):
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem

    data = dict(data)
    data.setdefault("groundplan", "1")
    data.setdefault("domain", "babyai")
    return Task(build_problem(data, f"<{data.get('name', 'problem')}>", None))


def metadata(task) -> dict:
    return dict(task.problem.metadata or task.problem.raw.get("metadata") or {})


def task_kind(task) -> str | None:
    """'predict', 'plan' or 'decompose' from the row's metadata (or None)."""
    meta = metadata(task)
    if meta.get("task") in TASKS:
        return meta["task"]
    if "target" in meta and "actions" in meta:
        return "predict"
    if "target_subgoal" in meta:
        return "plan"
    if "help_count" in meta:
        return "decompose"
    return None


def max_steps(task) -> int:
    return int(task.problem.max_steps or task.problem.raw.get("max_steps") or 10 ** 6)


def ground_action(task, name: str):
    """The interpreter's ground action for an action word ('left', 'forward', ...), cached on the task."""
    cache = task.__dict__.setdefault("_babyai_actions", {})
    if name not in cache:
        cache[name] = task.parse_action(name)
    return cache[name]


def split_actions(text) -> list[str]:
    """'left, forward, ...' (as the rows store actions) as a list; '' gives []."""
    if isinstance(text, (list, tuple)):
        return [str(a).strip() for a in text if str(a).strip()]
    return [a.strip() for a in str(text or "").split(",") if a.strip()]


def pose(task, state) -> tuple[tuple[int, int], int]:
    return T.agent_pose(task, state)


def replay(task, actions, state=None, stop_at_goal: bool = True, limit: int | None = None) -> dict:
    """Run action words from `state` (default: initial). Stops at the first step the mission holds
    (when `stop_at_goal`) or after `limit` steps (default: the problem's max_steps).
    Returns {"state", "steps", "reached": mission held after some step, "reached_at": step or None}."""
    state = task.initial_state() if state is None else state
    limit = max_steps(task) if limit is None else limit
    steps, reached_at = 0, None
    for name in actions:
        if steps >= limit:
            break
        state = task.step(state, ground_action(task, name)).state
        steps += 1
        if reached_at is None and task.is_goal(state):
            reached_at = steps
            if stop_at_goal:
                break
    return {"state": state, "steps": steps, "reached": reached_at is not None, "reached_at": reached_at}


def navigation_optimum(task, target, state=None) -> int | None:
    """Fewest left/right/forward actions from `state` (default: initial) to face cell `target`,
    never moving objects or opening doors (breadth-first over (x, y, dir); walls from the room
    geometry, every door and object blocks). Exact for the Plan rooms (spec 1.7), and a reference
    only where moving objects could help. None when unreachable."""
    state = task.initial_state() if state is None else state
    g = T.geometry(task)
    step = g["room_size"] - 1
    blocked = {o["position"] for o in T.objects(task, state)}
    target = tuple(target)

    def free(x, y):
        return 0 < x < g["width"] - 1 and 0 < y < g["height"] - 1 and x % step and y % step and (x, y) not in blocked

    start = pose(task, state)
    if T.front_cell(*start) == target:
        return 0
    seen = {start}
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        nxt = []
        for (x, y), d in frontier:
            fx, fy = T.front_cell((x, y), d)
            moves = [((x, y), (d + 3) % 4), ((x, y), (d + 1) % 4)]
            if free(fx, fy):
                moves.append(((fx, fy), d))
            for m in moves:
                if m in seen:
                    continue
                if T.front_cell(*m) == target:
                    return depth
                seen.add(m)
                nxt.append(m)
        frontier = nxt
    return None


def initial_state_text(task) -> str:
    return T.state_text(pose(task, task.initial_state()))


# ---------------------------------------------------------------- parsers
POSE_RE = re.compile(r"\(\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*,\s*(-?\d+|east|south|west|north)\s*\)", re.I)
PREDICT_LEAD = re.compile(r"final\s+state\s+is\s*:?", re.I)
PLAN_LEAD = re.compile(r"action\s+sequence\s+is\s*:?", re.I)
INT_RE = re.compile(r"-?\d+")


def _direction(token: str) -> int:
    token = token.strip().lower()
    return T.DIRECTIONS.index(token) if token in T.DIRECTIONS else int(token)


def parse_predict(answer) -> tuple[tuple[int, int], int]:
    """((x, y), d) from a Predict answer.

    After the last "final state is:" when present (its first ((x, y), d), else its first three
    integers); without the phrase, the last ((x, y), d) in the answer, else its first three integers
    (the reference's fallback). Raises ParseError when neither is found."""
    text = str(answer or "")
    leads = list(PREDICT_LEAD.finditer(text))
    if leads:
        segment = text[leads[-1].end():]
        found = POSE_RE.search(segment)
    else:
        segment = text
        matches = list(POSE_RE.finditer(segment))
        found = matches[-1] if matches else None
    if found:
        return (int(found.group(1)), int(found.group(2))), _direction(found.group(3))
    ints = INT_RE.findall(segment)
    if len(ints) >= 3:
        return (int(ints[0]), int(ints[1])), int(ints[2])
    raise ParseError("no final state ((x, y), d) found in the answer")


def parse_plan(answer) -> tuple[list[str], list[str]]:
    """(known action words in order, unknown words dropped) of a Plan answer.

    Reads the text after the last "action sequence is:" (our prompts' lead-in; the reference's
    "The LLM's action sequence is:" matches too) up to the first blank line; without it, the last
    non-empty line. Words are split on commas and white space; unknown words are dropped, as the
    reference's conversion does, and returned for counting. Raises ParseError when no action word
    is left."""
    if isinstance(answer, (list, tuple)):
        words = [str(a) for a in answer]
    else:
        text = str(answer or "")
        leads = list(PLAN_LEAD.finditer(text))
        if leads:
            segment = text[leads[-1].end():].strip()
            segment = re.split(r"\n\s*\n", segment, maxsplit=1)[0]
        else:
            lines = [line for line in text.splitlines() if line.strip()]
            segment = lines[-1] if lines else ""
        words = re.split(r"[,\s]+", segment)
    known, unknown = [], []
    for word in words:
        w = word.strip().strip(".;:!?'\"`*[](){}").lower()
        if not w:
            continue
        if w == "pick_up":
            w = "pickup"
        (known if w in ACTIONS else unknown).append(w)
    if not known:
        raise ParseError("no action (left, right, forward, pickup, drop, toggle) found in the answer")
    return known, unknown


ITEM_RE = re.compile(r"\(\s*([A-Za-z_]+)\s*(?:,\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*)?\)")


def _subgoal_name(word: str) -> str:
    w = word.lower()
    if w.endswith("subgoal"):
        w = w[:-len("subgoal")]
    for name in SUBGOALS:
        if name.lower() == w:
            return name
    raise ParseError(f"unknown subgoal '{word}' (known: " + ", ".join(f"{s}Subgoal" for s in SUBGOALS) + ")")


def parse_decompose(answer) -> list[tuple]:
    """Subgoals between the last <START> and the <END> after it, in order:
    [("GoNextTo", (x, y)), ("Open",), ("Pickup",), ("Drop",), ("Close",)].

    Items may stand one per line or several on a line; list bullets and numbering are ignored.
    Raises ParseError without a <START> ... <END> block, for an unknown subgoal, a GoNextTo without
    a position, a position on another subgoal, or any other text inside the block."""
    text = str(answer or "")
    start = text.rfind("<START>")
    if start < 0:
        raise ParseError("no <START> ... <END> block in the answer")
    end = text.find("<END>", start)
    if end < 0:
        raise ParseError("the <START> block has no <END>")
    block = text[start + len("<START>"):end]
    out = []
    for m in ITEM_RE.finditer(block):
        name = _subgoal_name(m.group(1))
        has_pos = m.group(2) is not None
        if name == "GoNextTo":
            if not has_pos:
                raise ParseError("GoNextToSubgoal needs a position: (GoNextToSubgoal, (x, y))")
            out.append((name, (int(m.group(2)), int(m.group(3)))))
        else:
            if has_pos:
                raise ParseError(f"{name}Subgoal takes no position")
            out.append((name,))
    rest = ITEM_RE.sub(" ", block)
    rest = re.sub(r"(?m)^\s*(?:[-*\u2022]|\d+[.)])\s*", " ", rest)
    rest = re.sub(r"[\s,;.]+", "", rest)
    if rest:
        raise ParseError(f"unreadable text inside <START> ... <END>: {rest[:60]!r}")
    return out


def format_subgoals(subgoals) -> str:
    """Subgoals in the Decompose answer format, one per line between <START> and <END>."""
    lines = ["<START>"]
    for sg in subgoals:
        if sg[0] == "GoNextTo":
            lines.append(f"(GoNextToSubgoal, {T.pos_text(sg[1])})")
        else:
            lines.append(f"({sg[0]}Subgoal)")
    lines.append("<END>")
    return "\n".join(lines)


def format_predict(p) -> str:
    return f"The agent's final state is: {T.state_text(p)}"


def format_plan(actions) -> str:
    return "The action sequence is: " + ", ".join(actions)


# ---------------------------------------------------------------- scorers
def _base(task, kind: str) -> dict:
    from .metrics import groups

    meta = metadata(task)
    row = {"babyai_task": kind, "problem": task.problem.name, "level": meta.get("level"), "seed": meta.get("seed"),
           "expert_failed": bool(meta.get("expert_failed"))}
    row.update(groups(kind, meta))
    return row


def score_predict(row, answer) -> dict:
    task = as_task(row)
    meta = metadata(task)
    (tx, ty), td = meta["target"]
    out = _base(task, "predict")
    out.update(success=False, manhattan=None, direction_correct=False, prediction=None, parse_error=None,
               target=[[tx, ty], td])
    try:
        (x, y), d = parse_predict(answer)
    except ParseError as exc:
        out["parse_error"] = str(exc)
        return out
    out["prediction"] = [[x, y], d]
    out["manhattan"] = abs(x - tx) + abs(y - ty)
    out["direction_correct"] = d == td
    out["success"] = (x, y) == (tx, ty) and d == td
    return out


def score_plan(row, answer) -> dict:
    task = as_task(row)
    meta = metadata(task)
    expert = split_actions(meta.get("expert_actions", ""))
    out = _base(task, "plan")
    out.update(success=False, efficiency=0.0, answer_actions=0, unknown_actions=0, expert_actions=len(expert),
               steps_run=0, reached_at=None, ball_distance=None, parse_error=None)
    try:
        actions, unknown = parse_plan(answer)
    except ParseError as exc:
        out["parse_error"] = str(exc)
        return out
    out["answer_actions"], out["unknown_actions"] = len(actions), len(unknown)
    run = replay(task, actions)
    out["steps_run"], out["reached_at"] = run["steps"], run["reached_at"]
    (x, y), _ = pose(task, run["state"])
    target = meta.get("target_subgoal")
    if target:
        out["ball_distance"] = abs(x - target[0]) + abs(y - target[1]) - 1
    out["success"] = run["reached"]
    out["efficiency"] = len(expert) / len(actions) if run["reached"] and actions else 0.0
    if target:
        best = navigation_optimum(task, target)
        out["optimal_actions"] = best
        out["optimality"] = best / len(actions) if run["reached"] and actions and best is not None else 0.0
    return out


def default_executor():
    """The OmniBot executor (`omnibot.execute`), imported only when a Decompose answer is scored."""
    try:
        from . import omnibot
    except ImportError as exc:
        raise RuntimeError("scoring Decompose needs domains/babyai/omnibot.py (the OmniBot executor): "
                           f"{exc}") from exc
    return omnibot.execute


def score_decompose(row, answer, executor=None) -> dict:
    """CR/PR/ACI of one Decompose answer. `executor(task, subgoals, max_steps=None)` returns an object
    with `success` and `help_count` (and `actions`); default: omnibot.execute."""
    task = as_task(row)
    meta = metadata(task)
    max_help = int(meta.get("help_count", 0) or 0)
    out = _base(task, "decompose")
    out.update(completed=False, perfect=False, aci=0.0, helps=None, max_help=max_help, subgoals=0,
               steps=None, parse_error=None, executor_error=None, note=None)
    try:
        subgoals = parse_decompose(answer)
    except ParseError as exc:
        out["parse_error"] = str(exc)
        return out
    out["subgoals"] = len(subgoals)
    execute = executor or default_executor()
    try:
        run = execute(task, subgoals, max_steps=max_steps(task))
    except ValueError as exc:  # e.g. omnibot.SubgoalError: a subgoal the executor refuses
        out["executor_error"] = str(exc)
        return out
    out["note"] = getattr(run, "note", None)
    helps = int(run.help_count)
    done = bool(run.success)
    out["helps"], out["steps"] = helps, len(getattr(run, "actions", []) or [])
    out["completed"] = done
    out["perfect"] = done and helps == 0
    if done:
        out["aci"] = max(0.0, (max_help - helps) / max_help) if max_help > 0 else 1.0
    return out


def score(task_name: str | None, row, answer, **kwargs) -> dict:
    """Score one answer for task 'predict', 'plan' or 'decompose' (None: from the row's metadata)."""
    task = as_task(row)
    kind = task_name or task_kind(task)
    if kind == "predict":
        return score_predict(task, answer)
    if kind == "plan":
        return score_plan(task, answer)
    if kind == "decompose":
        return score_decompose(task, answer, **kwargs)
    raise ValueError(f"unknown task '{task_name}' (known: {', '.join(TASKS)})")


# ---------------------------------------------------------------- oracles
def _visible(task, state):
    atoms = [a for a in task.true_atoms(state, include_static=False, include_derived=False) if a[0] not in HIDDEN]
    return frozenset(atoms), state.values


def _thing_at(task, state, cell, types) -> str | None:
    for name, typ in task.objects(state).items():
        if typ in types and (T._value(task, state, "x", (name,)), T._value(task, state, "y", (name,))) == tuple(cell):
            return name
    return None


def subgoals_from_actions(task, actions) -> list[tuple]:
    """A subgoal list that reproduces an action trajectory (the expert's), as Decompose writes it.

    Every effective toggle, pickup or drop becomes GoNextTo(the cell in front) then the matching
    subgoal (a toggle that closes an open door is Close, any other Open); a move after which a
    part of the mission (a 'go to') becomes satisfied adds GoNextTo(the cell then in front).
    GoNextTo is left out when the cell in front is already the last target.

    Unlocking: the OmniBot (as BabyAI's bot) turns an Open facing a locked door into an 'Unlock'
    open and then drops the key by itself (3 helper pushes that no plan can avoid), so the drop
    of the key that follows an unlocking toggle is not written. Such rows cannot score PR = 1."""
    state = task.initial_state()
    out: list[tuple] = []
    last = None
    key_drop_pending = False  # the bot drops the key itself after unlocking a door

    def go(cell):
        nonlocal last
        if cell != last:
            out.append(("GoNextTo", cell))
            last = cell

    for name in actions:
        if name == "done":
            continue
        pos, d = pose(task, state)
        front = T.front_cell(pos, d)
        before = _visible(task, state)
        door = _thing_at(task, state, front, ("door",)) if name == "toggle" else None
        was_open = door is not None and task.atom_holds(state, "open", (door,))
        was_locked = door is not None and task.atom_holds(state, "locked", (door,))
        after = task.step(state, ground_action(task, name)).state
        changed = _visible(task, after) != before
        if name == "drop" and changed and key_drop_pending:
            key_drop_pending, last = False, None  # the bot's own drop of the key: not ours to write
        elif name in ("toggle", "pickup", "drop") and changed:
            go(front)
            out.append(({"pickup": "Pickup", "drop": "Drop"}.get(name) or ("Close" if was_open else "Open"),))
            key_drop_pending = key_drop_pending or was_locked
        elif name in ("left", "right", "forward"):
            if after.progress != state.progress or task.is_goal(after):
                p2, d2 = pose(task, after)
                go(T.front_cell(p2, d2))
        state = after
        if task.is_goal(state):
            break
    return out


def bot_run(task):
    """The OmniBot's default run of the task's mission (`omnibot.default_run`), once per Task: the
    Decompose row's answer-key check (questions.check_answer_key) and its oracle answer read the
    same run."""
    cache = task.__dict__
    if "_babyai_bot_run" not in cache:
        from . import omnibot

        cache["_babyai_bot_run"] = omnibot.default_run(task)
    return cache["_babyai_bot_run"]


def oracle_answer(row, actions=None) -> str:
    """The reference answer: Predict the stored target, Plan the expert's actions (both 100%),
    Decompose the expert's trajectory as subgoals (`actions`: the expert's actions for this instance,
    e.g. from the predict row of the same level and seed; default: the OmniBot's own default run).
    On the generated sets the Decompose oracle completes every row the expert solved (CR 100%); PR
    and ACI fall short of 1 only on rows that need a door unlocked (48 of 7,992), where the bot's
    own pushes cannot be avoided (see `subgoals_from_actions`)."""
    task = as_task(row)
    meta = metadata(task)
    kind = task_kind(task)
    if kind == "predict":
        (x, y), d = meta["target"]
        return format_predict(((x, y), d))
    if kind == "plan":
        return format_plan(split_actions(meta["expert_actions"]))
    if kind == "decompose":
        if actions is None:
            actions = bot_run(task).actions
        return format_subgoals(subgoals_from_actions(task, split_actions(actions)))
    raise ValueError("the row's metadata names no LLM-BabyBench task")


# ---------------------------------------------------------------- prompts
@functools.lru_cache(maxsize=8)
def prompt_data(name: str) -> dict:
    import yaml

    with (PROMPTS_DIR / f"{name}.yaml").open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@functools.lru_cache(maxsize=4)
def example_task(task_name: str):
    """The worked example's Task (a real generated instance stored in prompts/examples.yaml)."""
    ex = prompt_data("examples")[task_name]
    return _task_from_dict(ex["problem"])


def trace_lines(task, actions) -> list[str]:
    """'k. action -> ((x, y), d)' for each action, replayed through the interpreter (stopping where the
    mission is reached, as the benchmark's replay does)."""
    state = task.initial_state()
    lines = []
    for k, name in enumerate(actions, 1):
        state = task.step(state, ground_action(task, name)).state
        lines.append(f"{k}. {name} -> {T.state_text(pose(task, state))}")
        if task.is_goal(state):
            break
    return lines


def example_answer(task_name: str) -> tuple[str, str]:
    """(worked reasoning, final answer) of the task's few-shot example, computed by the interpreter."""
    task = example_task(task_name)
    ex = prompt_data("examples")[task_name]
    if task_name == "predict":
        actions = split_actions(ex["actions"])
        run = replay(task, actions)
        return "\n".join(trace_lines(task, actions)), format_predict(pose(task, run["state"]))
    if task_name == "plan":
        actions = split_actions(ex["expert_actions"])
        return "\n".join(trace_lines(task, actions)), format_plan(actions)
    subgoals = subgoals_from_actions(task, split_actions(ex["expert_actions"]))
    return "", format_subgoals(subgoals)


def _fields(task_name: str, task, fmt: str) -> dict:
    meta = metadata(task)
    fields = {"description": T.describe(task, None, fmt), "initial_state": initial_state_text(task),
              "mission": T.mission(task)}
    if task_name == "predict":
        fields["actions"] = meta.get("actions", "")
    elif task_name == "plan":
        target = meta.get("target_subgoal")
        if target is None:  # the red ball of the problem
            target = next(o["position"] for o in T.objects(task, task.initial_state())
                          if o["type"] == "ball" and o["color"] == "red")
        fields["target"] = T.pos_text(target)
    return fields


def _example_block(task_name: str, data: dict, fmt: str) -> str:
    task = example_task(task_name)
    ex = prompt_data("examples")[task_name]
    fields = _fields(task_name, task, fmt)
    # the header paragraph is the same for every instance: the example shows only its specifics
    if fmt == "structured":
        fields["description"] = f"{T.SPECIFICS}\n\n{T.specifics(task)}"
    elif fmt == "json":
        fields["description"] = json.dumps({"config": T.config(task)}, indent=2)
    if task_name == "predict":
        fields["actions"] = ex["actions"]
    elif task_name == "plan":
        fields["target"] = T.pos_text(ex["target_subgoal"])
    reasoning, answer = example_answer(task_name)
    return data["example"].format(**fields, reasoning=reasoning, answer=answer).strip()


def build_messages(task_name: str, strategy: str, row, fmt: str = "structured") -> list[dict]:
    """[system, user] messages of one prompt."""
    if task_name not in TASKS:
        raise ValueError(f"unknown task '{task_name}' (known: {', '.join(TASKS)})")
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy '{strategy}' (known: {', '.join(STRATEGIES)})")
    task = as_task(row)
    data = prompt_data(task_name)
    common = prompt_data("common")
    fields = _fields(task_name, task, fmt)
    fields["answer_format"] = data["answer_format"].strip()
    fields["example"] = (common["example_frame"].format(example=_example_block(task_name, data, fmt)).strip() + "\n"
                         if strategy == "few_shot" else "")
    fields["method"] = data["methods"][strategy].format(**fields).strip()
    user = data["template"].format(**fields).strip()
    user = re.sub(r"\n{3,}", "\n\n", user)
    return [{"role": "system", "content": common["system"].strip()}, {"role": "user", "content": user}]


def build_prompt(task_name: str, strategy: str, row, fmt: str = "structured") -> str:
    """The whole prompt as one text (system message, blank line, user message)."""
    system, user = build_messages(task_name, strategy, row, fmt)
    return f"{system['content']}\n\n{user['content']}"


# ---------------------------------------------------------------- command line
def _references(path: str, limit: int | None = None, every: int = 1) -> list[str]:
    from groundplan.engine import problemsets

    names = problemsets.names(path)[::max(1, every)]
    return [f"{path}#{n}" for n in names[:limit]]


def main(argv=None) -> int:
    """Offline use without plan-eval: write prompts, oracle answers, and score answer files.

        python -m groundplan.domains.babyai.tasks prompts problems/babyai/predict.jsonl.gz --strategy tot > prompts.jsonl
        python -m groundplan.domains.babyai.tasks oracle problems/babyai/decompose.jsonl.gz \\
            --predict problems/babyai/predict.jsonl.gz > answers.jsonl
        python -m groundplan.domains.babyai.tasks score answers.jsonl --out scores.jsonl

    An answers file has one {"problem": "FILE.jsonl#NAME", "answer": "..."} per line (other keys,
    such as "strategy" or "model", are copied into the scores)."""
    import argparse

    from . import metrics

    parser = argparse.ArgumentParser(prog="python -m groundplan.domains.babyai.tasks", description=main.__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prompts", help="one JSON line of chat messages per problem")
    p.add_argument("set")
    p.add_argument("--strategy", choices=STRATEGIES, default="tot")
    p.add_argument("--format", choices=tuple(T.FORMATS), default="structured")
    p.add_argument("--limit", type=int)
    p.add_argument("--every", type=int, default=1, help="take every k-th problem")
    o = sub.add_parser("oracle", help="answers that score 100%% (the answers file format)")
    o.add_argument("set")
    o.add_argument("--predict", help="predict.jsonl of the same levels and seeds (the expert's actions for "
                                     "Decompose; default: the OmniBot's default run)")
    o.add_argument("--limit", type=int)
    o.add_argument("--every", type=int, default=1)
    s = sub.add_parser("score", help="score an answers file; prints the grouped summary")
    s.add_argument("answers")
    s.add_argument("--out", help="write one score line per answer here")
    args = parser.parse_args(argv)

    if args.command == "prompts":
        for ref in _references(args.set, args.limit, args.every):
            task = as_task(ref)
            kind = task_kind(task)
            print(json.dumps({"problem": ref, "task": kind, "strategy": args.strategy, "format": args.format,
                              "messages": build_messages(kind, args.strategy, task, args.format)}))
        return 0
    if args.command == "oracle":
        from groundplan.engine import problemsets

        for ref in _references(args.set, args.limit, args.every):
            task = as_task(ref)
            actions = None
            if task_kind(task) == "decompose" and args.predict:
                data, _ = problemsets.read_problem(f"{args.predict}#{task.problem.name}")
                actions = data["metadata"]["actions"]
            print(json.dumps({"problem": ref, "answer": oracle_answer(task, actions)}))
        return 0
    scores = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    try:
        with open(args.answers, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                item = json.loads(line)
                result = score(item.get("task"), item["problem"], item.get("answer"))
                result.update({k: v for k, v in item.items() if k not in ("answer", "problem", "task")})
                result["problem_ref"] = item["problem"]
                scores.append(result)
                if out:
                    out.write(json.dumps(result) + "\n")
    finally:
        if out:
            out.close()
    print(metrics.table(metrics.summarise(scores)))
    return 0 if scores else 1


if __name__ == "__main__":
    raise SystemExit(main())
