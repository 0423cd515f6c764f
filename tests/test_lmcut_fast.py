"""The fast LM-cut (planners/heuristics/lmcut.py) returns exactly the reference's values (issue 35).

planners/heuristics/lmcut_reference.py is the plain round-by-round algorithm kept as the slow
reference. Checked on the initial state of a representative subset of the shipped problems
(gripper, blocksworld, logistics, sokoban, gridnav, a kitchen task with timers and an existential
goal, the classic PDDL files under evals/bench/pddl, and unified-planning's depot and miconic when
that package is installed), and on states reached by random walks from them; the cut lists
(used by opcount) must match too. Not every shipped problem: grounding the large ones (room32,
BabyAI, kitchen multi-agent) takes minutes and adds no new kind of relaxation."""
import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristic_worlds import load_world, walk_states
from groundplan.planners.heuristics import lmcut as fast
from groundplan.planners.heuristics import lmcut_reference as reference
from groundplan.planners.heuristics.relaxation import Relaxation

WORLDS = ["problems/gripper/prob03.json", "problems/blocksworld/blocks-4-0.json",
          "problems/logistics/logistics-c2-p2-s1.json", "problems/sokoban/one-box-5x5.json",
          "problems/gridnav/room8-10.json", "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json",
          "pddl:evals/bench/pddl/gripper/prob02.pddl", "pddl:evals/bench/pddl/blocksworld/sussman.pddl",
          "up:depot", "up:miconic"]


@functools.cache
def _setup(world: str):
    task = load_world(world)
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
    for state in walk_states(_setup(world)[0], seed, steps):
        _agree(world, state)


def test_the_heuristic_uses_the_fast_tables():
    from groundplan.planners.heuristics import make

    task = _setup(WORLDS[0])[0]
    h = make(task, "lmcut")
    assert isinstance(h.tables(h.r), fast.LMCutData)
    assert h(task.initial_state()) == reference.lmcut(reference.LMCutData(h.r), h.r.initial_facts(task.initial_state()))
