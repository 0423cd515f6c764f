"""The exact BabyAI oracle: A* over the interpreter's own states with an admissible estimate.

The planners' A* (planners/search/) does the search and the interpreter does every step; this
module only supplies what A* cannot know about grids: a lower bound on the actions left.

The bound relaxes the grid. Walls stay; everything else may be passed at a price that never
overstates the real one: entering an empty cell or an open doorway costs 1 (forward), a cell
holding an item 2 (pick it up, then forward), a closed door 2 (toggle, then forward), a locked
door 2 as well, but only if a key of its colour can be reached at all (a fixpoint over the
relaxed grid) and never otherwise; each quarter turn costs 1. Distances to "face cell p" are
computed backwards from p once per layout of items and doors and then read in O(1).

For each mission clause not yet latched the bound is: GoTo, the distance to face a tracked
position of a matching object; Pickup, that distance to the object plus the pickup (plus a drop
when the hands are full); Open, the distance to face the door plus one toggle (two if it is
open now); PutNext, the distance to face the object, pickup, the gap between the two objects
and the drop. The estimate is the largest of these: every clause must still be done, and one
action may serve several. A clause that no object can satisfy any more (a vanished box, a door
whose key is out of reach) makes the estimate infinite, which is how unsolvable missions are
proven: A* stops at once.
"""
from __future__ import annotations

import heapq
import math

DIRS = ((1, 0), (0, 1), (-1, 0), (0, -1))


class Layout:
    """The relaxed grid of one arrangement of items and doors: entry costs, and distances."""

    def __init__(self, width: int, height: int, step: int, doors: dict, items: dict, carried_key: str | None,
                 keys_on_grid: dict, start: tuple):
        self.width, self.height, self.start = width, height, start
        cost = {}
        for x in range(width):
            for y in range(height):
                if x % step and y % step:
                    cost[(x, y)] = 1
        for (x, y) in items:
            cost[(x, y)] = 2
        locked = {}
        for pos, (is_open, is_locked, colour) in doors.items():
            if is_locked:
                locked[pos] = colour
            else:
                cost[pos] = 1 if is_open else 2
        self.cost = cost
        self._open_reachable_locks(locked, carried_key, keys_on_grid)
        self._faces: dict = {}
        self._pairs: dict = {}

    def _open_reachable_locks(self, locked: dict, carried_key, keys_on_grid: dict) -> None:
        """A locked door counts as passable (cost 2) once a key of its colour is reachable."""
        colours = {carried_key} if carried_key else set()
        self.key_colours = colours  # the colours of keys the agent can get hold of
        pending = dict(locked)
        while True:
            reach = self._reachable()
            for pos, colour in keys_on_grid.items():
                if pos in reach or any((pos[0] + dx, pos[1] + dy) in reach for dx, dy in DIRS):
                    colours.add(colour)
            opened = [pos for pos, colour in pending.items() if colour in colours]
            if not opened:
                return
            for pos in opened:
                self.cost[pos] = 2
                del pending[pos]

    def _reachable(self) -> set:
        seen, todo = {self.start}, [self.start]
        while todo:
            x, y = todo.pop()
            for dx, dy in DIRS:
                nxt = (x + dx, y + dy)
                if nxt in self.cost and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def distance(self, pose: tuple, target: tuple, guide: dict) -> float:
        """Fewest actions from `pose` to stand next to `target` facing it: A* forward from the pose,
        guided by `guide`, the same distances on the open grid (every door open, every item gone).
        Entering a cell never costs less here than there, so the guide is consistent and the first
        pose that faces the target is reached by a cheapest path; this visits a few dozen poses
        where a whole backward table would visit every pose of the grid."""
        key = (pose, target)
        found = self._pairs.get(key)
        if found is not None:
            return found
        h0 = guide.get(pose)
        if h0 is None:
            self._pairs[key] = math.inf
            return math.inf
        cost = self.cost
        tx, ty = target
        best = {pose: 0}
        heap = [(h0, 0, pose)]  # (f, -g, pose): among equal f, the deepest first
        found = math.inf
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            _, g, node = pop(heap)
            g = -g
            if g > best[node]:
                continue
            x, y, d = node
            dx, dy = DIRS[d]
            nx, ny = x + dx, y + dy
            if nx == tx and ny == ty:
                found = g
                break
            moves = [((x, y, (d + 1) % 4), g + 1), ((x, y, (d + 3) % 4), g + 1)]
            step = cost.get((nx, ny))
            if step:
                moves.append(((nx, ny, d), g + step))
            for nxt, g2 in moves:
                if g2 >= best.get(nxt, math.inf):
                    continue
                h = guide.get(nxt)
                if h is None:
                    continue
                best[nxt] = g2
                push(heap, (g2 + h, -g2, nxt))
        self._pairs[key] = found
        return found

    def to_face(self, target: tuple) -> dict:
        """{(x, y, dir): fewest actions to stand next to `target` facing it} (backward Dijkstra)."""
        table = self._faces.get(target)
        if table is not None:
            return table
        dist: dict = {}
        heap = []
        for d, (dx, dy) in enumerate(DIRS):
            stand = (target[0] - dx, target[1] - dy)
            if stand in self.cost:
                heap.append((0, stand[0], stand[1], d))
        heapq.heapify(heap)
        cost = self.cost
        while heap:
            g, x, y, d = heapq.heappop(heap)
            if (x, y, d) in dist:
                continue
            dist[(x, y, d)] = g
            # predecessors: a turn from d-1 or d+1 in the same cell, or a forward from behind
            for nd in ((d + 1) % 4, (d + 3) % 4):
                if (x, y, nd) not in dist:
                    heapq.heappush(heap, (g + 1, x, y, nd))
            dx, dy = DIRS[d]
            back = (x - dx, y - dy)
            if back in cost and (back[0], back[1], d) not in dist:
                heapq.heappush(heap, (g + cost[(x, y)], back[0], back[1], d))
        self._faces[target] = dist
        return dist


class Estimate:
    """An admissible heuristic for A* (planners.search.best_first) on one BabyAI task."""

    name = "babyai-relaxed-grid"
    admissible = True

    def __init__(self, task):
        self.task = task
        settings = task.settings
        self.step = int(settings["room_size"]) - 1
        self.width = self.step * int(settings["num_cols"]) + 1
        self.height = self.step * int(settings["num_rows"]) + 1
        objects = task.problem.objects
        self.doors = [o for o, t in objects.items() if t == "door"]
        self.items = [o for o, t in objects.items() if t in ("key", "ball", "box")]
        self.colour = {args[0]: args[1] for pred, args in task.problem.init if pred == "color"}
        self.kind = dict(objects)
        self.mission = _mission(task.problem.raw["goal"], task.goal.tree)
        self._loose: dict = {}
        self._layouts: dict = {}
        self._index = {}
        self._regions: dict = {}
        self._open_grid: Layout | None = None
        self._open_faces: dict = {}
        self._door_grids: dict = {}

    def _v0(self, fluent, obj):
        """A value in the initial state (doors never move)."""
        return self._v(self.task.initial_state(), fluent, obj)

    def _v(self, state, fluent, obj=None):
        key = (fluent, (obj,) if obj else ())
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = self.task.fluent_index(key)
        values = state.values
        return values[i] if i < len(values) else self.task.fluent_defaults[i]

    def layout(self, state) -> Layout:
        holds = self.task.atom_holds
        items = {}
        carried = None
        for o in self.items:
            x = self._v(state, "x", o)
            if x >= 0:
                items[(x, self._v(state, "y", o))] = o
            elif holds(state, "carrying", (o,)):
                carried = o
        doors = {}
        for d in self.doors:
            doors[(self._v(state, "x", d), self._v(state, "y", d))] = (
                holds(state, "open", (d,)), holds(state, "locked", (d,)), self.colour[d])
        agent = (self._v(state, "agent-x"), self._v(state, "agent-y"))
        locked = frozenset(p for p, s in doors.items() if s[1])
        # which keys can be reached depends only on the part of the grid the agent is in
        key = (tuple(sorted(items)), tuple(sorted((p, s[0], s[1]) for p, s in doors.items())), carried,
               self._region(agent, locked) if locked else None)
        found = self._layouts.get(key)
        if found is None:
            carried_key = self.colour[carried] if carried and self.kind[carried] == "key" else None
            keys = {p: self.colour[o] for p, o in items.items() if self.kind[o] == "key"}
            found = Layout(self.width, self.height, self.step, doors, items, carried_key, keys, agent)
            found.guide = self._door_grid(doors)
            if len(self._layouts) > 4096:
                self._layouts.clear()
            self._layouts[key] = found
        return found

    def _door_grid(self, doors: dict) -> Layout:
        """The layout with these doors and no items, a locked door costing 2 like a closed one:
        nowhere dearer than the real layout, so its distances guide that layout's searches. Doors
        change far less often than items, so its backward tables are computed once and reused."""
        key = tuple(sorted((p, s[0] and not s[1]) for p, s in doors.items()))
        found = self._door_grids.get(key)
        if found is None:
            unlocked = {p: (s[0] and not s[1], False, s[2]) for p, s in doors.items()}
            found = Layout(self.width, self.height, self.step, unlocked, {}, None, {}, (1, 1))
            if len(self._door_grids) > 256:
                self._door_grids.clear()
            self._door_grids[key] = found
        return found

    def _region(self, agent: tuple, locked: frozenset) -> tuple:
        """The first cell (in sorted order) of the part of the grid the agent can walk to with
        the locked doors shut and everything else passable: a name for that part."""
        regions = self._regions
        found = regions.get((locked, agent))
        if found is None:
            step = self.step
            doors = {(self._v0("x", d), self._v0("y", d)) for d in self.doors}
            seen, todo = {agent}, [agent]
            while todo:
                x, y = todo.pop()
                for dx, dy in DIRS:
                    nxt = (x + dx, y + dy)
                    if nxt in seen or nxt in locked or not (0 < nxt[0] < self.width - 1 and 0 < nxt[1] < self.height - 1):
                        continue
                    if (nxt[0] % step and nxt[1] % step) or nxt in doors:
                        seen.add(nxt)
                        todo.append(nxt)
            found = min(seen)
            for cell in seen:
                regions[(locked, cell)] = found
        return found

    def __call__(self, state) -> float:
        if self.task.is_dead(state):
            return math.inf
        if self.task.is_goal(state):  # a one-clause mission has no latch that says it is done
            return 0
        layout = self.layout(state)
        pose = (self._v(state, "agent-x"), self._v(state, "agent-y"), self._v(state, "dir"))
        bound, _ = self._bound(self.mission, state, layout, pose)
        return bound

    def _bound(self, node, state, layout, pose) -> tuple[float, list | None]:
        """(lower bound on the actions `node` still needs, the steps of what is left) where the
        steps are [(cells, action cost), ...]: stand facing one of the cells, then act."""
        if isinstance(node, Clause):
            if node.done_bit and state.progress & node.done_bit:
                return 0, None
            return node.bound(self, state, layout, pose), node.steps(self, state)
        kind, parts = node
        found = [self._bound(part, state, layout, pose) for part in parts]
        todo = [(b, steps) for b, steps in found if steps is not None]
        if not todo:
            return 0, None
        if kind == "seq":
            (first, steps), rest = todo[0], [steps for _, steps in todo[1:]]
            bound = first
            for later in rest:  # each later part after the one before it, over the loose grid
                bound += self._chain(steps, later)
                steps = later
            return max(bound, max(b for b, _ in todo)), steps
        if len(todo) == 2:
            (ba, sa), (bb, sb) = todo
            bound = max(ba, bb, min(ba + self._chain(sa, sb), bb + self._chain(sb, sa)))
            return bound, [(sa[-1][0] | sb[-1][0], 0)]
        return max(b for b, _ in todo), [(frozenset().union(*(s[-1][0] for _, s in todo)), 0)]

    def _chain(self, done: list, steps: list) -> float:
        """Fewest actions for `steps` after `done`'s last step, over the loose grid."""
        cells, total = done[-1][0], 0
        for target, action in steps:
            total += self._hop(cells, target) + action
            cells = target
        return total

    def _hop(self, start: frozenset, target: frozenset) -> float:
        """From facing one of `start` to facing one of `target`, every non-wall cell passable."""
        if not start or not target:
            return 0  # a carried or untracked object: it could end up anywhere
        key = (start, target)
        found = self._loose.get(key)
        if found is None:
            table = self._loose_table(target)
            found = math.inf
            for x, y in start:
                for d, (dx, dy) in enumerate(DIRS):
                    found = min(found, table.get((x - dx, y - dy, d), math.inf))
            self._loose[key] = found
        return found

    def _loose_table(self, target: frozenset) -> dict:
        table = self._loose.get(target)
        if table is None:
            table = {}
            for cell in target:
                for pose, g in self._open_table(cell).items():
                    if g < table.get(pose, math.inf):
                        table[pose] = g
            self._loose[target] = table
        return table

    def face(self, layout, pose, target) -> float:
        if target[0] < 0:
            return math.inf
        return layout.distance(pose, target, layout.guide.to_face(target))

    def _open_table(self, target: tuple) -> dict:
        """{pose: fewest actions to face `target`} on the open grid (every door open, every item
        gone): a lower bound on the same distance in any layout, computed once per target."""
        table = self._open_faces.get(target)
        if table is None:
            table = self._open_faces[target] = self._open().to_face(target)
        return table

    def _open(self) -> Layout:
        if self._open_grid is None:  # every door open, every item gone
            doors = {(self._v0("x", d), self._v0("y", d)): (True, False, self.colour[d]) for d in self.doors}
            self._open_grid = Layout(self.width, self.height, self.step, doors, {}, None, {}, (1, 1))
        return self._open_grid

    def keys_of(self, state, colour: str) -> list[tuple]:
        """Cells of the keys of `colour` lying on the grid."""
        return [(self._v(state, "x", o), self._v(state, "y", o)) for o in self.items
                if self.kind[o] == "key" and self.colour[o] == colour and self._v(state, "x", o) >= 0]

    def carrying(self, state):
        for o in self.items:
            if self.task.atom_holds(state, "carrying", (o,)):
                return o
        return None


class Clause:
    """One mission clause, its candidate objects and the latch that marks it done."""

    def __init__(self, kind: str, objects: list, fixed: list | None = None, done_bit: int = 0):
        self.kind, self.objects, self.fixed, self.done_bit = kind, objects, fixed or [], done_bit

    def steps(self, est: Estimate, state) -> list:
        """[(cells to face, action cost)] the clause needs from where it starts."""
        v = est._v

        def cells(objects, axis=("x", "y")):
            found = frozenset((v(state, axis[0], o), v(state, axis[1], o)) for o in objects)
            return frozenset(c for c in found if c[0] >= 0)

        if self.kind == "goto":
            return [(cells(self.objects, ("tx", "ty")), 0)]
        if self.kind in ("open", "pickup"):
            return [(cells(self.objects), 1)]
        near = frozenset((x + dx, y + dy) for x, y in cells(self.fixed, ("tx", "ty")) for dx, dy in DIRS)
        return [(cells(self.objects), 1), (near, 1)]

    def bound(self, est: Estimate, state, layout: Layout, pose) -> float:
        v = est._v
        if self.kind == "goto":
            best = math.inf
            for o in self.objects:
                tx = v(state, "tx", o)
                if tx < 0:
                    on_grid = v(state, "x", o) >= 0 or est.task.atom_holds(state, "carrying", (o,))
                    best = min(best, 1 if on_grid else math.inf)  # a drop must refresh its position first
                else:
                    best = min(best, est.face(layout, pose, (tx, v(state, "ty", o))))
            return best
        held = est.carrying(state)
        if self.kind == "open":
            best = math.inf
            for d in self.objects:
                if est.task.atom_holds(state, "locked", (d,)) and est.colour[d] not in layout.key_colours:
                    continue  # no key of its colour can be reached: this door stays shut
                door = (v(state, "x", d), v(state, "y", d))
                extra = 2 if est.task.atom_holds(state, "open", (d,)) else 1
                if est.task.atom_holds(state, "locked", (d,)) and (held is None or est.colour[held] != est.colour[d]
                                                                  or est.kind[held] != "key"):
                    # fetch a key of its colour first: reach it, pick it up, carry it to the door
                    extra += min((est.face(layout, pose, key) + 1 + (1 if held else 0)
                                  + est._hop(frozenset({key}), frozenset({door}))
                                  for key in est.keys_of(state, est.colour[d])), default=math.inf)
                    best = min(best, extra)
                    continue
                best = min(best, est.face(layout, pose, door) + extra)
            return best
        if self.kind == "pickup":
            best = math.inf
            for o in self.objects:
                if held == o:
                    best = min(best, 2)  # drop it, pick it up again
                elif v(state, "x", o) >= 0:
                    extra = 1 + (1 if held else 0)
                    best = min(best, est.face(layout, pose, (v(state, "x", o), v(state, "y", o))) + extra)
            return best
        # putnext
        best = math.inf
        near = [(x + dx, y + dy) for b in self.fixed if v(state, "tx", b) >= 0
                for x, y in [(v(state, "tx", b), v(state, "ty", b))] for dx, dy in DIRS]
        for a in self.objects:
            if held == a:
                best = min(best, min((est.face(layout, pose, q) for q in near), default=0) + 1)
                continue
            ax = v(state, "x", a)
            if ax < 0:
                continue
            ay = v(state, "y", a)
            reach = est.face(layout, pose, (ax, ay))
            if reach == math.inf:
                continue
            carry = est._hop(frozenset({(ax, ay)}), frozenset(near))  # from where it was picked up
            best = min(best, reach + 1 + carry + 1 + (1 if held else 0))
        return best


def _mission(goal, tree):
    """The goal JSON walked beside the goal tracker's tree: nested ("seq" | "and", parts) nodes
    over Clause leaves, each leaf paired with the latch bit that marks it done."""

    def walk(g, node, bit):
        if node is None:  # a plain formula goal: no latches
            return Clause(*_classify(g), done_bit=0)
        kind, bits, body = node
        if kind == "sequence":
            return ("seq", [walk(part, sub, b) for part, sub, b in zip(g["sequence"], body, bits)])
        if kind == "all":
            return ("and", [walk(part, sub, 0) for part, sub in zip(g["all"], body)])
        if kind == "eventually":
            return walk(g.get("eventually", g) if isinstance(g, dict) else g, body, bits)
        if kind == "later":
            return walk(g["later"], body, bits[1])
        return Clause(*_classify(g), done_bit=bit)

    return walk(goal, tree, 0)


def _classify(formula) -> tuple[str, list, list]:
    """(kind, candidate objects, fixed objects) of a clause written by convert.mission_goal."""
    parts = formula["or"] if isinstance(formula, dict) and "or" in formula else [formula]
    first = parts[0]
    if isinstance(first, list):
        kind = {"opened": "open", "picked": "pickup"}[first[0]]
        return kind, [p[1] for p in parts], []
    conj = first["and"]
    if isinstance(conj[0], list) and conj[0][0] == "dropped":
        moving = [p["and"][0][1] for p in parts]
        inner = conj[1]
        options = inner["or"] if isinstance(inner, dict) and "or" in inner else [inner]
        fixed = [o["="][0]["+"][0]["abs"]["-"][1][1] for o in options]
        return "putnext", moving, fixed
    return "goto", [p["and"][0]["="][0][1] for p in parts], []


def solve(task, time_limit: float | None = 60.0, memory_limit: float | None = None):
    """The optimal plan of a BabyAI task (a PlanResult with the planners' status vocabulary)."""
    from groundplan.planners.search import best_first

    return best_first(task, heuristic=Estimate(task), planner="babyai-astar", time_limit=time_limit,
                      memory_limit=memory_limit)
