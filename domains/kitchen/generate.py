"""Seeded procedural instances of the kitchen tasks, in the manner of Robotouille's generator.

    groundplan generate kitchen TASK --seed S [--out FILE]
    groundplan generate kitchen --all [--out problems]     # the evaluated set: 3 x 10 tasks x 10 seeds

TASK is a converted task (`async/01_cheese_chicken_sandwich` or a path). As in the reference
(`random.seed(seed)`, evaluation with noisy randomisation off): a random number of extra
stations, drawn from randrange(0, width * height), are placed on free grid cells, keeping every
station reachable from the robots' floor; then up to that many distractor items are put on empty
stations, where they may block a station a recipe needs. The reference's generator code is not
part of the data we have, so instances are not call-for-call copies of the paper's: see the
world's README. Everything is deterministic for a given task and seed.
"""
from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections import deque
from pathlib import Path

from .convert import ITEMS, LICENSE, STATIONS

HERE = Path(__file__).parent
SEEDS = tuple(range(42, 421, 42))
SETS = ("sync", "async", "multiagent")
# predicates a distractor of each kind carries (async: raw; sync tasks start cookables cooked)
DISTRACTOR_PREDICATES = {
    "lettuce": ["iscuttable"], "tomato": ["iscuttable"], "onion": ["iscuttable", "isfryableifcut"],
    "potato": ["iscuttable", "isfryableifcut"], "patty": ["iscookable"], "chicken": ["iscookable"],
    "cheese": [], "bread": [], "topbun": [], "bottombun": [],
}


def load_task(name: str) -> dict:
    path = Path(name)
    if not path.suffix:
        path = HERE / "tasks" / f"{name}.json"
    return json.loads(path.read_text())


def kind_of(obj: str) -> str:
    return obj.rstrip("0123456789")


def floor_region(width, height, blocked, starts):
    """Cells reachable from the robots' cells through cells without stations."""
    seen = set(starts)
    queue = deque(starts)
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < width and 0 <= ny < height and (nx, ny) not in blocked and (nx, ny) not in seen:
                seen.add((nx, ny))
                queue.append((nx, ny))
    return seen


def all_reachable(width, height, station_cells, robot_cells) -> bool:
    """Every station touches the robots' floor region, and no robot stands on a station."""
    blocked = set(station_cells)
    if blocked & set(robot_cells):
        return False
    floor = floor_region(width, height, blocked, robot_cells)
    for x, y in station_cells:
        if not any(n in floor for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))):
            return False
    return True


def generate(task: dict, seed: int, task_set: str) -> dict:
    rng = random.Random(seed)
    problem = copy.deepcopy(task)
    layout = problem["metadata"]["layout"]
    width, height = layout["width"], layout["height"]
    cells = {(s["x"], s["y"]): s["object"] for s in layout["stations"]}
    robots = [(p["x"], p["y"]) for p in layout["players"]]
    counters: dict[str, int] = {}
    for obj in problem["objects"]:
        k = kind_of(obj)
        counters[k] = max(counters.get(k, 0), int(obj[len(k):] or 0))

    def new_name(kind):
        counters[kind] = counters.get(kind, 0) + 1
        return f"{kind}{counters[kind]}"

    added = []
    wanted = rng.randrange(0, width * height)
    free = [(x, y) for x in range(width) for y in range(height) if (x, y) not in cells and (x, y) not in robots]
    rng.shuffle(free)
    for cell in free:
        if len(added) >= wanted:
            break
        kind = rng.choice(STATIONS)
        if not all_reachable(width, height, list(cells) + [cell], robots):
            continue
        name = new_name(kind)
        cells[cell] = name
        added.append(name)
        problem["objects"][name] = "station"
        problem["init"] += [[f"is{kind}", name], ["vacant", name], ["station_empty", name]]
        layout["stations"].append({"object": name, "x": cell[0], "y": cell[1]})
    occupied = {a[1] for a in problem["init"] if a[0] in ("station_empty",)}
    empty = [s for s in problem["objects"] if problem["objects"][s] == "station" and s in occupied]
    rng.shuffle(empty)
    for station in empty[: rng.randrange(0, len(added) + 1)]:
        kind = rng.choice(ITEMS)
        item = new_name(kind)
        predicates = list(DISTRACTOR_PREDICATES[kind])
        if task_set == "sync" and "iscookable" in predicates:
            predicates = ["iscooked"]
        problem["objects"][item] = "item"
        problem["init"] = [a for a in problem["init"] if a != ["station_empty", station]]
        problem["init"] += [[f"is{kind}", item], *[[p, item] for p in predicates],
                            ["item_on", item, station], ["item_at", item, station], ["clear", item]]
        cell = next(c for c, s in cells.items() if s == station)
        layout["items"].append({"object": item, "x": cell[0], "y": cell[1], "stack-level": 0})
    base = problem["name"]
    problem["name"] = f"{base}_s{seed}"
    problem["description"] = f"{task['description']} (procedural instance, seed {seed})"
    problem["license"] = LICENSE
    problem["metadata"]["generator"] = {"task": base, "seed": seed, "extra_stations": added,
                                        "command": f"groundplan generate kitchen {base} --seed {seed}"}
    problem.pop("optimal", None)
    return problem


def task_names(task_set: str) -> list[str]:
    return sorted(f"{task_set}/{p.stem}" for p in (HERE / "tasks" / task_set).glob("*.json"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="groundplan generate kitchen", description=__doc__.splitlines()[0])
    parser.add_argument("task", nargs="?", help="a task such as async/01_cheese_chicken_sandwich")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--all", action="store_true", help="every task of sync, async and multiagent with seeds 42..420")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.all:
        out = args.out or Path("problems")
        count = 0
        for task_set in SETS:
            for name in task_names(task_set):
                task = load_task(name)
                for seed in SEEDS:
                    problem = generate(task, seed, task_set)
                    target = out / task_set / f"{Path(name).name}_s{seed}.json"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    existing = json.loads(target.read_text()) if target.exists() else None
                    if existing and "optimal" in existing:  # keep a proven optimum when regenerating
                        problem["optimal"] = existing["optimal"]
                    target.write_text(json.dumps(problem, indent=1) + "\n")
                    count += 1
        print(f"wrote {count} problems under {out}")
        return 0
    if not args.task:
        parser.error("give a TASK or --all")
    task_set = args.task.split("/")[0] if "/" in args.task else "async"
    problem = generate(load_task(args.task), args.seed, task_set)
    text = json.dumps(problem, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
