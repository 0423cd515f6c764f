"""MiniGrid environment -> groundplan problem: the one place that reads MiniGrid's objects.

Generation and the conformance tests need MiniGrid (`pip install -e '.[babyai]'`); nothing else
does. The problem holds what the interpreter needs and nothing it can derive: the room geometry
as settings (walls are the lines x or y = k*(room_size-1), checked here against MiniGrid's grid),
the doors, keys, balls and boxes with their colours and cells, the agent's pose, and the mission
as a temporally extended goal over exactly the objects MiniGrid's verifier matched at reset.

Objects are named by type and rank in row-major order (y, then x), the order in which the
benchmark's descriptions list them: door1, door2, ..., key1, ball1, box1.
"""
from __future__ import annotations

from .world import DIRECTION_VECTORS, OBJECT_TYPES


class ConversionError(ValueError):
    """The environment uses something the babyai domain does not model (say so, do not guess)."""


def grid_objects(env) -> list[tuple[str, object, tuple[int, int]]]:
    """(name, MiniGrid object, (x, y)) for every door, key, ball and box, in row-major order."""
    u = env.unwrapped
    counts = dict.fromkeys(OBJECT_TYPES, 0)
    out = []
    for y in range(u.grid.height):
        for x in range(u.grid.width):
            cell = u.grid.get(x, y)
            if cell is None or cell.type == "wall":
                continue
            if cell.type not in counts:
                raise ConversionError(f"cell ({x}, {y}) holds a {cell.type}, which the babyai domain does not model")
            if cell.type == "box" and cell.contains is not None:
                raise ConversionError(f"the box at ({x}, {y}) holds an object; the domain's boxes are empty")
            counts[cell.type] += 1
            out.append((f"{cell.type}{counts[cell.type]}", cell, (x, y)))
    return out


def check_walls(env) -> None:
    """Walls must be exactly the room lines minus the doors, as the domain derives them."""
    u = env.unwrapped
    step = u.room_size - 1
    for y in range(u.grid.height):
        for x in range(u.grid.width):
            cell = u.grid.get(x, y)
            on_line = x % step == 0 or y % step == 0
            is_wall = cell is not None and cell.type == "wall"
            if on_line and not is_wall and not (cell is not None and cell.type == "door"):
                raise ConversionError(f"({x}, {y}) lies on a room wall line but holds no wall or door")
            if is_wall and not on_line:
                raise ConversionError(f"({x}, {y}) holds a wall inside a room; the domain derives walls from the geometry")


def mission_goal(instr, names: dict[int, str]):
    """The verifier's instruction tree as a goal over the objects it matched at reset."""
    from minigrid.envs.babyai.core.verifier import (AfterInstr, AndInstr, BeforeInstr, GoToInstr, OpenInstr,
                                                    PickupInstr, PutNextInstr)

    def members(desc):
        found = [names[id(obj)] for obj in desc.obj_set]
        if not found:
            raise ConversionError(f"no object matches '{desc}'")
        return found

    def any_of(parts):
        return parts[0] if len(parts) == 1 else {"or": parts}

    def clause(node, later: bool):
        if isinstance(node, GoToInstr):
            return any_of([{"and": [{"=": [["tx", o], ["front-x"]]}, {"=": [["ty", o], ["front-y"]]}]}
                           for o in members(node.desc)])
        if isinstance(node, OpenInstr):
            return any_of([["opened", o] for o in members(node.desc)])
        if isinstance(node, PickupInstr):
            return any_of([["picked", o] for o in members(node.desc)])
        if isinstance(node, PutNextInstr):
            fixed = members(node.desc_fixed)
            formula = any_of([{"and": [["dropped", a], any_of([
                {"=": [{"+": [{"abs": {"-": [["x", a], ["tx", b]]}}, {"abs": {"-": [["y", a], ["ty", b]]}}]}, 1]}
                for b in fixed])]} for a in members(node.desc_move)])
            # The verifier's memory of what was carried starts empty: a clause first checked in the
            # step that completed the clause before it cannot count that step's drop.
            return {"later": formula} if later else formula
        if isinstance(node, AndInstr):
            return {"all": [clause(node.instr_a, later), clause(node.instr_b, later)]}
        raise ConversionError(f"unsupported instruction {type(node).__name__}")

    if isinstance(instr, BeforeInstr):
        return {"sequence": [clause(instr.instr_a, False), clause(instr.instr_b, True)]}
    if isinstance(instr, AfterInstr):
        return {"sequence": [clause(instr.instr_b, False), clause(instr.instr_a, True)]}
    goal = clause(instr, False)
    return goal


def named_objects(instr) -> list:
    """The MiniGrid objects the mission's descriptions matched (the verifier tracks these)."""
    out = []
    stack = [instr]
    while stack:
        node = stack.pop()
        for attr in ("instr_a", "instr_b"):
            if hasattr(node, attr):
                stack.append(getattr(node, attr))
        for attr in ("desc", "desc_move", "desc_fixed"):
            if hasattr(node, attr):
                out.extend(getattr(node, attr).obj_set)
    return out


def problem_from_env(env, name: str, metadata: dict | None = None) -> dict:
    """The problem file of an environment just reset (nothing carried, every verifier latch clear)."""
    u = env.unwrapped
    if u.carrying is not None:
        raise ConversionError("the agent carries an object; convert an environment right after reset")
    check_walls(env)
    objects = grid_objects(env)
    names = {id(obj): label for label, obj, _ in objects}
    tracked = {id(obj) for obj in named_objects(u.instrs)}
    ax, ay = (int(v) for v in u.agent_pos)
    direction = int(u.agent_dir)
    dx, dy = DIRECTION_VECTORS[direction]
    init, values = [], [[["agent-x"], ax], [["agent-y"], ay], [["dir"], direction],
                        [["front-x"], ax + dx], [["front-y"], ay + dy]]
    for label, obj, (x, y) in objects:
        init.append(["color", label, obj.color])
        if obj.type == "door":
            if obj.is_locked:
                init.append(["locked", label])
            elif obj.is_open:
                init.append(["open", label])
        values += [[["x", label], x], [["y", label], y]]
        if id(obj) in tracked:
            init.append(["named", label])
            values += [[["tx", label], x], [["ty", label], y]]
    problem = {
        "groundplan": "1",
        "name": name,
        "domain": "babyai",
        "settings": {"room_size": int(u.room_size), "num_cols": int(u.num_cols), "num_rows": int(u.num_rows)},
        "objects": {label: obj.type for label, obj, _ in objects},
        "init": init,
        "values": values,
        "goal": mission_goal(u.instrs, names),
        "goal_text": u.mission,
        "max_steps": int(u.max_steps),
    }
    if metadata:
        problem["metadata"] = metadata
    return problem
