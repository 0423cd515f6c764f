"""The prompt audit: what every world shows a model, for every strategy it accepts, checked as text.

For a sample of each world's problems (every kitchen kind, every PPNL style, GRASP's eight rule
combinations of one grid, every BabyAI task and level, every Plancraft tool set, the classic
worlds) the first request is rendered as the agent would send it (`agents.llm.preview`), and:

- no template field is left unfilled ({name}), and no setting's identifier (step_cost) stands
  where its value belongs: where it appears, it is followed by its value;
- two problems that differ in their rules, start or goal never get byte-identical prompts, and a
  copy of a problem with one setting changed gets a prompt that differs from the original's;
- the answer format the prompt asks for is one the world's reader takes: the prompt states the
  marker its reader looks for, and every action a closed-loop prompt lists is read back as that
  action, applicable. (The end-to-end proof is tests/test_llm_end_to_end.py.)

Strategies come from the worlds' profiles, problems from the shipped sets: nothing here names a
strategy, so a new one is audited the day it is added.
"""
from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import pytest

from groundplan.agents.interpret import ACTION, DECLARE, interpret
from groundplan.agents.llm.preview import first_request
from groundplan.agents.profile import profile_for, strategies
from groundplan.engine.problemsets import expand
from groundplan.engine.task import Task
from knowing_model import accepted

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:[.:][A-Za-z0-9_-]+)?\}")


def _first_of_each(pattern: str, kind) -> list[str]:
    seen = collections.OrderedDict()
    for ref in expand([pattern]):
        seen.setdefault(kind(ref), ref)
    return list(seen.values())


def _level(ref: str) -> str:
    return ref.split("#", 1)[1].rsplit("-s", 1)[0]


def _kitchen() -> list[str]:
    files = []
    for kind in ("sync", "async", "multiagent"):
        found = sorted(Path("problems", kind).glob("*.json"))
        files += [str(found[0])] + [str(f) for f in found if "soup" in f.name][:1]
    return files


SAMPLES = {
    "kitchen": _kitchen,
    "ppnl": lambda: [ref for path in sorted(Path("problems/ppnl").glob("*.jsonl")) for ref in expand([str(path)])[:3]],
    "grasp": lambda: [ref for ref in expand(["problems/grasp/inner_cluster_block.jsonl"]) if "#grid00-" in ref],
    "babyai": lambda: [ref for kind in ("predict", "plan", "decompose")
                       for ref in _first_of_each(f"problems/babyai/{kind}.jsonl.gz", _level)],
    "plancraft": lambda: expand(["problems/plancraft/test.small.jsonl"])[:4],
    "classics": lambda: [str(sorted(Path("problems", world).glob("*.json"))[0])
                         for world in ("blocksworld", "gripper", "gridnav", "logistics", "sokoban")],
}


CASES = [(world, strategy) for world in SAMPLES for strategy in accepted(world)]


@pytest.fixture(scope="module")
def tasks():
    """Every sampled problem, loaded once for every strategy's audit."""
    return {world: [Task.load(ref) for ref in sample()] for world, sample in SAMPLES.items()}


def _text(messages) -> str:
    return "\n".join(str(m.get("content")) for m in messages)


def _shown_identity(task) -> str:
    """What makes a problem a different problem for a model: its rules, start, goal and question."""
    raw = {k: v for k, v in task.problem.raw.items() if k not in ("name", "optimal", "description", "license", "problem_set")}
    meta = raw.pop("metadata", {}) or {}
    raw["question"] = {k: meta.get(k) for k in ("actions", "action_sequence", "initial_state", "target", "mission") if k in meta}
    return json.dumps(raw, sort_keys=True, default=str)


def _check_one(task, strategy, messages) -> list[str]:
    wrong = []
    text = _text(messages)
    left = sorted(set(PLACEHOLDER.findall(text)))
    if left:
        wrong.append(f"unfilled template fields {left}")
    for name, value in task.settings.items():
        if "_" not in name:
            continue  # a plain word ('moves', 'cuts') is also ordinary English: only identifiers are checked
        for match in re.finditer(rf"\b{re.escape(name)}\b", text):
            after = text[match.end():match.end() + 24]
            if not re.match(r"\s*(=|:|is)\s*\S", after):
                wrong.append(f"the setting's name '{name}' stands where its value belongs: ...{text[max(0, match.start() - 40):match.end() + 10]!r}")
                break
    profile = profile_for(task)
    spec = strategies(profile)[strategy]
    if spec.get("shots"):
        from groundplan.agents.llm import shots

        data = shots.load(str(profile.world_file(spec["shots"])))
        markers = [m.replace("{k}", "1") for m in data["answer_after"] if m]
        if markers and not any(m in text for m in markers):
            wrong.append(f"the reader looks for {markers}, which the prompt never shows")
    elif not spec.get("prompt") and spec.get("history") != "chat" and "questions" not in str(spec):
        from groundplan.agents.llm.agent import spec_reads_plan
        from groundplan.agents.questions import question_for

        if question_for(task) is None:
            marker = "Plan:" if (spec.get("mode") == "open" and spec_reads_plan(spec, strategy)) else "Action:"
            if marker not in text:
                wrong.append(f"the reader takes answers after '{marker}', which the prompt never asks for")
            if spec.get("mode", "closed") == "closed" or strategy.startswith("react"):
                state = task.initial_state()
                for action in task.applicable(state):
                    if action.text not in text:
                        wrong.append(f"the valid action '{action.text}' is not listed")
                        break
                    decision = interpret(task, state, action.text, profile.loop)
                    if decision.kind == DECLARE:
                        continue  # an action that is a declaration ('goal not reachable'): read as one
                    if decision.kind != ACTION or not decision.applicable:
                        wrong.append(f"the listed action '{action.text}' is not read back as itself: {decision.kind} {decision.reason}")
                        break
    return wrong


@pytest.mark.slow
@pytest.mark.parametrize(("world", "strategy"), CASES, ids=[f"{w}-{s}" for w, s in CASES])
def test_every_prompt_states_its_problem(world, strategy, tasks):
    problems = [task for task in tasks[world] if strategy in strategies(profile_for(task))]
    assert problems, f"no sampled {world} problem accepts {strategy}"
    wrong, prompts = [], {}
    for task in problems:
        used, messages = first_request(task, strategy)
        assert used == strategy
        wrong += [f"{task.problem.file}: {w}" for w in _check_one(task, strategy, messages)]
        prompts.setdefault(_text(messages), []).append(task)
    for text, same in prompts.items():
        identities = {_shown_identity(task) for task in same}
        if len(identities) > 1:
            wrong.append(f"{len(same)} different problems get one byte-identical prompt: "
                         + ", ".join(task.problem.file for task in same[:4]))
    assert not wrong, "\n".join(wrong[:20])


def _with_setting(task, name, value, tmp_path) -> Task:
    data = dict(task.problem.raw)
    data["settings"] = {**data.get("settings", {}), name: value}
    data.pop("optimal", None)
    data["domain"] = str(Path(task.domain.file).resolve())
    path = tmp_path / f"{name}-{value}.json"
    path.write_text(json.dumps(data))
    return Task.load(str(path))


def _other_value(domain, name, value):
    declared = domain.raw["settings"][name]
    allowed = [v for v in declared.get("allowed", []) if v != value]
    if allowed:
        return allowed[0]
    if isinstance(value, bool):
        return not value
    return value + 1


SETTING_CASES = [(world, strategy) for world, strategy in CASES if world in ("kitchen", "grasp")]


@pytest.mark.parametrize(("world", "strategy"), SETTING_CASES, ids=[f"{w}-{s}" for w, s in SETTING_CASES])
def test_a_changed_setting_changes_the_prompt(world, strategy, tasks, tmp_path):
    """Each setting, changed alone, changes what the model is told (the kitchen's durations and
    cuts, GRASP's moves, carry limit and step cost)."""
    task = tasks[world][0]
    _, base = first_request(task, strategy)
    same = []
    for name, value in task.settings.items():
        changed = _with_setting(task, name, _other_value(task.domain, name, value), tmp_path)
        _, messages = first_request(changed, strategy)
        if _text(messages) == _text(base):
            same.append(name)
    assert not same, f"{world}/{strategy}: changing {same} leaves the prompt as it was"
