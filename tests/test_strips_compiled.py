"""The compiled breadth-first search (planners/search/strips_compiled.py, _compiled_bfs.py) finds
what the interpreted strips.bfs finds: the same status, plan, cost and counts of expanded and
generated states, from the start, after a hand-over in the middle of a layer, for goals drawn
from random walks (negative goal facts too) and for unreachable goals (the whole space expanded).
The compiled A* (_compiled_astar.py) likewise against strips.best_first with the same compiled
h_max, LM-cut and blind estimate (uniform-cost search, with random action costs), handed over at the first check, and lazy GBFS with the compiled successor
walk (strips_compiled.lazy) against strips.lazy_greedy. Ops are given random negative
preconditions (no shipped STRIPS world has one).
"""
import copy
import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristic_worlds import load_world, walk_states
from groundplan.planners.heuristics import kernels
from groundplan.planners.search import strips, strips_compiled

WORLDS = ["problems/gripper/prob03.json", "problems/blocksworld/blocks-4-0.json",
          "problems/logistics/logistics-c2-p2-s1.json",
          "pddl:evals/bench/pddl/gripper/prob02.pddl", "up:depot"]

compiled = pytest.importorskip("numba") and kernels.kernels()
compiled_bfs = strips._compiled_bfs
HANDED = []  # the last _astar's or _lazy's hand-overs


def _view(world):
    task = load_world(world)
    task.applicable(task.initial_state())
    view = strips.strips_view(task)
    if view is None:
        pytest.skip(f"{world} is not plain STRIPS")
    return task, view


def _run(view, start, monkeypatch, jit):
    monkeypatch.setenv("GROUNDPLAN_JIT", jit)
    monkeypatch.setattr(strips, "HAND_OVER_AFTER", 0)  # at the first check: before the first expansion
    handed = []
    monkeypatch.setattr(strips, "_compiled_bfs", lambda *args: handed.append(1) or compiled_bfs(*args))
    r = strips.bfs(view, start)
    s0 = start.facts
    solved_at_once = s0 & view.goal_pos == view.goal_pos and not s0 & view.goal_neg
    assert len(handed) == (jit != "0" and not solved_at_once)
    return r.status, r.plan, r.cost, r.expanded, r.generated


@pytest.mark.parametrize("world", WORLDS)
def test_same_search(world, monkeypatch):
    task, view = _view(world)
    start = task.initial_state()
    assert _run(view, start, monkeypatch, "1") == _run(view, start, monkeypatch, "0")


class _Late:
    """A kernels.Switch that says 'compiled' from its `after`-th question on."""

    after = 3

    def __init__(self):
        self.asked = 0

    def compiled(self):
        self.asked += 1
        return self.asked > self.after


@pytest.mark.parametrize("after", [1, 4, 7])
@pytest.mark.parametrize("world", ["problems/gripper/prob03.json", "up:depot"])
def test_hand_over(world, after, monkeypatch):
    task, view = _view(world)
    start = task.initial_state()
    python = _run(view, start, monkeypatch, "0")
    monkeypatch.setattr(_Late, "after", after)
    monkeypatch.setattr(kernels, "Switch", _Late)
    assert _run(view, start, monkeypatch, "auto") == python


def _facts(bits):
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


@settings(max_examples=16, deadline=None, suppress_health_check=list(HealthCheck))
@given(world=st.sampled_from(WORLDS), seed=st.integers(0, 10**6))
def test_random_goals_and_negative_preconditions(world, seed):
    """Goals: facts of a state a random walk reached, and facts false there; a few ops are given
    a negative precondition on a random fact (no shipped STRIPS world has one)."""
    task, view = _view(world)
    target = ([task.initial_state()] + list(walk_states(task, seed, 12)))[-1].facts
    rng = random.Random(seed)
    known = _facts(task.initial_state().facts | target | sum(op.add for op in view.ops))
    ops = []
    for op in view.ops:
        if rng.random() < 0.1:
            op = copy.copy(op)
            op.pre_neg = 1 << rng.choice(known)
        ops.append(op)
    goal = SimpleNamespace(pos=sum(1 << f for f in _facts(target) if rng.random() < 0.5),
                           neg=sum(1 << f for f in known if not target >> f & 1 and rng.random() < 0.2))
    view = strips.StripsView(task, ops, goal)
    start = task.initial_state()
    with pytest.MonkeyPatch.context() as mp:
        assert _run(view, start, mp, "1") == _run(view, start, mp, "0")


@pytest.mark.parametrize("world", ["problems/gripper/prob03.json", "problems/blocksworld/blocks-4-0.json"])
def test_unreachable_goal(world, monkeypatch):
    task, view = _view(world)
    view = copy.copy(view)
    top = max(op.add.bit_length() for op in view.ops) + task.initial_state().facts.bit_length()
    view.goal_pos = 1 << top  # a fact no op adds
    start = task.initial_state()
    found = _run(view, start, monkeypatch, "1")
    assert found == _run(view, start, monkeypatch, "0")
    assert found[0] == "unsolvable-proven" and found[3] > 50


def _late(answer, after, no):
    """`answer` that says `no` to its first `after` calls: a hand-over in mid-search."""
    calls = []

    def late():
        calls.append(1)
        return answer() if len(calls) > after else no
    return late


def _astar(view, task, heuristic, monkeypatch, compiled_search, after=0):
    from groundplan.planners import limits
    from groundplan.planners.heuristics import make

    monkeypatch.setenv("GROUNDPLAN_JIT", "1")
    h = make(task, heuristic)
    h.from_bits(task.initial_state().facts)  # the heuristic switches to its compiled kernel now
    assert h.compiled_tables() is not None
    handed = []
    if compiled_search:
        monkeypatch.setattr(limits.Limits, "PACE_MAX", 1)  # hand over at the first check
        real = strips_compiled.astar
        monkeypatch.setattr(strips_compiled, "astar", lambda *args, **kw: handed.append(1) or real(*args, **kw))
    else:
        monkeypatch.setattr(strips, "_kernels_loaded", lambda: False)
    r = strips.best_first(view, h.from_bits, task.initial_state(), heuristic_name=h.name,
                          compiled=_late(h.compiled_tables, after, None))
    monkeypatch.undo()
    HANDED[:] = handed
    if not after:
        assert len(handed) == (compiled_search and h.from_bits(task.initial_state().facts) != float("inf"))
    return r.status, r.plan, r.cost, r.expanded, r.generated


@pytest.mark.parametrize("heuristic", ["hmax", "lmcut", "blind"])
@pytest.mark.parametrize("world", WORLDS)
def test_astar_same_search(world, heuristic, monkeypatch):
    task, view = _view(world)
    assert _astar(view, task, heuristic, monkeypatch, True) == _astar(view, task, heuristic, monkeypatch, False)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(world=st.sampled_from(WORLDS), heuristic=st.sampled_from(["hmax", "lmcut"]), seed=st.integers(0, 10**6))
def test_astar_negative_preconditions_and_other_goals(world, heuristic, seed):
    """As test_random_goals_and_negative_preconditions, for A*: the heuristic, built for the
    task's own goal, is then no longer a bound, but both searches must still do the same."""
    task, view = _view(world)
    target = ([task.initial_state()] + list(walk_states(task, seed, 8)))[-1].facts
    rng = random.Random(seed)
    ops = []
    for op in view.ops:
        if rng.random() < 0.1:
            op = copy.copy(op)
            op.pre_neg = 1 << rng.choice(_facts(target | op.add))
        ops.append(op)
    view = strips.StripsView(task, ops, SimpleNamespace(pos=sum(1 << f for f in _facts(target) if rng.random() < 0.5),
                                                        neg=0))
    with pytest.MonkeyPatch.context() as mp:
        assert _astar(view, task, heuristic, mp, True) == _astar(view, task, heuristic, mp, False)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(world=st.sampled_from(WORLDS), seed=st.integers(0, 10**6))
def test_uniform_cost_search_with_action_costs(world, seed):
    """The blind estimate turns the compiled A* into uniform-cost search (`ucs`, and `bfs` where
    costs differ): with random whole costs of 1 to 5 it must expand what strips.best_first does."""
    task, view = _view(world)
    rng = random.Random(seed)
    ops = []
    for op in view.ops:
        op = copy.copy(op)
        op.cost = rng.randint(1, 5)
        ops.append(op)
    view = strips.StripsView(task, ops, SimpleNamespace(pos=view.goal_pos, neg=view.goal_neg))
    with pytest.MonkeyPatch.context() as mp:
        found = _astar(view, task, "blind", mp, True)
        assert found == _astar(view, task, "blind", mp, False)
    assert found[0] == "solved-optimal" and found[2] >= len(found[1])


def test_astar_unreachable_goal(monkeypatch):
    task, view = _view("problems/gripper/prob03.json")
    view = copy.copy(view)
    view.goal_pos = 1 << (max(op.add.bit_length() for op in view.ops) + task.initial_state().facts.bit_length())
    found = _astar(view, task, "hmax", monkeypatch, True)
    assert found == _astar(view, task, "hmax", monkeypatch, False)
    assert found[0] == "unsolvable-proven" and found[3] > 1000


def _lazy(view, task, monkeypatch, compiled_search, after=0):
    from groundplan.planners.heuristics import make

    monkeypatch.setenv("GROUNDPLAN_JIT", "1")
    h = make(task, "hff")
    handed = []
    if compiled_search:
        from groundplan.planners import limits

        monkeypatch.setattr(limits.Limits, "PACE_MAX", 1)  # a check before every evaluation
        real = strips_compiled.lazy
        monkeypatch.setattr(strips_compiled, "lazy", lambda *args: handed.append(1) or real(*args))
        monkeypatch.setattr(strips, "_kernels_loaded", _late(strips._kernels_loaded, after, False))
    else:
        monkeypatch.setattr(strips, "_kernels_loaded", lambda: False)
    r = strips.lazy_greedy(view, h.from_bits, task.initial_state(), heuristic_name=h.name)
    monkeypatch.undo()
    HANDED[:] = handed
    if not after:
        assert len(handed) == compiled_search  # the first check comes before the first evaluation
    return r.status, r.plan, r.cost, r.expanded, r.generated


@pytest.mark.parametrize("world", WORLDS)
def test_lazy_same_search(world, monkeypatch):
    task, view = _view(world)
    assert _lazy(view, task, monkeypatch, True) == _lazy(view, task, monkeypatch, False)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(world=st.sampled_from(WORLDS), seed=st.integers(0, 10**6))
def test_lazy_negative_preconditions_and_other_goals(world, seed):
    task, view = _view(world)
    target = ([task.initial_state()] + list(walk_states(task, seed, 8)))[-1].facts
    rng = random.Random(seed)
    ops = []
    for op in view.ops:
        if rng.random() < 0.1:
            op = copy.copy(op)
            op.pre_neg = 1 << rng.choice(_facts(target | op.add))
        ops.append(op)
    view = strips.StripsView(task, ops, SimpleNamespace(pos=sum(1 << f for f in _facts(target) if rng.random() < 0.5),
                                                        neg=0))
    with pytest.MonkeyPatch.context() as mp:
        assert _lazy(view, task, mp, True) == _lazy(view, task, mp, False)


@pytest.mark.parametrize("after", [3, 40, 400])
@pytest.mark.parametrize("world", ["problems/gripper/prob03.json", "pddl:evals/bench/pddl/gripper/prob02.pddl"])
def test_hand_over_in_mid_search(world, after, monkeypatch):
    """A* (h_max: states re-reached on cheaper paths, stale heap entries) and lazy GBFS hand over
    after `after` checks, one check a unit of work: the same as never handing over."""
    task, view = _view(world)
    found = _astar(view, task, "hmax", monkeypatch, True, after)
    assert HANDED == ([1] if found[3] > after else [])
    assert found == _astar(view, task, "hmax", monkeypatch, False)
    found = _lazy(view, task, monkeypatch, True, after)
    assert HANDED == ([1] if found[3] > after else [])
    assert found == _lazy(view, task, monkeypatch, False)


def test_no_compiled_search_under_jit_0(monkeypatch):
    """GROUNDPLAN_JIT=0 keeps every search interpreted, even with the kernels loaded in the process."""
    from groundplan.planners import solve

    task, _ = _view("problems/blocksworld/blocks-4-0.json")
    monkeypatch.setenv("GROUNDPLAN_JIT", "0")
    for name in ("search", "astar", "lazy"):
        monkeypatch.setattr(strips_compiled, name, lambda *args: pytest.fail("a compiled search ran"))
    for planner, heuristic in (("bfs", None), ("astar", "hmax"), ("astar", "lmcut"), ("lazy", "hff")):
        assert solve(task, planner=planner, heuristic=heuristic).status.startswith("solved")
