"""Deterministic generator of gridnav problems: an NxN grid with K obstacles, a start and a target.

    python -m groundplan.domains.gridnav.generate --size 32 --obstacles 180 --seed 0 --out problems/gridnav/room32-180.json

Everything is drawn from one `random.Random(seed)`: first the K distinct obstacle cells, then the
start and the target (two distinct free cells). If the target cannot be reached from the start, or
its shortest path is shorter than --min-distance moves (default: the grid side N, so a problem is
never a trivial hop), the next draw from the same generator is used; a given (size, obstacles,
seed, min-distance) always yields the same problem. The problem records the command that made
it, the draw that was kept, an ASCII map, and the optimal plan length (a breadth-first search
over the grid; every move costs 1).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import deque
from pathlib import Path

# direction -> (row step, column step); row 0 is the northern edge, column 0 the western edge
DIRECTIONS = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
MAX_DRAWS = 1000


def cell(row: int, col: int) -> str:
    return f"c{row}_{col}"


def neighbours(size: int, row: int, col: int):
    for direction, (dr, dc) in DIRECTIONS.items():
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size:
            yield direction, r, c


def shortest_path(size: int, blocked: set, start: tuple, target: tuple) -> int | None:
    """Number of moves from start to target avoiding blocked cells, or None if unreachable."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == target:
            return dist[here]
        for _, r, c in neighbours(size, *here):
            if (r, c) not in blocked and (r, c) not in dist:
                dist[(r, c)] = dist[here] + 1
                queue.append((r, c))
    return None


def draw(size: int, obstacles: int, seed: int, min_distance: int | None = None):
    """(blocked cells, start, target, distance, draw number) for the first acceptable draw."""
    min_distance = size if min_distance is None else min_distance
    if size < 2:
        raise ValueError("the grid needs at least 2x2 cells")
    if not 0 <= obstacles <= size * size - 2:
        raise ValueError(f"obstacles must be between 0 and {size * size - 2} for a {size}x{size} grid")
    if not 1 <= min_distance <= 2 * (size - 1):
        raise ValueError(f"min-distance must be between 1 and {2 * (size - 1)} for a {size}x{size} grid")
    rng = random.Random(seed)
    cells = [(r, c) for r in range(size) for c in range(size)]
    for attempt in range(1, MAX_DRAWS + 1):
        blocked = set(rng.sample(cells, obstacles))
        free = [x for x in cells if x not in blocked]
        start, target = rng.sample(free, 2)
        distance = shortest_path(size, blocked, start, target)
        if distance is not None and distance >= min_distance:
            return blocked, start, target, distance, attempt
    raise RuntimeError(f"no solvable draw with a path of at least {min_distance} moves in {MAX_DRAWS} attempts; "
                       "use fewer obstacles or a smaller --min-distance")


def ascii_map(size: int, blocked: set, start: tuple, target: tuple) -> list[str]:
    rows = []
    for r in range(size):
        line = []
        for c in range(size):
            line.append("S" if (r, c) == start else "T" if (r, c) == target else "#" if (r, c) in blocked else ".")
        rows.append("".join(line))
    return rows


def command_line(size: int, obstacles: int, seed: int, min_distance: int, name: str | None, out: str | None) -> str:
    cmd = f"python -m groundplan.domains.gridnav.generate --size {size} --obstacles {obstacles} --seed {seed} --min-distance {min_distance}"
    cmd += f" --name {name}" if name else ""
    return cmd + (f" --out {out}" if out else "")


def generate(size: int, obstacles: int, seed: int, min_distance: int | None = None, name: str | None = None,
             out: str | None = None) -> dict:
    """The problem as plain data (see the module docstring)."""
    min_distance = size if min_distance is None else min_distance
    blocked, start, target, distance, attempt = draw(size, obstacles, seed, min_distance)
    command = command_line(size, obstacles, seed, min_distance, name, out)
    name = name or f"room{size}-{obstacles}"
    objects = {cell(r, c): "cell" for r in range(size) for c in range(size)}
    init = [["robot-at", cell(*start)]]
    init += [["free", cell(r, c)] for r in range(size) for c in range(size) if (r, c) not in blocked]
    init += [["adjacent", cell(r, c), cell(r2, c2), d]
             for r in range(size) for c in range(size) for d, r2, c2 in neighbours(size, r, c)]
    return {
        "groundplan": "1",
        "name": name,
        "domain": "gridnav",
        "description": (f"A {size}x{size} grid with {obstacles} obstacle cells. The robot starts at {cell(*start)} "
                        f"and must reach {cell(*target)}."),
        "objects": objects,
        "init": init,
        "goal": ["robot-at", cell(*target)],
        "goal_text": f"Get the robot to {cell(*target)}.",
        "optimal": {"cost": distance, "method": "breadth-first search over the grid in domains/gridnav/generate.py"},
        "metadata": {
            "generator": command,
            "size": size, "obstacles": obstacles, "seed": seed, "min_distance": min_distance, "draw": attempt,
            "start": cell(*start), "target": cell(*target),
            "legend": "row 0 is north, column 0 is west; S start, T target, # obstacle, . free",
            "map": ascii_map(size, blocked, start, target),
        },
    }


def dumps(problem: dict) -> str:
    """JSON with one init fact per line and one map row per line, for readable diffs."""
    out = []
    for key, value in problem.items():
        if key == "init":
            body = ",\n    ".join(json.dumps(f) for f in value)
            out.append(f'  "init": [\n    {body}\n  ]')
        elif key == "metadata":
            parts = []
            for k, v in value.items():
                if k == "map":
                    rows = ",\n      ".join(json.dumps(row) for row in v)
                    parts.append(f'    "map": [\n      {rows}\n    ]')
                else:
                    parts.append(f"    {json.dumps(k)}: {json.dumps(v)}")
            out.append('  "metadata": {\n' + ",\n".join(parts) + "\n  }")
        else:
            out.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(out) + "\n}\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m groundplan.domains.gridnav.generate", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, required=True, help="grid side N (N x N cells)")
    parser.add_argument("--obstacles", type=int, required=True, help="number K of distinct obstacle cells")
    parser.add_argument("--seed", type=int, default=0, help="seed of random.Random (default 0)")
    parser.add_argument("--min-distance", type=int, help="least number of moves from start to target (default N)")
    parser.add_argument("--name", help="problem name (default room<N>-<K>)")
    parser.add_argument("--out", help="output file (default: standard output)")
    args = parser.parse_args(argv)
    try:
        problem = generate(args.size, args.obstacles, args.seed, args.min_distance, args.name, args.out)
    except (ValueError, RuntimeError) as exc:
        parser.error(str(exc))
    text = dumps(problem)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
