"""The worlds the heuristic equality tests share (tests/test_lmcut_fast.py, tests/test_kernels.py):
a shipped problem's path, `pddl:` a classic PDDL file under evals/bench/pddl (its domain.pddl
beside it), or `up:NAME` one of the PDDL pairs unified-planning's wheel ships (skipped without it)."""
from __future__ import annotations

from pathlib import Path

import pytest

from groundplan.engine import Task
from groundplan.engine.loader import build_problem, load_domain, load_problem

ROOT = Path(__file__).resolve().parents[1]


def pddl_task(domain: Path, problem: Path) -> Task:
    from groundplan.engine.pddl.reader import import_pddl

    d, problems = import_pddl(str(domain), [str(problem)])
    return Task(build_problem(problems[0], problem.name, None, domain=load_domain(d)))


def load_world(world: str) -> Task:
    if world.startswith("pddl:"):
        problem = ROOT / world[5:]
        return pddl_task(problem.parent / "domain.pddl", problem)
    if world.startswith("up:"):
        up = pytest.importorskip("unified_planning")
        base = Path(up.__file__).parent / "test" / "pddl" / world[3:]
        return pddl_task(base / "domain.pddl", base / "problem.pddl")
    path = ROOT / world
    if not path.exists():
        pytest.skip(f"{world} is not shipped")
    return Task(load_problem(str(path)))


def walk_states(task: Task, seed: int, steps: int):
    """The states of a seeded random walk of at most `steps` steps (ends early at a dead end)."""
    import random

    rng = random.Random(seed)
    state = task.initial_state()
    for _ in range(steps):
        actions = task.applicable(state)
        if not actions:
            return
        state = task.apply(state, rng.choice(actions))
        yield state
