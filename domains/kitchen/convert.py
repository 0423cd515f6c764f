"""Convert Robotouille problem files (release branch c8236a2e) into groundplan problems.

    python -m groundplan.domains.kitchen.convert REFERENCE_EXAMPLES_DIR [--out domains/kitchen/tasks]

REFERENCE_EXAMPLES_DIR is the reference's `environments/env_generator/examples` folder. The
reference file `k_name.json` of each task set becomes `NN_name.json` with NN = k + 1 (the paper's
task number); the training episodes go to `tasks/train/`. The converted files are committed, so
nothing reads the reference at run or test time.

The mapping follows the reference's problem compiler (see README.md): objects are named by kind
plus a counter, after sorting each entity list by (x, y); positions become `loc`, `item_at`,
`item_on`, `atop`, `clear`, `container_at`, `in`, `station_empty`, `vacant`, `nothing`,
`container_empty`; goals become one existential formula whose variables are the integer ids,
injective within a kind, with string ids naming fixed objects. As in the reference, an id's kind
is fixed by its first occurrence (the reference resolves ids through one list, so a later atom
naming another kind for the same id still means the first object).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from groundplan.domains.kitchen.horizons import stamp

STATIONS = ("table", "stove", "board", "fryer", "sink")
ITEMS = ("topbun", "bottombun", "bread", "lettuce", "onion", "tomato", "patty", "chicken", "cheese", "potato")
CONTAINERS = ("pot", "bowl")
MEALS = ("water",)
PLAYERS = ("robot",)
KIND_TYPE = {**{k: "station" for k in STATIONS}, **{k: "item" for k in ITEMS}, **{k: "container" for k in CONTAINERS},
             **{k: "meal" for k in MEALS}, **{k: "player" for k in PLAYERS}}
SETS = {"synchronous": "sync", "asynchronous": "async", "multi_agent": "multiagent"}
TRAIN = {"synchronous_train": "sync", "asynchronous_train": "async"}
LICENSE = ("Derived from portal-cornell/robotouille (release branch c8236a2e), MIT License, "
           "Copyright (c) 2023 PoRTaL Group. See domains/kitchen/LICENSE.")


class ConversionError(ValueError):
    pass


def name_entities(entities: list[dict]) -> list[tuple[str, dict]]:
    """Kind + counter per kind, after sorting by (x, y) as the reference does."""
    counters: dict[str, int] = {}
    named = []
    for entity in sorted(entities, key=lambda e: (e["x"], e["y"])):
        kind = entity["name"]
        if kind not in KIND_TYPE:
            raise ConversionError(f"unknown entity kind '{kind}'")
        counters[kind] = counters.get(kind, 0) + 1
        named.append((f"{kind}{counters[kind]}", entity))
    return named


def convert(reference: dict, name: str, task_set: str) -> dict:
    """One reference problem as a groundplan problem (without its optimum)."""
    stations = name_entities(reference.get("stations", []))
    items = name_entities(reference.get("items", []))
    containers = name_entities(reference.get("containers", []))
    meals = name_entities(reference.get("meals", []))
    players = name_entities(reference.get("players", []))
    objects = {}
    init = []
    by_id = {}
    for group in (stations, items, containers, meals, players):
        for obj, entity in group:
            objects[obj] = KIND_TYPE[entity["name"]]
            init.append([f"is{entity['name']}", obj])
            init += [[pred, obj] for pred in entity.get("predicates", [])]
            if "id" in entity:
                by_id[str(entity["id"])] = obj
    at = {}  # (x, y) -> station
    for obj, entity in stations:
        at[(entity["x"], entity["y"])] = obj
    player_cells = {}
    occupied = set()
    for obj, entity in players:
        dx, dy = entity.get("direction", [0, 1])
        station = at.get((entity["x"] + dx, entity["y"] + dy))
        if station is None:
            raise ConversionError(f"{obj} faces no station")
        init.append(["loc", obj, station])
        occupied.add(station)
        player_cells[(entity["x"], entity["y"])] = obj
    for obj, _ in stations:
        if obj not in occupied:
            init.append(["vacant", obj])
    held = set()
    stacks: dict[str, list[tuple[int, str]]] = {}
    for obj, entity in items:
        cell = (entity["x"], entity["y"])
        if cell in player_cells:
            init.append(["has_item", player_cells[cell], obj])
            held.add(player_cells[cell])
        elif cell in at:
            stacks.setdefault(at[cell], []).append((entity.get("stack-level", 0), obj))
        else:
            raise ConversionError(f"{obj} is neither on a station nor held")
    filled = set()
    container_at = {}
    for obj, entity in containers:
        cell = (entity["x"], entity["y"])
        if cell in player_cells:
            init.append(["has_container", player_cells[cell], obj])
            held.add(player_cells[cell])
        elif cell in at:
            init.append(["container_at", obj, at[cell]])
            filled.add(at[cell])
        container_at[cell] = obj
    full = set()
    for obj, entity in meals:
        container = container_at.get((entity["x"], entity["y"]))
        if container is None:
            raise ConversionError(f"{obj} is in no container")
        init.append(["in", obj, container])
        full.add(container)
    for station, stack in stacks.items():
        stack.sort()
        order = [obj for _, obj in stack]
        init.append(["item_on", order[0], station])
        for obj in order:
            init.append(["item_at", obj, station])
        for upper, lower in zip(order[1:], order):
            init.append(["atop", upper, lower])
        init.append(["clear", order[-1]])
        filled.add(station)
    for obj, _ in stations:
        if obj not in filled:
            init.append(["station_empty", obj])
    for obj, _ in players:
        if obj not in held:
            init.append(["nothing", obj])
    for obj, _ in containers:
        if obj not in full:
            init.append(["container_empty", obj])
    return {
        "groundplan": "1",
        "name": name,
        "domain": "kitchen",
        "description": f"Robotouille {task_set} task: {reference.get('goal_description', name)}",
        "license": LICENSE,
        "objects": objects,
        "init": init,
        "goal": convert_goal(reference["goal"], by_id),
        "goal_text": reference.get("goal_description", ""),
        "metadata": {"layout": layout(reference, stations, items, containers, meals, players),
                     "reference_config": reference.get("config", {})},
    }


def convert_goal(goal: list[dict], by_id: dict) -> dict:
    kinds: dict[int, str] = {}
    atoms = []
    for atom in goal:
        args = []
        for kind, ident in zip(atom["args"], atom["ids"]):
            if isinstance(ident, int):
                kinds.setdefault(ident, kind)  # the first occurrence fixes the id's kind
                args.append(f"?v{ident}")
            else:
                if str(ident) not in by_id:
                    raise ConversionError(f"goal names unknown id '{ident}'")
                args.append(by_id[str(ident)])
        atoms.append([atom["predicate"], *args])
    params = [[f"?v{i}", KIND_TYPE[kinds[i]]] for i in sorted(kinds)]
    conditions = [[f"is{kinds[i]}", f"?v{i}"] for i in sorted(kinds)]
    ids = sorted(kinds)
    distinct = [{"!=": [f"?v{a}", f"?v{b}"]} for x, a in enumerate(ids) for b in ids[x + 1:] if kinds[a] == kinds[b]]
    body = {"and": conditions + distinct + atoms}
    return {"exists": params, "formula": body} if params else body


def layout(reference, *groups) -> dict:
    """The grid the reference draws; kept for rendering and procedural generation."""
    out = {"width": reference.get("width"), "height": reference.get("height")}
    for key, group in zip(("stations", "items", "containers", "meals", "players"), groups):
        out[key] = [{"object": obj, **{k: v for k, v in entity.items() if k in ("x", "y", "stack-level", "direction")}}
                    for obj, entity in group]
    return out


def task_number(file_name: str) -> tuple[int, str] | None:
    stem = Path(file_name).stem
    head, _, rest = stem.partition("_")
    if not head.isdigit():
        return None  # e.g. 3.1_lettuce_cheeseburger: not part of the paper's data set
    return int(head), rest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", type=Path)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "tasks")
    args = parser.parse_args(argv)
    written = 0
    for folder, task_set in list(SETS.items()) + list(TRAIN.items()):
        source = args.examples / folder
        numbered_files = [(path, task_number(path.name)) for path in sorted(source.glob("*.json"))]
        # the paper's task number is k + 1 where a set's files count from 0 (sync, async, training);
        # the multi-agent files already count from 1
        first = min((n[0] for _, n in numbered_files if n), default=0)
        for path, numbered in numbered_files:
            if numbered is None:
                print(f"skipped {path.name} (not in the paper's task list)", file=sys.stderr)
                continue
            k, rest = numbered
            number = k + 1 if first == 0 else k
            train = folder in TRAIN
            target = args.out / ("train" if train else task_set) / (f"{task_set}_{rest}.json" if train else f"{number:02d}_{rest}.json")
            problem = convert(json.loads(path.read_text()), target.stem if train else f"{task_set}/{number:02d}_{rest}",
                              "training" if train else task_set)
            if task_set != "multiagent" and not train:  # multi-agent tasks take the domain's mode (any robot acts)
                stamp(problem, task_set, number)  # the paper's horizon and the reference's step cap
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(problem, indent=1) + "\n")
            written += 1
    print(f"wrote {written} tasks under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
