"""Side-by-side replay of one action sequence in MiniGrid and in the interpreter.

The conformance test and the benchmarks share it (the test replays a few seeds of every
environment, evals/bench/babyai_conformance.py the whole sweep). At every step it compares what
MiniGrid exposes (agent pose, carried object, door states, object cells, mission success,
truncation) with the interpreter's state, and reports the first difference. Needs MiniGrid.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from .world import ACTIONS


def side_by_side(name: str, seed: int):
    """The environment `name` reset with `seed`, its problem, its task and the names of its objects."""
    from ...engine import Task
    from ...engine.loader import build_problem
    from .convert import grid_objects, problem_from_env
    from .generate import reset

    env = reset(name, seed)
    problem = problem_from_env(env, f"{name}-{seed}")
    task = Task(build_problem(problem, f"<{name}-{seed}>", None))
    return env, problem, task, {id(obj): label for label, obj, _ in grid_objects(env)}


def trajectory(env, seed: int) -> list[int]:
    """The actions replayed for `seed`: odd seeds a random walk of up to 300 steps biased towards
    moving (a room's max_steps is 64 to 2,880), even seeds the expert bot's run with 8% of its
    actions replaced at random."""
    from .expert import make_expert

    rng = random.Random(seed)
    if seed % 2:
        return [rng.choice((2, 2, 2, 0, 1, 3, 4, 5, 6)) for _ in range(min(env.max_steps, 300))]
    copy_env = copy.deepcopy(env)
    bot = make_expert(copy_env)
    actions, last = [], None
    for _ in range(copy_env.max_steps):
        try:
            action = int(bot.replan(last))
        except Exception:  # the bot cannot recover from some perturbations: finish at random
            action = rng.randrange(7)
        if rng.random() < 0.08:
            action = rng.randrange(7)
        actions.append(action)
        last = action
        _, _, terminated, truncated, _ = copy_env.step(action)
        if terminated or truncated:
            break
    return actions


@dataclass
class Snapshot:
    pose: tuple
    carrying: str | None
    doors: dict
    cells: dict
    success: bool
    truncated: bool


def minigrid_snapshot(env, names: dict[int, str], terminated: bool, truncated: bool) -> Snapshot:
    u = env.unwrapped
    cells = dict.fromkeys(names.values(), (-1, -1))
    doors = {}
    for y in range(u.grid.height):
        for x in range(u.grid.width):
            cell = u.grid.get(x, y)
            if cell is not None and id(cell) in names:
                cells[names[id(cell)]] = (x, y)
                if cell.type == "door":
                    doors[names[id(cell)]] = (bool(cell.is_open), bool(cell.is_locked))
    carrying = names[id(u.carrying)] if u.carrying is not None else None
    return Snapshot((int(u.agent_pos[0]), int(u.agent_pos[1]), int(u.agent_dir)), carrying, doors, cells,
                    bool(terminated), bool(truncated))


def interpreter_snapshot(task, state, steps: int, max_steps: int) -> Snapshot:
    value = task.value
    things = [o for o, t in task.problem.objects.items() if t in ("door", "key", "ball", "box")]
    cells = {o: (int(value(state, "x", (o,))), int(value(state, "y", (o,)))) for o in things}
    doors = {o: (task.atom_holds(state, "open", (o,)), task.atom_holds(state, "locked", (o,)))
             for o, t in task.problem.objects.items() if t == "door"}
    carried = [o for o in things if task.problem.objects[o] != "door" and task.atom_holds(state, "carrying", (o,))]
    pose = (int(value(state, "agent-x", ())), int(value(state, "agent-y", ())), int(value(state, "dir", ())))
    return Snapshot(pose, carried[0] if carried else None, doors, cells, task.is_goal(state), steps >= max_steps)


def replay_both(env, task, names: dict[int, str], actions, max_steps: int):
    """Step both worlds through `actions` (indices into ACTIONS) until either ends.

    Returns (steps compared, None, mission done) when they agree throughout, else (step,
    description, False)."""
    ground = {name: task.ground_action(name, ()) for name in ACTIONS}
    state = task.initial_state()
    want = minigrid_snapshot(env, names, False, False)
    got = interpreter_snapshot(task, state, 0, max_steps)
    if want != got:
        return 0, _difference(want, got), False
    for step, index in enumerate(actions, 1):
        _, _, terminated, truncated, _ = env.step(index)
        state = task.apply(state, ground[ACTIONS[index]])
        want = minigrid_snapshot(env, names, terminated, truncated)
        got = interpreter_snapshot(task, state, step, max_steps)
        if want != got:
            return step, f"after {ACTIONS[index]}: " + _difference(want, got), False
        if terminated or truncated:
            return step, None, bool(terminated)
    return len(actions), None, False


def _difference(want: Snapshot, got: Snapshot) -> str:
    parts = []
    for field in ("pose", "carrying", "success", "truncated"):
        if getattr(want, field) != getattr(got, field):
            parts.append(f"{field}: MiniGrid {getattr(want, field)} vs interpreter {getattr(got, field)}")
    for field in ("doors", "cells"):
        a, b = getattr(want, field), getattr(got, field)
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                parts.append(f"{field}[{key}]: MiniGrid {a.get(key)} vs interpreter {b.get(key)}")
    return "; ".join(parts)
