"""What a Plancraft agent reads and writes, as plancraft 0.4.9 words it (spec sections 1.3, 1.6, 3).

The texts are the benchmark's interface: a model prompted with the reference's observations and
graded by its reply parser must see exactly the same strings here. This module rebuilds them from
our own data (the domain's tables), without importing plancraft:

- `observation(task, state)`: the text observation (`Craft an item of type: X`, `inventory:` and
  one ` - type [slot] quantity N` line per non-empty slot, by slot index, `[0]` first);
- `read_reply(text, tools)`: a model reply read the way the reference's Evaluator reads it: only
  the first line (the reference's act model cuts there), untrimmed, offered to each enabled
  handler in order; the first whose `name:` occurs anywhere in the line answers, with an action,
  a tool reply, a stop or the handler's own error message; if none does, `Only select actions
  from the following: ...`. Every error text, including the ones the reference produces by
  accident (a failed regex gives "'NoneType' object has no attribute 'group'"), is reproduced;
- `search(name, domain)`: the gold `search:` reply (recipes to craft an item).
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

from . import world

TOOLS = ("move", "smelt", "think", "search", "impossible")
NO_MATCH = "'NoneType' object has no attribute 'group'"  # what a failed re.search(...).group gives
NOT_FOUND = "Could not find a recipe by that name."
FORMATS = {
    "move": "`move: from [Source] to [Target] with quantity N`",
    "smelt": "`smelt: from [Source] to [Target] with quantity N`",
    "think": "`think: <thought message>`",
    "search": "`search: <recipe name>`",
    "impossible": "`impossible: <reason>`",
}


# ---------------------------------------------------------------- observation
def observation(task, state) -> str:
    """The reference's text observation of `state` (its `target_and_inventory_to_text_obs`)."""
    lines = [f"Craft an item of type: {world.target(task)}", "inventory:"]
    for index, entry in sorted(world.inventory(task, state).items()):
        if entry["quantity"] > 0:
            lines.append(f" - {entry['type']} {world.slot_label(index)} quantity {entry['quantity']}")
    return "\n".join(lines)


# ---------------------------------------------------------------- replies
@dataclass(frozen=True)
class Reading:
    """One reply as the reference understands it.

    kind "action": `text` is the canonical action text (`move: from [I1] to [A1] with quantity 3`),
    with `source`/`target` as slot indices (0 = [0], 1-9 grid, 10-45 pockets) and `quantity`;
    kind "tool": `text` is what the agent is told (`Ok`, or the search result);
    kind "stop": `text` is the reason given with `impossible:`;
    kind "error": `text` is the verbatim message (the reference does a no-op step and shows it).
    `verb` is the handler that answered ("" for the catch-all error).
    """

    kind: str
    text: str
    verb: str = ""
    source: int | None = None
    target: int | None = None
    quantity: int | None = None

    @property
    def changes_nothing(self) -> bool:
        """An action the reference accepts but whose step can never change anything: smelting
        from [0] passes its validation, then the environment ignores it. The domain has no such
        action, so `ground` gives None for it; take a no-op step."""
        return self.kind == "action" and self.verb == "smelt" and self.source == 0

    def ground(self, task, state):
        """The ground action to step with, or None for a no-op step (see `changes_nothing`)."""
        if self.kind != "action" or self.changes_nothing:
            return None
        return task.parse_action(self.text, state)


_SOURCE = re.compile(r" from (\[[ABCI]?\d+\])")
_TARGET = re.compile(r" to (\[[ABCI]?\d+\])")
_QUANTITY = re.compile(r"with quantity (\d+)")
_REASON = re.compile(r"impossible: (.*)")
_SEARCHED = re.compile(r"search: *(\w+)")
_NAMED = {"[0]": 0, **{f"[{name}]": i for i, name in enumerate(world.GRID, start=1)}}
BAD_SLOT = "[Source] and [Target] must be [0] or [A1] to [C3] or [I1] to [I36]"


class _Refused(Exception):
    """A handler's error, carrying the text that goes between `Format Error: ` and the format."""


def _slot(label: str) -> int:
    """A matched `[..]` label as a slot index, read as leniently as the reference reads it: any
    one- or two-digit number after `I` (Unicode digits too) is taken, range checks come later."""
    if label in _NAMED:
        return _NAMED[label]
    if not 4 <= len(label) <= 5 or label[1] != "I" or label[2] == "0":
        raise _Refused(BAD_SLOT)
    return int(label[2:-1]) + 9


def _quantity(digits: str) -> int:
    try:
        return int(digits)  # fails beyond Python's 4,300-digit limit, as in the reference
    except ValueError:
        raise _Refused("quantity must be an integer") from None


def _transfer(verb: str, line: str) -> Reading:
    """A move or smelt: the three parts are searched for anywhere in the line, then checked in
    the reference's order (slots, quantity, then the pairwise rules)."""
    found = [p.search(line) for p in (_SOURCE, _TARGET, _QUANTITY)]
    if None in found:
        raise _Refused(NO_MATCH)
    source, target = _slot(found[0].group(1)), _slot(found[1].group(1))
    quantity = _quantity(found[2].group(1))
    if source == target:
        raise _Refused("[Source] and [Target] must be different")
    if not 0 <= source <= 45:
        raise _Refused("[Source] must be [0] or [A1] to [C3] or [I1] to [I36]")
    if target == 0:
        raise _Refused(f"You cannot {verb} items into [0]")
    if not 1 <= target <= 45:
        raise _Refused("[Target] must be [A1] to [C3] or [I1] to [I36]")
    if not 1 <= quantity <= 64:
        raise _Refused("quantity must be between 1 and 64")
    text = f"{verb}: from {world.slot_label(source)} to {world.slot_label(target)} with quantity {quantity}"
    return Reading("action", text, verb, source, target, quantity)


def _stop(line: str) -> Reading:
    found = _REASON.search(line)
    if found is None:
        raise _Refused(NO_MATCH)
    return Reading("stop", found.group(1), "impossible")


def _search(line: str, domain) -> Reading:
    found = _SEARCHED.search(line)
    if found is None:
        raise _Refused(NO_MATCH)
    return Reading("tool", search(found.group(1), domain), "search")


def read_reply(text: str, tools=TOOLS, domain=None) -> Reading:
    """How the reference reads a model's reply (see the module docstring). `tools` are the
    enabled handlers' names in the order they are tried; `domain` (a Task, Domain or domain file)
    is only needed for `search:` when it is not the default Plancraft domain.

    The first line is not trimmed: the handlers search it, so spaces around it change nothing
    except after `impossible:`, where `impossible: ` (an empty reason, what plancraft's own
    planner answers) is a stop for the Evaluator and its Gym wrapper. The reference's LLM
    wrapper (ActModel) trims the line first, which makes that reply a format error; we follow
    the Evaluator, so an empty reason ends the episode whoever gives it."""
    unknown = [t for t in tools if t not in FORMATS]
    if unknown:
        raise ValueError(f"unknown Plancraft tools {unknown}; known: {', '.join(FORMATS)}")
    line = text.split("\n")[0]
    for verb in tools:
        if f"{verb}:" not in line:
            continue
        try:
            if verb in ("move", "smelt"):
                return _transfer(verb, line)
            if verb == "impossible":
                return _stop(line)
            if verb == "search":
                return _search(line, domain)
            return Reading("tool", "Ok", "think")
        except _Refused as refused:
            return Reading("error", f"Format Error: {refused}. Correct format: {FORMATS[verb]}", verb)
    return Reading("error", f"Only select actions from the following: {', '.join(tools)}")


# ---------------------------------------------------------------- search
def search(name: str, task_or_domain=None) -> str:
    """The gold `search:` reply for `name`, from the domain's recipe tables.

    The format is the reference's (`Recipes to craft X:`, then per recipe `recipe k:` and either
    one `item at [slot]` line per ingredient or `smelt {'item', ...}` as a Python set), but where
    the reference samples a random placement we give one fixed placement, so the reply is
    deterministic: every choice among alternative items takes the lowest item id; a shaped
    recipe's pattern sits at the top left (its first cell at [A1]); a shapeless recipe's
    ingredients fill [A1], [A2], ... in recipe order, equal items together (as the reference
    lists them). A smelting set lists its items by id (the reference's set order varies with
    PYTHONHASHSEED). Recipes are numbered in recipe-file name order; the reference numbers them
    in its file system's directory order, so items with several recipes may be numbered
    differently. An unknown name gives `Could not find a recipe by that name.`
    """
    recipes = _recipes(_domain_file(task_or_domain)).get(name)
    if not recipes:
        return NOT_FOUND
    out = f"Recipes to craft {name}:\n"
    for k, lines in enumerate(recipes, start=1):
        out += f"recipe {k}:\n" + "".join(line + "\n" for line in lines)
    return out


def _domain_file(task_or_domain) -> str | None:
    if task_or_domain is None or isinstance(task_or_domain, str):
        return task_or_domain
    domain = getattr(task_or_domain, "domain", task_or_domain)
    return str(domain.file)


@functools.lru_cache(maxsize=4)
def _recipes(domain_file: str | None) -> dict[str, list[list[str]]]:
    """Each result item's recipes, as the lines `search` prints for them, in file name order."""
    from groundplan.engine.paths import DOMAINS_DIR

    path = domain_file or DOMAINS_DIR / "plancraft" / "domain.json"
    with open(path, encoding="utf-8") as f:
        tables = json.load(f)["tables"]
    names = world.items(str(path) if domain_file else None)
    rows = [(row, "craft") for row in tables["crafting"]["rows"]] + [(row, "smelt") for row in tables["smelting"]["rows"]]
    by_result: dict[str, list[tuple[str, list[str]]]] = {}
    for row, kind in rows:
        lines = _smelt_lines(row, names) if kind == "smelt" else _grid_lines(row, names)
        by_result.setdefault(names[row["result"][0] - 1], []).append((row.get("note", ""), lines))
    return {item: [lines for _, lines in sorted(found, key=lambda x: x[0])] for item, found in by_result.items()}


def _first(cell) -> int:
    return min(cell) if isinstance(cell, list) else cell


def _grid_lines(row: dict, names) -> list[str]:
    if "pattern" in row:
        placed = [(r * 3 + c + 1, _first(cell)) for r, line in enumerate(row["pattern"]) for c, cell in enumerate(line)]
        return [f"{names[item - 1]} at {world.slot_label(slot)}" for slot, item in placed if item]
    chosen = [_first(cell) for cell in row["unordered"]]
    grouped = sorted(chosen, key=chosen.index)  # equal items together, in order of first appearance
    return [f"{names[item - 1]} at {world.slot_label(slot)}" for slot, item in enumerate(grouped, start=1)]


def _smelt_lines(row: dict, names) -> list[str]:
    cell = row["match"][0]
    items = sorted(cell) if isinstance(cell, list) else [cell]
    return ["smelt {" + ", ".join(repr(names[i - 1]) for i in items) + "}"]
