"""Grid geometry of PPNL: moves, breadth-first distances and the two tie-breaks for paths.

The interpreter (domain.json) is the authority on what a move does; this module exists because
the data sets need tens of thousands of shortest paths, and a direct breadth-first search on a
36-cell grid is thousands of times faster than a search over interpreter states. The tests
check it against the interpreter and the generic planners.

Cells are (row, col) with (0, 0) in the upper-left corner: up is row - 1, down row + 1, left
col - 1, right col + 1.

Tie-breaks (which of several shortest paths is *the* ground-truth string):
- `ours` (default): the lexicographically smallest move sequence in the order up < down <
  left < right, i.e. at every step the first move in that order that keeps the path shortest;
- `reference`: a re-implementation, from the description in the benchmark's notes, of the
  released generator's A*: the priority pushed for a child is the parent's priority + 1 + the
  child's Manhattan distance to the goal (the heuristic accumulates), equal priorities go to the
  smaller (row, col), then to the path whose list of cells is smaller, and neighbours are tried
  up, down, left, right.
  It is not always shortest on large grids, so it is used only for the plan string, never for
  the optimal cost.
"""
from __future__ import annotations

import heapq
from collections import deque

MOVES = (("up", -1, 0), ("down", 1, 0), ("left", 0, -1), ("right", 0, 1))
TIE_BREAKS = ("ours", "reference")


def neighbours(size: int, blocked, cell):
    """(move, next cell) for every move that stays on the grid and off obstacles, in MOVES order."""
    r, c = cell
    for name, dr, dc in MOVES:
        nr, nc = r + dr, c + dc
        if 0 <= nr < size and 0 <= nc < size and (nr, nc) not in blocked:
            yield name, (nr, nc)


def distances(size: int, blocked, source) -> dict:
    """Breadth-first distance (in moves) from `source` to every cell reachable from it."""
    dist = {source: 0}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        for _, there in neighbours(size, blocked, here):
            if there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


def shortest_path(size: int, blocked, start, goal, tie_break: str = "ours") -> list[str] | None:
    """The move names of the tie-break's path from start to goal, or None if goal is unreachable."""
    if tie_break == "reference":
        return _reference_astar(size, blocked, start, goal)
    if tie_break != "ours":
        raise ValueError(f"unknown tie-break '{tie_break}' (choose from {', '.join(TIE_BREAKS)})")
    to_goal = distances(size, blocked, goal)  # moves are reversible: distance to goal = distance from goal
    if start not in to_goal:
        return None
    moves, here = [], start
    while here != goal:
        for name, there in neighbours(size, blocked, here):
            if to_goal.get(there) == to_goal[here] - 1:
                moves.append(name)
                here = there
                break
    return moves


def _reference_astar(size, blocked, start, goal):
    """The released generator's A*: its heap entries are (priority, cell, cells so far), so equal
    priorities at one cell go to the path whose cells come first ((row, col) order, cell by
    cell), not to the alphabetically first move names (which matched 2,155 of 5,857 released
    strings; comparing cells matches all of them)."""
    def h(cell):
        return abs(cell[0] - goal[0]) + abs(cell[1] - goal[1])

    heap = [(h(start), start, (start,))]
    closed = set()
    while heap:
        priority, here, cells = heapq.heappop(heap)
        if here in closed:
            continue
        closed.add(here)
        if here == goal:
            return moves_between(cells)
        for _, there in neighbours(size, blocked, here):
            if there not in closed:
                heapq.heappush(heap, (priority + 1 + h(there), there, cells + (there,)))
    return None


def moves_between(cells) -> list[str]:
    """The move names that walk through consecutive cells."""
    names = {(dr, dc): name for name, dr, dc in MOVES}
    return [names[(b[0] - a[0], b[1] - a[1])] for a, b in zip(cells, cells[1:])]


def follow(size: int, blocked, start, moves):
    """Replay moves from start: (cells visited, index of the first illegal move or None)."""
    cells, here = [start], start
    for i, move in enumerate(moves):
        step = next(((dr, dc) for name, dr, dc in MOVES if name == move), None)
        if step is None:
            return cells, i
        there = (here[0] + step[0], here[1] + step[1])
        if not (0 <= there[0] < size and 0 <= there[1] < size) or there in blocked:
            return cells, i
        cells.append(there)
        here = there
    return cells, None
