"""The fast LM-cut (planners/heuristics/lmcut.py) returns exactly the reference's values (issue 35).

planners/heuristics/lmcut_reference.py is the plain round-by-round algorithm kept as the slow
reference. Checked on the initial state of a representative subset of the shipped problems
(gripper, blocksworld, logistics, sokoban, gridnav, a kitchen task with timers and an existential
goal, the classic PDDL files under evals/bench/pddl, and unified-planning's depot and miconic when
that package is installed), and on states reached by random walks from them; the cut lists
(used by opcount) must match too. Not every shipped problem: grounding the large ones (room32,
BabyAI, kitchen multi-agent) takes minutes and adds no new kind of relaxation."""
import functools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task
from groundplan.engine.loader import build_problem, load_domain, load_problem
from groundplan.planners.heuristics import lmcut as fast
from groundplan.planners.heuristics import lmcut_reference as reference
from groundplan.planners.heuristics.relaxation import Relaxation

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ["problems/gripper/prob03.json", "problems/blocksworld/blocks-4-0.json",
          "problems/logistics/logistics-c2-p2-s1.json", "problems/sokoban/one-box-5x5.json",
          "problems/gridnav/room8-10.json", "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json",
          "pddl:evals/bench/pddl/gripper/prob02.pddl", "pddl:evals/bench/pddl/blocksworld/sussman.pddl",
          "up:depot", "up:miconic"]


def _pddl(domain: Path, problem: Path) -> Task:
    from groundplan.engine.pddl.reader import import_pddl

    d, problems = import_pddl(str(domain), [str(problem)])
    return Task(build_problem(problems[0], problem.name, None, domain=load_domain(d)))


@functools.cache
def _setup(world: str):
    if world.startswith("pddl:"):
        problem = ROOT / world[5:]
        task = _pddl(problem.parent / "domain.pddl", problem)
    elif world.startswith("up:"):
        up = pytest.importorskip("unified_planning")
        base = Path(up.__file__).parent / "test" / "pddl" / world[3:]
        task = _pddl(base / "domain.pddl", base / "problem.pddl")
    else:
        task = Task(load_problem(str(ROOT / world)))
    r = Relaxation(task, time_aware=False)
    return task, r, fast.LMCutData(r), reference.LMCutData(r)


def _agree(world, state):
    task, r, data, ref = _setup(world)
    bits = r.initial_facts(state)
    cuts, ref_cuts = [], []
    assert fast.lmcut(data, bits, cuts) == reference.lmcut(ref, bits, ref_cuts)
    assert cuts == ref_cuts


@pytest.mark.parametrize("world", WORLDS)
def test_initial_state_values_equal_the_reference(world):
    task = _setup(world)[0]
    _agree(world, task.initial_state())


@pytest.mark.parametrize("world", WORLDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 25))
def test_random_walk_states_equal_the_reference(world, seed, steps):
    task = _setup(world)[0]
    rng = random.Random(seed)
    state = task.initial_state()
    for _ in range(steps):
        actions = task.applicable(state)
        if not actions:
            break
        state = task.apply(state, rng.choice(actions))
        _agree(world, state)


def test_the_heuristic_uses_the_fast_tables():
    from groundplan.planners.heuristics import make

    task = _setup(WORLDS[0])[0]
    h = make(task, "lmcut")
    assert isinstance(h.tables(h.r), fast.LMCutData)
    assert h(task.initial_state()) == reference.lmcut(reference.LMCutData(h.r), h.r.initial_facts(task.initial_state()))
