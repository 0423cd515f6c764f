"""Convert plancraft 0.4.9's data into this world's domain and problem sets.

Plancraft ships its Minecraft 1.16 data (976 items with stack sizes, 859 recipe files, 54 tags)
and its splits inside its wheel. This script reads them from a downloaded wheel, an unpacked
folder or the installed package, and writes what the world needs, so that nothing at run or
test time depends on `plancraft`:

- `domains/plancraft/domain.json`: the hand-written rules (`rules.json`) plus the data sections:
  the 45 slots and 64 quantities as constants with their labels (`[A1]`, `7`), the items' names
  (`metadata.items`, item k is `items[k-1]`), and three tables: `crafting` (491 shaped recipes as
  patterns, 143 shapeless ones as unordered rows, tags expanded to item sets), `smelting` (53
  recipes) and `stack-size`;
- `problems/plancraft/<split>.jsonl` for train, val, test, val.small and test.small: each
  example's inventory as slot values, its target, and the reference's own fields in `metadata`.

Recipes are kept in the reference's order: the recipe files sorted by name, grouped by result
item in order of first appearance (plancraft scans `RECIPES.values()`, a dict keyed by result
and filled in `glob` order; we fix glob's file-system order to sorted order, and `overlaps`
shows that no grid matches two crafting recipes with different results, so the order cannot
change an outcome).

    python -m groundplan.domains.plancraft.convert [--source plancraft-0.4.9-py3-none-any.whl]
"""
from __future__ import annotations

import argparse
import io
import itertools
import json
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SPLITS = ("train", "val", "test", "val.small", "test.small")
GRID = [f"{r}{c}" for r in "ABC" for c in "123"]  # slot 1..9, row-major
POCKETS = [f"I{i}" for i in range(1, 37)]  # slot 10..45
LICENSE = ("Examples, recipes and item data from plancraft 0.4.9 (MIT, (c) Gautier Dagan), converted by "
           "domains/plancraft/convert.py; see domains/plancraft/NOTICE.")


# ---------------------------------------------------------------- reading the package
class Source:
    """The package's files, from a wheel (zip), a folder holding `plancraft/`, or the installed package."""

    def __init__(self, where: str | None):
        if where is None:
            import importlib.util

            spec = importlib.util.find_spec("plancraft")
            if spec is None or not spec.submodule_search_locations:
                raise SystemExit("plancraft is not installed: pip install plancraft==0.4.9, or pass --source WHEEL")
            where = str(Path(list(spec.submodule_search_locations)[0]).parent)
        self.path = Path(where)
        self.zip = zipfile.ZipFile(self.path) if self.path.is_file() else None

    def names(self, folder: str) -> list[str]:
        """File names directly under plancraft/<folder>, sorted."""
        prefix = f"plancraft/{folder}/"
        if self.zip is not None:
            found = [n[len(prefix):] for n in self.zip.namelist() if n.startswith(prefix)]
        else:
            found = [p.name for p in (self.path / prefix).iterdir()]
        return sorted(n for n in found if n and "/" not in n)

    def json(self, relative: str):
        if self.zip is not None:
            return json.load(io.TextIOWrapper(self.zip.open(f"plancraft/{relative}"), encoding="utf-8"))
        return json.loads((self.path / "plancraft" / relative).read_text(encoding="utf-8"))


def clean(name: str) -> str:
    return name.replace("minecraft:", "")


class Data:
    """Items, tags and recipes with the reference's expansion rules."""

    def __init__(self, source: Source):
        constants = source.json("environment/assets/constants.json")["items"]
        self.items = [entry["type"] for entry in constants]
        self.ids = {name: i + 1 for i, name in enumerate(self.items)}  # 0 is the empty slot
        self.stack = {entry["type"]: entry["stackSize"] if entry["stackable"] else 1 for entry in constants}
        self.tags = {n.rsplit(".", 1)[0]: [clean(v) for v in source.json(f"environment/tags/{n}")["values"]]
                     for n in source.names("environment/tags") if n.endswith(".json")}
        by_result: dict[str, list[dict]] = {}
        for n in source.names("environment/recipes"):
            if not n.endswith(".json"):
                continue
            recipe = source.json(f"environment/recipes/{n}")
            if recipe.get("type") not in ("minecraft:crafting_shaped", "minecraft:crafting_shapeless", "minecraft:smelting"):
                continue
            recipe["file"] = n
            result = recipe["result"] if isinstance(recipe["result"], str) else recipe["result"]["item"]
            by_result.setdefault(clean(result), []).append(recipe)
        self.by_result = by_result
        self.recipes = [r for group in by_result.values() for r in group]

    def expand(self, ingredient) -> list[str]:
        """Every concrete item an ingredient (item, tag, '#tag' or a list of them) accepts, in order."""
        if isinstance(ingredient, list):
            return [x for part in ingredient for x in self.expand(part)]
        if isinstance(ingredient, str):
            return self.expand(self.tags[clean(ingredient[1:])]) if ingredient.startswith("#") else [clean(ingredient)]
        if "item" in ingredient:
            return [clean(ingredient["item"])]
        return self.expand(self.tags[clean(ingredient["tag"])])

    def cell(self, ingredient) -> list[int]:
        return sorted({self.ids[x] for x in self.expand(ingredient)})

    def kind(self, recipe) -> str:
        return recipe["type"].split(":")[1].replace("crafting_", "")

    def result(self, recipe) -> tuple[int, int]:
        if self.kind(recipe) == "smelting":
            return self.ids[clean(recipe["result"])], 1
        return self.ids[clean(recipe["result"]["item"])], recipe["result"].get("count", 1)


# ---------------------------------------------------------------- the domain
def tables(data: Data) -> dict:
    crafting, smelting = [], []
    for recipe in data.recipes:
        kind = data.kind(recipe)
        item, count = data.result(recipe)
        if kind == "shaped":
            key = recipe["key"]
            pattern = [[[0] if symbol == " " else data.cell(key[symbol]) for symbol in line] for line in recipe["pattern"]]
            crafting.append({"pattern": [[_compact(c) for c in line] for line in pattern], "result": [item, count],
                             "note": recipe["file"]})
        elif kind == "shapeless":
            crafting.append({"unordered": [_compact(data.cell(x)) for x in recipe["ingredients"]], "result": [item, count],
                             "note": recipe["file"]})
        else:
            smelting.append({"match": [_compact(data.cell(recipe["ingredient"]))], "result": [item], "note": recipe["file"]})
    sizes: dict[int, list[int]] = {}
    for name, size in data.stack.items():
        if size != 64:
            sizes.setdefault(size, []).append(data.ids[name])
    return {
        "crafting": {"description": "The output slot [0]: the first recipe (in the reference's order) that the 3x3 grid matches. "
                                    "Shaped recipes slide over the grid with every other cell empty (no mirroring); shapeless "
                                    "ones need exactly their ingredients, anywhere.",
                     "keys": 9, "grid": [3, 3], "results": ["item", "count"], "default": [0, 0], "rows": crafting},
        "smelting": {"description": "What an item smelts into (0: nothing); the first smelting recipe that accepts it.",
                     "keys": 1, "results": ["item"], "default": [0], "rows": smelting},
        "stack-size": {"description": "How many of an item one slot holds: 1 if it does not stack, else its stack size.",
                       "keys": 1, "results": ["size"], "default": [64],
                       "rows": [{"match": [sorted(ids)], "result": [size]} for size, ids in sorted(sizes.items())]},
    }


def _compact(cell: list[int]):
    return cell[0] if len(cell) == 1 else cell


def domain(data: Data) -> dict:
    rules = json.loads((HERE / "rules.json").read_text())
    constants = {**{s: "grid" for s in GRID}, **{s: "pocket" for s in POCKETS}, **{f"n{k}": "quantity" for k in range(1, 65)}}
    labels = {**{s: f"[{s}]" for s in GRID + POCKETS}, **{f"n{k}": str(k) for k in range(1, 65)}}
    out = {}
    for key, value in rules.items():
        out[key] = value
        if key == "types":
            out["constants"] = constants
            out["labels"] = labels
            out["values"] = [[["amount", f"n{k}"], k] for k in range(1, 65)]
    out["tables"] = tables(data)
    out["metadata"] = {"items": data.items, "source": "plancraft 0.4.9 (MIT): environment/assets/constants.json, recipes/, tags/"}
    return out


def overlaps(data: Data) -> list[tuple[str, str]]:
    """Pairs of crafting recipes with different results that some grid matches both (none in 0.4.9)."""
    from groundplan.engine.tables import placements

    shapes = []  # each recipe as a list of placements: 9 cells (sets of item ids, {0} = empty), or a multiset
    for recipe in data.recipes:
        kind = data.kind(recipe)
        if kind == "shaped":
            key = recipe["key"]
            flat = [{0} if s == " " else set(data.cell(key[s])) for line in recipe["pattern"] for s in line]
            cells = []
            for inside, outside in placements(len(recipe["pattern"]), len(recipe["pattern"][0]), (3, 3)):
                grid = [{0}] * 9
                for i, c in zip(inside, flat):
                    grid[i] = c
                cells.append(grid)
            shapes.append((recipe, "grid", cells))
        elif kind == "shapeless":
            shapes.append((recipe, "bag", [set(data.cell(x)) for x in recipe["ingredients"]]))
    found = []
    for (r1, k1, s1), (r2, k2, s2) in itertools.combinations(shapes, 2):
        if data.result(r1) == data.result(r2):
            continue
        if k1 == "grid" and k2 == "grid":
            hit = any(all(a & b for a, b in zip(g1, g2)) for g1 in s1 for g2 in s2)
        elif k1 == "bag" and k2 == "bag":
            hit = len(s1) == len(s2) and _pair_sets(s1, s2)
        else:
            grids, bag = (s1, s2) if k1 == "grid" else (s2, s1)
            hit = any(_grid_meets_bag(g, bag) for g in grids)
        if hit:
            found.append((r1["file"], r2["file"]))
    return found


def _pair_sets(a: list[set], b: list[set]) -> bool:
    """Whether the cells of `a` pair off with those of `b`, each pair sharing an item (one grid fits both)."""
    from groundplan.engine.tables import pair_off

    return pair_off([[j for j, cell in enumerate(b) if x & cell] for x in a])


def _grid_meets_bag(grid: list[set], bag: list[set]) -> bool:
    filled = [c - {0} for c in grid if c != {0}]
    if any(0 in c and len(c) > 1 for c in grid):
        return False  # no cell of these data mixes "empty" with items
    return len(filled) == len(bag) and _pair_sets(filled, bag)


# ---------------------------------------------------------------- the problems
def recipe_type(data: Data, example: dict) -> str:
    if example["optimal_path"] is None:
        return "impossible"
    kinds = {data.kind(r) for step in example["optimal_path"] for r in data.by_result[step]}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def problem(data: Data, example: dict) -> dict:
    values = []
    for slot in sorted(example["slotted_inventory"], key=int):
        entry = example["slotted_inventory"][slot]
        name = POCKETS[int(slot) - 10] if int(slot) >= 10 else GRID[int(slot) - 1]
        values += [[["item", name], data.ids[entry["type"]]], [["count", name], entry["quantity"]]]
    values.append([["target"], data.ids[example["target"]]])
    keep = ("target", "impossible", "num_distractors", "complexity", "complexity_bin", "complexity_split", "optimal_path_length",
            "optimal_path", "items_used", "unique_items_used", "unseen_in_train", "unseen_in_val", "split", "inventory")
    meta = {k: example[k] for k in keep}
    for k in ("complexity_bin", "optimal_path_length", "items_used", "unique_items_used", "complexity"):
        if isinstance(meta[k], float) and meta[k].is_integer():
            meta[k] = int(meta[k])
    meta["recipe_type"] = recipe_type(data, example)
    row = {"name": example["id"], "goal_text": f"Craft an item of type: {example['target']}", "values": values, "metadata": meta}
    if example["impossible"]:
        row["optimal"] = {"cost": None, "solvable": False, "method": "labelled impossible by plancraft 0.4.9"}
    return row


GOAL = {"exists": [["?s", "slot"]], "formula": {"and": [{"=": [["item", "?s"], ["target"]]}, {">": [["count", "?s"], 0]}]}}


def write_split(data: Data, source: Source, split: str, out: Path) -> int:
    examples = source.json(f"data/{split}.json")
    header = {"problem_set": f"plancraft-{split}", "defaults": {
        "groundplan": "1", "domain": "plancraft", "license": LICENSE, "goal": GOAL,
        "description": f"Plancraft {split} split ({len(examples)} examples) from plancraft 0.4.9."}}
    lines = [json.dumps(header, separators=(",", ":"))]
    lines += [json.dumps(problem(data, e), separators=(",", ":")) for e in examples]
    out.write_text("\n".join(lines) + "\n")
    return len(examples)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", help="a plancraft wheel or a folder holding plancraft/ (default: the installed package)")
    parser.add_argument("--check-overlaps", action="store_true", help="also prove that recipe order cannot matter")
    args = parser.parse_args(argv)
    source = Source(args.source)
    data = Data(source)
    (HERE / "domain.json").write_text(json.dumps(domain(data), indent=1) + "\n")
    counts = {k: sum(data.kind(r) == k for r in data.recipes) for k in ("shaped", "shapeless", "smelting")}
    print(f"domain.json: {len(data.items)} items, {counts} recipes, {len(data.tags)} tags")
    folder = ROOT / "problems" / "plancraft"
    folder.mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        print(f"{split}: {write_split(data, source, split, folder / f'{split}.jsonl')} examples")
    if args.check_overlaps:
        pairs = overlaps(data)
        print(f"crafting recipes with different results that one grid matches: {len(pairs)}", pairs[:10])


if __name__ == "__main__":
    main()
