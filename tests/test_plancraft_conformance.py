"""Plancraft conformance: the interpreter and our texts against plancraft 0.4.9 itself.

- 1,000 random reply sequences (15 steps each, seeded, over the 570 val examples) replayed in
  plancraft's PlancraftEnvironment and in the interpreter: after every step every slot
  (including [0]), the text observation and success must agree. The sequences lean towards
  crafting (see domains/plancraft/conformance.py). plancraft redraws a 704x664 image on every
  step; the long run swaps its drawing out (it never touches the state) and a short run keeps it.
  The long run also has plancraft find what a crafting grid makes once per grid, from the recipes
  that could hold its items (`RememberedCrafts`: its scan of every recipe on every grid change was
  most of the run); the short run keeps plancraft's own method, and a third test checks that the
  two agree on every grid the sequences make and on grids built from each recipe.
- Every val example's initial inventory and observation against plancraft's own data file.
- 6,000 random and garbled replies read by `read_reply` and by plancraft's handlers (as its
  Evaluator chains them) under random handler sets: the same action, stop, message or reply;
  search replies compared structurally, since plancraft places recipes at random.
- The gold search text for every craftable item and a few unknown names.
Reference-free spot checks of the verbatim messages run without plancraft.
"""
import importlib.util
import random
import time

import pytest

from groundplan.domains.plancraft import world
from groundplan.domains.plancraft.text import read_reply, search
from groundplan.engine import Task

needs_plancraft = pytest.mark.skipif(importlib.util.find_spec("plancraft") is None,
                                     reason="the reference, plancraft==0.4.9, is not installed (pip install plancraft==0.4.9)")
VAL = "problems/plancraft/val.jsonl"
SEQUENCES, LENGTH = 1000, 15
MOVE_FORMAT = "Correct format: `move: from [Source] to [Target] with quantity N`"


@pytest.fixture(scope="module")
def val_tasks():
    from groundplan.engine.problemsets import names

    return [Task.load(f"{VAL}#{name}") for name in names(VAL)]


def _replay_many(tasks, seeds, picture: bool, remember_crafts: bool = False, env=None):
    from groundplan.domains.plancraft.conformance import Replay, reference_env, replay_both

    env = env or reference_env(picture=picture, remember_crafts=remember_crafts)
    total, reached, failures = Replay(), 0, []
    for seed in seeds:
        task = tasks[seed % len(tasks)]
        r = replay_both(env, task, rng=random.Random(seed), length=LENGTH)
        for name in ("steps", "changed", "crafted", "smelted", "refused"):
            setattr(total, name, getattr(total, name) + getattr(r, name))
        reached += r.reached
        if r.difference:
            failures.append(f"seed {seed} ({task.problem.name}) step {r.steps + 1}: {r.difference}\n  texts: {r.texts}")
    return total, reached, failures


@pytest.mark.slow
@needs_plancraft
def test_every_step_agrees_with_plancraft(val_tasks):
    began = time.perf_counter()
    total, reached, failures = _replay_many(val_tasks, range(SEQUENCES), picture=False, remember_crafts=True)
    print(f"\nplancraft conformance: {SEQUENCES} sequences, {total.steps} steps compared, "
          f"{len(failures)} disagreeing ({100 * (1 - len(failures) / SEQUENCES):.1f}% of sequences agree); "
          f"{total.changed} steps changed the inventory, {total.crafted} crafts taken from [0], "
          f"{total.smelted} smelts, {total.refused} replies refused, target reached in {reached} "
          f"sequences; {time.perf_counter() - began:.0f} s")
    assert not failures, "\n".join(failures[:5])
    assert total.crafted >= SEQUENCES // 2 and total.smelted >= 100 and reached >= 50


@pytest.mark.slow
@needs_plancraft
def test_with_plancraft_drawing_its_picture(val_tasks):
    total, _, failures = _replay_many(val_tasks, range(10_000, 10_030), picture=True)
    assert total.steps == 30 * LENGTH and not failures, "\n".join(failures[:5])


@pytest.mark.slow
@needs_plancraft
def test_remembered_crafts_are_what_plancraft_crafts(val_tasks):
    """`RememberedCrafts`, which the long run uses, gives plancraft's own answer for every grid of
    10 sequences and for a grid laid from every recipe (a random placement; for one in ten, also
    with one stray item more): the same result, count and cells to use up, or nothing."""
    from plancraft.environment.recipes import ALL_ITEMS, convert_ingredients_to_table

    from groundplan.domains.plancraft.conformance import reference_env

    env = reference_env(remember_crafts=True)
    _, _, failures = _replay_many(val_tasks, range(20_000, 20_010), picture=False, env=env)
    assert not failures, "\n".join(failures[:5])
    remembered = env.populate_craft_slot_craft_item
    grids = list(remembered.seen)
    rng = random.Random(11)
    empty = len(ALL_ITEMS)
    for recipe in env.crafting_recipes:
        cells = [None] * 9
        if hasattr(recipe, "kernel"):
            top, left = rng.randint(0, 3 - recipe.kernel_height), rng.randint(0, 3 - recipe.kernel_width)
            for i, row in enumerate(recipe.kernel):
                for j, options in enumerate(row):
                    pick = rng.choice(sorted(options))
                    cells[(top + i) * 3 + left + j] = None if pick == empty else ALL_ITEMS[pick]
        else:
            items = [item for item, n in rng.choice(recipe.ingredients).items() for _ in range(n)]
            for item, slot in zip(items, rng.sample(range(9), len(items))):
                cells[slot] = item
        grids.append(tuple(cells))
        if rng.random() < 0.1:
            cells[rng.randrange(9)] = rng.choice(ALL_ITEMS)
            grids.append(tuple(cells))

    def answer(crafted):
        return None if crafted is None else (crafted[0].item, crafted[0].count, tuple(crafted[1]))

    crafted = 0
    for grid in grids:
        table = convert_ingredients_to_table(list(grid))
        theirs = next((answer(found) for recipe in env.crafting_recipes if (found := recipe.craft(table))), None)
        ours = next((answer(found) for k in remembered.candidates(grid)
                     if (found := env.crafting_recipes[k].craft(table))), None)
        assert ours == theirs, grid
        crafted += theirs is not None
    assert len(grids) > 634 and crafted > 600


@needs_plancraft
def test_initial_states_match_plancraft_data(val_tasks):
    from plancraft.environment.env import target_and_inventory_to_text_obs
    from plancraft.simple import get_plancraft_examples

    from groundplan.domains.plancraft.text import observation

    examples = {e.id: e for e in get_plancraft_examples("val")}
    assert len(examples) == len(val_tasks) == 570
    for task in val_tasks:
        example = examples[task.problem.name]
        state = task.initial_state()
        assert world.inventory(task, state) == example.slotted_inventory, task.problem.name
        assert world.target(task) == example.target
        assert observation(task, state) == target_and_inventory_to_text_obs(example.target, example.slotted_inventory)


@needs_plancraft
def test_replies_read_as_plancraft_reads_them():
    from groundplan.domains.plancraft.conformance import (our_reading, random_reply, random_tools, reference_handlers,
                                               reference_reading, same_reading)

    rng = random.Random(7)
    handlers = {}
    kinds: dict[str, int] = {}
    differ = []
    n = 6000
    for _ in range(n):
        tools, text = random_tools(rng), random_reply(rng)
        if tools not in handlers:
            handlers[tools] = reference_handlers(tools)
        ours, theirs = our_reading(text, tools), reference_reading(text, handlers[tools])
        kinds[theirs[0]] = kinds.get(theirs[0], 0) + 1
        if not same_reading(ours, theirs):
            differ.append(f"{text!r} with {tools}:\n  ours   {ours}\n  theirs {theirs}")
    print(f"\nreplies: {n} read, {n - len(differ)} alike; plancraft's readings: {kinds}")
    assert not differ, "\n".join(differ[:5])
    assert min(kinds.get(k, 0) for k in ("action", "tool", "stop", "error")) >= 200


@needs_plancraft
def test_search_text_for_every_item():
    from plancraft.environment.recipes import RECIPES
    from plancraft.environment.search import gold_search_recipe

    from groundplan.domains.plancraft.conformance import same_search

    names = sorted(RECIPES)
    assert len(names) == 604
    saved = random.getstate()
    random.seed(3)  # the reference samples its placements with the global random
    try:
        for name in names + ["no_such_item", "Stick", "oak", "minecraft", "_"]:
            for _ in range(2):
                assert same_search(search(name), gold_search_recipe(name)), name
    finally:
        random.setstate(saved)
    assert search("no_such_item") == gold_search_recipe("no_such_item") == "Could not find a recipe by that name."


# ---------------------------------------------------------------- without the reference
@pytest.mark.parametrize("reply, kind, text", [
    ("move: from [I1] to [A1] with quantity 3", "action", "move: from [I1] to [A1] with quantity 3"),
    ("think: first\nmove: from [I1] to [A1] with quantity 3", "tool", "Ok"),  # only the first line counts
    ("think: then move: from [I1] to [A1] with quantity 3", "action", "move: from [I1] to [A1] with quantity 3"),
    ("move: to [A1] from [I٣] with quantity 007", "action", "move: from [I3] to [A1] with quantity 7"),
    ("smelt: from [0] to [A1] with quantity 2", "action", "smelt: from [0] to [A1] with quantity 2"),
    ("move: from [I1] to [I1] with quantity 3", "error", f"Format Error: [Source] and [Target] must be different. {MOVE_FORMAT}"),
    ("move: from [I1] to [0] with quantity 3", "error", f"Format Error: You cannot move items into [0]. {MOVE_FORMAT}"),
    ("move: from [I1] to [A1] with quantity 0", "error", f"Format Error: quantity must be between 1 and 64. {MOVE_FORMAT}"),
    ("move: from [I1] to [A1] with quantity 65", "error", f"Format Error: quantity must be between 1 and 64. {MOVE_FORMAT}"),
    ("move: from [I1] to [A1] with quantity abc", "error", f"Format Error: 'NoneType' object has no attribute 'group'. {MOVE_FORMAT}"),
    ("move: from [I1] to [A1] with quantity " + "1" * 4301, "error", f"Format Error: quantity must be an integer. {MOVE_FORMAT}"),
    ("move: from [A4] to [A1] with quantity 1", "error",
     f"Format Error: [Source] and [Target] must be [0] or [A1] to [C3] or [I1] to [I36]. {MOVE_FORMAT}"),
    ("move: from [I37] to [A1] with quantity 1", "error",
     f"Format Error: [Source] must be [0] or [A1] to [C3] or [I1] to [I36]. {MOVE_FORMAT}"),
    ("move: from [I1] to [I40] with quantity 1", "error",
     f"Format Error: [Target] must be [A1] to [C3] or [I1] to [I36]. {MOVE_FORMAT}"),
    ("smelt: from [I1] to [0] with quantity 1", "error",
     "Format Error: You cannot smelt items into [0]. Correct format: `smelt: from [Source] to [Target] with quantity N`"),
    ("impossible: no wood", "stop", "no wood"),
    ("impossible: ", "stop", ""),  # what plancraft's planner answers: a stop for its Evaluator (its LLM wrapper trims it)
    ("impossible:", "error", "Format Error: 'NoneType' object has no attribute 'group'. Correct format: `impossible: <reason>`"),
    ("impossible:  \r", "stop", " \r"),
    ("search: -x", "error", "Format Error: 'NoneType' object has no attribute 'group'. Correct format: `search: <recipe name>`"),
    ("search:no_such_item", "tool", "Could not find a recipe by that name."),
    ("Move: from [I1] to [A1] with quantity 3", "error",
     "Only select actions from the following: move, smelt, think, search, impossible"),
])
def test_verbatim_messages(reply, kind, text):
    reading = read_reply(reply)
    assert (reading.kind, reading.text) == (kind, text)


def test_readings_step_the_interpreter():
    task = Task.load(f"{VAL}#1")
    state = task.initial_state()
    reading = read_reply("move: from [I2] to [A1] with quantity 41")
    assert (reading.source, reading.target, reading.quantity) == (11, 1, 41)
    state = task.step(state, reading.ground(task, state)).state
    assert world.inventory(task, state)[1] == {"type": "cobblestone_stairs", "quantity": 41}
    assert read_reply("smelt: from [0] to [A1] with quantity 2").ground(task, state) is None  # plancraft ignores it
    assert read_reply("move: from [0] to [I1] with quantity 1").ground(task, state).schema.name == "take"
    with pytest.raises(ValueError):
        read_reply("move: from [I1] to [A1] with quantity 1", ("move", "craft"))


def test_search_is_deterministic_and_in_the_reference_format():
    assert search("torch") == "Recipes to craft torch:\nrecipe 1:\ncoal at [A1]\nstick at [B1]\n"
    text = search("iron_ingot")
    assert text.startswith("Recipes to craft iron_ingot:\nrecipe 1:\nsmelt {'iron_ore'}\nrecipe 2:\n")
    assert search("iron_ingot") == text
