"""LLM-BabyBench tasks on groundplan: text formats, prompts, parsers, scorers, metrics.

No MiniGrid and no network: the rows are the real generated instances stored whole in
domains/babyai/prompts/examples.yaml; when problems/babyai/*.jsonl exist, a sample of their
rows is also scored with the oracle answers.
"""
from __future__ import annotations

import json
import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from groundplan.domains.babyai import metrics, tasks, text
from groundplan.domains.babyai.tasks import ParseError

ROOT = Path(__file__).resolve().parents[1]
SETS = Path(os.environ.get("BABYAI_SETS_DIR", ROOT / "problems" / "babyai"))  # override to test other sets


# ---------------------------------------------------------------- rows
def _row(kind: str) -> dict:
    ex = tasks.prompt_data("examples")[kind]
    data = json.loads(json.dumps(ex["problem"]))
    level, seed = data["name"].rsplit("-s", 1)
    meta = {"task": kind, "level": level, "seed": int(seed)}
    if kind == "predict":
        meta.update(difficulty="Easy", actions=ex["actions"], target=ex["target"])
    elif kind == "plan":
        meta.update(target_subgoal=ex["target_subgoal"], expert_actions=ex["expert_actions"])
    else:
        meta.update(difficulty="Moderate", mission=data["goal_text"], help_count=ex["help_count"])
    data["metadata"] = meta
    return data


@pytest.fixture(scope="module")
def rows():
    return {kind: tasks.as_task(_row(kind)) for kind in tasks.TASKS}


# ---------------------------------------------------------------- a strict stub executor
@dataclass
class StubRun:
    actions: list = field(default_factory=list)
    help_count: int = 0
    success: bool = False


def _face_path(task, state, target):
    """Shortest left/right/forward path (through the interpreter) to face `target`, or None."""
    def key(s):
        return tasks.pose(task, s)

    def facing(s):
        pos, d = tasks.pose(task, s)
        return text.front_cell(pos, d) == tuple(target)

    if facing(state):
        return []
    seen = {key(state)}
    queue = deque([(state, [])])
    while queue:
        s, path = queue.popleft()
        for name in ("left", "right", "forward"):
            t = task.step(s, tasks.ground_action(task, name)).state
            if key(t) in seen:
                continue
            if facing(t):
                return path + [name]
            seen.add(key(t))
            queue.append((t, path + [name]))
    return None


def strict_execute(task, subgoals, max_steps=None, helps=0):
    """Runs the subgoals literally (no helper subgoals); stops when the mission holds."""
    limit = max_steps or tasks.max_steps(task)
    state = task.initial_state()
    run = StubRun(help_count=helps)
    for sg in subgoals:
        if sg[0] == "GoNextTo":
            path = _face_path(task, state, sg[1])
            if path is None:
                return run
        else:
            path = [{"Open": "toggle", "Close": "toggle", "Pickup": "pickup", "Drop": "drop"}[sg[0]]]
        for name in path:
            if len(run.actions) >= limit:
                return run
            state = task.step(state, tasks.ground_action(task, name)).state
            run.actions.append(name)
            if task.is_goal(state):
                run.success = True
                return run
    return run


# ---------------------------------------------------------------- text formats
def test_structured_description_of_a_real_row(rows):
    task = rows["decompose"]  # GoToObjMaze seed 1: 3x3 rooms, 11 doors and a ball
    desc = text.structured(task)
    assert desc.startswith(text.HEADER)
    lines = desc.splitlines()
    assert "- Number of rooms: 3x3" in lines
    assert "- Size of each room (including walls): 8x8" in lines
    assert "- Effective room size (excluding walls): 6x6" in lines
    assert "- Total grid size: 22x22" in lines
    assert "- Agent initial position: (20, 5)" in lines
    assert "- Agent facing direction: south (toward (20, 6))" in lines
    assert lines[-1] == "- Mission: 'go to the grey ball'"
    objs = [line[4:] for line in lines if line.startswith("  - ")]
    assert len(objs) == len(task.problem.raw["objects"]) == 12
    assert objs[0] == "door, color=green, position=(14, 2), locked=False"
    assert objs[2] == "ball, color=grey, position=(8, 3)"
    positions = [tuple(int(v) for v in o.split("position=(")[1].split(")")[0].split(", ")) for o in objs]
    assert positions == sorted(positions, key=lambda p: (p[1], p[0]))  # row-major
    assert all(o.endswith(("locked=False", "locked=True")) == o.startswith("door") for o in objs)


def test_one_room_and_locked_door_formats(rows):
    spec = text.specifics(rows["predict"])
    assert "- Number of rooms: 1\n" in spec and "- Total grid size: 8x8" in spec
    assert "  - key, color=yellow, position=(1, 6)" in spec
    # a locked door prints locked=True
    data = _row("decompose")
    door = next(o for o, t in data["objects"].items() if t == "door")
    data["init"].append(["locked", door])
    assert "locked=True" in text.specifics(tasks.as_task(data))
    # Plan rooms: 16x16 grid
    data = _row("plan")
    data["settings"] = {"room_size": 16, "num_cols": 1, "num_rows": 1}
    assert "- Total grid size: 16x16" in text.specifics(tasks.as_task(data))


def test_json_and_narrative_variants(rows):
    task = rows["decompose"]
    data = json.loads(text.as_json(task))
    cfg = data["config"]
    assert data["context"].startswith(text.HEADER)
    assert cfg["num_rooms"] == [3, 3] and cfg["grid_size"] == [22, 22]
    assert cfg["room_size_incl_walls"] == [8, 8] and cfg["room_size_excl_walls"] == [6, 6]
    assert cfg["agent_initial_pos"] == [20, 5] and cfg["agent_front_pos"] == [20, 6]
    assert cfg["agent_direction"] == {"index": 1, "name": "south"}
    assert cfg["objects"][2] == {"type": "ball", "color": "grey", "position": [8, 3]}
    assert cfg["objects"][0]["locked"] is False and cfg["mission"] == "go to the grey ball"
    assert json.loads(text.as_json(rows["predict"]))["config"]["num_rooms"] == 1
    story = text.narrative(task)
    assert "(20, 5) facing south" in story and "a grey ball at (8, 3)" in story
    assert "an unlocked green door at (14, 2)" in story and "locked" not in story.split("(14, 2)")[1].split(",")[0]
    assert story.endswith("The mission is 'go to the grey ball'.")
    with pytest.raises(ValueError):
        text.describe(task, fmt="xml")


# ---------------------------------------------------------------- prompts
@pytest.mark.parametrize("task_name", tasks.TASKS)
@pytest.mark.parametrize("strategy", tasks.STRATEGIES)
def test_prompts_render(rows, task_name, strategy):
    task = rows[task_name]
    prompt = tasks.build_prompt(task_name, strategy, task)
    assert "{" not in prompt.replace(text.as_json(task), "")  # every field filled
    assert text.specifics(task) in prompt
    assert tasks.initial_state_text(task) in prompt
    anchor = {"predict": "The agent's final state is: ((x, y), d)", "plan": "The action sequence is:",
              "decompose": "<START>"}[task_name]
    assert anchor in prompt
    assert ("Solved example" in prompt) == (strategy == "few_shot")
    assert prompt.count(text.HEADER) == 1  # the example shows only its specifics
    messages = tasks.build_messages(task_name, strategy, task, fmt="json")
    assert [m["role"] for m in messages] == ["system", "user"] and '"config"' in messages[1]["content"]


def test_prompt_inputs(rows):
    assert "left, forward, forward, left, forward" in tasks.build_prompt("predict", "cot", rows["predict"])
    assert "red ball at (2, 3)" in tasks.build_prompt("plan", "zero_shot", rows["plan"])
    assert "Mission: 'go to the grey ball'" in tasks.build_prompt("decompose", "tot", rows["decompose"])
    with pytest.raises(ValueError):
        tasks.build_prompt("predict", "react", rows["predict"])
    with pytest.raises(ValueError):
        tasks.build_prompt("navigate", "cot", rows["predict"])


def test_few_shot_examples_are_correct(rows):
    # Predict: the worked example ends facing south, written 1 (the reference's example said 2)
    reasoning, answer = tasks.example_answer("predict")
    assert answer == "The agent's final state is: ((1, 5), 1)"
    assert tasks.score("predict", rows["predict"], answer)["success"]
    assert reasoning.splitlines()[-1] == "5. forward -> ((1, 5), 1)"
    _, answer = tasks.example_answer("plan")
    assert tasks.score("plan", rows["plan"], answer)["efficiency"] == 1.0
    _, answer = tasks.example_answer("decompose")
    assert tasks.parse_decompose(answer) == [("GoNextTo", (14, 2)), ("Open",), ("GoNextTo", (8, 3))]
    assert tasks.score("decompose", rows["decompose"], answer, executor=strict_execute)["perfect"]


# ---------------------------------------------------------------- parsers
def test_parse_predict():
    assert tasks.parse_predict("The agent's final state is: ((1, 5), 1)") == ((1, 5), 1)
    cot = "after 1: ((3, 4), 2)\nafter 2: ((2, 4), 2)\nThe agent's final state is: ((1,5),1)."
    assert tasks.parse_predict(cot) == ((1, 5), 1)
    assert tasks.parse_predict("first ((3, 4), 2) then ((9, 9), 0)") == ((9, 9), 0)  # no lead-in: the last
    assert tasks.parse_predict("final state is: ((4, 2), north)") == ((4, 2), 3)
    assert tasks.parse_predict("x = 7, y = 8, direction 2") == ((7, 8), 2)  # first three integers
    assert tasks.parse_predict("The agent's final state is: (7, 8, 0)") == ((7, 8), 0)
    for bad in ("", None, "I cannot tell", "The agent's final state is: ((3, 4))"):
        with pytest.raises(ParseError):
            tasks.parse_predict(bad)


def test_parse_plan():
    assert tasks.parse_plan("The action sequence is: left, forward, pickup") == (["left", "forward", "pickup"], [])
    assert tasks.parse_plan("Reasoning: turn left first.\nThe LLM's action sequence is: left, Forward, jump, "
                            "forward.") == (["left", "forward", "forward"], ["jump"])
    assert tasks.parse_plan("I go around.\nright, forward, toggle")[0] == ["right", "forward", "toggle"]
    assert tasks.parse_plan(["left", "fly"]) == (["left"], ["fly"])
    assert tasks.parse_plan("The action sequence is: forward, left\n\nThat is all, forward!")[0] == ["forward", "left"]
    for bad in ("", "I do not know", "The action sequence is: jump, fly"):
        with pytest.raises(ParseError):
            tasks.parse_plan(bad)


def test_parse_decompose():
    lines = "Plan:\n<START>\n(GoNextToSubgoal, (9, 7))\n(OpenSubgoal)\n(PickupSubgoal)\n(DropSubgoal)\n(CloseSubgoal)\n<END>"
    assert tasks.parse_decompose(lines) == [("GoNextTo", (9, 7)), ("Open",), ("Pickup",), ("Drop",), ("Close",)]
    one_line = "<START> (GoNextToSubgoal, (9, 7)) (GoNextToSubgoal, (7, 11)) (OpenSubgoal) <END>"
    assert tasks.parse_decompose(one_line) == [("GoNextTo", (9, 7)), ("GoNextTo", (7, 11)), ("Open",)]
    numbered = "<START>\n1. (GoNextToSubgoal, (2, 3)),\n2. (PickupSubgoal)\n<END>"
    assert tasks.parse_decompose(numbered) == [("GoNextTo", (2, 3)), ("Pickup",)]
    assert tasks.parse_decompose("<START>\n<END>") == []
    text_ = tasks.format_subgoals([("GoNextTo", (1, 2)), ("Drop",)])
    assert tasks.parse_decompose(text_) == [("GoNextTo", (1, 2)), ("Drop",)]
    for bad in ("(GoNextToSubgoal, (1, 2))",                       # no block
                "<START>\n(OpenSubgoal)\n",                         # no <END>
                "<START>\n(ExploreSubgoal)\n<END>",                 # unknown subgoal
                "<START>\n(GoNextToSubgoal)\n<END>",                # no position
                "<START>\n(OpenSubgoal, (1, 2))\n<END>",            # position on Open
                "<START>\ngo to the door\n<END>"):                  # prose
        with pytest.raises(ParseError):
            tasks.parse_decompose(bad)


# ---------------------------------------------------------------- scorers
def test_predict_scorer(rows):
    task = rows["predict"]  # target ((1, 5), 1)
    good = tasks.score("predict", task, tasks.oracle_answer(task))
    assert good["success"] and good["manhattan"] == 0 and good["difficulty"] == "Easy"
    turned = tasks.score("predict", task, "The agent's final state is: ((1, 5), 2)")
    assert not turned["success"] and turned["manhattan"] == 0 and not turned["direction_correct"]
    far = tasks.score("predict", task, "The agent's final state is: ((3, 4), 1)")
    assert not far["success"] and far["manhattan"] == 3
    junk = tasks.score("predict", task, "no idea")
    assert not junk["success"] and junk["manhattan"] is None and junk["parse_error"]


def test_plan_scorer(rows):
    task = rows["plan"]  # expert: 9 actions ending facing the ball at (2, 3)
    expert = tasks.metadata(task)["expert_actions"]
    good = tasks.score("plan", task, tasks.oracle_answer(task))
    assert good["success"] and good["efficiency"] == 1.0 and good["ball_distance"] == 0 and good["size"] == "Small"
    assert good["optimal_actions"] == 9 and good["optimality"] == 1.0
    assert len(_face_path(task, task.initial_state(), (2, 3))) == 9  # the interpreter agrees
    extra = tasks.score("plan", task, f"The action sequence is: {expert}, forward, left, left")
    assert extra["success"] and extra["reached_at"] == 9 and extra["steps_run"] == 9
    assert extra["efficiency"] == pytest.approx(9 / 12)  # the whole answer's length counts
    detour = tasks.score("plan", task, f"The action sequence is: left, right, {expert}")
    assert detour["success"] and detour["efficiency"] == pytest.approx(9 / 11)
    unknown = tasks.score("plan", task, f"The action sequence is: jump, {expert}")
    assert unknown["success"] and unknown["unknown_actions"] == 1 and unknown["efficiency"] == 1.0
    wrong = tasks.score("plan", task, "The action sequence is: forward, forward, forward")
    assert not wrong["success"] and wrong["efficiency"] == 0.0 and wrong["ball_distance"] > 0
    junk = tasks.score("plan", task, "")
    assert not junk["success"] and junk["parse_error"]


def test_empty_expert_trajectory(rows):
    # rows whose expert failed at once store actions '' (e.g. Synth seed 186)
    data = _row("predict")
    data["metadata"].update(actions="", target=[[3, 4], 3], expert_failed=True)
    task = tasks.as_task(data)
    assert tasks.split_actions("") == [] and tasks.replay(task, [])["steps"] == 0
    s = tasks.score("predict", task, tasks.oracle_answer(task))
    assert s["success"] and s["expert_failed"]
    assert tasks.oracle_answer(rows["decompose"], actions="") == "<START>\n<END>"


def test_plan_replay_stops_at_max_steps(rows):
    task = rows["plan"]
    run = tasks.replay(task, ["left"] * 500 + ["forward"])
    assert run["steps"] == tasks.max_steps(task) == 64 and not run["reached"]


def test_decompose_scorer_with_stub(rows):
    task = rows["decompose"]  # help_count 2
    answer = tasks.oracle_answer(task, actions=tasks.prompt_data("examples")["decompose"]["expert_actions"])
    good = tasks.score("decompose", task, answer, executor=strict_execute)
    assert good["completed"] and good["perfect"] and good["aci"] == 1.0 and good["sa_class"] == "0-2"

    def helped(task_, subgoals, max_steps=None):
        return strict_execute(task_, subgoals, max_steps, helps=1)

    half = tasks.score("decompose", task, answer, executor=helped)
    assert half["completed"] and not half["perfect"] and half["aci"] == pytest.approx(0.5)

    def many(task_, subgoals, max_steps=None):
        return strict_execute(task_, subgoals, max_steps, helps=5)

    assert tasks.score("decompose", task, answer, executor=many)["aci"] == 0.0  # clipped at 0
    short = tasks.score("decompose", task, "<START>\n(GoNextToSubgoal, (14, 2))\n<END>", executor=strict_execute)
    assert not short["completed"] and not short["perfect"] and short["aci"] == 0.0
    bad = tasks.score("decompose", task, "<START>\n(FlySubgoal)\n<END>", executor=strict_execute)
    assert not bad["completed"] and "unknown subgoal" in bad["parse_error"]

    def refusing(task_, subgoals, max_steps=None):
        raise ValueError("cannot go there")

    refused = tasks.score("decompose", task, answer, executor=refusing)
    assert not refused["completed"] and refused["executor_error"] == "cannot go there"


def test_decompose_scorer_with_omnibot(rows):
    omnibot = pytest.importorskip("domains.babyai.omnibot")
    task = rows["decompose"]
    answer = tasks.oracle_answer(task, actions=tasks.prompt_data("examples")["decompose"]["expert_actions"])
    good = tasks.score("decompose", task, answer)
    assert good["completed"] and good["perfect"] and good["aci"] == 1.0
    assert omnibot.default_run(task).help_count == tasks.metadata(task)["help_count"]
    # the bot opens the door on its own when the plan skips it: completed, but with help
    helped = tasks.score("decompose", task, "<START>\n(GoNextToSubgoal, (8, 3))\n<END>")
    assert helped["completed"] and helped["helps"] >= 1 and not helped["perfect"] and helped["aci"] < 1.0


def test_decompose_oracle_with_a_locked_door():
    omnibot = pytest.importorskip("domains.babyai.omnibot")
    data = _row("decompose")  # lock the green door (14, 2) on the way; its key waits at (18, 5)
    data["init"] += [["locked", "door1"], ["color", "key1", "green"]]
    data["objects"]["key1"] = "key"
    data["values"] += [[["x", "key1"], 18], [["y", "key1"], 5]]
    data["metadata"]["help_count"] = omnibot.default_run(tasks.as_task(data)).help_count
    task = tasks.as_task(data)
    answer = tasks.oracle_answer(task)  # from the bot's own default run
    assert tasks.parse_decompose(answer) == [("GoNextTo", (18, 5)), ("Pickup",), ("GoNextTo", (14, 2)), ("Open",),
                                             ("GoNextTo", (8, 3))]  # the bot drops the key itself
    s = tasks.score("decompose", task, answer)
    # unlocking always costs the bot's own pushes (Open 'Unlock', then GoNextTo + Drop of the key)
    assert s["completed"] and s["helps"] == 3 and not s["perfect"] and 0 < s["aci"] < 1


# ---------------------------------------------------------------- metrics
def test_groups():
    assert metrics.plan_size("GoToRedBall-Ultra-180Dists") == "Ultra" and metrics.plan_size("GoTo") is None
    assert [metrics.sa_class(h) for h in (0, 2, 3, 6, 7, 9, 10, 27)] == ["0-2", "0-2", "3-6", "3-6", "7-9", "7-9",
                                                                      "10+", "10+"]


def test_summary_and_plugin(rows):
    scores = [tasks.score("predict", rows["predict"], tasks.oracle_answer(rows["predict"])),
              tasks.score("predict", rows["predict"], "The agent's final state is: ((1, 3), 1)"),
              tasks.score("plan", rows["plan"], tasks.oracle_answer(rows["plan"])),
              tasks.score("plan", rows["plan"], "nothing")]
    summary = metrics.summarise(scores)
    assert summary["predict"]["all"]["success_rate"] == 0.5
    assert summary["predict"]["all"]["manhattan_wrong"] == 2
    assert summary["predict"]["by_difficulty"]["Easy"]["n"] == 2
    assert summary["plan"]["by_size"]["Small"]["efficiency"] == 0.5
    assert summary["plan"]["all"]["parse_errors"] == 1
    assert metrics.table(summary)
    flagged = dict(scores[1], expert_failed=True)  # the generation-time expert failed on this row
    kept = metrics.summarise([scores[0], flagged])["predict"]["all"]
    assert kept["n"] == 1 and kept["success_rate"] == 1.0 and kept["excluded_expert_failed"] == 1
    assert metrics.summarise([scores[0], flagged], include_expert_failed=True)["predict"]["all"]["n"] == 2
    # plan-eval plug-in: an episode carrying the model's reply
    episode = SimpleNamespace(answer=None, trajectory=[{"step": 0, "answer": tasks.oracle_answer(rows["predict"])}])
    row = metrics.episode_metrics(rows["predict"], episode)
    assert row["babyai"]["success"]
    silent = metrics.episode_metrics(rows["plan"], SimpleNamespace(trajectory=[]))
    assert silent["babyai"]["parse_error"] and not silent["babyai"]["success"]
    # as agents/loop.py records an open-loop reply: the whole reply, then each line it replayed
    reply = "Route: around the boxes.\n" + tasks.oracle_answer(rows["plan"])
    looped = SimpleNamespace(trajectory=[{"step": 0, "answer": reply, "action": None, "tokens": 99},
                                         {"step": 0, "answer": "Route: around the boxes.", "action": None},
                                         {"step": 0, "answer": "right", "action": "right"}])
    assert metrics.answer_text(looped) == reply
    assert metrics.episode_metrics(rows["plan"], looped)["babyai"]["efficiency"] == 1.0
    assert metrics.episode_metrics(tasks.as_task(_row("plan") | {"metadata": {}}), looped) == {}  # not a benchmark row
    expert = tasks.metadata(rows["plan"])["expert_actions"].split(", ")
    stepwise = SimpleNamespace(trajectory=[{"step": k, "answer": f"I turn: {a}", "action": a, "tokens": 5}
                                           for k, a in enumerate(expert)])
    assert metrics.answer_text(stepwise) == ", ".join(expert)
    assert metrics.episode_metrics(rows["plan"], stepwise)["babyai"]["success"]
    flat = metrics.summary_metrics([row, silent, {"babyai": None}])
    assert flat["babyai_predict_success_rate"] == 1.0 and flat["babyai_plan_success_rate"] == 0.0
    assert flat["babyai_predict_success_rate@Easy"] == 1.0 and flat["babyai_plan_efficiency@Small"] == 0.0
    assert not any(isinstance(v, dict) for v in flat.values())


# ---------------------------------------------------------------- the generated sets (when present)
def _set_file(kind: str) -> Path | None:
    for suffix in (".jsonl", ".jsonl.gz"):
        if (SETS / f"{kind}{suffix}").is_file():
            return SETS / f"{kind}{suffix}"
    return None


def _sample(kind: str):
    """The set file and the first row of each of its 16 environments."""
    from groundplan.engine import problemsets

    path = _set_file(kind)
    if path is None:
        pytest.skip(f"{SETS}/{kind}.jsonl[.gz] not generated")
    first = {}
    for name in problemsets.names(str(path)):
        first.setdefault(name.rsplit("-s", 1)[0], name)
    return path, list(first.values())


@pytest.mark.parametrize("kind", ["predict", "plan"])
def test_oracle_scores_full_marks_on_generated_rows(kind):
    path, names = _sample(kind)
    for name in names:
        task = tasks.as_task(f"{path}#{name}")
        assert tasks.task_kind(task) == kind
        s = tasks.score(kind, task, tasks.oracle_answer(task))
        assert s["success"], (name, s)
        if kind == "plan":
            assert s["efficiency"] == 1.0


def test_decompose_oracle_on_generated_rows():
    omnibot = pytest.importorskip("domains.babyai.omnibot")
    from groundplan.engine import problemsets

    path, names = _sample("decompose")
    predict = _set_file("predict")
    if predict is None:
        pytest.skip("the predict set (the expert's actions) is not generated")
    for name in names:
        task = tasks.as_task(f"{path}#{name}")
        if tasks.metadata(task).get("expert_failed"):
            continue  # the generation-time expert did not solve it either
        data, _ = problemsets.read_problem(f"{predict}#{name}")
        s = tasks.score("decompose", task, tasks.oracle_answer(task, actions=data["metadata"]["actions"]))
        assert s["completed"] and s["aci"] > 0, (name, s)  # < 1 only where a door must be unlocked
        assert omnibot.default_run(task).help_count == s["max_help"]


def test_command_line(tmp_path, capsys):
    pytest.importorskip("domains.babyai.omnibot")
    from groundplan.engine import problemsets

    path = tmp_path / "rows.jsonl"
    problemsets.write(path, [_row(kind) for kind in tasks.TASKS], {"problem_set": "babyai-test",
                                                                   "defaults": {"groundplan": "1", "domain": "babyai"}})
    assert tasks.main(["prompts", str(path), "--strategy", "few_shot", "--limit", "2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["task"] for line in lines] == ["predict", "plan"] and lines[0]["messages"][1]["role"] == "user"
    assert tasks.main(["oracle", str(path)]) == 0
    answers = tmp_path / "answers.jsonl"
    answers.write_text(capsys.readouterr().out + json.dumps({"problem": f"{path}#2", "answer": "forward",
                                                             "model": "m"}) + "\n")
    out = tmp_path / "scores.jsonl"
    assert tasks.main(["score", str(answers), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "predict   all" in table and "cr=1.000" in table and "success_rate=0.500" in table
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(scored) == 4 and scored[-1]["model"] == "m" and not scored[-1]["success"]
