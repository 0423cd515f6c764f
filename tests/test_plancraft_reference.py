"""The reproduced Plancraft expert planner (domains/plancraft/reference.py) and its baseline.

Figures from the spec (/work/shared/specs/plancraft.md sections 6 and 8): plancraft's own
planner unit tests in recipe steps, and the oracle's action counts on test.small. The full
comparison over every split is evals/bench/plancraft_reference.py; here the two small splits
are compared with plancraft itself when it is installed.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path

import pytest

from groundplan.domains.plancraft.baselines import BASELINES, NO_PLAN, baseline_plan
from groundplan.domains.plancraft.reference import decompose, load_book, plan_for, recipe_steps, reference_plan
from groundplan.domains.plancraft.world import item_ids
from groundplan.engine.task import Task

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "problems" / "plancraft"


@functools.lru_cache(maxsize=None)
def examples(split: str) -> tuple:
    """(task, metadata) for every example of a split."""
    path = FOLDER / f"{split}.jsonl"
    names = [json.loads(line)["name"] for line in path.read_text().splitlines()[1:] if line.strip()]
    tasks = [Task.load(f"{path}#{n}") for n in names]
    return tuple((task, task.problem.metadata) for task in tasks)


@functools.lru_cache(maxsize=None)
def plans(split: str) -> dict:
    return {task.problem.name: reference_plan(task) for task, _ in examples(split)}


def replay(task, plan):
    state = task.initial_state()
    for text in plan:
        result = task.step(state, task.parse_action(text, state))
        assert result.valid, text
        state = result.state
    return state


def test_plans_reach_the_goal_on_test_small():
    for task, meta in examples("test.small"):
        plan = plans("test.small")[task.problem.name]
        if meta["impossible"]:
            assert plan is None, task.problem.name
        else:
            assert plan and task.is_goal(replay(task, plan)), task.problem.name


def test_oracle_lengths_on_test_small():
    lengths = [len(plans("test.small")[t.problem.name]) for t, m in examples("test.small") if not m["impossible"]]
    actions = [a for t, m in examples("test.small") if not m["impossible"] for a in plans("test.small")[t.problem.name]]
    assert len(lengths) == 97
    assert sum(lengths) == 894 and round(sum(lengths) / 97, 3) == 9.216 and max(lengths) == 29
    assert dict(Counter(lengths)) == {1: 7, 2: 2, 3: 7, 4: 5, 5: 6, 6: 5, 7: 13, 8: 4, 9: 10, 10: 10, 11: 5, 12: 6, 14: 1,
                                      15: 3, 17: 3, 18: 1, 19: 1, 21: 1, 22: 1, 23: 1, 24: 2, 25: 1, 27: 1, 29: 1}
    assert sum(a.startswith("move:") for a in actions) == 844 and sum(a.startswith("smelt:") for a in actions) == 50
    by_bin: dict[int, list[int]] = {}
    for task, meta in examples("test.small"):
        if not meta["impossible"]:
            by_bin.setdefault(meta["complexity_bin"], []).append(len(plans("test.small")[task.problem.name]))
    assert [round(sum(v) / len(v), 2) for _, v in sorted(by_bin.items())] == [2.40, 6.15, 8.60, 10.85, 19.65]


def test_recipe_steps_match_the_dataset():
    for task, meta in examples("test.small"):
        if not meta["impossible"]:
            steps = recipe_steps(task)
            assert len(steps) == meta["optimal_path_length"], task.problem.name
            assert steps[-1].recipe.result == item_ids()[meta["target"]]


@pytest.mark.parametrize("target, inventory, steps", [
    ("torch", {"coal_block": 1, "jungle_planks": 1, "stripped_oak_wood": 1, "gray_carpet": 39, "ice": 6,
               "cracked_nether_bricks": 28, "peony": 34}, 4),
    ("purple_banner", {"red_dye": 3, "cornflower": 3, "string": 24, "birch_planks": 1, "oak_log": 1}, 21),
    ("smooth_quartz_stairs", {"nether_quartz_ore": 24, "yellow_bed": 1, "red_sandstone_slab": 5}, 37),
    ("purple_banner", {}, None),
    ("purple_banner", {"red_dye": 3, "cornflower": 3, "birch_planks": 1, "oak_log": 1}, None),
])
def test_planner_unit_figures(target, inventory, steps):
    """plancraft's tests/test_planner.py, in recipe steps."""
    found = plan_for(target, inventory)
    assert (None if found is None else len(found)) == steps


def test_green_bed_figure_one():
    """Fig. 1: green_bed from white_bed and cactus is one smelt and one craft, 4 actions."""
    ids = item_ids()
    slots = {10: (ids["white_bed"], 1), 11: (ids["cactus"], 1)}
    steps = plan_for("green_bed", {"white_bed": 1, "cactus": 1})
    actions = decompose(load_book(), steps, slots)
    assert [a.split(":")[0] for a in actions] == ["smelt", "move", "move", "move"]
    assert actions[0].startswith("smelt: from [I2] to ") and actions[-1].startswith("move: from [0] to ")


def test_baseline_contract():
    assert set(BASELINES) == {"reference"} and all(isinstance(v, str) for v in BASELINES.values())
    for task, meta in examples("test.small")[:30]:
        plan = baseline_plan("reference", task, 0)
        if meta["impossible"]:
            assert plan == [NO_PLAN] and plan[0].startswith("impossible: ")
        else:
            assert plan == plans("test.small")[task.problem.name]
    with pytest.raises(KeyError):
        baseline_plan("nope", examples("test.small")[0][0], 0)


@pytest.mark.slow
@pytest.mark.parametrize("split", ["val.small", "test.small"])
def test_counts_equal_plancraft(split):
    """Action counts equal plancraft's own planner (the oracle model's default mode) on every example."""
    planner = pytest.importorskip("plancraft.environment.planner")
    import plancraft

    data = json.loads((Path(plancraft.__file__).parent / "data" / f"{split}.json").read_text())
    ours = plans(split)
    assert len(data) == len(ours)
    for example in data:
        observation = {"inventory": {int(k): dict(v) for k, v in example["slotted_inventory"].items()},
                       "target": example["target"]}
        subplans, plan = planner.get_subplans(observation)
        theirs = [a for s in subplans for a in s] if plan else None
        mine = ours[example["id"]]
        assert (None if mine is None else len(mine)) == (None if theirs is None else len(theirs)), example["id"]
