"""Side-by-side checks of this world against plancraft 0.4.9 (the conformance test and the speed
benchmark share them). Needs plancraft; it is imported inside the functions that use it, so
this module loads without it.

- `Chooser` / `action_sequence(task, rng, length)`: random reply texts chosen one at a time
  against the interpreter's state, so that they aim at interesting states: more than half of
  the steps follow small "crafting plans" (clear the grid, put the ingredients of a recipe
  craftable from the pockets, often one on the example's own path, at a random placement,
  sometimes several of each, then take the result out of [0], sometimes into the grid, onto
  another item or with a quantity above what [0] holds); the rest are random moves, smelts
  (smeltable or not, into the grid too), takes, moves from empty slots, too-large quantities,
  moves onto other items or full stacks, and a few replies the reference refuses (quantity 0 or
  65, into [0]) or accepts and then ignores (smelting from [0]).
- `replay_both(env, task, texts | rng)`: feeds the texts, as replies, through plancraft's
  handlers and `PlancraftEnvironment.step` and through `read_reply` and `Task.step`, and
  compares after every step every slot (with [0]), the text observation and success.
- `reference_reading(text, handlers)` / `our_reading` / `same_reading`: one reply read by
  plancraft's handlers and by `read_reply`, and whether they agree (a search reply
  structurally, see `same_search`, since the reference places recipes at random).
- `random_reply(rng)`, `random_tools(rng)`: garbled replies and handler sets for that check.
"""
from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field

from groundplan.agents.base import Agent, Reply
from groundplan.engine.tables import pair_off

from . import world
from .text import read_reply

TOOLS = ("move", "smelt", "think", "search", "impossible")


# ---------------------------------------------------------------- the reference
class NoPicture:
    """Stands in for plancraft's CraftingTableGUI: its drawing never changes the state, and it
    costs more than the state logic (a 704x664 image converted to an array on every step)."""

    def clear(self):
        pass

    def add_item_to_slot(self, item_name, slot, quantity=1):
        pass

    def remove_item_from_slot(self, slot):
        pass

    frame = None


def reference_env(picture: bool = False, remember_crafts: bool = False):
    """One PlancraftEnvironment to reset for every sequence (building one loads 976 images).

    `remember_crafts`: its crafting output is found once per grid (see `RememberedCrafts`), the
    rest of its code runs as it is; for long runs, where the scan of every recipe on every grid
    change is most of the reference's time."""
    from plancraft.environment.env import PlancraftEnvironment

    env = PlancraftEnvironment(inventory={})
    if not picture:
        env.table = NoPicture()
    if remember_crafts:
        env.populate_craft_slot_craft_item = RememberedCrafts(env)
    return env


class RememberedCrafts:
    """plancraft's `populate_craft_slot_craft_item` with its scan of the crafting recipes done once
    per grid. What a grid crafts is a function of the item types in its 9 cells alone (each
    recipe's `craft` reads only the table built from them), so the first time a grid is seen the
    reference's own scan (the same recipes, the same order, the same `craft`) answers, and its
    answer, the result and the cells to use up, is kept; the slot updates are the reference's own
    (`add_item_to_slot` / `remove_item_from_slot`), as in its method.

    The scan skips, keeping their order, the recipes that cannot craft the grid because one of
    its items is in none of their cells (a shaped recipe's kernel sets, a shapeless one's
    ingredient counts): the reference's own scan would find nothing there either."""

    def __init__(self, env):
        from plancraft.environment.recipes import ShapedRecipe, ShapelessRecipe

        self.env, self.seen = env, {}
        self.takes: dict[int, set[int]] = {}  # item id -> the recipes (by position) that may hold it
        self.anything: set[int] = set()  # recipes of another kind: always asked
        for k, recipe in enumerate(env.crafting_recipes):
            if isinstance(recipe, ShapedRecipe):
                items = set().union(*(cell for row in recipe.kernel for cell in row))
            elif isinstance(recipe, ShapelessRecipe):
                items = {int(i) for i in recipe.ingredients_arr[:, :-1].nonzero()[1]}
            else:
                self.anything.add(k)
                continue
            for item in items:
                self.takes.setdefault(int(item), set()).add(k)

    def candidates(self, grid) -> list[int]:
        from plancraft.environment.recipes import item_to_id

        ids = {item_to_id(item) for item in grid if item is not None}
        if not ids:
            return list(range(len(self.env.crafting_recipes)))
        able = set.intersection(*(self.takes.get(i, set()) for i in ids)) | self.anything
        return sorted(able)

    def __call__(self):
        from plancraft.environment.recipes import convert_ingredients_to_table

        env = self.env
        grid = tuple(None if env.slot_empty(i) else env.state[i]["type"] for i in env.table_indexes)
        if grid not in self.seen:
            answer = None
            table = convert_ingredients_to_table(list(grid))
            for k in self.candidates(grid):
                if found := env.crafting_recipes[k].craft(table):
                    result, indexes = found
                    answer = (result.item, result.count, tuple(indexes))
                    break
            self.seen[grid] = answer
        answer = self.seen[grid]
        if answer is None:
            env.ingredients_idxs = []
            env.remove_item_from_slot(env.output_index)
        else:
            item, count, indexes = answer
            env.ingredients_idxs = list(indexes)
            env.add_item_to_slot(item, env.output_index, count)


def reference_handlers(tools=TOOLS) -> list:
    from plancraft.environment.actions import (ImpossibleActionHandler, MoveActionHandler, SmeltActionHandler,
                                               ThinkActionHandler)
    from plancraft.environment.search import GoldSearchActionHandler

    make = {"move": MoveActionHandler, "smelt": SmeltActionHandler, "think": ThinkActionHandler,
            "search": GoldSearchActionHandler, "impossible": ImpossibleActionHandler}
    return [make[name]() for name in tools]


def reference_parse(text: str, handlers) -> tuple[str, object]:
    """The reference Evaluator's reading of a reply: its act model keeps the first line (and trims
    it, which we do not: see `text.read_reply`), `parse_raw_model_response` asks each handler in
    turn. Returns (answering handler, output)."""
    line = text.split("\n")[0]
    for handler in handlers:
        found = handler.match(line)
        if found:
            return handler.action_name, found
    return "", f"Only select actions from the following: {', '.join(h.action_name for h in handlers)}"


def inventory_of(env) -> dict[int, dict]:
    return {slot: {"type": e["type"], "quantity": e["quantity"]} for slot, e in env.state.items() if e["quantity"] > 0}


# ---------------------------------------------------------------- replay
@dataclass
class Replay:
    """What one side-by-side replay saw: the texts stepped, how many steps agreed, the first
    difference (None when there was none) and counts of what the steps did in plancraft."""

    texts: list = field(default_factory=list)
    steps: int = 0
    difference: str | None = None
    changed: int = 0  # steps that changed the inventory
    crafted: int = 0  # takes from [0] that happened
    smelted: int = 0  # smelts that happened
    refused: int = 0  # replies the parser refused (a no-op step with a message)
    reached: bool = False  # the target was in a slot other than [0] at some step


def replay_both(env, task, texts=None, rng=None, length: int = 20, handlers=None) -> Replay:
    """Replay reply texts in both worlds from the task's initial state, comparing after every
    step: `texts` as given, or (with `rng`) `length` texts from `Chooser`, each chosen in the
    state the previous ones led to. Stops at the first difference."""
    from plancraft.environment.actions import MoveAction, SmeltAction
    from plancraft.environment.env import target_and_inventory_to_text_obs

    from .text import observation

    handlers = handlers or reference_handlers(("move", "smelt"))
    tools = tuple(h.action_name for h in handlers)
    target = world.target(task)
    chooser = Chooser(task, rng) if texts is None else None
    todo = iter(texts) if texts is not None else None
    state = task.initial_state()
    got = world.inventory(task, state)
    env.reset(copy.deepcopy(got))
    out = Replay()
    text = None
    while True:
        want = inventory_of(env)
        if want != got:
            out.difference = f"after {text!r}: plancraft {_diff(want, got)}"
            return out
        want_text, got_text = target_and_inventory_to_text_obs(target, env.state), observation(task, state)
        if want_text != got_text:
            out.difference = f"after {text!r}: observation\n{want_text}\nvs\n{got_text}"
            return out
        done = any(e["type"] == target and slot != 0 for slot, e in want.items())
        if done != task.is_goal(state):
            out.difference = f"after {text!r}: plancraft success {done}, interpreter {not done}"
            return out
        out.reached |= done
        if text is not None:
            out.steps += 1
        if chooser is not None and out.steps >= length:
            return out
        text = chooser.next(state, got) if chooser is not None else next(todo, None)
        if text is None:
            return out
        out.texts.append(text)
        _, action = reference_parse(text, handlers)
        if isinstance(action, (MoveAction, SmeltAction)):
            env.step(action)
        else:
            out.refused += 1
        ground = read_reply(text, tools).ground(task, state)
        if ground is not None:
            state = task.step(state, ground).state
        before, got = got, world.inventory(task, state)
        if before != got:
            out.changed += 1
            out.crafted += text.startswith("move: from [0]")
            out.smelted += text.startswith("smelt:")


def _diff(want: dict, got: dict) -> str:
    slots = sorted(set(want) | set(got))
    return "; ".join(f"{world.slot_label(s)} {want.get(s)} vs ours {got.get(s)}" for s in slots if want.get(s) != got.get(s))


# ---------------------------------------------------------------- random sequences
class _Recipes:
    """The domain's crafting and smelting tables, read for aiming at crafts."""

    def __init__(self, task):
        self.crafting = task.domain.tables["crafting"].rows
        smelting = {}
        for row in task.domain.tables["smelting"].rows:
            for item in row.cells[0]:
                smelting.setdefault(item, row.result[0])
        self.smelting = smelting


_READ: dict[str, _Recipes] = {}


def _recipes(task) -> _Recipes:
    found = _READ.get(task.domain.file)
    if found is None:
        found = _READ[task.domain.file] = _Recipes(task)
    return found


def _label(index: int) -> str:
    return world.slot_label(index)


def _move(a: int, b: int, n, verb: str = "move") -> str:
    return f"{verb}: from {_label(a)} to {_label(b)} with quantity {n}"


def _craft_plan(task, inv: dict, rng, recipes: _Recipes) -> list[str]:
    """Moves that put one craftable recipe into a cleared grid, then take the result."""
    ids = world.item_ids(task.domain.file)
    pockets = {s: (ids[e["type"]], e["quantity"]) for s, e in inv.items() if s >= 10}
    have: dict[int, int] = {}
    for item, count in pockets.values():
        have[item] = have.get(item, 0) + count
    rows = list(recipes.crafting)
    rng.shuffle(rows)
    if rng.random() < 0.5:  # the recipes on the example's own path first: longer chains of crafts
        path = {ids[name] for name in task.problem.metadata.get("optimal_path") or ()}
        rows.sort(key=lambda row: row.result[0] not in path)
    for row in rows:
        cells = [c for c in row.cells if c != frozenset((0,))]
        left, chosen = dict(have), []
        for cell in cells:
            options = [i for i in cell if left.get(i, 0) > 0]
            if not options:
                break
            pick = rng.choice(sorted(options))
            left[pick] -= 1
            chosen.append(pick)
        else:
            break
    else:
        return []
    if row.kind == "pattern":
        inside, _ = rng.choice(row.placements)
        spots = [i + 1 for i, cell in zip(inside, row.cells) if cell != frozenset((0,))]
    else:
        spots = rng.sample(range(1, 10), len(chosen))
    plan = []
    free = [s for s in range(10, 46) if s not in inv]
    rng.shuffle(free)
    for cell in range(1, 10):  # clear the grid first
        if cell in inv and free:
            plan.append(_move(cell, free.pop(), inv[cell]["quantity"]))
    extra = rng.choice((1, 1, 1, 2, 3))  # several of each: the output refills after a take
    left = {s: c for s, (_, c) in pockets.items()}
    placed = []  # one of each ingredient first, then the extras from what is left
    for item, spot in zip(chosen, spots):
        source = rng.choice([s for s, (i, _) in pockets.items() if i == item and left[s] > 0])
        left[source] -= 1
        placed.append([source, spot, 1])
    for entry in placed:
        more = min(extra - 1, left[entry[0]])
        left[entry[0]] -= more
        entry[2] += more
    plan += [_move(*entry) for entry in placed]
    for _ in range(rng.choice((1, 1, 2))):
        where = rng.random()
        to = free.pop() if free and where < 0.7 else rng.choice(sorted(inv)) if where < 0.85 else rng.randint(1, 9)
        plan.append(_move(0, to, rng.choice((1, 1, 1, 2, 4, 64))))
    return plan


def _random_action(task, inv: dict, rng, recipes: _Recipes) -> str:
    """One move, smelt or take, valid or not, biased towards what could do something."""
    filled = sorted(inv)
    empty = [s for s in range(1, 46) if s not in inv]
    ids = world.item_ids(task.domain.file)
    roll = rng.random()
    source = rng.choice(filled) if filled and rng.random() < 0.9 else rng.randint(1, 45)
    have = inv.get(source, {}).get("quantity", 0)
    n = rng.choice((have, have, 1, rng.randint(1, 64), have + 1)) or 1
    n = max(1, min(64, n))
    if roll < 0.12:  # take from [0], whatever it holds
        return _move(0, rng.choice(filled + empty) if filled else rng.randint(1, 45), rng.choice((1, 1, 2, 8, 64)))
    if roll < 0.3:  # smelt: a smeltable source when there is one
        smeltable = [s for s in filled if s and ids[inv[s]["type"]] in recipes.smelting]
        if smeltable and rng.random() < 0.8:
            source = rng.choice(smeltable)
            have = inv[source]["quantity"]
            n = rng.choice((1, 1, have, min(64, have + 1)))
        if rng.random() < 0.03:
            source = 0  # accepted by the reference's parser, ignored by its environment
        target = rng.choice(empty + filled) if rng.random() < 0.6 else rng.randint(1, 45)
        if target == source:
            target = source % 45 + 1
        return _move(source, target, n, "smelt")
    if roll < 0.35:
        return _move(source, source % 45 + 1, rng.choice((0, 65))) if rng.random() < 0.5 else _move(source, 0, 1)
    # a plain move: onto an empty slot, the same item (maybe overflowing) or another item
    same = [s for s in filled if s != source and source in inv and inv[s]["type"] == inv[source]["type"]]
    target = rng.choice(same) if same and rng.random() < 0.5 else rng.choice(empty + filled) if rng.random() < 0.8 \
        else rng.randint(1, 9)
    if target == source:
        target = source % 45 + 1
    return _move(source, target, n)


class Chooser:
    """Picks reply texts one at a time against the interpreter's current state: with no plan
    under way it usually starts a crafting plan (`_craft_plan`), which it then follows with
    some interruptions by random actions."""

    def __init__(self, task, rng):
        self.task, self.rng, self.recipes, self.plan = task, rng, _recipes(task), []

    def next(self, state, inv: dict | None = None) -> str:
        inv = world.inventory(self.task, state) if inv is None else inv
        rng = self.rng
        if not self.plan and rng.random() < 0.6:
            self.plan = _craft_plan(self.task, inv, rng, self.recipes)
        if self.plan and rng.random() < 0.93:
            return self.plan.pop(0)
        if rng.random() < 0.2:
            self.plan = []
        return _random_action(self.task, inv, rng, self.recipes)


def action_sequence(task, rng, length: int = 20) -> list[str]:
    """`length` reply texts for `task`, chosen step by step against the interpreter's state."""
    chooser = Chooser(task, rng)
    state = task.initial_state()
    texts: list[str] = []
    while len(texts) < length:
        text = chooser.next(state)
        texts.append(text)
        ground = read_reply(text, ("move", "smelt")).ground(task, state)
        if ground is not None:
            state = task.step(state, ground).state
    return texts


# ---------------------------------------------------------------- replies
def reference_reading(text: str, handlers) -> tuple:
    """plancraft's reading of a reply, in the shape `our_reading` gives ours."""
    from plancraft.environment.actions import MoveAction, SmeltAction, StopAction

    verb, found = reference_parse(text, handlers)
    if isinstance(found, (MoveAction, SmeltAction)):
        return ("action", str(found), verb, found.slot_from, found.slot_to, found.quantity)
    if isinstance(found, StopAction):
        return ("stop", found.reason, verb)
    kind = "error" if found.startswith(("Format Error: ", "Only select actions from the following: ")) else "tool"
    return (kind, found, verb)


def our_reading(text: str, tools) -> tuple:
    r = read_reply(text, tools)
    if r.kind == "action":
        return (r.kind, r.text, r.verb, r.source, r.target, r.quantity)
    return (r.kind, r.text, r.verb)


def same_reading(ours: tuple, theirs: tuple) -> bool:
    if ours == theirs:
        return True
    return ours[:1] == theirs[:1] == ("tool",) and ours[2] == theirs[2] == "search" and same_search(ours[1], theirs[1])


_LINE = re.compile(r"(\w+) at (\[[ABC][123]\])")


def search_blocks(text: str):
    """A search reply as (header, [("smelt", items) | ("grid", ((item, slot index), ...))]),
    or None when it is not in the reference's format (then it must match exactly)."""
    lines = text.split("\n")
    if len(lines) < 2 or not lines[0].startswith("Recipes to craft ") or lines[-1] != "":
        return None
    blocks: list = []
    for line in lines[1:-1]:
        if re.fullmatch(r"recipe \d+:", line):
            if line != f"recipe {len(blocks) + 1}:":
                return None
            blocks.append(None)
        elif blocks and line.startswith("smelt {") and blocks[-1] is None:
            blocks[-1] = ("smelt", frozenset(ast.literal_eval(line[len("smelt "):])))
        elif blocks and (m := _LINE.fullmatch(line)) and (blocks[-1] is None or blocks[-1][0] == "grid"):
            cells = blocks[-1][1] if blocks[-1] else ()
            blocks[-1] = ("grid", cells + ((m.group(1), world.INDEX[m.group(2)[1:-1]]),))
        else:
            return None
    return lines[0], blocks


def same_search(ours: str, theirs: str) -> bool:
    """Whether two search replies agree up to the reference's random choices: the same header,
    the same smelting sets, and our placements for the crafting recipes pair off one to one with
    the reference's recipes for that item, each grid being one its recipe crafts."""
    from plancraft.environment.recipes import RECIPES, convert_ingredients_to_table

    a, b = search_blocks(ours), search_blocks(theirs)
    if a is None or b is None:
        return ours == theirs
    if a[0] != b[0] or len(a[1]) != len(b[1]) or None in a[1]:
        return False
    smelts = lambda blocks: sorted(sorted(x[1]) for x in blocks if x[0] == "smelt")  # noqa: E731
    if smelts(a[1]) != smelts(b[1]):
        return False
    grids = [x[1] for x in a[1] if x[0] == "grid"]
    recipes = [r for r in RECIPES.get(a[0][len("Recipes to craft "):-1], []) if r.recipe_type != "smelting"]
    if len(grids) != len(recipes):
        return False
    fits = []
    for cells in grids:
        if len({slot for _, slot in cells}) != len(cells):
            return False
        table = [None] * 9
        for item, slot in cells:
            table[slot - 1] = item
        grid = convert_ingredients_to_table(table)
        fits.append({k for k, r in enumerate(recipes) if r.craft(grid)})
    return pair_off(fits)


# garbled replies: pieces put together at random
_GOOD_SLOTS = ["[0]"] + [f"[{s}]" for s in world.SLOTS]
_BAD_SLOTS = ["[I0]", "[I37]", "[I99]", "[I100]", "[A4]", "[C0]", "[D1]", "[5]", "[00]", "[I05]", "[I٣]", "[I3٣]",
              "[A١]", "[I 3]", "I3", "[i3]", "[]", "[I]", "[45]", "[A12]"]
_QUANTITIES = ["0", "65", "99999999999", "abc", "", "-1", "3.5", "٣", "007", "64", "1", " 2", "9" * 4301]
_VERBS = ["move", "smelt", "MOVE", "Move", "craft", "mv", "take", "moves", "smelting"]
_WORDS = ["oak_planks", "torch", "iron_ingot", "stick", "green_bed", "charcoal", "no_such_item", "Stick", "-x",
          "glowstone", "", "_", "oak planks", "white_bed", "crafting_table", "bread"]


def random_reply(rng) -> str:
    """A reply that is well formed about half of the time."""
    roll = rng.random()

    def slot():
        return rng.choice(_GOOD_SLOTS) if rng.random() < 0.9 else rng.choice(_BAD_SLOTS)

    def quantity():
        return str(rng.randint(1, 64)) if rng.random() < 0.88 else rng.choice(_QUANTITIES)

    if roll < 0.5:
        verb = rng.choice(("move", "smelt")) if rng.random() < 0.85 else rng.choice(_VERBS)
        a, b = slot(), slot()
        if rng.random() < 0.08:
            b = a
        text = f"{verb}: from {a} to {b} with quantity {quantity()}"
        mess = rng.random()
        if mess < 0.05:
            text = text.replace(": from", ":from")
        elif mess < 0.1:
            text = f"{verb}: to {b} from {a} with quantity {quantity()}"
        elif mess < 0.14:
            text = text.replace(" with quantity", " quantity")
        elif mess < 0.18:
            text = "think: " + text
        elif mess < 0.22:
            text = text + " " + rng.choice(("please", "then move: from [I2] to [A1] with quantity 1", "and search: stick"))
    elif roll < 0.6:
        text = rng.choice(("think:", "think: I need planks", "think:move [I1]", "Think: hm", "think : x"))
    elif roll < 0.72:
        text = rng.choice(("search: ", "search:", "search:  ", "search")) + rng.choice(_WORDS)
    elif roll < 0.9:
        text = rng.choice(("impossible:", "impossible: ", "impossible:x", "impossible: no wood", "IMPOSSIBLE: x",
                           "impossible: impossible: twice", "impossible: the grid cannot hold it", "impossible: -"))
    else:
        text = rng.choice(("", "hello", "I will move the planks", "1. move: from [I1] to [A1] with quantity 1",
                           "`move: from [I1] to [A1] with quantity 1`", "search for stick", "  \t "))
    wrap = rng.random()
    if wrap < 0.1:
        text = text + "\n" + rng.choice(("move: from [I1] to [A1] with quantity 1", "think: more", "", "search: torch"))
    elif wrap < 0.14:
        text = "\n" + text
    elif wrap < 0.2:
        text = rng.choice(("  ", "\t", " \r")) + text + rng.choice(("  ", "\r\n", " \n\n"))
    return text


def random_tools(rng) -> tuple:
    """Enabled handlers: usually the paper's sets in order, sometimes a shuffled subset."""
    if rng.random() < 0.7:
        return rng.choice((("move", "smelt"), ("move", "smelt", "think"), ("move", "smelt", "think", "search"), TOOLS, TOOLS))
    tools = list(TOOLS)
    rng.shuffle(tools)
    return tuple(tools[:rng.randint(1, 5)])


# ---------------------------------------------------------------- the step loop
# The checks above compare the interpreter and the reply reader one step at a time; these compare
# whole episodes: our step loop (agents.loop.run_episode, with the world's loop rules from
# prompts.yaml) against plancraft's own Evaluator.eval_example, fed the same replies.
PAPER_TOOLS = (("move", "smelt"), ("move", "smelt", "think"), ("move", "smelt", "think", "search"), TOOLS)
_THOUGHTS = ("think: I need planks first", "think:", "think: then move: from [I1] to [A1] with quantity 1",
             "think: search: stick", "Think: maybe")
_REASONS = ("impossible: ", "impossible: there is no wood", "impossible:", "impossible: \nmove: from [I1] to [A1] with quantity 1",
            "impossible: -")


class LoopReplies:
    """Reply texts chosen one at a time against the state an agent is shown: moves and crafts
    (`Chooser`), actions the environment ignores (a move from an empty slot or onto another item,
    a take from an empty [0], a smelt of something that cannot be smelted), thoughts, searches,
    garbled replies (`random_reply`) and, rarely, `impossible:` with or without a reason."""

    def __init__(self, task, rng, stop_rate: float = 0.015):
        self.task, self.rng, self.chooser, self.stop_rate = task, rng, Chooser(task, rng), stop_rate

    def next(self, state) -> str:
        rng, roll = self.rng, self.rng.random()
        if roll < self.stop_rate:
            return rng.choice(_REASONS)
        if roll < 0.45:
            return self.chooser.next(state)
        if roll < 0.62:
            return self._ignored(state)
        if roll < 0.72:
            return rng.choice(_THOUGHTS)
        if roll < 0.78:
            item = rng.choice(list(self.task.problem.metadata.get("optimal_path") or ["stick"]) + ["stick", "no_such_item", "-x"])
            return rng.choice(("search: ", "search:")) + item
        while True:
            text = random_reply(rng)
            if "impossible:" not in text.split("\n")[0]:
                return text

    def _ignored(self, state) -> str:
        """A well-formed action whose step changes nothing."""
        task, rng = self.task, self.rng
        inv = world.inventory(task, state)
        empty = [s for s in range(1, 46) if s not in inv]
        filled = [s for s in inv if s]
        ids = world.item_ids(task.domain.file)
        roll = rng.random()
        if roll < 0.3 and empty:
            a = rng.choice(empty)
            return _move(a, rng.choice([s for s in range(1, 46) if s != a]), rng.randint(1, 8))
        if roll < 0.5 and 0 not in inv:
            return _move(0, rng.choice(empty or [10]), rng.choice((1, 1, 4)))
        plain = [s for s in filled if ids[inv[s]["type"]] not in _recipes(task).smelting]
        if roll < 0.75 and plain:
            a = rng.choice(plain)
            return _move(a, rng.choice(empty or [s for s in range(1, 46) if s != a]), 1, "smelt")
        if len(filled) > 1:
            a, b = rng.sample(filled, 2)
            if inv[a]["type"] != inv[b]["type"]:
                return _move(a, b, 1)
        return rng.choice(("smelt: from [0] to [I1] with quantity 1", _move(rng.choice(empty or [1]), 11, 64)))


class ScriptedAgent(Agent):
    """A closed-loop agent for `agents.loop.run_episode` that answers with `LoopReplies` (or a
    fixed list of texts) and records what it was shown and what it answered."""

    name, mode = "scripted", "closed"

    def __init__(self, replies, tools=TOOLS):
        self.replies = replies  # a LoopReplies or a list of texts
        self.loop_overrides = {"tools": list(tools)}
        self.shown: list[str] = []
        self.texts: list[str] = []

    def act(self, observation):
        self.shown.append(observation.text)
        if isinstance(self.replies, list):
            text = self.replies[len(self.texts)] if len(self.texts) < len(self.replies) else "think: out of script"
        else:
            text = self.replies.next(observation.state)
        self.texts.append(text)
        return Reply(text)


def _script_model(texts):
    """A PlancraftBaseModel for the reference's Evaluator: replays the texts, cut at their first
    line as the reference's ActModel cuts an LLM's reply (untrimmed, see `text.read_reply`), and
    records the message of every observation it is given."""
    evaluator_class()
    from plancraft.models.base import PlancraftBaseModel

    return type("ScriptModel", (_ScriptModelBody, PlancraftBaseModel), {})(texts)


class _ScriptModelBody:
    def __init__(self, texts):
        self.texts, self.seen = list(texts), []

    def step(self, observation, dialogue_history=None):
        self.seen.append(observation["message"])
        k = len(self.seen) - 1
        return (self.texts[k] if k < len(self.texts) else "think: out of script").split("\n")[0]

    def reset(self):
        pass


@dataclass
class LoopReplay:
    """One episode in both loops: the texts answered, the turns, how each ended, and the first
    difference (None when they agree on every turn's observation, the steps and the outcome)."""

    texts: list = field(default_factory=list)
    turns: int = 0
    ours: str = ""
    theirs: str = ""
    difference: str | None = None
    ignored: int = 0  # well-formed actions that changed nothing (a step each)
    crafted: int = 0  # takes from [0] that happened
    smelted: int = 0  # smelts that happened


def evaluator_class():
    """plancraft's Evaluator class. Its module imports `plancraft.models.base`, whose package
    __init__ imports the LLM and image models (torch, transformers, vllm), which the test extra
    does not install and an evaluation with a scripted model never uses: when torch is missing,
    the package is registered empty (its folder on the path) so that only `base` is loaded."""
    import importlib.util
    import sys
    import types

    if "plancraft.models" not in sys.modules and importlib.util.find_spec("torch") is None:
        import plancraft

        package = types.ModuleType("plancraft.models")
        package.__path__ = [str(__import__("pathlib").Path(plancraft.__file__).parent / "models")]
        sys.modules["plancraft.models"] = package
    from plancraft.evaluator import Evaluator

    return Evaluator


class ReferenceLoop:
    """plancraft's Evaluator (max_steps 30, text inventory, the given handlers), its environment
    built once without its picture and reset for every episode (the drawing never touches the
    state), and the val examples by id."""

    def __init__(self, split: str = "val"):
        Evaluator = evaluator_class()
        self.env = reference_env()
        self.evaluators = {}
        self.Evaluator = Evaluator
        self.examples = None
        self.split = split

    def evaluator(self, tools):
        if tools not in self.evaluators:
            self.evaluators[tools] = self.Evaluator("conformance", actions=reference_handlers(tools), split=self.split,
                                                    max_steps=30, use_text_inventory=True)
            if self.examples is None:
                self.examples = {e.id: e for e in self.evaluators[tools].examples}
        return self.evaluators[tools]

    def run(self, example_id: str, texts, tools):
        """(what the model was shown at every turn, the result dict) of one reference episode."""
        from unittest import mock

        evaluator = self.evaluator(tuple(tools))
        env = self.env

        def environment(inventory=None, **_):
            env.reset(inventory)
            return env

        model = _script_model(texts)
        with mock.patch("plancraft.evaluator.PlancraftEnvironment", environment):
            result = evaluator.eval_example(self.examples[example_id], model)
        return model.seen, result


def compare_loop(reference: ReferenceLoop, task, tools, rng=None, texts=None, stop_rate: float = 0.015) -> LoopReplay:
    """One episode of `task` through `agents.loop.run_episode` (the current budget: plancraft
    0.4.9's rules) and through plancraft's Evaluator, with the same replies: chosen by
    `LoopReplies(task, rng)` as our episode goes, or `texts`. Compared turn by turn: the message
    the agent was shown (search replies up to the reference's random placement), the number of
    turns and of steps counted, success, and how the episode ended."""
    from groundplan.agents.loop import DECLARED, GOAL, STEP_CAP, WRONG_DECLARATION, Limits, run_episode

    agent = ScriptedAgent(LoopReplies(task, rng, stop_rate) if texts is None else list(texts), tools)
    episode = run_episode(task, agent, Limits(budget="current"))
    seen, result = reference.run(task.problem.name, agent.texts, tools)
    out = LoopReplay(texts=list(agent.texts), turns=len(agent.shown))
    acted = [e for e in episode.trajectory if e.get("action")]
    out.ignored = sum(e["state"] == e["next_state"] for e in acted)
    out.crafted = sum(e["state"] != e["next_state"] and e["action"].startswith("move: from [0]") for e in acted)
    out.smelted = sum(e["state"] != e["next_state"] and e["action"].startswith("smelt:") for e in acted)
    out.ours = {GOAL: "success", DECLARED: "stop", WRONG_DECLARATION: "stop", STEP_CAP: "turns used"}.get(episode.outcome, episode.outcome)
    last = reference_parse(agent.texts[len(seen) - 1].split("\n")[0], reference_handlers(tools))[1] if seen else None
    from plancraft.environment.actions import StopAction

    out.theirs = "success" if result["success"] and not isinstance(last, StopAction) else \
        "stop" if isinstance(last, StopAction) else "turns used"
    for k, (ours, theirs) in enumerate(zip(agent.shown, seen)):
        if ours != theirs and not same_search(ours, theirs):
            out.difference = f"turn {k + 1} (after {agent.texts[k - 1]!r}): we showed\n{ours}\nplancraft showed\n{theirs}"
            return out
    counted = episode.steps + (episode.declaration is not None)
    if len(agent.shown) != len(seen) or counted != result["number_of_steps"] or out.ours != out.theirs \
            or episode.success != result["success"]:
        out.difference = (f"we: {len(agent.shown)} turns, {counted} steps counted, {out.ours}, success {episode.success}; "
                          f"plancraft: {len(seen)} turns, {result['number_of_steps']} steps, {out.theirs}, "
                          f"success {result['success']}")
    return out


def loop_agreement(refs, seeds, reference: ReferenceLoop | None = None, stop_rate: float = 0.015):
    """Side-by-side episodes over `seeds`: the problem `refs[7 * seed % len(refs)]` (Task.load
    references, loaded when used; 7 spreads consecutive seeds over a split), a paper tool set
    chosen by the seed, `stop_rate` the chance of an `impossible:` reply per turn. Returns (episodes agreeing, [(seed, LoopReplay)] of those that do not,
    all replays)."""
    import random

    from groundplan.engine import Task

    reference = reference or ReferenceLoop()
    replays, failures = [], []
    for seed in seeds:
        task = Task.load(refs[7 * seed % len(refs)])
        rng = random.Random(seed)
        tools = PAPER_TOOLS[rng.randrange(len(PAPER_TOOLS))]
        r = compare_loop(reference, task, tools, rng=rng, stop_rate=stop_rate)
        replays.append(r)
        if r.difference:
            failures.append((seed, r))
    return len(replays) - len(failures), failures, replays
