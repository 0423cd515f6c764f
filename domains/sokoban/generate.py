"""Sokoban problems from the usual text maps, so a level is written as it is drawn.

    groundplan generate sokoban MAP_FILE NAME [--inline-goal] [--out problems/sokoban/NAME.json]
    python -m groundplan.domains.sokoban.generate MAP_FILE NAME [--inline-goal] [--out ...]   (the same)

A map is rows of characters: '#' wall, ' ' (or '-' or '_') floor, '@' the player, '$' a box,
'.' a goal cell, '*' a box on a goal cell, '+' the player on a goal cell. Cell c<row>_<col> is
the character in row <row>, column <col> of the file (row 0 is the first line, the northern
edge). Walls are not cells (nothing is adjacent to them), so the grid need not be rectangular or
enclosed; floor the player cannot reach at all, even by walking through boxes (the blank
outside a walled level), is dropped, so a level copied from a collection works as it is. Blank
lines are skipped.

`--inline-goal` writes the goal without the derived predicate `on-goal` (each box on some goal
cell, spelled out): the same problem, kept to check that heuristics see through derived
predicates as well as through the formula itself.

Nothing is random: a map always yields the same problem. The problem records the map (under
`metadata.map`) and, when written with --out, the command that made it (`metadata.generator`).
It does not record an optimum; prove one with `groundplan plan PROBLEM --store`.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

STEPS = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
FLOOR = " -_"
KNOWN = "#@+$*." + FLOOR


def _reachable(rows: list[str], start: tuple[int, int]) -> set[tuple[int, int]]:
    """Squares connected to the player's through non-wall squares (boxes do not block: they move)."""
    def free(r: int, c: int) -> bool:
        return 0 <= r < len(rows) and 0 <= c < len(rows[r]) and rows[r][c] != "#"

    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for dr, dc in STEPS.values():
            nxt = (r + dr, c + dc)
            if nxt not in seen and free(*nxt):
                seen.add(nxt)
                todo.append(nxt)
    return seen


def problem(rows: list[str], name: str, inline_goal: bool = False, description: str = "") -> dict:
    """The problem of one map as plain data (see the module docstring)."""
    players = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "@+"]
    unknown = sorted({ch for row in rows for ch in row if ch not in KNOWN})
    if unknown:
        raise ValueError(f"unknown map character(s) {', '.join(map(repr, unknown))}; use {KNOWN!r}")
    if len(players) != 1:
        raise ValueError(f"a map needs exactly one player ('@' or '+'), found {len(players)}")
    region = _reachable(rows, players[0])
    cells, boxes, goals, player = {}, [], [], None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "#" or (r, c) not in region:
                if ch in "$*.":
                    raise ValueError(f"the box or goal at row {r}, column {c} is walled off from the player")
                continue
            cell = f"c{r}_{c}"
            cells[(r, c)] = cell
            if ch in "$*":
                boxes.append(cell)
            if ch in ".*+":
                goals.append(cell)
            if ch in "@+":
                player = cell
    if not boxes or len(goals) < len(boxes):
        raise ValueError("a map needs a box and at least as many goal cells as boxes")
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
    count = f"{len(boxes)} box" if len(boxes) == 1 else f"{len(boxes)} boxes"
    return {"groundplan": "1", "name": name, "domain": "sokoban",
            "description": description or f"A Sokoban level with {count} on {len(cells)} floor cells.",
            "objects": objects, "init": init, "goal": goal,
            "goal_text": "Push every box onto a goal cell.",
            "metadata": {"map": rows}}


def read_map(path: str) -> list[str]:
    """The rows of a map file, blank lines left out (trailing spaces are floor and are kept)."""
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\r\n") for line in f if line.strip("\r\n")]


def dumps(data: dict) -> str:
    """The problem in the layout every generated problem shares (engine.layout).

    `groundplan plan --store` rewrites a file in its own layout; `--reformat` puts it back."""
    from groundplan.engine.layout import dumps_problem

    return dumps_problem(data)


def reformat(path: str) -> None:
    """Rewrite a problem file in this module's layout, its content unchanged."""
    file = Path(path)
    file.write_text(dumps(json.loads(file.read_text(encoding="utf-8"))), encoding="utf-8")


def main(argv=None) -> int:
    """The entry point of `groundplan generate sokoban` (argv: the words after the world's name)."""
    parser = argparse.ArgumentParser(prog="groundplan generate sokoban", description=__doc__.splitlines()[0])
    parser.add_argument("map", nargs="?", help="a text file with the level")
    parser.add_argument("name", nargs="?", help="the problem's name")
    parser.add_argument("--inline-goal", action="store_true", help="spell the goal out instead of using on-goal")
    parser.add_argument("--description", default="", help="the problem's description (default: its size)")
    parser.add_argument("--out", help="output file (default: standard output)")
    parser.add_argument("--reformat", nargs="+", metavar="PROBLEM",
                        help="instead: rewrite these problem files one fact a line (after `groundplan plan --store`)")
    args = parser.parse_args(argv)
    if args.reformat:
        for path in args.reformat:
            try:
                reformat(path)
            except (OSError, ValueError) as exc:
                parser.error(f"{path}: {exc}")
        return 0
    if not (args.map and args.name):
        parser.error("give a MAP file and a NAME (or --reformat PROBLEM ...)")
    try:
        data = problem(read_map(args.map), args.name, args.inline_goal, args.description)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    if args.out:
        words = ["groundplan", "generate", "sokoban", args.map, args.name] + (["--inline-goal"] if args.inline_goal else [])
        words += ["--description", args.description] if args.description else []
        data["metadata"]["generator"] = shlex.join(words + ["--out", args.out])
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(dumps(data), encoding="utf-8")
    else:
        sys.stdout.write(dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
