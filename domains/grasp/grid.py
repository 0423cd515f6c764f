"""One GRASP grid as plain Python data, and its conversions to and from problem JSON.

The engine executes GRASP problems from their JSON; the baselines, the scoring functions and the
exact oracle run 16,000 environments many times over, so they share this small, fast model of a
grid instead (tests replay plans through the engine to keep both in step). Cells are (row, col)
from the top left: UP is row - 1, LEFT is col - 1, as in the released data.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

SIZE = 11
ORTHOGONAL = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}
DIAGONAL = {"UPLEFT": (-1, -1), "UPRIGHT": (-1, 1), "DOWNLEFT": (1, -1), "DOWNRIGHT": (1, 1)}
DIRECTIONS = {**ORTHOGONAL, **DIAGONAL}
OPPOSITE = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT",
            "UPLEFT": "DOWNRIGHT", "DOWNRIGHT": "UPLEFT", "UPRIGHT": "DOWNLEFT", "DOWNLEFT": "UPRIGHT"}
NO_LIMIT = 100  # the reference code's stand-in for "no carry limit" (never reached within 20 steps)
BUDGET = 20


def cell_name(row: int, col: int) -> str:
    return f"c{row}_{col}"


def parse_cell(name: str) -> tuple[int, int]:
    row, col = name[1:].split("_")
    return int(row), int(col)


def move_names(moves: int) -> list[str]:
    """The movement set: 4 (mu1) or 8 (mu2) directions, in the reference's order."""
    return list(ORTHOGONAL) + (list(DIAGONAL) if moves == 8 else [])


@dataclass(frozen=True)
class Grid:
    """An 11x11 grid: start cell, obstacle cells, and units of energy per cell."""
    start: tuple[int, int]
    obstacles: frozenset
    energy: dict  # (row, col) -> units (> 0)

    def free(self, row: int, col: int) -> bool:
        return 0 <= row < SIZE and 0 <= col < SIZE and (row, col) not in self.obstacles

    def distances(self, source, moves: int) -> dict:
        """Shortest numbers of moves from source to every reachable free cell (BFS)."""
        steps = [DIRECTIONS[d] for d in move_names(moves)]
        dist = {source: 0}
        queue = deque([source])
        while queue:
            r, c = queue.popleft()
            for dr, dc in steps:
                nxt = (r + dr, c + dc)
                if nxt not in dist and self.free(*nxt):
                    dist[nxt] = dist[(r, c)] + 1
                    queue.append(nxt)
        return dist

    def path(self, source, target, moves: int) -> list[str]:
        """One shortest list of move names from source to target (first direction in order wins)."""
        steps = [(d, DIRECTIONS[d]) for d in move_names(moves)]
        parent = {source: None}
        queue = deque([source])
        while queue and target not in parent:
            r, c = queue.popleft()
            for name, (dr, dc) in steps:
                nxt = (r + dr, c + dc)
                if nxt not in parent and self.free(*nxt):
                    parent[nxt] = ((r, c), name)
                    queue.append(nxt)
        if target not in parent:
            raise ValueError(f"{target} is not reachable from {source}")
        out = []
        node = target
        while parent[node] is not None:
            node, name = parent[node]
            out.append(name)
        return out[::-1]


def from_text(text: str, start=None) -> Grid:
    """A grid from the released text drawing (cell (r, c) is lines[2 + 2r][4 + 4c])."""
    lines = text.strip("\n").split("\n")
    if not lines[0].startswith("    0"):
        lines = text.split("\n")
    obstacles, energy, found = set(), {}, None
    for r in range(SIZE):
        row = lines[2 + 2 * r]
        for c in range(SIZE):
            mark = row[4 + 4 * c]
            if mark == "O":
                obstacles.add((r, c))
            elif mark == "E":
                energy[(r, c)] = 1
            elif mark == "A":
                found = (r, c)
            elif mark != " ":
                raise ValueError(f"unexpected mark {mark!r} at row {r}, column {c}")
    start = tuple(start) if start is not None else found
    if found is not None and start != found:
        raise ValueError(f"the drawing puts A at {found} but the start is {start}")
    return Grid(start, frozenset(obstacles), energy)


def to_text(grid: Grid) -> str:
    """The reference's text drawing of a grid (A marks the start), one newline after every line."""
    rule = "  " + "+---" * SIZE + "+\n"
    out = ["    " + "   ".join(str(c) for c in range(SIZE)) + " \n", rule]
    for r in range(SIZE):
        marks = []
        for c in range(SIZE):
            if (r, c) == grid.start:
                marks.append("A")
            elif (r, c) in grid.obstacles:
                marks.append("O")
            elif grid.energy.get((r, c), 0) > 0:
                marks.append("E")
            else:
                marks.append(" ")
        out.append(f"{r:>2}|" + "".join(f" {m} |" for m in marks) + "\n")
        out.append(rule)
    return "".join(out)


def problem_facts(grid: Grid) -> dict:
    """The per-grid part of a problem: init facts (agent, start, obstacles) and energy values."""
    init = [["at", cell_name(*grid.start)], ["start", cell_name(*grid.start)]]
    init += [["obstacle", cell_name(*cell)] for cell in sorted(grid.obstacles)]
    values = [[["energy", cell_name(*cell)], units] for cell, units in sorted(grid.energy.items())]
    return {"init": init, "values": values}


def from_problem(data: dict) -> Grid:
    """The grid of a GRASP problem (data as loaded, header and group defaults merged)."""
    start, obstacles, energy = None, set(), {}
    for atom in data.get("init", []):
        if atom[0] == "start":
            start = parse_cell(atom[1])
        elif atom[0] == "obstacle":
            obstacles.add(parse_cell(atom[1]))
    for (fluent, *args), value in data.get("values", []):
        if fluent == "energy" and value > 0:
            energy[parse_cell(args[0])] = int(value)
    if start is None:
        raise ValueError(f"problem {data.get('name')!r} has no ['start', CELL] fact")
    return Grid(start, frozenset(obstacles), energy)


def rules(data: dict) -> dict:
    """The constraint combination of a problem: moves (4/8), carry_limit (2/100), step_cost (0/0.3)."""
    settings = data.get("settings", {})
    return {"moves": settings.get("moves", 4), "carry_limit": settings.get("carry_limit", NO_LIMIT),
            "step_cost": settings.get("step_cost", 0)}


def to_problem(grid: Grid, rules: dict, name: str = "grasp") -> dict:
    """A complete stand-alone GRASP problem (no optimum, goal: deliver at least one unit)."""
    start = cell_name(*grid.start)
    return {"groundplan": "1", "name": name, "domain": "grasp", "max_steps": BUDGET, **problem_facts(grid),
            "settings": dict(rules), "goal": {">=": [["energy", start], 1]}}
