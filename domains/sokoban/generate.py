"""Sokoban problems from the usual text maps, so a level is written as it is drawn.

    python -m domains.sokoban.generate MAP_FILE NAME [--inline-goal] > problems/sokoban/NAME.json

A map is rows of characters: '#' wall, ' ' floor, '@' the player, '$' a box, '.' a goal cell,
'*' a box on a goal cell, '+' the player on a goal cell. Walls are not cells (nothing is adjacent
to them), so the grid need not be rectangular. `--inline-goal` writes the goal without the
derived predicate `on-goal` (each box on some goal cell, spelled out): the same problem, kept to
check that heuristics see through derived predicates as well as through the formula itself.
"""
from __future__ import annotations

import argparse
import json
import sys

STEPS = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}


def problem(rows: list[str], name: str, inline_goal: bool = False, description: str = "") -> dict:
    cells, boxes, goals, player = {}, [], [], None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "#":
                continue
            cell = f"c{r}_{c}"
            cells[(r, c)] = cell
            if ch in "$*":
                boxes.append(cell)
            if ch in ".*+":
                goals.append(cell)
            if ch in "@+":
                player = cell
    if player is None or not boxes or len(goals) < len(boxes):
        raise ValueError("a map needs a player ('@' or '+'), a box and at least as many goal cells as boxes")
    objects = {cell: "cell" for cell in cells.values()}
    box_names = [f"box{i + 1}" for i in range(len(boxes))]
    objects.update({b: "box" for b in box_names})
    init = [["player-at", player]] + [["box-at", b, cell] for b, cell in zip(box_names, boxes)]
    init += [["goal-cell", g] for g in goals]
    init += [["clear", cell] for cell in cells.values() if cell not in boxes]
    for (r, c), cell in cells.items():
        for d, (dr, dc) in STEPS.items():
            other = cells.get((r + dr, c + dc))
            if other is not None:
                init.append(["adjacent", cell, other, d])
    if inline_goal:
        goal = {"and": [{"exists": [["?c", "cell"]], "formula": {"and": [["box-at", b, "?c"], ["goal-cell", "?c"]]}}
                        for b in box_names]}
    else:
        goal = {"and": [["on-goal", b] for b in box_names]}
    return {"groundplan": "1", "name": name, "domain": "sokoban",
            "description": description or f"A Sokoban level with {len(boxes)} boxes on {len(cells)} floor cells.",
            "objects": objects, "init": init, "goal": goal,
            "goal_text": "Push every box onto a goal cell.",
            "metadata": {"map": rows}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("map", help="a text file with the level")
    parser.add_argument("name")
    parser.add_argument("--inline-goal", action="store_true")
    args = parser.parse_args(argv)
    with open(args.map) as f:
        rows = [line.rstrip("\n") for line in f if line.strip("\n")]
    json.dump(problem(rows, args.name, args.inline_goal), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
