"""The exact BabyAI oracle: A* over the interpreter's own states with an admissible estimate.

The planners' A* (planners/search/) does the search and the interpreter does every step; this
module only supplies what A* cannot know about grids: a lower bound on the actions left.

The bound relaxes the grid. Walls stay; everything else may be passed at a price that never
overstates the real one: entering an empty cell or an open doorway costs 1 (forward), a cell
holding an item 2 (pick it up, then forward), a closed door 2 (toggle, then forward), a locked
door 2 as well, but only if a key of its colour can be reached at all (a fixpoint over the
relaxed grid) and never otherwise; each quarter turn costs 1. Distances to "face cell p" are
searched forward from the agent's pose (A* guided by the same distances with every item gone,
computed once per arrangement of doors). Where a key is needed first (a locked door to open, or
every cell of the target lies beyond locked doors), the distance is that of the trip via a key
of such a colour (Layout.detour).

The estimate is the larger of two bounds. Each pending clause alone: GoTo, the distance to face
its object; Pickup, that plus the pickup (plus a drop when the hands are full); Open, the
distance to face the door (via a key if it is locked) plus its toggle (two if it is open now);
PutNext, the least of carrying the object next to where the other lies now and of fetching
both. And the clauses together (Estimate._ordered): every clause has events, moments the agent
faces given cells (a door clause's completing step; an item's first facing of the cell it lies
in now, which no plan can skip, and its completion where it was not moved first); a sequence
orders the completions of its parts, and the bound is the fewest moves through the events in
any order they can take, plus the toggles, pick ups and drops the clauses need, plus (for the
same moves over the open grid) the shut doors the trip must open (a group Steiner tree over
the rooms). A clause that no object can satisfy any more (a vanished box, a door whose key is
out of reach) makes the estimate infinite, which is how unsolvable missions are proven: A*
stops at once. tests/test_babyai_oracle.py checks the estimate against breadth-first optima on
tiny random worlds.
"""
from __future__ import annotations

import heapq
import math
from itertools import combinations, product

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
        self.locked = locked  # {cell: colour} of the locked doors
        self.closed = {pos for pos, (is_open, is_locked, _) in doors.items() if not is_open and not is_locked}
        self.items = set(items)
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

    def detour(self, pose: tuple, keys: frozenset, colours: frozenset, targets: frozenset, extra: int,
               guide_key: dict, guide_target: dict) -> float:
        """Fewest actions from `pose` to face one of `keys` (a key of one of `colours`), pick it up
        (1, plus `extra` for emptying the hands first), then face one of `targets`.

        A* over (pose, holding a key yet?) on this layout with two changes that keep it a lower
        bound over the whole trip: before the key, a locked door of those colours cannot be
        passed; a door that is not open costs 1.5 to enter before and after the key (its one
        toggle, shared between the trips, plus a forward for each); an item still costs 2 (the
        pick up it takes to clear, and a drop before the key can be held or a forward after
        it; after the key, the cells of such keys cost 1, as the one taken may be there). `guide_key` ([(open-grid table to face a key, what is left after it)]) and
        `guide_target` (the open-grid table to face a target) are consistent: every step here
        costs at least as much as on the open grid."""
        key = ("detour", pose, keys, targets, colours, extra)
        found = self._pairs.get(key)
        if found is not None:
            return found

        def guide(node):
            return (guide_target if node[3] else guide_key).get(node[:3])

        start = (*pose, 0)
        h0 = guide(start)
        found = math.inf
        if h0 is not None and h0 < math.inf:
            cost, locked, closed = self.cost, self.locked, self.closed
            best = {start: 0}
            heap = [(h0, 0, start)]
            pop, push = heapq.heappop, heapq.heappush
            while heap:
                _, g, node = pop(heap)
                g = -g
                if g > best[node]:
                    continue
                x, y, d, phase = node
                dx, dy = DIRS[d]
                ahead = (x + dx, y + dy)
                if phase and ahead in targets:
                    found = g
                    break
                moves = [((x, y, (d + 1) % 4, phase), g + 1), ((x, y, (d + 3) % 4, phase), g + 1)]
                if not phase and ahead in keys:
                    moves.append(((x, y, d, 1), g + 1 + extra))
                step = cost.get(ahead)
                if phase and ahead in keys:
                    step = 1  # the key's cell may be the one just emptied
                colour = locked.get(ahead)
                if colour is not None and colour in colours:
                    step = 1.5 if phase else None
                elif colour is not None or ahead in closed:
                    step = 1.5 if step else None
                if step:
                    moves.append(((*ahead, d, phase), g + step))
                for nxt, g2 in moves:
                    if g2 >= best.get(nxt, math.inf):
                        continue
                    h = guide(nxt)
                    if h is None or h == math.inf:
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
        self._region_sets: dict = {}
        self._pair_hops: dict = {}
        self._steiner: dict = {}
        self._via_keys: dict = {}

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
        pending: list = []
        self._pending(self.mission, state, 0, pending)
        held = self.carrying(state)
        bound = 0
        for clause, _ in pending:
            bound = max(bound, clause.bound(self, state, layout, pose, held))
            if bound == math.inf:
                return math.inf
        if len(pending) > 1:
            bound = max(bound, self._ordered(state, layout, pose, pending, held))
        return math.ceil(bound - 1e-9)  # plans have whole costs: a fractional bound rounds up

    def _pending(self, node, state, stage: int, out: list) -> None:
        """[(clause, stage)] of the clauses not yet done; stage = the part of a sequence it is in."""
        if isinstance(node, Clause):
            if not (node.done_bit and state.progress & node.done_bit):
                out.append((node, stage))
            return
        kind, parts = node
        for i, part in enumerate(parts):
            self._pending(part, state, i if kind == "seq" else stage, out)

    def _ordered(self, state, layout, pose, pending: list, held) -> float:
        """A lower bound on doing every pending clause, over the orders their events can take.

        An event is a moment the agent faces one of some cells. A door clause (open it, go to
        it) has one: the step that completes it. An item clause has, in each of two cases: the
        item is not moved before the clause is done (go to it or pick it up where it lies now:
        that completing step; put it next to b: the first time the agent faces the cell it lies
        in now, then, if b stays, the drop facing a cell next to b), or it is (the first facing
        of its cell now, which comes first for an item is only moved by being picked up there,
        then the completion, anywhere, and a pick up and a drop more). Completions of a later
        part of a sequence come after every event of the earlier part; first facings may come
        any time. The agent's moves are at least the moves to the first event on this layout
        (`reach`) plus the open-grid moves from each event to the next; its other actions at
        least one toggle per open clause, one pick up per pickup or put-next clause and one drop
        per put-next clause (clauses that could share an object share that action), and a drop
        before every pick up but the first, the agent having one pair of hands. The least
        of this over the cases and the orders the events can take is a lower bound whatever the
        real plan does.
        """
        options = [clause.cases(self, state, held) for clause, _ in pending]
        moving = [set(c.objects) if c.kind in ("pickup", "putnext") else set() for c, _ in pending]
        toggles, picks, drops = self._actions(state, pending, held)
        now: dict = {}
        loose_now: dict = {}
        best = math.inf
        for choice in product(*options):
            events, shifted = [], []
            for k, (evs, moved) in enumerate(choice):
                first = len(events)
                for cells, done, after in evs:
                    events.append((cells, done, k, None if after is None else first + after))
                if moved and not any(moved & moving[j] for j in range(len(pending)) if j != k):
                    shifted.append(moved)  # not an object another clause picks up anyway
            moves = len(self._merge(shifted))  # the earlier pick up and drop of what was moved
            # one pair of hands: before each pick up but the first, a drop
            extra = 2 * moves + max(0, picks + moves - 1 - drops - moves)
            bound = self._orders(state, layout, pose, pending, held, events, now) + extra
            if bound < best:  # the same moves over the open grid, plus the doors the trip must open
                loose = self._orders(state, None, pose, pending, held, events, loose_now)
                if loose + extra < best:
                    loose += self._toggles(state, pose, events, pending)
                bound = max(bound, loose + extra)
            best = min(best, bound)
        return best + toggles + picks + drops

    def _room_set(self, cell: tuple) -> tuple:
        """The rooms a cell belongs to: one for a room's cell, the two a doorway joins."""
        x, y = cell
        step = self.step
        if x % step == 0:
            return ((x // step - 1, y // step), (x // step, y // step))
        if y % step == 0:
            return ((x // step, y // step - 1), (x // step, y // step))
        return ((x // step, y // step),)

    def _toggles(self, state, pose, events, pending) -> int:
        """The fewest doors, shut now and not the target of an open clause, that must be toggled
        for the agent's room to join a room from which each known event's cells can be faced: a
        group Steiner tree over the rooms, found by trying sets of doors, smallest first. Every
        door the trip passes that is shut now costs a toggle, once, whatever the order."""
        open_cells = self._open().cost
        groups = set()
        for cells, _, _, _ in events:
            if not cells:
                continue
            rooms = set()
            for x, y in cells:
                for dx, dy in DIRS:
                    stand = (x + dx, y + dy)
                    if stand in open_cells:
                        rooms.update(self._room_set(stand))
            groups.add(frozenset(rooms))
        free = {d for c, _ in pending if c.kind == "open" for d in c.objects}
        shut = []
        for d in self.doors:
            if d in free or self.task.atom_holds(state, "open", (d,)):
                continue
            shut.append((self._v0("x", d), self._v0("y", d)))
        start = frozenset(self._room_set(pose[:2]))
        key = (start, frozenset(groups), frozenset(shut))
        found = self._steiner.get(key)
        if found is not None:
            return found
        links = [self._room_set((self._v0("x", d), self._v0("y", d))) for d in self.doors
                 if (self._v0("x", d), self._v0("y", d)) not in shut]
        shut_links = [self._room_set(p) for p in shut]
        found = 0
        for k in range(len(shut_links) + 1):
            if any(self._joins(start, groups, links + list(extra)) for extra in combinations(shut_links, k)):
                found = k
                break
        if len(self._steiner) > 65536:
            self._steiner.clear()
        self._steiner[key] = found
        return found

    @staticmethod
    def _joins(start, groups, links) -> bool:
        """Whether, over `links` (pairs of rooms), one start room reaches a room of every group."""
        for room in start:
            seen, todo = {room}, [room]
            while todo:
                r = todo.pop()
                for a, b in links:
                    for u, w in ((a, b), (b, a)):
                        if u == r and w not in seen:
                            seen.add(w)
                            todo.append(w)
            if all(g & seen for g in groups):
                return True
        return False

    @staticmethod
    def _merge(sets: list) -> list:
        """`sets` of objects merged where they meet: one move could serve them all."""
        groups: list = []
        for names in sets:
            joined = [g for g in groups if g & names]
            groups = [g for g in groups if not g & names] + [set(names).union(*joined)]
        return groups

    def _orders(self, state, layout, pose, pending, held, events, now) -> float:
        """The fewest moves through `events` [(cells, completes its clause?, clause, event it
        follows)] in an order they can take (dynamic programming over subsets)."""
        n = len(events)
        before = [0] * n
        for j, (_, done_j, k_j, after) in enumerate(events):
            if after is not None:
                before[j] |= 1 << after
            if done_j:
                stage = pending[k_j][1]
                for i, (_, _, k_i, _) in enumerate(events):
                    if pending[k_i][1] < stage:
                        before[j] |= 1 << i
        # (events done, the cell faced at the last of them that had known cells, or None for none
        # yet) -> fewest moves. An event that could be anywhere is passed over: the moves from the
        # event before it to the one after it are at least the open-grid distance between those.
        # A known event is tied to one of its cells, the same one on the way in and out.
        full = (1 << n) - 1
        table = [{} for _ in range(full + 1)]  # per set of events done: {cell: moves}
        table[0][None] = 0
        for mask in range(full):
            for here, g in table[mask].items():
                if g == math.inf:
                    continue
                for j in range(n):
                    bit = 1 << j
                    if mask & bit or before[j] & ~mask:
                        continue
                    there, _, k, _ = events[j]
                    if not there:
                        steps = [(here, g)]
                    elif here is None:
                        steps = []
                        for cell in there:
                            key = (k, cell)
                            if key not in now:
                                if layout is None:  # over the open grid
                                    now[key] = self._open_table(cell).get(pose, math.inf)
                                else:
                                    now[key] = pending[k][0].reach_event(self, state, layout, pose, frozenset({cell}),
                                                                         held, pending)
                            steps.append((cell, g + now[key]))
                    else:
                        steps = [(cell, g + self._hop1(here, cell)) for cell in there]
                    row = table[mask | bit]
                    for cell, g2 in steps:
                        if g2 < row.get(cell, math.inf):
                            row[cell] = g2
        return min(table[full].values(), default=math.inf)

    def _actions(self, state, pending: list, held) -> tuple[int, int, int]:
        """(toggles, pick ups, drops) the pending clauses need, shared where they could be."""
        total = [0, 0, 0]
        for kinds in (("open",), ("pickup", "putnext"), ("putnext",)):
            groups: list = []  # merged candidate sets: clauses whose candidates meet may share the action
            for clause, _ in pending:
                if clause.kind not in kinds:
                    continue
                names = set(clause.objects)
                joined = [g for g in groups if g[0] & names]
                merged = (names.union(*(g[0] for g in joined)), sum(g[1] for g in joined) + 1, clause)
                groups = [g for g in groups if g not in joined] + [merged]
            for names, count, clause in groups:
                if kinds == ("open",):
                    again = count == 1 and all(self.task.atom_holds(state, "open", (d,)) for d in names)
                    total[0] += 2 if again else 1  # a door open now must be shut and opened again
                elif kinds == ("putnext",):
                    total[2] += 1
                elif held not in names:
                    total[1] += 1
        return total[0], total[1], total[2]

    def reach(self, state, layout, pose, cells, held, need: frozenset = frozenset(), spare: bool = True) -> float:
        """A lower bound on the actions to face one of `cells` from `pose`: the distance on this
        layout, and, when the way there needs a key (a locked door of a colour in `need` is the
        target, or every cell lies beyond locked doors from the agent's part of the grid), the
        trip via a reachable key of such a colour (Layout.detour). `spare`: emptying the hands
        before the key pick up is an action of its own (not a drop some clause counts)."""
        if not cells:
            return 0
        base = min(self.face(layout, pose, c) for c in cells)
        if base == math.inf or not layout.locked:
            return base
        colours = set(need)
        region, boundary = self._region_cells(pose[:2], frozenset(layout.locked), layout.locked)
        if not any((x + dx, y + dy) in region for x, y in cells for dx, dy in DIRS):
            colours |= boundary
        if not colours:
            return base
        if held is not None and self.kind[held] == "key" and self.colour[held] in colours:
            return base
        colours = frozenset(colours)
        keys = frozenset(k for c in colours for k in self.keys_of(state, c))
        if not keys:
            return math.inf  # no key of a colour that could open the way is left on the grid
        targets = frozenset(cells)
        extra = 1 if held is not None and spare else 0
        return max(base, layout.detour(pose, keys, colours, targets, extra, self._via_key(keys, targets),
                                       self._loose_table(targets)))

    def _via_key(self, keys: frozenset, targets: frozenset) -> dict:
        """{pose: open-grid moves to face one of `keys`, plus its pick up, plus the open-grid
        moves from there to face one of `targets`}: the guide of Layout.detour before the key."""
        found = self._via_keys.get((keys, targets))
        if found is None:
            found = {}
            for k in keys:
                rest = 1 + self._hop(frozenset({k}), targets)
                for pose, g in self._open_table(k).items():
                    if g + rest < found.get(pose, math.inf):
                        found[pose] = g + rest
            if len(self._via_keys) > 1024:
                self._via_keys.clear()
            self._via_keys[(keys, targets)] = found
        return found

    def _region_cells(self, agent: tuple, locked: frozenset, colours: dict) -> tuple[set, set]:
        """(the cells the agent can walk to with the locked doors shut and all else passable, the
        colours of the locked doors on its edge)."""
        name = self._region(agent, locked)
        found = self._region_sets.get((locked, name))
        if found is None:
            cells = {c for (lk, c), r in self._regions.items() if lk == locked and r == name}
            edge = {colour for pos, colour in colours.items()
                    if any((pos[0] + dx, pos[1] + dy) in cells for dx, dy in DIRS)}
            found = self._region_sets[(locked, name)] = (cells, edge)
        return found

    def _hop1(self, start: tuple, target: tuple) -> float:
        """From facing cell `start` to facing cell `target` over the open grid."""
        key = (start, target)
        found = self._pair_hops.get(key)
        if found is None:
            table = self._open_table(target)
            x, y = start
            found = min((table.get((x - dx, y - dy, d), math.inf) for d, (dx, dy) in enumerate(DIRS)))
            self._pair_hops[key] = found
        return found

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

    def cases(self, est: Estimate, state, held) -> list:
        """The ways this clause can be done, for Estimate._ordered: [(events, objects moved
        first or None)], each event (cells faced or None for anywhere, completes the clause?,
        index of the event of this clause it follows or None)."""
        v = est._v

        def where(objects):
            cells = [(v(state, "x", o), v(state, "y", o)) for o in objects]
            return None if any(x < 0 for x, _ in cells) else frozenset(cells)

        if est.kind[self.objects[0]] == "door":  # open it, or go to it: doors never move
            return [([(where(self.objects), True, None)], None)]
        here = where(self.objects)
        if self.kind in ("goto", "pickup"):
            if here is None:  # in hand: it can be put down anywhere
                return [([(None, True, None)], None)]
            return [([(here, True, None)], None), ([(here, False, None), (None, True, 0)], set(self.objects))]
        fixed = [b for b in self.fixed if est.kind[b] != "door"]
        found = []
        still = [b for b in self.fixed if v(state, "tx", b) >= 0 and held != b]  # b where it is tracked
        if still:
            near = frozenset((v(state, "tx", b) + dx, v(state, "ty", b) + dy) for b in still for dx, dy in DIRS)
            found.append(([(here, False, None), (near, True, 0)], None))
        if fixed:
            shared = set(fixed) & set(self.objects)  # one pick up and drop could serve both
            found.append(([(here, False, None), (where(fixed), False, None), (None, True, None)],
                          set() if shared else set(fixed)))
        return found

    def reach_event(self, est: Estimate, state, layout: Layout, pose, cells, held, pending: list) -> float:
        """The moves (and the key pick up, if one is needed) from now until this clause's event."""
        if not cells:
            return 0
        spare = not any(c.kind == "putnext" and held in c.objects for c, _ in pending)
        if self.kind != "open":
            return est.reach(state, layout, pose, cells, held, spare=spare)
        if cells is None:
            return 0
        best = math.inf
        v = est._v
        for d in self.objects:
            door = (v(state, "x", d), v(state, "y", d))
            if door not in cells:
                continue
            need = frozenset()
            if est.task.atom_holds(state, "locked", (d,)):
                if est.colour[d] not in layout.key_colours:
                    continue  # no key of its colour can be reached: this door stays shut
                need = frozenset({est.colour[d]})
            best = min(best, est.reach(state, layout, pose, [door], held, need, spare))
        return best

    def bound(self, est: Estimate, state, layout: Layout, pose, held) -> float:
        """A lower bound on the actions this clause alone still needs."""
        v = est._v
        reach = est.reach
        if self.kind == "goto":
            best = math.inf
            for o in self.objects:
                tx = v(state, "tx", o)
                if held == o:  # its tracked position is stale: put it down in front
                    best = min(best, 1)
                elif tx < 0:
                    on_grid = v(state, "x", o) >= 0 or held == o
                    best = min(best, 1 if on_grid else math.inf)  # a drop must refresh its position first
                else:
                    best = min(best, reach(state, layout, pose, [(tx, v(state, "ty", o))], held))
            return best
        if self.kind == "open":
            best = math.inf
            for d in self.objects:
                door = (v(state, "x", d), v(state, "y", d))
                toggles = 2 if est.task.atom_holds(state, "open", (d,)) else 1
                need = frozenset()
                if est.task.atom_holds(state, "locked", (d,)):
                    if est.colour[d] not in layout.key_colours:
                        continue  # no key of its colour can be reached: this door stays shut
                    need = frozenset({est.colour[d]})  # fetch one first, unless it is in hand
                best = min(best, reach(state, layout, pose, [door], held, need) + toggles)
            return best
        if self.kind == "pickup":
            best = math.inf
            for o in self.objects:
                if held == o:
                    best = min(best, 2)  # drop it, pick it up again
                elif v(state, "x", o) >= 0:
                    extra = 1 + (1 if held else 0)
                    best = min(best, reach(state, layout, pose, [(v(state, "x", o), v(state, "y", o))], held) + extra)
            return best
        # putnext: carry a next to where b lies now, or else move b too (unless b is a door)
        best = math.inf
        near = [(x + dx, y + dy) for b in self.fixed if v(state, "tx", b) >= 0 and held != b
                for x, y in [(v(state, "tx", b), v(state, "ty", b))] for dx, dy in DIRS]
        movable = [b for b in self.fixed if est.kind[b] != "door"]
        for a in self.objects:
            if held == a:
                # drop it next to b; or drop it, fetch b, put b down, pick a up again, drop it
                move_b = min((0 if held == b else reach(state, layout, pose, [(v(state, "x", b), v(state, "y", b))], held)
                              for b in movable if held == b or v(state, "x", b) >= 0), default=math.inf)
                best = min(best, min((est.face(layout, pose, q) for q in near), default=0) + 1, move_b + 5)
                continue
            ax = v(state, "x", a)
            if ax < 0:
                continue
            cell = (ax, v(state, "y", a))
            own = reach(state, layout, pose, [cell], held)
            if own == math.inf:
                continue
            spare = 1 if held else 0
            carry = est._hop(frozenset({cell}), frozenset(near))  # from where it was picked up
            best = min(best, own + 1 + carry + 1 + spare)
            for b in movable:
                if held == b:  # put b down, pick a up, put it down
                    best = min(best, own + 3)
                elif v(state, "x", b) >= 0:
                    # both are picked up where they lie now, in some order: pick b, drop b, pick a, drop a
                    other = (v(state, "x", b), v(state, "y", b))
                    there = reach(state, layout, pose, [other], held)
                    a_b = est._hop(frozenset({cell}), frozenset({other}))
                    b_a = est._hop(frozenset({other}), frozenset({cell}))
                    best = min(best, min(own + a_b, there + b_a) + 4 + spare)
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
