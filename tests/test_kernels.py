"""The numba kernels (planners/heuristics/kernels.py) return exactly what the Python paths return.

LM-cut: values and cuts equal to planners/heuristics/lmcut_reference.py; h_max: values equal to
the interpreted h_max (HMax.python), with running timers scheduled. Same worlds and random walks
as tests/test_lmcut_fast.py (the IPC tasks, which tests never read, are checked the same way by
evals/bench/heuristic_values.py; satellite's tables lose a third of their actions to the relevance
pruning there, and stay equal). Also: the Python path is used when numba is missing or for a short
search, `import groundplan.planners` does not import numba, and a bucket table that is too short
grows without changing a value.
"""
import functools
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristic_worlds import load_world, walk_states
from groundplan.planners.heuristics import HMax, kernels, make
from groundplan.planners.heuristics import lmcut as fast
from groundplan.planners.heuristics import lmcut_reference as reference
from groundplan.planners.heuristics.relaxation import Relaxation

WORLDS = ["problems/gripper/prob03.json", "problems/blocksworld/blocks-4-0.json",
          "problems/logistics/logistics-c2-p2-s1.json", "problems/sokoban/one-box-5x5.json",
          "problems/gridnav/room8-10.json", "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json",
          "domains/kitchen/tasks/sync/04_burger.json",
          "pddl:evals/bench/pddl/gripper/prob02.pddl", "pddl:evals/bench/pddl/blocksworld/sussman.pddl",
          "up:depot", "up:miconic"]

compiled = pytest.importorskip("numba") and kernels.kernels()


@functools.cache
def _setup(world: str):
    task = load_world(world)
    r = Relaxation(task, time_aware=False)
    hmax = HMax(Relaxation(task))  # time-aware when every action costs 1, as make() builds it
    hmax_tables = kernels.Tables(fast.LMCutData(hmax.r)) if hmax.r.integral else None
    return task, r, fast.LMCutData(r), reference.LMCutData(r), hmax, hmax_tables


def _agree(world, state):
    task, r, data, ref, hmax, hmax_tables = _setup(world)
    bits = r.initial_facts(state)
    cuts, ref_cuts = [], []
    if not r.goal_unreachable:
        assert kernels.lmcut(data.compiled(), bits, cuts) == reference.lmcut(ref, bits, ref_cuts)
        assert cuts == ref_cuts
        assert kernels.lmcut(data.compiled(), bits) == reference.lmcut(ref, bits)
    hr = hmax.relaxation(state)
    if hmax_tables is not None and hr is hmax.r and not hr.goal_unreachable:
        reached, schedule = hr.initial_facts(state), hr.schedule(state, paused=True)
        assert kernels.hmax(hmax_tables, reached, schedule) == hmax.python(hr, reached, schedule)
        assert kernels.hmax(hmax_tables, reached) == hmax.python(hr, reached, {})


@pytest.mark.parametrize("world", WORLDS)
def test_initial_state_values_equal_the_python_paths(world):
    _agree(world, _setup(world)[0].initial_state())


@pytest.mark.parametrize("world", WORLDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 25))
def test_random_walk_states_equal_the_python_paths(world, seed, steps):
    for state in walk_states(_setup(world)[0], seed, steps):
        _agree(world, state)


def test_too_few_buckets_grow_without_changing_values():
    import numpy as np

    task, r, data, ref, hmax, _ = _setup(WORLDS[2])
    tables = kernels.Tables(data)
    bits = r.initial_facts(task.initial_state())
    tables.head = np.full(1, -1, dtype=np.int64)
    assert kernels.lmcut(tables, bits) == reference.lmcut(ref, bits)
    tables.head = np.full(1, -1, dtype=np.int64)
    assert kernels.hmax(tables, bits) == reference._hmax(ref, ref.initial(bits), list(ref.cost))[0][ref.goal]
    assert len(tables.head) > 1 and (tables.head == -1).all()


def test_the_heuristics_switch_to_the_kernels_once_a_search_runs_long(monkeypatch):
    monkeypatch.setenv("GROUNDPLAN_JIT", "auto")
    monkeypatch.setattr(kernels, "WARMUP_SECONDS", 0.0)
    task = _setup(WORLDS[0])[0]
    for name in ("lmcut", "hmax"):
        h = make(task, name)
        s = task.initial_state()
        values = [h(s) for _ in range(200)]
        assert h.switch.on is True and len(set(values)) == 1
    monkeypatch.setattr(kernels, "WARMUP_SECONDS", 3600.0)
    monkeypatch.setitem(kernels._state, "kernels", None)  # as in a process that has not loaded them yet
    h = make(task, "lmcut")
    for _ in range(200):
        h(task.initial_state())
    assert h.switch.on is None  # still deciding: a short search stays on the Python path


def test_a_long_search_loads_the_kernels_on_a_thread_meanwhile(monkeypatch):
    import time

    monkeypatch.setenv("GROUNDPLAN_JIT", "auto")
    monkeypatch.setattr(kernels, "WARMUP_SECONDS", 0.0)
    monkeypatch.setitem(kernels._state, "kernels", None)  # a process that has not loaded them yet
    monkeypatch.setitem(kernels._state, "loader", None)
    task = _setup(WORLDS[0])[0]
    h = make(task, "lmcut")
    state = task.initial_state()
    expected = h(state)
    deadline = time.monotonic() + 60
    while h.switch.on is None and time.monotonic() < deadline:
        assert h(state) == expected  # the Python path, while the thread loads
    assert h.switch.on is True and h(state) == expected
    kernels._state["loader"].join()


def test_without_numba_the_python_path_runs(monkeypatch):
    monkeypatch.setenv("GROUNDPLAN_JIT", "1")
    monkeypatch.setitem(kernels._state, "kernels", None)
    monkeypatch.setitem(kernels._state, "failed", True)  # as when `import numba` fails
    task = _setup(WORLDS[0])[0]
    for name in ("lmcut", "hmax"):
        h = make(task, name)
        value = h(task.initial_state())
        assert h.switch.on is False
        assert value == (reference.lmcut(reference.LMCutData(h.r), h.r.initial_facts(task.initial_state()))
                         if name == "lmcut" else h.python(h.r, h.r.initial_facts(task.initial_state()), {}))


def test_importing_the_planners_does_not_import_numba():
    code = "import sys, groundplan.planners, groundplan.planners.heuristics; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_running_timers_are_scheduled_alike():
    world = "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json"
    task, _, _, _, hmax, tables = _setup(world)
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = task.initial_state()
        for _ in range(25):
            actions = task.applicable(state)
            if not actions:
                break
            state = task.apply(state, rng.choice(actions))
            schedule = hmax.r.schedule(state, paused=True)
            if schedule and not state.created:
                reached = hmax.r.initial_facts(state)
                assert kernels.hmax(tables, reached, schedule) == hmax.python(hmax.r, reached, schedule)
                checked += 1
    assert checked


def test_the_compiled_from_bits_equals_the_python_one(monkeypatch):
    monkeypatch.setenv("GROUNDPLAN_JIT", "1")
    task = _setup(WORLDS[2])[0]
    rng = random.Random(7)
    for name in ("lmcut", "hmax"):
        h, reference_h = make(task, name), make(task, name)
        reference_h.switch.on = False
        state = task.initial_state()
        h.from_bits(h.r.initial_facts(state))
        assert h._bits is not None
        for _ in range(30):
            bits = h.r.initial_facts(state)
            assert h.from_bits(bits) == reference_h.from_bits(bits)
            state = task.apply(state, rng.choice(task.applicable(state)))
