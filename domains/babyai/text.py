"""Text descriptions of a BabyAI state for LLM-BabyBench prompts (spec section 3).

Three variants of the same content, all pure functions of (task, state) over the interpreter
(no MiniGrid):
- `structured(task, state)`: the benchmark's format, the one its data set and results use: a
  fixed header paragraph (our wording), then `- key: value` bullets: number of rooms, room size
  with and without walls, total grid size (height x width), the agent's position, its facing
  direction with the cell in front, the doors, keys, balls and boxes in row-major order (by y,
  then x) as `type, color=..., position=(x, y)` (doors add `locked=True/False`), and the mission;
- `as_json(task, state)`: {"context": header, "config": {...}} with the same facts;
- `narrative(task, state)`: one short prose paragraph.

What the descriptions leave out, as the benchmark's do: walls (they follow from the room
geometry), whether a door is open (every door starts closed), box contents (always empty).
An object the agent carries, or a box that has vanished, is not on the grid and is not listed;
`structured` adds a `Carrying` bullet when the agent holds something (never in an initial state).
"""
from __future__ import annotations

import json

from .world import COLORS, DIRECTION_VECTORS, DIRECTIONS, OBJECT_TYPES
from .world import ACTIONS as _ALL_ACTIONS

ACTIONS = _ALL_ACTIONS[:6]  # the six the prompts list (no "done")

HEADER = (
    "The agent lives in a grid world made of one or more square rooms of equal size, laid out in a "
    "regular grid of rooms. Walls separate neighbouring rooms; some of these walls have a door, which is "
    "either unlocked or locked, and a locked door can only be opened while carrying a key of the same "
    "color. Rooms may hold keys, balls and boxes of various colors. The agent can hold one object at a "
    "time. It has six actions:\n"
    " - left: turn 90 degrees to the left (counter-clockwise) without moving,\n"
    " - right: turn 90 degrees to the right (clockwise) without moving,\n"
    " - forward: step one cell in the facing direction,\n"
    " - pickup: pick up the object in the cell in front,\n"
    " - drop: put the carried object down in the cell in front,\n"
    " - toggle: open or close the door in front; a box in front is opened, and since boxes are empty "
    "here it vanishes.\n"
    "Only forward changes the agent's cell, and only when the cell in front is free or an open door: "
    "the agent can never step onto a wall, a closed door or an object, not even the one it wants to use. "
    "An action whose condition fails does nothing but still takes a turn. Positions are written (x, y): "
    "(0, 0) is the top-left corner of the grid, always a wall; x grows to the east (right) and y grows "
    "to the south (down). Directions are numbered 0 = east, 1 = south, 2 = west, 3 = north."
)
SPECIFICS = "Details of this environment:"


def _value(task, state, fluent: str, args: tuple = ()):
    v = task.value(state, fluent, args)
    return int(v) if v is not None else None


def _color(task, state, obj: str) -> str | None:
    for c in COLORS:
        if task.atom_holds(state, "color", (obj, c)):
            return c
    return None


def geometry(task) -> dict:
    """Room counts and sizes from the problem's settings."""
    s = task.settings
    room = int(s.get("room_size", 8))
    cols, rows = int(s.get("num_cols", 1)), int(s.get("num_rows", 1))
    return {"room_size": room, "num_cols": cols, "num_rows": rows,
            "width": (room - 1) * cols + 1, "height": (room - 1) * rows + 1}


def agent_pose(task, state) -> tuple[tuple[int, int], int]:
    """((x, y), dir) of the agent."""
    return (_value(task, state, "agent-x"), _value(task, state, "agent-y")), _value(task, state, "dir")


def front_cell(pos, direction: int) -> tuple[int, int]:
    dx, dy = DIRECTION_VECTORS[direction]
    return pos[0] + dx, pos[1] + dy


def objects(task, state) -> list[dict]:
    """Doors, keys, balls and boxes on the grid, row-major (y, then x):
    [{"name", "type", "color", "position": (x, y), "locked" (doors only)}]."""
    out = []
    for name, typ in task.objects(state).items():
        if typ not in OBJECT_TYPES:
            continue
        x, y = _value(task, state, "x", (name,)), _value(task, state, "y", (name,))
        if x is None or y is None or x < 0 or y < 0:
            continue  # carried, or a box that vanished
        item = {"name": name, "type": typ, "color": _color(task, state, name), "position": (x, y)}
        if typ == "door":
            item["locked"] = task.atom_holds(state, "locked", (name,))
        out.append(item)
    out.sort(key=lambda o: (o["position"][1], o["position"][0]))
    return out


def carried(task, state) -> dict | None:
    for name, typ in task.objects(state).items():
        if typ in ("key", "ball", "box") and task.atom_holds(state, "carrying", (name,)):
            return {"name": name, "type": typ, "color": _color(task, state, name)}
    return None


def mission(task) -> str:
    return task.problem.goal_text or task.problem.raw.get("goal_text", "")


def pos_text(p) -> str:
    return f"({p[0]}, {p[1]})"


def state_text(pose) -> str:
    """((x, y), d) as the tasks write a pose."""
    (x, y), d = pose
    return f"(({x}, {y}), {d})"


def object_line(o: dict) -> str:
    line = f"{o['type']}, color={o['color']}, position={pos_text(o['position'])}"
    if o["type"] == "door":
        line += f", locked={bool(o['locked'])}"
    return line


def _rooms_text(g: dict) -> str:
    return "1" if g["num_cols"] * g["num_rows"] == 1 else f"{g['num_rows']}x{g['num_cols']}"


def specifics(task, state=None) -> str:
    """The `- key: value` bullets (without the header paragraph)."""
    state = task.initial_state() if state is None else state
    g = geometry(task)
    pos, d = agent_pose(task, state)
    r = g["room_size"]
    lines = [
        f"- Number of rooms: {_rooms_text(g)}",
        f"- Size of each room (including walls): {r}x{r}",
        f"- Effective room size (excluding walls): {r - 2}x{r - 2}",
        f"- Total grid size: {g['height']}x{g['width']}",
        f"- Agent initial position: {pos_text(pos)}",
        f"- Agent facing direction: {DIRECTIONS[d]} (toward {pos_text(front_cell(pos, d))})",
        "- Objects in environment:",
    ]
    lines += [f"  - {object_line(o)}" for o in objects(task, state)]
    held = carried(task, state)
    if held:
        lines.append(f"- Carrying: {held['type']}, color={held['color']}")
    lines.append(f"- Mission: '{mission(task)}'")
    return "\n".join(lines)


def structured(task, state=None) -> str:
    """The structured description: header paragraph, then the bullets."""
    return f"{HEADER}\n\n{SPECIFICS}\n\n{specifics(task, state)}"


def config(task, state=None) -> dict:
    """The facts of the structured description as a JSON-ready dict."""
    state = task.initial_state() if state is None else state
    g = geometry(task)
    pos, d = agent_pose(task, state)
    r = g["room_size"]
    rooms = 1 if g["num_cols"] * g["num_rows"] == 1 else [g["num_rows"], g["num_cols"]]
    objs = []
    for o in objects(task, state):
        item = {"type": o["type"], "color": o["color"], "position": list(o["position"])}
        if o["type"] == "door":
            item["locked"] = bool(o["locked"])
        objs.append(item)
    out = {"num_rooms": rooms, "room_size_incl_walls": [r, r], "room_size_excl_walls": [r - 2, r - 2],
           "grid_size": [g["height"], g["width"]], "agent_initial_pos": list(pos),
           "agent_front_pos": list(front_cell(pos, d)), "agent_direction": {"index": d, "name": DIRECTIONS[d]},
           "objects": objs}
    held = carried(task, state)
    if held:
        out["carrying"] = {"type": held["type"], "color": held["color"]}
    out["mission"] = mission(task)
    return out


def as_json(task, state=None, indent: int | None = 2) -> str:
    """The JSON variant: {"context": header, "config": {...}}."""
    return json.dumps({"context": f"{HEADER}\n\n{SPECIFICS}", "config": config(task, state)}, indent=indent)


def _listing(items: list[str]) -> str:
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def narrative(task, state=None) -> str:
    """A short prose paragraph with the same facts."""
    state = task.initial_state() if state is None else state
    g = geometry(task)
    pos, d = agent_pose(task, state)
    r = g["room_size"]
    if g["num_cols"] * g["num_rows"] == 1:
        rooms = f"a single room of {r}x{r} cells counting its walls ({r - 2}x{r - 2} inside)"
    else:
        rooms = (f"{g['num_rows']}x{g['num_cols']} rooms, each {r}x{r} cells counting its walls "
                 f"({r - 2}x{r - 2} inside), neighbouring rooms sharing a wall")
    parts = []
    for o in objects(task, state):
        if o["type"] == "door":
            kind = "a locked" if o["locked"] else "an unlocked"
            parts.append(f"{kind} {o['color']} door at {pos_text(o['position'])}")
        else:
            parts.append(f"a {o['color']} {o['type']} at {pos_text(o['position'])}")
    text = (f"The world is {rooms}; the whole grid is {g['height']} cells high and {g['width']} wide. "
            "Only the forward action moves the agent, one cell in the facing direction, and only onto a free "
            "cell or an open door; left and right turn it in place; pickup, drop and toggle act on the cell in "
            "front. Positions are (x, y) with (0, 0) at the top-left corner, x growing east and y growing south; "
            "directions are 0 east, 1 south, 2 west, 3 north. "
            f"The agent stands at {pos_text(pos)} facing {DIRECTIONS[d]}, toward {pos_text(front_cell(pos, d))}. ")
    if parts:
        text += f"Apart from the walls the grid holds {_listing(parts)}. "
    held = carried(task, state)
    if held:
        text += f"The agent carries a {held['color']} {held['type']}. "
    text += f"The mission is '{mission(task)}'."
    return text


FORMATS = {"structured": structured, "json": as_json, "narrative": narrative}


def describe(task, state=None, fmt: str = "structured") -> str:
    """The description of `state` (default: the initial state) in format `fmt`."""
    try:
        return FORMATS[fmt](task, state)
    except KeyError:
        raise ValueError(f"unknown description format '{fmt}' (known: {', '.join(FORMATS)})") from None
