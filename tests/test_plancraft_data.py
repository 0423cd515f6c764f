"""The converted Plancraft data against the published figures (spec sections 1.2, 2.2 and 8):
the conversion kept every recipe and example, and the domain loads and runs them."""
from __future__ import annotations

import pytest

from groundplan.domains.plancraft.figures import recipe_figures, split_figures
from groundplan.engine.task import Task

SPLITS = {  # examples, impossible, bins 0-5, distractors 4/8/16, unique targets (spec 2.2 and 8)
    "train": (1145, 200, [200, 200, 198, 200, 147, 200], {4: 335, 8: 424, 16: 386}, 442),
    "val": (570, 100, [100, 100, 100, 100, 70, 100], {4: 182, 8: 206, 16: 182}, 347),
    "test": (580, 100, [100, 100, 100, 100, 80, 100], {4: 210, 8: 178, 16: 192}, 383),
    "val.small": (110, 20, [20, 20, 20, 20, 10, 20], {4: 44, 8: 30, 16: 36}, None),
    "test.small": (117, 20, [20, 20, 20, 20, 17, 20], {4: 39, 8: 40, 16: 38}, 108),
}


def test_recipe_data():
    found = recipe_figures()
    assert (found["items"], found["shaped"], found["shapeless"], found["smelting"]) == (976, 491, 143, 53)
    assert found["result_items"] == 604
    assert found["stack_sizes"] == {64: 791, 16: 31, 1: 154}
    assert (found["graph_nodes"], found["graph_edges"]) == (721, 1539)


@pytest.mark.parametrize("split", SPLITS)
def test_split_figures(split):
    examples, impossible, bins, distractors, targets = SPLITS[split]
    found = split_figures(split)
    assert (found["examples"], found["impossible"], found["bins"], found["distractors"]) == (examples, impossible, bins, distractors)
    if targets is not None:
        assert found["unique_targets"] == targets
    for low_high, (low, high) in zip(found["bin_edges"], [(1, 3), (4, 6), (7, 10), (12, 30), (32, 299)]):
        assert low <= low_high[0] and low_high[1] <= high  # inside the published quintile edges


def test_grouped_levels_unseen_flags_and_recipe_types():
    small, test, val = split_figures("test.small"), split_figures("test"), split_figures("val")
    assert small["grouped"] == {"easy": 40, "medium": 20, "hard": 37, "impossible": 20}
    assert small["recipe_types"] == {"mixed": 38, "shaped": 44, "shapeless": 11, "smelting": 4, "impossible": 20}
    assert test["recipe_types"] == {"mixed": 174, "shaped": 227, "shapeless": 62, "smelting": 17, "impossible": 100}
    assert (val["unseen_in_train"], test["unseen_in_train"], test["unseen_in_val"]) == (79, 128, 63)
    assert (small["mean_recipe_steps"], test["mean_recipe_steps"]) == (2.144, 2.146)
    assert (small["mean_items_used"], test["mean_items_used"]) == (7.588, 7.154)
    assert round(test["mean_slots"], 1) == 11.0 and test["max_slots"] == 21


def test_every_example_loads_with_its_inventory_in_the_pockets():
    from groundplan.engine.problemsets import expand

    for ref in expand(["problems/plancraft/test.small.jsonl"]):
        task = Task.load(ref)
        state = task.initial_state()
        assert not task.is_goal(state)  # no example starts with its target
        assert task.value(state, "crafted-count", ()) == 0  # the grid starts empty
        assert (task.problem.optimal or {}).get("solvable", True) is (not task.problem.metadata["impossible"])
