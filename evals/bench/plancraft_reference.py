"""Check `domains/plancraft/reference.py` against plancraft 0.4.9's own expert planner.

The reference module claims to reproduce the planner behind the paper's oracle, plan lengths
and Action Efficiency without importing plancraft. This benchmark is the evidence: for every
example of every split it runs our `reference_plan` and plancraft's `get_subplans` (the oracle
model's call, default mode) on the same inventory, and reports per split

- examples (solvable / impossible) and action-count mismatches (solvable: lengths differ;
  impossible: either side finds a plan), plus how many plans are identical text for text;
- the sum and mean of our action counts, moves vs smelts, next to the figures of the spec
  (docs: /work/shared/specs/plancraft.md section 8);
- median planning time per example for both, and their ratio;
- our plans replayed in our interpreter (`task.parse_action` + `task.step`): an invalid action
  or a final state that is not a goal is a failure.

plancraft reads its recipe files in `glob` (file-system) order, while our data fixes sorted
order; `--recipe-order sorted` reloads plancraft's recipe lists in sorted order as well. Its
tie orders follow string hashing, so runs with different PYTHONHASHSEED may differ in which
concrete slots and items they use; the counts should not. To check the decomposition text for
text regardless, each solvable example is also decomposed by both from plancraft's own recipe
plan, with its one hash-ordered choice pinned (`same_layout`).

    python evals/bench/plancraft_reference.py [--splits test.small val.small] [--recipe-order sorted] [--skip-impossible]
    python evals/bench/plancraft_reference.py --pin --recipe-order sorted     # whole plans, text for text

Measured (plancraft 0.4.9, CPython 3.11, PYTHONHASHSEED random, 0, 1 and 2): 0 count mismatches
on every split, every plan reaches the goal in our interpreter; with --pin --recipe-order sorted
every plan is identical. Sums/means: train 8014 / 8.480, val 3924 / 8.349, test 4193 / 8.735,
val.small 704 / 7.822, test.small 894 / 9.216 (844 moves, 50 smelts), as in spec section 8.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SPLITS = ("train", "val", "test", "val.small", "test.small")
SPEC = {  # section 8: sum, mean, moves, smelts of the oracle's action counts (None: not given)
    "test.small": (894, 9.216, 844, 50),
    "test": (4193, 8.735, 3922, 271),
    "val": (None, 8.349, None, None),
    "train": (None, 8.480, None, None),
    "val.small": (None, None, None, None),
}


def reload_recipes(order: str, pin: bool = False) -> None:
    """Refill plancraft's RECIPES (in place: planner.py holds the same dict) in `glob` order as
    plancraft does ("installed") or sorted by file name ("sorted"), each recipe tagged with its file.
    With `pin`, smelting inputs become a list in tag order (ours) instead of a set of names."""
    import glob

    from plancraft.environment import recipes as module

    paths = glob.glob(os.path.join(os.path.dirname(module.__file__), "recipes", "*.json"))
    fresh: dict = {}
    for path in sorted(paths) if order == "sorted" else paths:
        with open(path) as f:
            recipe = module.recipe_factory(json.load(f))
        if recipe is not None:
            recipe.file = os.path.basename(path)
            if pin and isinstance(recipe, module.SmeltingRecipe):
                with open(path) as f:
                    recipe.ingredient = list(dict.fromkeys(module.get_item(json.load(f)["ingredient"])))
            fresh.setdefault(recipe.result.item, []).append(recipe)
    module.RECIPES.clear()
    module.RECIPES.update(fresh)


def same_layout(example: dict, book, ids: dict) -> bool:
    """Stage 2 alone, text for text: plancraft's own recipe plan decomposed by plancraft and by us,
    from the same slot dict (the file's order), with plancraft's one hash-ordered choice (which
    of a shaped cell's items to place) pinned to our order. Checks the free-slot rule, set.pop()
    included, and every dict-order rule of the decomposition."""
    from groundplan.domains.plancraft.reference import Step, decompose
    from plancraft.environment import planner

    def ordered(item_set_ids):  # a keys view: compares equal to {None} like the set, iterates in id-set order
        return dict.fromkeys(planner.id_to_item(i) for i in item_set_ids).keys()

    observation = {"inventory": {int(k): dict(v) for k, v in example["slotted_inventory"].items()},
                   "target": example["target"]}
    original = planner.item_set_id_to_type
    planner.item_set_id_to_type = ordered
    try:
        subplans, plan = planner.get_subplans(observation)
    finally:
        planner.item_set_id_to_type = original
    theirs = [a for sub in subplans for a in sub]
    recipes = {r.file: r for rs in book.by_result.values() for r in rs}
    steps = [Step(recipes[r.file], {ids[k]: v for k, v in inv.items()}) for r, inv in plan]
    slots = {int(k): (ids[v["type"]], v["quantity"]) for k, v in example["slotted_inventory"].items()}
    return decompose(book, steps, slots) == theirs


def pin_orders() -> None:
    """Make plancraft's hash-ordered choices follow ours (see reference.py's docstring): ancestors at
    one distance by item id, a shaped cell's items at decomposition in id-set order. Together with
    `reload_recipes(pin=True)` and slots given in slot order, whole plans must then be identical."""
    import networkx as nx
    from plancraft.environment import planner
    from plancraft.environment.recipes import item_to_id

    planner.get_ancestors = lambda target: sorted(nx.ancestors(planner.RECIPE_GRAPH, source=target), key=item_to_id)
    planner.item_set_id_to_type = lambda ids: dict.fromkeys(planner.id_to_item(i) for i in ids).keys()


def their_plan(example: dict, slot_order: bool = False) -> list[str] | None:
    from plancraft.environment.planner import get_subplans

    slots = example["slotted_inventory"]
    keys = sorted(slots, key=int) if slot_order else list(slots)
    observation = {"inventory": {int(k): dict(slots[k]) for k in keys}, "target": example["target"]}
    subplans, plan = get_subplans(observation)
    if not plan:
        return None
    return [a for sub in subplans for a in sub]


def replay(task, plan: list[str]) -> str | None:
    """None when the plan reaches the goal in our interpreter, else what went wrong."""
    state = task.initial_state()
    for i, text in enumerate(plan):
        action = task.parse_action(text, state)
        result = task.step(state, action)
        if not result.valid:
            return f"action {i + 1} not valid: {text}"
        state = result.state
    return None if task.is_goal(state) else "goal not reached"


def run_split(split: str, skip_impossible: bool, pin: bool = False) -> dict:
    from groundplan.engine.task import Task
    from groundplan.domains.plancraft.reference import load_book, reference_plan
    from groundplan.domains.plancraft.world import item_ids
    from plancraft.environment import planner as _  # noqa: F401  (import cost out of the timings)

    import plancraft

    examples = json.loads((Path(plancraft.__file__).parent / "data" / f"{split}.json").read_text())
    out = {"split": split, "solvable": 0, "impossible": 0, "count_mismatch": [], "impossible_mismatch": [],
           "identical": 0, "layout_identical": 0, "lengths": [], "moves": 0, "smelts": 0, "ours_s": [], "theirs_s": [], "failures": [],
           "ours_impossible_s": [], "theirs_impossible_s": []}
    path = ROOT / "problems" / "plancraft" / f"{split}.jsonl"
    domain_file = str(Task.load(f"{path}#1").domain.file)
    book, ids = load_book(domain_file), item_ids(domain_file)  # loading cost out of the timings
    for example in examples:
        if example["impossible"] and skip_impossible:
            continue
        task = Task.load(f"{path}#{example['id']}")
        t0 = time.perf_counter()
        ours = reference_plan(task)
        t1 = time.perf_counter()
        theirs = their_plan(example, slot_order=pin)
        t2 = time.perf_counter()
        if example["impossible"]:
            out["impossible"] += 1
            out["ours_impossible_s"].append(t1 - t0)
            out["theirs_impossible_s"].append(t2 - t1)
            if ours is not None or theirs is not None:
                out["impossible_mismatch"].append(example["id"])
            continue
        out["solvable"] += 1
        out["ours_s"].append(t1 - t0)
        out["theirs_s"].append(t2 - t1)
        if ours is None or theirs is None or len(ours) != len(theirs):
            out["count_mismatch"].append((example["id"], None if ours is None else len(ours),
                                          None if theirs is None else len(theirs)))
        if ours == theirs:
            out["identical"] += 1
        if theirs is not None and same_layout(example, book, ids):
            out["layout_identical"] += 1
        if ours is None:
            out["failures"].append((example["id"], "no plan"))
            continue
        out["lengths"].append(len(ours))
        out["moves"] += sum(a.startswith("move:") for a in ours)
        out["smelts"] += sum(a.startswith("smelt:") for a in ours)
        problem = replay(task, ours)
        if problem:
            out["failures"].append((example["id"], problem))
    return out


def report(r: dict) -> str:
    n, lengths = r["solvable"], r["lengths"]
    total = sum(lengths)
    mean = total / len(lengths) if lengths else 0.0
    med_ours = statistics.median(r["ours_s"]) if r["ours_s"] else 0.0
    med_theirs = statistics.median(r["theirs_s"]) if r["theirs_s"] else 0.0
    spec = SPEC.get(r["split"], (None,) * 4)
    lines = [
        f"== {r['split']}: {n} solvable, {r['impossible']} impossible",
        f"  action-count mismatches: {len(r['count_mismatch'])}  {r['count_mismatch'][:10]}",
        f"  impossible mismatches:   {len(r['impossible_mismatch'])}  {r['impossible_mismatch'][:10]}",
        f"  identical plans (text):  {r['identical']}/{n}; stage 2 alone on plancraft's recipe plan:"
        f" {r['layout_identical']}/{n} identical",
        f"  actions: sum {total} mean {mean:.3f} max {max(lengths, default=0)}; moves {r['moves']}, smelts {r['smelts']}"
        f"   (spec: sum {spec[0]} mean {spec[1]} moves {spec[2]} smelts {spec[3]})",
        f"  replay in our interpreter: {len(lengths) - sum(1 for f in r['failures'] if f[1] != 'no plan')}/{n} reach the goal;"
        f" failures {r['failures'][:10]}",
        f"  time per solvable example (median): ours {med_ours * 1000:.2f} ms, plancraft {med_theirs * 1000:.2f} ms,"
        f" ratio plancraft/ours {med_theirs / med_ours if med_ours else float('nan'):.1f};"
        f" totals ours {sum(r['ours_s']):.2f} s, plancraft {sum(r['theirs_s']):.2f} s;"
        f" max ours {max(r['ours_s'], default=0):.2f} s, plancraft {max(r['theirs_s'], default=0):.2f} s",
    ]
    if r["ours_impossible_s"]:
        s, t = r["ours_impossible_s"], r["theirs_impossible_s"]
        lines.append(f"  impossible examples (no plan): median ours {statistics.median(s) * 1000:.2f} ms, plancraft"
                     f" {statistics.median(t) * 1000:.2f} ms; max ours {max(s):.2f} s, plancraft {max(t):.2f} s")
    if r["split"] == "test.small" and lengths:
        hist: dict[int, int] = {}
        for k in lengths:
            hist[k] = hist.get(k, 0) + 1
        lines.append(f"  histogram {dict(sorted(hist.items()))}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=SPLITS)
    parser.add_argument("--recipe-order", choices=("installed", "sorted"), default="installed",
                        help="plancraft's recipe order: its glob order as installed, or sorted file names like our data")
    parser.add_argument("--skip-impossible", action="store_true", help="only the solvable examples")
    parser.add_argument("--pin", action="store_true", help="pin plancraft's hash-ordered choices and slot order to ours: "
                        "whole plans must then be identical text for text")
    args = parser.parse_args(argv)
    reload_recipes(args.recipe_order, pin=args.pin)
    if args.pin:
        pin_orders()
    print(f"PYTHONHASHSEED={os.environ.get('PYTHONHASHSEED', '(random)')}, plancraft recipe order: {args.recipe_order}"
          f"{', orders pinned to ours' if args.pin else ''}")
    bad = 0
    for split in args.splits:
        r = run_split(split, args.skip_impossible, args.pin)
        print(report(r), flush=True)
        bad += len(r["count_mismatch"]) + len(r["impossible_mismatch"]) + len(r["failures"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
