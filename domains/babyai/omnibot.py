"""OmniBot over the interpreter: the expert's subgoal-stack bot, driven by a problem file alone.

This is a reimplementation (no MiniGrid import) of the generation-time expert (`expert.py`: the
BabyAI bot with the whole grid in view and the modified path search, spec 2.4). It reads the
world from interpreter states and steps it with the domain's seven actions, so it works on any
babyai problem file, including rows of `problems/babyai/*.jsonl`.

Two entry points:

- `default_run(task)`: the bot initialised from the mission (the goal formula parsed back into
  the verifier's instruction tree, then translated as BabyAI's bot does). Its `help_count`
  counts every subgoal push, the translation included, like `expert.py`'s counter and the
  Decompose set's `help_count`. As the expert run does, it keeps answering `done` once its
  stack is empty, until the mission succeeds or the step budget runs out.
- `execute(task, subgoals)`: Decompose evaluation. The chronological list (first item on top)
  is loaded without counting; the bot then only reacts (opens doors in front, fetches keys,
  moves blockers, drops before a pickup, undoes off-plan actions) and every such push counts.
  The episode ends on mission success, on the step budget (the problem's max_steps) or when the
  stack is empty (no closing `done` step is taken then).

Reference behaviour kept on purpose (both entry points):
- the first replanning call gets no previous action, so a Pickup/Drop/Open/Close subgoal on top
  of the stack at the very start is popped without acting (BabyAI's `replan(None)` semantics);
- where MiniGrid's bot would fail an assertion (Drop with empty hands or facing a non-empty
  cell, Pickup while carrying, Open or Close not facing a suitable door, no drop position, no
  key of a locked door's colour left, nothing left to explore) or raise DisappearedBoxError, the
  episode stops there as a failure: `RunResult.success` is False (unless the mission was already
  met) and `RunResult.note` says why. No exception leaves `execute` for such cases.
- Malformed subgoal items raise `SubgoalError` (a ValueError) naming the item.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from .world import ACTIONS
from .world import DIRECTION_VECTORS as DIR_VEC

VIEW_HALF = 3  # MiniGrid's agent_view_size 7 // 2: the reach of the side-wall probe when turning around
WALL = "#wall"


# ----------------------------------------------------------------------------- results and errors
@dataclass
class RunResult:
    actions: list
    help_count: int
    success: bool
    note: str | None = None  # why the bot stopped early (a reference assertion), if it did

    def __iter__(self):  # unpacks as (actions, help_count, success)
        return iter((self.actions, self.help_count, self.success))


class SubgoalError(ValueError):
    """A subgoal item given to `execute` is malformed."""


class MissionError(ValueError):
    """The problem's goal is not a BabyAI mission this module can read."""


class _Stuck(Exception):
    """The reference bot would stop here (a failed assertion or a DisappearedBoxError)."""


# ----------------------------------------------------------------------------- object descriptions
class Desc:
    """An object description as the bot sees it: type, colour, the matched objects and the
    positions MiniGrid's verifier tracks for them (`poss`, in column-major order, refreshed after
    every `drop` for the mission's descriptions, frozen for the bot's own key descriptions)."""

    def __init__(self, kind: str, colour: str | None, members: list[str], poss: list[tuple], tracked: bool):
        self.kind = kind
        self.colour = colour
        self.members = members
        self.poss = poss
        self.tracked = tracked

    def __repr__(self):
        return f"Desc({self.colour or ''} {self.kind}: {','.join(self.members)})"


class ObjRef:
    """A subgoal target that is one object (followed wherever it is)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"ObjRef({self.name})"


# ----------------------------------------------------------------------------- mission parsing
def _is_atom(node, pred=None):
    return isinstance(node, list) and len(node) >= 2 and isinstance(node[0], str) and (pred is None or node[0] == pred)


def _alternatives(node):
    if isinstance(node, dict) and set(node) == {"or"}:
        return list(node["or"])
    return [node]


def _goto_object(node):
    """The object o of {"and": [tx(o) = front-x, ty(o) = front-y]}, else None."""
    if not (isinstance(node, dict) and set(node) == {"and"} and len(node["and"]) == 2):
        return None
    first = node["and"][0]
    if isinstance(first, dict) and set(first) == {"="}:
        lhs, rhs = first["="]
        if _is_atom(lhs, "tx") and rhs == ["front-x"]:
            return lhs[1]
    return None


def _putnext_fixed(node):
    """The b of |x(a)-tx(b)| + |y(a)-ty(b)| = 1."""
    try:
        total, one = node["="]
        xpart = total["+"][0]["abs"]["-"]
        if one == 1 and _is_atom(xpart[1], "tx"):
            return xpart[1][1]
    except (KeyError, TypeError, IndexError, ValueError):
        pass
    raise MissionError(f"unrecognised PutNext distance clause: {node!r}")


def parse_mission(goal) -> tuple:
    """The goal JSON of convert.mission_goal as a tree of tuples:
    ("GoTo", [objs]), ("Open", [doors]), ("Pickup", [objs]), ("PutNext", [moved], [fixed]),
    ("And", a, b), ("Before", first, second)."""
    if isinstance(goal, dict) and set(goal) == {"sequence"} and len(goal["sequence"]) == 2:
        return ("Before", parse_mission(goal["sequence"][0]), parse_mission(goal["sequence"][1]))
    if isinstance(goal, dict) and set(goal) == {"all"} and len(goal["all"]) == 2:
        return ("And", parse_mission(goal["all"][0]), parse_mission(goal["all"][1]))
    if isinstance(goal, dict) and set(goal) == {"later"}:
        return parse_mission(goal["later"])
    parts = _alternatives(goal)
    if all(_is_atom(p, "opened") for p in parts):
        return ("Open", [p[1] for p in parts])
    if all(_is_atom(p, "picked") for p in parts):
        return ("Pickup", [p[1] for p in parts])
    objs = [_goto_object(p) for p in parts]
    if all(objs):
        return ("GoTo", objs)
    moved, fixed = [], None
    for p in parts:
        if not (isinstance(p, dict) and set(p) == {"and"} and len(p["and"]) == 2 and _is_atom(p["and"][0], "dropped")):
            raise MissionError(f"unrecognised mission clause: {goal!r}")
        moved.append(p["and"][0][1])
        these = [_putnext_fixed(q) for q in _alternatives(p["and"][1])]
        if fixed is not None and these != fixed:
            raise MissionError(f"PutNext clause with differing fixed objects: {goal!r}")
        fixed = these
    return ("PutNext", moved, fixed)


# ----------------------------------------------------------------------------- the bot
class _Subgoal:
    kind = ""

    def __init__(self, bot: "_Bot", datum=None, reason=None):
        self.bot = bot
        self.datum = datum
        self.reason = reason

    def __repr__(self):
        extra = "" if self.datum is None else f": {self.datum}"
        return f"({self.kind}{extra}{'' if self.reason is None else ', ' + self.reason})"

    def before(self):
        raise NotImplementedError

    def after(self, action):
        pass

    def exploratory(self) -> bool:
        return False

    def done_or_undo(self, action, own: str, undoable=("forward", "left", "right")) -> None:
        """Pop when the agent did this subgoal's action (or nothing was suggested); take back
        one of the `undoable` moves otherwise (the others are left as they are)."""
        if action is None or action == own:
            self.bot.pop()
        elif action in undoable:
            self.undo(action)

    def undo(self, action):
        """Plan how to take back an action that was not the one suggested."""
        b = self.bot
        if action == "forward":
            if b.prev_agent_pos != b.pos:
                b.push(GoNextTo(b, b.pos))
        elif action == "left":
            b.push(GoNextTo(b, _add(b.pos, b.right)))
        elif action == "right":
            b.push(GoNextTo(b, _sub(b.pos, b.right)))
        elif action == "drop" and b.prev_carrying != b.carrying:
            b.push(Pickup(b))
        elif action == "pickup" and b.prev_carrying != b.carrying:
            b.push(Drop(b))
        elif action == "toggle":
            name = b.fwd_cell
            if b.is_door(name) and b.fwd_door_was_open != b.is_open(name):
                b.push(Close(b) if b.is_open(name) else Open(b))


class Close(_Subgoal):
    kind = "Close"

    def before(self):
        b = self.bot
        if not (b.is_door(b.fwd_cell) and b.is_open(b.fwd_cell)):
            raise _Stuck("Close: the agent does not face an open door")
        return "toggle"

    def after(self, action):
        self.done_or_undo(action, "toggle")


class Open(_Subgoal):
    kind = "Open"

    def before(self):
        b = self.bot
        door = b.fwd_cell
        if not b.is_door(door):
            raise _Stuck("Open: the agent does not face a door")
        colour = b.colour[door]
        has_key = b.carrying is not None and b.types[b.carrying] == "key" and b.colour[b.carrying] == colour
        if b.is_locked(door) and not has_key:
            keys = b.key_desc(colour)
            here = b.fwd
            b.pop()
            carrying = b.carrying is not None
            spot = b.find_drop_pos() if carrying else None
            if carrying:  # take back what it carries afterwards
                b.push(Pickup(b))
                b.push(GoNextTo(b, spot))
            b.push(Open(b))
            b.push(GoNextTo(b, here))
            b.push(Pickup(b))
            b.push(GoNextTo(b, keys))
            if carrying:  # first put down what it carries
                b.push(Drop(b))
                b.push(GoNextTo(b, spot))
            return None
        if b.is_open(door):
            b.push(Close(b))
            return None
        if b.is_locked(door) and self.reason is None:
            b.pop()
            b.push(Open(b, reason="Unlock"))
            return None
        return "toggle"

    def after(self, action):
        b = self.bot
        if action is None or action == "toggle":
            b.pop()
            if self.reason == "Unlock":
                spot = b.find_drop_pos()  # chosen now: a spot chosen earlier may be taken by then
                b.push(Drop(b))
                b.push(GoNextTo(b, spot))
        else:
            self.undo(action)


class Drop(_Subgoal):
    kind = "Drop"

    def before(self):
        b = self.bot
        if b.carrying is None:
            raise _Stuck("Drop: the agent carries nothing")
        if b.fwd_cell is not None:
            raise _Stuck("Drop: the cell in front is not empty")
        return "drop"

    def after(self, action):
        self.done_or_undo(action, "drop")


class Pickup(_Subgoal):
    kind = "Pickup"

    def before(self):
        if self.bot.carrying is not None:
            raise _Stuck("Pickup: the agent already carries something")
        return "pickup"

    def after(self, action):
        self.done_or_undo(action, "pickup", undoable=("left", "right"))


class Explore(_Subgoal):
    """With the whole grid in view nothing is unseen: it goes to open the nearest closed door."""
    kind = "Explore"

    def before(self):
        b = self.bot
        door = b.path_to(lambda p, c: b.is_door(c) and not b.is_locked(c) and not b.is_open(c), True)[1]
        if door is None:
            door = b.path_to(lambda p, c: b.is_door(c) and not b.is_open(c), True)[1]
        if door is None:
            raise _Stuck("Explore: nothing left to explore")
        name = b.cell(*door)
        has_key = (b.carrying is not None and b.types[b.carrying] == "key"
                   and b.colour[b.carrying] == b.colour[name])
        b.pop()
        b.push(Open(b, reason="KeepKey" if b.is_locked(name) and has_key else None))
        b.push(GoNextTo(b, ObjRef(name), reason="Open"))
        return None

    def exploratory(self):
        return True


class GoNextTo(_Subgoal):
    kind = "GoNextTo"

    def exploratory(self):
        return self.reason == "Explore"

    def target(self):
        """(object name or None, target cell or None) for the current state."""
        b = self.bot
        if isinstance(self.datum, Desc):
            return b.find_obj_pos(self.datum, self.reason == "PutNext")
        if isinstance(self.datum, ObjRef):
            return self.datum.name, b.where(self.datum.name)
        if self.datum is None:
            raise _Stuck("GoNextTo: no target position (no free cell was found)")
        return None, (int(self.datum[0]), int(self.datum[1]))

    def before(self):
        b = self.bot
        obj, goal = self.target()
        if isinstance(self.datum, Desc) and goal is None:
            b.push(Explore(b))
            return None
        # Heading for a locked door to open it with empty hands: fetch its key first.
        if self.reason == "Open" and obj is not None and b.is_door(obj) and b.is_locked(obj) and b.carrying is None:
            keys = b.key_desc(b.colour[obj])
            b.pop()
            b.push(GoNextTo(b, ObjRef(obj), reason="Open"))
            b.push(Pickup(b))
            b.push(GoNextTo(b, keys))
            return None
        # Standing where we should be next to: step away first.
        if _manhattan(goal, b.pos) == (1 if self.reason == "PutNext" else 0):
            if b.steppable(b.fwd_cell):
                return "forward"
            if b.steppable(b.cell(*_add(b.pos, b.right))):
                return "right"
            if b.steppable(b.cell(*_sub(b.pos, b.right))):
                return "left"
            return "left"
        if self.reason == "PutNext":
            if _manhattan(goal, b.fwd) == 1:
                if b.fwd_cell is None:
                    b.pop()
                    return None
                if b.is_door(b.fwd_cell) and b.is_open(b.fwd_cell):
                    # an object cannot lie in a doorway: go face the cell beyond it
                    b.push(GoNextTo(b, _add(b.fwd, _scale(b.dvec, 2))))
                    return None
        elif goal == b.fwd:
            b.pop()
            return None
        path = b.path_to(lambda p, c: p == goal, False)[0]
        if not path:
            path = b.path_to(lambda p, c: p == goal, True)[0]
        if not path:
            b.push(Explore(b))
            return None
        step = path[0]
        if step == b.fwd:
            ahead = b.fwd_cell
            if ahead is None:
                return "forward"
            if b.is_door(ahead):
                if b.is_locked(ahead):
                    raise _Stuck("GoNextTo: a locked door on the path")
                if not b.is_open(ahead):
                    b.push(Open(b))
                    return None
                return "forward"
            if b.carrying is not None:
                mine = b.find_drop_pos()
                theirs = b.find_drop_pos(mine)
                b.push(Pickup(b))
                b.push(GoNextTo(b, mine))
                b.push(Drop(b))
                b.push(GoNextTo(b, theirs))
                b.push(Pickup(b))
                b.push(GoNextTo(b, b.fwd))
                b.push(Drop(b))
                b.push(GoNextTo(b, mine))
                return None
            spot = b.find_drop_pos()
            b.push(Drop(b))
            b.push(GoNextTo(b, spot))
            b.push(Pickup(b))
            return None
        offset = _sub(step, b.pos)
        if offset == b.right:
            return "right"
        if offset == _neg(b.right):
            return "left"
        # The next cell is behind: turn towards the side whose wall or door is farther.
        if b.side_room(_neg(b.right)) > b.side_room(b.right):
            return "left"
        return "right"

    def after(self, action):
        if action in ("pickup", "drop", "toggle"):
            self.undo(action)


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def _neg(a):
    return (-a[0], -a[1])


def _scale(a, k):
    return (a[0] * k, a[1] * k)


def _manhattan(a, b):
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class _Bot:
    def __init__(self, task):
        self.task = task
        problem = task.problem
        settings = problem.settings or {}
        self.room = int(settings.get("room_size", 8))
        self.width = int(settings.get("num_cols", 1)) * (self.room - 1) + 1
        self.height = int(settings.get("num_rows", 1)) * (self.room - 1) + 1
        self.types = {o: t for o, t in problem.objects.items() if t in ("door", "key", "ball", "box")}
        self.colour = {}
        for pred, args in problem.init:
            if pred == "color" and args[0] in self.types:
                self.colour[args[0]] = args[1]
        self.doors = [o for o, t in self.types.items() if t == "door"]
        self.items = [o for o, t in self.types.items() if t != "door"]
        self.state = task.initial_state()
        self.stack: list[_Subgoal] = []
        self.pushes = 0
        self.counting = True
        self.mission_descs: list[Desc] = []
        self.key_colour = None  # set while looking for a key: locked doors of its colour block
        self.prev_agent_pos = None
        self.prev_carrying = None
        self.fwd_door_was_open = None
        self.prev_fwd_cell = None
        self._ground = {name: task.ground_action(name, ()) for name in ACTIONS}
        self.read()

    # ------------------------------------------------------------- world view
    def read(self):
        """Refresh the bot's view of the world from the interpreter state."""
        task, state = self.task, self.state
        value = task.value
        self.pos = (int(value(state, "agent-x", ())), int(value(state, "agent-y", ())))
        self.dir = int(value(state, "dir", ())) % 4
        self.dvec = DIR_VEC[self.dir]
        self.right = (-self.dvec[1], self.dvec[0])
        self.fwd = _add(self.pos, self.dvec)
        self.at = {}
        self.positions = {}
        for o in self.types:
            p = (int(value(state, "x", (o,))), int(value(state, "y", (o,))))
            self.positions[o] = p
            if p[0] >= 0:
                self.at[p] = o
        self.open_doors = {d for d in self.doors if task.atom_holds(state, "open", (d,))}
        self.locked_doors = {d for d in self.doors if task.atom_holds(state, "locked", (d,))}
        carried = [o for o in self.items if task.atom_holds(state, "carrying", (o,))]
        self.carrying = carried[0] if carried else None
        self.fwd_cell = self.cell(*self.fwd)

    def where(self, name):
        return self.positions[name]

    def cell(self, x, y):
        """None (empty), WALL, or the name of the door or object there."""
        name = self.at.get((x, y))
        if name is not None:
            return name
        step = self.room - 1
        if x % step == 0 or y % step == 0 or not (0 <= x < self.width and 0 <= y < self.height):
            return WALL
        return None

    def is_door(self, name):
        return name is not None and self.types.get(name) == "door"

    def is_open(self, name):
        return name in self.open_doors

    def is_locked(self, name):
        return name in self.locked_doors

    def steppable(self, name):
        return name is None or (self.is_door(name) and self.is_open(name))

    # ------------------------------------------------------------- stack
    def push(self, subgoal):
        if self.counting:
            self.pushes += 1
        self.stack.append(subgoal)

    def pop(self):
        self.stack.pop()

    # ------------------------------------------------------------- search
    def passable(self, name, through_blockers):
        if name == WALL:
            return False
        if self.types[name] == "door":
            if name in self.locked_doors:
                return self.colour[name] != self.key_colour
            return name in self.open_doors or through_blockers
        return through_blockers

    def bfs(self, starts, accept, through_blockers):
        frontier = deque((s, None) for s in starts)
        came = {}
        while frontier:
            (i, j, di, dj), parent = frontier.popleft()
            if (i, j) in came:
                continue
            here = self.cell(i, j)
            came[(i, j)] = parent
            if accept((i, j), here):
                path, at = [], (i, j)
                while at is not None:
                    path.append(at)
                    at = came[at]
                return path, (i, j), came
            if here is not None and not self.passable(here, through_blockers):
                continue
            # straight on, then the two sides, then back: straight paths win ties
            for si, sj in ((di, dj), (dj, di), (-dj, -di), (-di, -dj)):
                frontier.append(((i + si, j + sj, si, sj), (i, j)))
        return None, None, came

    def path_to(self, accept, through_blockers):
        """(cells to walk, the accepted cell, whether blockers are in the way); the search
        avoids blockers (objects, closed doors) as long as it can."""
        path, finish, came = self.bfs([(*self.pos, *self.dvec)], accept, False)
        blocked = False
        if not path and through_blockers:
            blocked = True
            path, finish, _ = self.bfs([(i, j, 1, 0) for i, j in came], accept, True)
            if path:
                at, tail = path[-1], []
                while at is not None:
                    tail.append(at)
                    at = came[at]
                path = path + tail[1:]
        if path:
            path = path[::-1][1:]
        return path, finish, blocked

    def find_obj_pos(self, desc: Desc, adjacent: bool):
        """(object, tracked cell) of the nearest usable match of `desc`, or (None, None)."""
        if not desc.members:
            raise _Stuck(f"no object matches {desc}")
        self.key_colour = desc.colour if desc.kind == "key" else None
        try:
            best, best_pos, best_obj = 999, None, None
            for i, name in enumerate(desc.members):
                if name == self.carrying or i >= len(desc.poss):
                    continue
                goal = desc.poss[i]
                path, _, blocked = self.path_to(lambda p, c: p == goal, True)
                if path is None:
                    raise _Stuck(f"no path to {name} at {goal}")
                d = len(path)
                if blocked:
                    d += 7 if self.carrying is not None else 4
                if d == 0:
                    d = 3 if adjacent else 2
                if adjacent and d == 1:
                    d = 3
                if d < best:
                    best, best_pos, best_obj = d, goal, name
            return best_obj, best_pos
        finally:
            self.key_colour = None

    def key_desc(self, colour):
        keys = sorted((p, o) for p, o in self.at.items() if self.types[o] == "key" and self.colour[o] == colour)
        return Desc("key", colour, [o for _, o in keys], [p for p, _ in keys], tracked=False)

    def find_drop_pos(self, except_pos=None):
        """A free cell to drop something in, preferably one that blocks nothing."""
        agent = self.pos

        def free(p, c):
            return c is None and p != agent and p != except_pos

        def unblocking(p, c):
            if not free(p, c):
                return False
            ring = []
            for di, dj in ((-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)):
                q = (p[0] + di, p[1] + dj)
                n = self.cell(*q)
                if n == WALL:
                    ring.append(1)
                elif (n is None or (self.is_door(n) and self.is_open(n)) or q == agent) and q != except_pos:
                    ring.append(0)
                else:
                    ring.append(2)
            changes = sum(bool(ring[(k + 1) % 8]) != bool(ring[k]) for k in range(8))
            for k in range(8):
                if ring[k] == 2 and ring[(k + 7) % 8] != 0 and ring[(k + 1) % 8] != 0:
                    return False
            return changes <= 2

        for accept, through in ((unblocking, False), (free, False), (unblocking, True), (free, True)):
            spot = self.path_to(accept, through)[1]
            if spot:
                return spot
        return None

    def side_room(self, direction):
        """Cells to the nearest wall or door that way, as far as the agent's view reaches."""
        for d in range(1, VIEW_HALF + 1):
            n = self.cell(self.pos[0] + d * direction[0], self.pos[1] + d * direction[1])
            if n == WALL or self.is_door(n):
                return d
        return VIEW_HALF

    def locked_door_ahead(self, subgoal: GoNextTo) -> bool:
        """A locked door in front that the way to the subgoal's target goes through."""
        ahead = self.fwd_cell
        if not (self.is_door(ahead) and self.is_locked(ahead)):
            return False
        _, goal = subgoal.target()
        if goal is None or goal == self.fwd:
            return False
        path = self.path_to(lambda p, c: p == goal, True)[0]
        return bool(path) and path[0] == self.fwd

    # ------------------------------------------------------------- the loop
    def replan(self, action):
        if action == "toggle" and self.prev_fwd_cell is not None and self.prev_fwd_cell != WALL \
                and self.types[self.prev_fwd_cell] == "box":
            raise _Stuck("a box was opened")
        if self.stack:
            self.stack[-1].after(action)
        while self.stack and self.stack[-1].exploratory():
            self.stack.pop()
        suggestion = None
        while self.stack:
            top = self.stack[-1]
            if isinstance(top, GoNextTo) and self.locked_door_ahead(top):
                self.push(Open(self))
                continue
            suggestion = top.before()
            if suggestion is not None:
                break
        if not self.stack:
            suggestion = "done"
        self.remember()
        return suggestion

    def remember(self):
        self.prev_agent_pos = self.pos
        self.prev_carrying = self.carrying
        if self.is_door(self.fwd_cell):
            self.fwd_door_was_open = self.is_open(self.fwd_cell)
        self.prev_fwd_cell = self.fwd_cell

    def step(self, action):
        self.state = self.task.apply(self.state, self._ground[action])
        self.read()
        if action == "drop":  # the verifier refreshes the tracked positions after every drop
            for desc in self.mission_descs:
                desc.poss = sorted(self.positions[o] for o in desc.members if self.positions[o][0] >= 0)

    # ------------------------------------------------------------- mission translation
    def mission_desc(self, members):
        kind = self.types[members[0]]
        colours = {self.colour[o] for o in members}
        colour = None
        if len(colours) == 1:
            (c,) = colours
            text = (self.task.problem.goal_text or "").lower()
            # the description's own colour matters only for keys (it decides which locked doors
            # block the search); read it from the mission text, else assume none was given
            if kind != "key" or re.search(rf"\b{c} key\b", text):
                colour = c
        ordered = sorted(members, key=lambda o: self.positions[o])  # the verifier's column-major order
        desc = Desc(kind, colour, ordered, [self.positions[o] for o in ordered], tracked=True)
        self.mission_descs.append(desc)
        return desc

    def translate(self, node):
        kind = node[0]
        if kind == "GoTo":
            self.push(GoNextTo(self, self.mission_desc(node[1])))
        elif kind == "Open":
            self.push(Open(self))
            self.push(GoNextTo(self, self.mission_desc(node[1]), reason="Open"))
        elif kind == "Pickup":
            self.push(Drop(self))
            self.push(Pickup(self))
            self.push(GoNextTo(self, self.mission_desc(node[1])))
        elif kind == "PutNext":
            moved = self.mission_desc(node[1])
            fixed = self.mission_desc(node[2])
            self.push(Drop(self))
            self.push(GoNextTo(self, fixed, reason="PutNext"))
            self.push(Pickup(self))
            self.push(GoNextTo(self, moved))
        else:  # And, Before: the second part first, so the first ends on top
            self.translate(node[2])
            self.translate(node[1])


def _budget(task, max_steps):
    if max_steps is not None:
        return int(max_steps)
    if task.problem.max_steps is not None:
        return int(task.problem.max_steps)
    return 10_000


def _run(bot: _Bot, budget: int, stop_when_empty: bool) -> RunResult:
    actions: list[str] = []
    last = None
    success = False
    note = None
    try:
        while len(actions) < budget:
            action = bot.replan(last)
            if stop_when_empty and not bot.stack:
                break
            bot.step(action)
            actions.append(action)
            last = action
            if bot.task.is_goal(bot.state):
                success = True
                break
    except _Stuck as stuck:
        note = str(stuck)
    return RunResult(actions, bot.pushes, success, note)


def _goal_json(task):
    raw = getattr(task.problem, "raw", None) or {}
    if "goal" not in raw:
        raise MissionError("the problem keeps no goal JSON to read the mission from")
    return raw["goal"]


def default_run(task, max_steps=None) -> RunResult:
    """The default-initialised bot solving the mission (help_count includes the translation)."""
    bot = _Bot(task)
    bot.translate(parse_mission(_goal_json(task)))
    return _run(bot, _budget(task, max_steps), stop_when_empty=False)


_NAMES = {"gonextto": "GoNextTo", "gonexttosubgoal": "GoNextTo", "open": "Open", "opensubgoal": "Open",
          "pickup": "Pickup", "pickupsubgoal": "Pickup", "drop": "Drop", "dropsubgoal": "Drop",
          "close": "Close", "closesubgoal": "Close"}


def _coordinate(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def parse_subgoals(task, subgoals) -> list[tuple]:
    """Check and normalise a chronological subgoal list: ("GoNextTo", (x, y)) or
    ("GoNextTo", object name[, reason]), ("Open",), ("Pickup",), ("Drop",), ("Close",);
    a bare name string stands for a one-word item. Raises SubgoalError naming a bad item."""
    if isinstance(subgoals, (str, bytes)) or not hasattr(subgoals, "__iter__"):
        raise SubgoalError(f"subgoals must be a list of items, not {type(subgoals).__name__}")
    out = []
    for k, item in enumerate(subgoals):
        where = f"subgoal {k + 1} ({item!r})"
        if isinstance(item, str):
            item = (item,)
        if not isinstance(item, (tuple, list)) or not item or not isinstance(item[0], str):
            raise SubgoalError(f"{where}: expected a tuple starting with a subgoal name")
        name = _NAMES.get(item[0].strip().lower())
        if name is None:
            raise SubgoalError(f"{where}: unknown subgoal '{item[0]}' "
                               "(known: GoNextTo, Open, Pickup, Drop, Close)")
        args = list(item[1:])
        if name != "GoNextTo":
            if args:
                raise SubgoalError(f"{where}: {name} takes no argument")
            out.append((name,))
            continue
        if len(args) not in (1, 2):
            raise SubgoalError(f"{where}: GoNextTo takes a position (x, y) and optionally a reason")
        reason = args[1] if len(args) == 2 else None
        if reason not in (None, "PutNext", "Open"):
            raise SubgoalError(f"{where}: reason must be None, 'PutNext' or 'Open', not {reason!r}")
        datum = args[0]
        if isinstance(datum, str):
            if datum not in task.problem.objects or task.problem.objects[datum] not in ("door", "key", "ball", "box"):
                raise SubgoalError(f"{where}: '{datum}' is not a door, key, ball or box of this problem")
            out.append((name, datum, reason))
            continue
        if not isinstance(datum, (tuple, list)) or len(datum) != 2:
            raise SubgoalError(f"{where}: GoNextTo needs a position (x, y)")
        xy = tuple(_coordinate(v) for v in datum)
        if None in xy:
            raise SubgoalError(f"{where}: the position must be two integers, not {datum!r}")
        out.append((name, xy, reason))
    return out


def execute(task, subgoals, max_steps=None) -> RunResult:
    """Decompose evaluation: run the bot on a fixed chronological subgoal list (not counted);
    help_count counts the bot's own pushes only."""
    items = parse_subgoals(task, subgoals)
    bot = _Bot(task)
    bot.counting = False
    classes = {"Open": Open, "Pickup": Pickup, "Drop": Drop, "Close": Close}
    for item in reversed(items):  # the first item ends on top
        if item[0] == "GoNextTo":
            datum = ObjRef(item[1]) if isinstance(item[1], str) else item[1]
            bot.push(GoNextTo(bot, datum, reason=item[2]))
        else:
            bot.push(classes[item[0]](bot))
    bot.counting = True
    return _run(bot, _budget(task, max_steps), stop_when_empty=True)
