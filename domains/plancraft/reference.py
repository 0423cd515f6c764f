"""Plancraft's expert planner (plancraft 0.4.9, `environment/planner.py`), reproduced on our data.

Why this module exists: the paper's oracle, its "Avg. Plan Length" baseline and its Action
Efficiency metric all come from one planner, and its plans are not the shortest action
sequences (an optimal search over actions finds shorter ones). To compare agents with the
paper's numbers we need *that* planner's plans, action for action, without importing
plancraft at run time. It works in two stages:

1. Recipe search (`search_recipes`). The inventory is a multiset of items, slots ignored. A
   depth-first search applies recipes of the target and of its ancestors in the recipe graph
   (closest first), skipping items already held 9 times or more, with a memo keyed by
   (multiset, depth), branch-and-bound on the best plan so far, at most 40 recipe steps and a
   30 s time limit (then: no plan). A smelting step turns one item. Within a recipe the
   concrete items are chosen greedily: for a shaped cell, the first accepted item still held;
   for a shapeless recipe, the first variant fully held.
2. Decomposition (`decompose`). Each recipe step becomes slot actions, quantity 1 per move:
   smelting goes from the first slot holding the item to a free slot; a shapeless recipe
   fills grid cells A1..C3 in order; a shaped one is laid out with its kernel at A1; items in
   the way are first moved out; the result is then taken from [0]. A "free slot" is the first
   stack of the same item with room (slots in the order the inventory dict lists them), else
   an empty pocket as CPython's `set.pop()` picks it from the reference's own set expression
   (so we build the same set: its order depends on the set's size and history, not only on
   the slot numbers). The oracle model uses this default mode, not `clear_first`.

Data: recipes, results and stack sizes come from domain.json; the orders the tables do not
keep (which alternative a cell tries first, the order of shapeless variants) from
`recipes.json` (written by `recipe_data.py`), which is checked against domain.json on load.

Deviations, all from orders that in the reference follow Python's randomised string hashing
(they change with PYTHONHASHSEED, so no fixed choice is more faithful): ancestors at the same
distance are tried by item id; a shaped cell's alternatives, at decomposition time, in the
order stage 1 tries them; smelting inputs in tag order. The initial inventory is read in
slot order, while the reference keeps the order of its JSON file, so the concrete slots used
may differ when several stacks qualify. evals/bench/plancraft_reference.py shows that action
counts agree with plancraft on every example of every split whatever its hash seed, and that
with these orders pinned in plancraft the plans are identical text for text.
"""
from __future__ import annotations

import functools
import json
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from .world import slot_label

HERE = Path(__file__).resolve().parent
RECIPES_FILE = HERE / "recipes.json"
MAX_STEPS = 40
TIMEOUT = 30.0
PLENTY = 9  # the search makes no more of an item held this many times
POCKETS = range(10, 46)
GRID = range(1, 10)


# ---------------------------------------------------------------- recipes
@dataclass(frozen=True)
class Recipe:
    """One recipe as the search sees it: a multiset rewrite with the reference's greedy choices."""

    file: str
    kind: str  # shaped, shapeless, smelting
    result: int
    count: int
    kernel: tuple = ()  # shaped: rows of cells, each the accepted ids in try order; () = empty cell
    variants: tuple = ()  # shapeless: tuples of (id, count)
    inputs: tuple = ()  # smelting: accepted ids

    def ingredients(self) -> set[int]:
        if self.kind == "shaped":
            return {i for row in self.kernel for cell in row for i in cell}
        if self.kind == "shapeless":
            return {i for v in self.variants for i, _ in v}
        return set(self.inputs)

    def _use(self, held: dict[int, int]) -> list[tuple[int, int]] | None:
        """The (item, count) pairs this recipe would consume from `held`, or None if it cannot."""
        if self.kind == "shaped":
            left, used = dict(held), []
            for row in self.kernel:
                for cell in row:
                    if not cell:
                        continue
                    for item in cell:
                        if left.get(item, 0) > 0:
                            left[item] -= 1
                            used.append((item, 1))
                            break
                    else:
                        return None
            return used
        if self.kind == "shapeless":
            for variant in self.variants:
                if all(held.get(item, 0) >= n for item, n in variant):
                    return list(variant)
            return None
        if not any(item in held for item in self.inputs):
            return None
        for item in self.inputs:
            if held.get(item, 0) >= 1:
                return [(item, 1)]
        return None

    def usable(self, held: dict[int, int]) -> bool:
        return self._use(held) is not None

    def apply(self, held: dict[int, int]) -> dict[int, int]:
        after = dict(held)
        for item, n in self._use(held):
            after[item] -= n
            if after[item] == 0:
                del after[item]
        after[self.result] = after.get(self.result, 0) + (1 if self.kind == "smelting" else self.count)
        return after


@dataclass
class Book:
    """All recipes by result (the reference's order), the recipe graph and stack sizes."""

    by_result: dict[int, list[Recipe]]
    stack: dict[int, int]
    default_stack: int
    sources: dict[int, set[int]] = field(default_factory=dict)  # result -> its ingredients

    def __post_init__(self):
        for result, recipes in self.by_result.items():
            for recipe in recipes:
                self.sources.setdefault(result, set()).update(recipe.ingredients())

    def stack_size(self, item: int) -> int:
        return self.stack.get(item, self.default_stack)

    def ancestors(self, target: int) -> list[int]:
        """Every item from which `target` can be made, nearest first (ties by id)."""
        distance = {target: 0}
        queue = deque([target])
        while queue:
            item = queue.popleft()
            for source in self.sources.get(item, ()):
                if source not in distance:
                    distance[source] = distance[item] + 1
                    queue.append(source)
        del distance[target]
        return sorted(distance, key=lambda i: (distance[i], i))


def _cell(value) -> set[int]:
    return set(value) if isinstance(value, list) else {value}


def _check(entry: dict, row: dict) -> bool:
    """Whether a recipes.json entry accepts exactly what the domain's table row accepts."""
    if entry["kind"] == "shaped":
        mine = [[set(c) or {0} for c in line] for line in entry["kernel"]]
        return "pattern" in row and mine == [[_cell(c) for c in line] for line in row["pattern"]]
    if entry["kind"] == "shapeless":
        cells = [_cell(c) for c in row.get("unordered", [])]
        union = set().union(*cells) if cells else set()
        return (bool(cells) and all(sum(n for _, n in v) == len(cells) for v in entry["variants"])
                and {i for v in entry["variants"] for i, _ in v} == union)
    return set(entry["inputs"]) == _cell(row["match"][0])


@functools.lru_cache(maxsize=None)
def load_book(domain_file: str | None = None) -> Book:
    from groundplan.engine.paths import DOMAINS_DIR

    domain = json.loads(Path(domain_file or DOMAINS_DIR / "plancraft" / "domain.json").read_text())
    tables = domain["tables"]
    rows = {r["note"]: r for name in ("crafting", "smelting") for r in tables[name]["rows"]}
    entries = json.loads(RECIPES_FILE.read_text())["recipes"]
    if sorted(rows) != sorted(e["file"] for e in entries):
        raise ValueError(f"{RECIPES_FILE.name} and the domain's tables list different recipes: rerun recipe_data.py")
    by_result: dict[int, list[Recipe]] = {}
    for e in entries:
        row = rows[e["file"]]
        if row["result"][0] != e["result"][0] or (e["kind"] != "smelting" and row["result"][1] != e["result"][1]) \
                or not _check(e, row):
            raise ValueError(f"{RECIPES_FILE.name} disagrees with the domain on {e['file']}: rerun recipe_data.py")
        by_result.setdefault(e["result"][0], []).append(Recipe(
            e["file"], e["kind"], e["result"][0], e["result"][1],
            kernel=tuple(tuple(tuple(c) for c in line) for line in e.get("kernel", ())),
            variants=tuple(tuple(tuple(p) for p in v) for v in e.get("variants", ())),
            inputs=tuple(e.get("inputs", ()))))
    sizes = tables["stack-size"]
    stack = {i: r["result"][0] for r in sizes["rows"] for i in _cell(r["match"][0])}
    return Book(by_result, stack, sizes["default"][0])


# ---------------------------------------------------------------- stage 1: recipe search
@dataclass(frozen=True)
class Step:
    recipe: Recipe
    after: dict  # the multiset (item id -> count) once the recipe is applied


class _OutOfTime(Exception):
    pass


def search_recipes(book: Book, target: int, held: dict[int, int], max_steps: int = MAX_STEPS,
                   timeout: float = TIMEOUT) -> list[Step] | None:
    """The reference's shortest recipe sequence making `target` from the multiset `held`, or None.

    Its quirks are kept because they decide which of several shortest plans comes out: the memo
    stores the best plan known when a node is finished (found anywhere, not below that node),
    it is consulted before the bound, and a plan is accepted only when strictly shorter."""
    order = [target] + book.ancestors(target)
    memo: dict = {}
    start = time.time()

    def dfs(have: dict[int, int], path: list[Step], best):
        if time.time() - start > timeout:
            raise _OutOfTime
        key = (frozenset(have.items()), len(path))
        if key in memo:
            return memo[key]
        if best is not None and len(path) >= len(best):
            return best
        if len(path) > max_steps:
            return best
        if have.get(target, 0) > 0:
            return path if best is None or len(path) < len(best) else best
        for item in order:
            if have.get(item, 0) >= PLENTY:
                continue
            for recipe in book.by_result.get(item, ()):
                if recipe.usable(have):
                    after = recipe.apply(have)
                    found = dfs(after, path + [Step(recipe, after)], best)
                    if found is not None and (best is None or len(found) < len(best)):
                        best = found
        memo[key] = best
        return best

    try:
        return dfs(dict(held), [], None)
    except _OutOfTime:
        return None


# ---------------------------------------------------------------- stage 2: slot actions
class _Slots:
    """The inventory as the reference's decomposer tracks it: slot -> [item, count], in dict order.

    Dict order matters (the first matching stack wins), so slots are added at the end and
    deleted when empty, exactly when the reference's dict gains or loses them."""

    def __init__(self, book: Book, slots: dict[int, tuple[int, int]]):
        self.book = book
        self.map = {s: [item, n] for s, (item, n) in slots.items()}
        self.actions: list[str] = []

    def held(self) -> dict[int, int]:
        return _held(self.map)

    def occupied(self, slot: int) -> bool:
        return slot in self.map and self.map[slot][1] > 0

    def free_slot(self, source: int, item: int | None = None, n: int | None = None) -> int:
        if item is None:
            item, n = self.map[source]
        for s, (kind, count) in self.map.items():
            if s != source and kind == item and count + n <= self.book.stack_size(item):
                return s
        empty = set(POCKETS) - set(self.map.keys()) - set([source])  # same expression, same pop order
        if empty:
            return empty.pop()
        raise ValueError("no free slot")

    def find(self, item: int, keep: set[int] = frozenset()) -> int:
        """The first slot holding `item`; a slot in `keep` only if it can spare one."""
        for s, (kind, n) in self.map.items():
            if kind == item and n > 0 and (s not in keep or n > 1):
                return s
        raise ValueError(f"item {item} is not held")

    def _shift(self, source: int, target: int, n: int, item: int | None = None) -> None:
        item = self.map[source][0] if item is None else item
        if target in self.map:
            self.map[target][1] += n
        else:
            self.map[target] = [item, n]
        self.map[source][1] -= n
        if self.map[source][1] <= 0:
            del self.map[source]

    def move(self, source: int, target: int, n: int) -> None:
        self.actions.append(f"move: from {slot_label(source)} to {slot_label(target)} with quantity {n}")
        self._shift(source, target, n)

    def clear(self, slot: int) -> None:
        self.move(slot, self.free_slot(slot), self.map[slot][1])

    def smelt(self, source: int, target: int, n: int, result: int) -> None:
        self.actions.append(f"smelt: from {slot_label(source)} to {slot_label(target)} with quantity {n}")
        self._shift(source, target, n, item=result)


def _lay_shapeless(slots: _Slots, to_use: dict[int, int]) -> None:
    keep: set[int] = set()
    for cell in GRID:
        if slots.occupied(cell):
            item = slots.map[cell][0]
            if to_use.get(item, 0) > 0:
                _spend(to_use, item)
                keep.add(cell)
                continue
            slots.clear(cell)
        if to_use:
            item = next(iter(to_use))
            slots.move(slots.find(item, keep), cell, 1)
            _spend(to_use, item)


def _lay_shaped(slots: _Slots, recipe: Recipe, to_use: dict[int, int]) -> None:
    keep: set[int] = set()
    seen: set[int] = set()
    for r, row in enumerate(recipe.kernel):
        for c, cell in enumerate(row):
            pos = r * 3 + c + 1
            seen.add(pos)
            if not cell:
                if slots.occupied(pos):
                    slots.clear(pos)
                continue
            for item in cell:
                if to_use.get(item, 0) <= 0:
                    continue
                if slots.occupied(pos) and slots.map[pos][0] == item:
                    keep.add(pos)
                    _spend(to_use, item)
                    break
                if slots.occupied(pos):
                    slots.clear(pos)
                slots.move(slots.find(item, keep), pos, 1)
                _spend(to_use, item)
                break
    for cell in set(GRID) - seen:  # the reference's set, in its iteration order
        if slots.occupied(cell):
            slots.clear(cell)


def _spend(to_use: dict[int, int], item: int) -> None:
    to_use[item] -= 1
    if to_use[item] == 0:
        del to_use[item]


def _decompose_step(slots: _Slots, step: Step) -> None:
    held = slots.held()
    to_use = {item: n - step.after.get(item, 0) for item, n in held.items() if n - step.after.get(item, 0) > 0}
    recipe = step.recipe
    if recipe.kind == "smelting":
        if len(to_use) != 1:
            raise ValueError("a smelting step must use one item")
        (item, n), = to_use.items()
        source = slots.find(item)
        slots.smelt(source, slots.free_slot(source, recipe.result, 1), n, recipe.result)
        return
    if recipe.kind == "shapeless":
        _lay_shapeless(slots, to_use)
    else:
        _lay_shaped(slots, recipe, to_use)
    slots.map[0] = [recipe.result, recipe.count]
    slots.move(0, slots.free_slot(0), recipe.count)
    for cell in GRID:
        if cell in slots.map:
            slots.map[cell][1] -= 1
            if slots.map[cell][1] <= 0:
                del slots.map[cell]


def decompose(book: Book, steps: list[Step], slots: dict[int, tuple[int, int]]) -> list[str]:
    """The action texts that carry out `steps` from the slot contents `slots` (slot -> (item, count))."""
    tracker = _Slots(book, slots)
    for step in steps:
        _decompose_step(tracker, step)
    return tracker.actions


# ---------------------------------------------------------------- on a loaded problem
def _start(task) -> tuple[Book, int, dict[int, tuple[int, int]]]:
    from .world import inventory, item_ids, target

    ids = item_ids(task.domain.file)
    slots = {s: (ids[e["type"]], e["quantity"]) for s, e in inventory(task, task.initial_state()).items()}
    return load_book(task.domain.file), ids[target(task)], slots


def _held(slots: dict) -> dict[int, int]:
    """The multiset of items in the slots, the output slot [0] left out (as the reference counts)."""
    held: dict[int, int] = {}
    for s, (item, n) in slots.items():
        if s != 0:
            held[item] = held.get(item, 0) + n
    return held


def recipe_steps(task, timeout: float = TIMEOUT) -> list[Step] | None:
    """Stage 1 for the problem's initial state: the recipe steps, or None without a plan."""
    book, goal, slots = _start(task)
    return search_recipes(book, goal, _held(slots), timeout=timeout)


def reference_plan(task, timeout: float = TIMEOUT) -> list[str] | None:
    """The reference oracle's action texts for the problem's initial state; None when it has no
    plan (an empty recipe plan counts as none, as in the reference, which then gives up)."""
    book, goal, slots = _start(task)
    steps = search_recipes(book, goal, _held(slots), timeout=timeout)
    if not steps:
        return None
    return decompose(book, steps, slots)


def plan_for(target: str, counts: dict[str, int], timeout: float = TIMEOUT) -> list[Step] | None:
    """Stage 1 on item names (e.g. the reference's unit tests): `counts` is name -> count."""
    from .world import item_ids

    ids = item_ids()
    return search_recipes(load_book(), ids[target], {ids[k]: v for k, v in counts.items()}, timeout=timeout)
