"""Prompts of the PPNL methods, rendered from the wording in domains/ppnl/prompts/*.json.

The paper's structure (header, examples separated by '###', 'Task: ... ' then the answer; 7
examples, one per obstacle count 1-5 plus 2 unreachable, except naive few-shot with 5/10/15)
with our own wording. Examples are drawn deterministically from the generator's train split
(seed 0), so they never overlap the test sets, and their plans are the oracle's.

The LLM agent reads the rendered prompts as data: `write_shots()` (run
`python -m groundplan.domains.ppnl.prompts`) writes one file per strategy into prompts/shots/, in the
generic format of agents/llm/shots.py, and prompts.yaml points the strategies at them. A test
regenerates them and compares, so the files cannot drift from this module or the wording.

    from groundplan.domains.ppnl.prompts import prompt
    text = prompt("cot", problem_data)            # ends with 'Answer:' for the model to complete
    obs, cell, done = react_observation(problem_data, cell, actions, k)   # reference wording, one trial
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

from . import text
from .grid import follow, shortest_path

HERE = Path(__file__).parent / "prompts"
SHOTS = HERE / "shots"
METHODS = ("naive", "action_effect", "cot", "react")
# the strategy names of prompts.yaml -> (method, number of examples) and the file written for it
STRATEGIES = {"io": ("naive", 5), "naive-10": ("naive", 10), "naive-15": ("naive", 15),
              "action-effect": ("action_effect", 7), "cot": ("cot", 7), "react": ("react", 7)}


@functools.lru_cache(maxsize=None)
def wording(name: str) -> dict:
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=2)
def _pool(seed: int) -> tuple[dict, list]:
    """The train split's single-goal candidates: reachable ones (optimal length >= 4) by obstacle
    count, and unreachable ones, in generator order (walked once per seed: it takes most of a second)."""
    from .generate import environments, instances

    by_k: dict[int, list] = {}
    walled = []
    for env in environments(seed):
        if env["setup"] != "6x6" or env["group"] != "dev":
            continue
        for inst in instances(env, seed, "single"):
            if inst["split"] != "train":
                continue
            path = shortest_path(6, {tuple(o) for o in inst["obstacles"]}, tuple(inst["start"]), tuple(inst["goals"][0]))
            if path is None:
                walled.append({**inst, "plan": None})
            elif len(path) >= 4:
                by_k.setdefault(len(inst["obstacles"]), []).append({**inst, "plan": path})
    return by_k, walled


@functools.lru_cache(maxsize=8)
def examples(seed: int = 0, reachable: int = 5, unreachable: int = 2) -> tuple:
    """Single-goal train instances: `reachable` spread over obstacle counts 1-5 (optimal length
    >= 4, first one in generator order), then `unreachable` ones, as tuples of dicts."""
    by_k, walled = _pool(seed)
    chosen, round_ = [], 0
    while len(chosen) < reachable:
        for k in sorted(by_k):
            if len(chosen) < reachable and round_ < len(by_k[k]):
                chosen.append(by_k[k][round_ * 97 % len(by_k[k])])
        round_ += 1
    return tuple(chosen + walled[:unreachable])


def _offset(here, goal) -> str:
    d = wording("common")["direction"]
    parts = []
    dr, dc = goal[0] - here[0], goal[1] - here[1]
    if dr:
        parts.append(d["down" if dr > 0 else "up"].replace("{n}", str(abs(dr))))
    if dc:
        parts.append(d["right" if dc > 0 else "left"].replace("{n}", str(abs(dc))))
    return " and ".join(parts) or "0 steps"


def _between(inst, here) -> list:
    goal = inst["goals"][0]
    rows = sorted((here[0], goal[0]))
    cols = sorted((here[1], goal[1]))
    return [tuple(o) for o in inst["obstacles"] if rows[0] <= o[0] <= rows[1] and cols[0] <= o[1] <= cols[1]]


def _obstacle_note(w, inst, here) -> str:
    found = _between(inst, here)
    if not found:
        return w["no_obstacle"]
    key = "obstacle" if len(found) == 1 else "obstacles"
    return w[key].replace("{cells}", text.listing(text.cell(o) for o in found))


def _walled_cell(inst) -> tuple:
    """The side that is enclosed: the start's component if it is the smaller one, else the goal's."""
    from .grid import distances

    blocked = {tuple(o) for o in inst["obstacles"]}
    start, goal = tuple(inst["start"]), tuple(inst["goals"][0])
    return start if len(distances(inst["size"], blocked, start)) <= len(distances(inst["size"], blocked, goal)) else goal


def _fill(template: str, **fields) -> str:
    for key, value in fields.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def answer(method: str, inst: dict) -> str:
    """The worked answer of one example in the method's wording."""
    w = wording(method)
    start, goal = tuple(inst["start"]), tuple(inst["goals"][0])
    plan = inst.get("plan")
    common = dict(start=text.cell(start), goal=text.cell(goal))
    if plan is None:
        if method == "naive":
            return wording("common")["answer_prefix"] + " " + wording("common")["unreachable"]
        if method == "react":
            k = dict(k=1, here=text.cell(start), goal=text.cell(goal), blocked=text.cell(_walled_cell(inst)))
            return _fill(w["unreachable_thought"], **k) + "\n" + _fill(w["unreachable_act"], k=1)
        return _fill(w["unreachable_answer"], blocked=text.cell(_walled_cell(inst)), **common)
    actions = " ".join(plan)
    if method == "naive":
        return _fill(w["answer"], actions=actions)
    if method == "action_effect":
        cells, _ = follow(inst["size"], {tuple(o) for o in inst["obstacles"]}, start, plan)
        steps = " ".join(_fill(w["step"], move=m, cell=text.cell(c)) for m, c in zip(plan, cells[1:]))
        return _fill(w["answer"], steps=steps, actions=actions)
    if method == "cot":
        return _fill(w["answer"], offset=_offset(start, goal), obstacle_note=_obstacle_note(w, inst, start),
                     actions=actions, **common)
    if method == "react":
        return _react_example(w, inst)
    raise ValueError(f"unknown method '{method}' (choose from {', '.join(METHODS)})")


def _react_example(w, inst) -> str:
    """A first trial that goes straight (rows first, then columns); if refused, the next one plans around
    what was seen (the agent perceives obstacles only through refusals). The trials run through the
    engine and the loop's interpreter, so the observation lines read exactly like the live agent's."""
    from groundplan.agents.llm import shots

    task = _example_task(inst)
    state = task.initial_state()
    start, goal = tuple(inst["start"]), tuple(inst["goals"][0])
    dr, dc = goal[0] - start[0], goal[1] - start[1]
    straight = ["down" if dr > 0 else "up"] * abs(dr) + ["right" if dc > 0 else "left"] * abs(dc)
    lines, here, k = [], start, 1
    for attempt in (straight, None, None):
        if attempt is None:
            attempt = shortest_path(inst["size"], {tuple(o) for o in inst["obstacles"]}, here, goal)
        lines.append(_fill(w["thought"], k=k, goal=text.cell(goal), offset=_offset(here, goal), here=text.cell(here),
                           obstacle_note=_obstacle_note(wording("cot"), inst, here) if k > 1 else "").rstrip())
        lines.append(_fill(w["act"], k=k, actions=" ".join(attempt)))
        state, steps, refusal = _trial(task, state, attempt)
        here = follow(inst["size"], {tuple(o) for o in inst["obstacles"]}, here, attempt[:steps])[0][-1]
        done = refusal is None and task.is_goal(state)
        reason = refusal or (w["solved"] if done else w["unsolved"])
        lines.append(shots.observation({"observation": w["observation"]}, task, state, k, steps, reason))
        if done:
            break
        k += 1
    return "\n".join(lines)


def _example_task(inst):
    """An engine task for one example instance (single goal), built as the generator builds problems."""
    from groundplan.engine.loader import build_problem, load_domain
    from groundplan.engine.task import Task

    from .oracle import Answer
    from .problem import header, problem

    data = problem({"name": "example", "split": "train", "env": "example", "before": [], "after": [], **inst, "multi": False},
                   Answer(True, 0, []), "prompt example")
    merged = {**header(inst["size"], False, "example")["defaults"], **data}
    return Task(build_problem(merged, "<ppnl prompt example>", None, load_domain(Path(__file__).with_name("domain.json"))))


def _trial(task, state, actions):
    """Replay actions as the loop does: (state reached, moves made, the refusal that stopped it or None)."""
    from groundplan.agents.interpret import ACTION, interpret
    from groundplan.agents.profile import profile_for

    loop = profile_for(task).loop
    for i, move in enumerate(actions):
        decision = interpret(task, state, move, loop)
        if decision.kind != ACTION or not decision.applicable:
            return state, i, decision.reason or "it is not a valid action"
        state = task.apply(state, decision.actions[0])
    return state, len(actions), None


def react_observation(inst: dict, here, actions, k: int):
    """Run one ReAct trial from `here` in the reference executor's wording (obs_* of react.json), for
    replaying a recorded answer outside the loop: (observation text, cell reached, solved?)."""
    w = wording("react")
    blocked = {tuple(o) for o in inst["obstacles"]}
    cells, stop = follow(inst["size"], blocked, tuple(here), list(actions))
    end = cells[-1]
    goal = tuple(inst["goals"][0])
    if stop is not None and stop < len(actions) and actions[stop] in ("up", "down", "left", "right"):
        step = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}[actions[stop]]
        nxt = (end[0] + step[0], end[1] + step[1])
        key = "obs_obstacle" if nxt in blocked else "obs_outside"
        return _fill(w[key], k=k, steps=stop, cell=text.cell(end), blocked=text.cell(nxt)), end, False
    key = "obs_solved" if end == goal else "obs_unsolved"
    return _fill(w[key], k=k, cell=text.cell(end)), end, end == goal


def _chosen(method: str, shots: int, seed: int) -> tuple:
    if method == "naive":
        counts = wording("naive")["shots"]
        if str(shots) not in counts:
            raise ValueError(f"naive few-shot has {', '.join(counts)} examples, not {shots}")
        return examples(seed, counts[str(shots)]["reachable"], counts[str(shots)]["unreachable"])
    return examples(seed, 5, 2)


def shots_spec(method: str, shots: int = 5, seed: int = 0) -> dict:
    """One method's prompt in the agent's generic few-shot format (see agents/llm/shots.py)."""
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}' (choose from {', '.join(METHODS)})")
    common, w = wording("common"), wording(method)
    cue = common["answer_prefix"]
    blocks = []
    for inst in _chosen(method, shots, seed):
        nl = text.description(inst["size"], inst["obstacles"], inst["start"], inst["goals"], multi=False)
        worked = answer(method, inst)
        if method == "react":  # the trace follows the cue, as the model's reply will
            worked = f"{cue}\n{worked}"
        blocks.append(_fill(common["task"], nl=nl) + "\n" + worked)
    count = len(blocks)
    spec = {
        "about": f"PPNL {w['method']} prompt, {count} examples; generated by `python -m groundplan.domains.ppnl.prompts` from "
                 f"prompts/common.json, prompts/{method}.json and the seed-{seed} train split. Do not edit by hand.",
        "header": common["header"],
        "separator": common["separator"],
        "examples": blocks,
        "task": common["task"].replace("{nl}", "{metadata.nl}"),
        "cue": cue,
        "answer_after": w["read_after"],
        "declare": [common["unreachable"].rstrip(".")],
        "settings": {"inspect": {"header": common["multi_header"]}},
    }
    if method == "react":
        spec["observation"] = w["observation"]
    return spec


def shots_files(seed: int = 0) -> dict:
    """{file name under prompts/shots/: its JSON text}, one per strategy of prompts.yaml."""
    out = {}
    for name, (method, count) in STRATEGIES.items():
        spec = shots_spec(method, count, seed)
        out[f"{name}.json"] = json.dumps(spec, indent=1, ensure_ascii=False) + "\n"
    return out


def write_shots(folder: Path = SHOTS, seed: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in shots_files(seed).items():
        (folder / name).write_text(content, encoding="utf-8")
        written.append(folder / name)
    return written


def prompt(method: str, problem: dict, shots: int = 5, seed: int = 0) -> str:
    """The full prompt for a generated problem's data (naive: 5, 10 or 15 shots), exactly as the LLM
    agent sends it on the first trial."""
    from groundplan.agents.llm.shots import compose

    spec = shots_spec(method, shots, seed)
    if len(problem["metadata"]["goals"]) > 1:
        spec.update(spec["settings"]["inspect"])
    return compose(spec, _fill(wording("common")["task"], nl=problem["metadata"]["nl"]))


if __name__ == "__main__":
    for path in write_shots():
        print(f"wrote {path}")
