"""The exact crafting oracle (domains/plancraft/oracle.py).

- On test.small: every solvable example is solved with a plan the interpreter accepts, no plan
  is longer than the reference planner's (reference.py when present, else the figures of the
  spec, section 8), and every impossible example is proven unsolvable.
- A property test on small generated inventories (random parts of a recipe's ingredients,
  sometimes already in the grid) against an independent brute force: breadth-first search over
  every exact slot state (the nine cells and the pockets, all moves, takes and smelts with every
  quantity). The oracle's plan is valid and never longer than the optimum; its lower bound never
  exceeds it; "optimal" means equal to it; "unsolvable" means the search finds nothing.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.domains.plancraft import oracle
from groundplan.engine.loader import load_problem
from groundplan.engine.task import Task

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "problems" / "plancraft" / "test.small.jsonl"
GRID = ("A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3")
# spec section 8: the reference planner on test.small's 97 solvable examples
SPEC_SUM = 894
SPEC_BIN_MEANS = {0: 2.40, 1: 6.15, 2: 8.60, 3: 10.85, 4: 19.65}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]


@pytest.fixture(scope="module")
def solved():
    out = []
    for row in _rows(SMALL):
        task = Task.load(f"{SMALL}#{row['name']}")
        out.append((row, task, oracle.solve(task)))
    return out


@pytest.mark.slow
def test_solvable_examples_are_solved_with_valid_plans(solved):
    solvable = [(row, task, r) for row, task, r in solved if not row["metadata"]["impossible"]]
    assert len(solvable) == 97
    for row, task, r in solvable:
        assert r.status in (oracle.OPTIMAL, oracle.FEASIBLE), (row["name"], r)
        assert r.plan is not None and r.length == len(r.plan)
        assert oracle.replay(task, r.plan), row["name"]
        assert r.lower_bound is not None and r.lower_bound <= r.length
        if r.status == oracle.OPTIMAL:
            assert r.lower_bound == r.length


def test_impossible_examples_are_proven_unsolvable(solved):
    impossible = [(row, r) for row, _, r in solved if row["metadata"]["impossible"]]
    assert len(impossible) == 20
    for row, r in impossible:
        assert r.status == oracle.UNSOLVABLE, (row["name"], r)
        assert r.method.startswith("proven:")


def test_never_longer_than_the_reference_planner(solved):
    solvable = [(row, task, r) for row, task, r in solved if not row["metadata"]["impossible"]]
    total = sum(r.length for _, _, r in solvable)
    by_bin = defaultdict(list)
    for row, _, r in solvable:
        by_bin[row["metadata"]["complexity_bin"]].append(r.length)
    assert total < SPEC_SUM
    for b, lengths in by_bin.items():
        assert sum(lengths) / len(lengths) <= SPEC_BIN_MEANS[b] + 1e-9, b
    try:
        from groundplan.domains.plancraft.reference import reference_plan
    except ImportError:
        return
    reference_total = 0
    for row, task, r in solvable:
        ref = reference_plan(task)
        assert ref is not None, row["name"]
        assert r.length <= len(ref), (row["name"], r.length, len(ref))
        reference_total += len(ref)
    assert reference_total == SPEC_SUM


def test_a_known_example():
    """Spec Fig. 1: green_bed from white_bed + cactus is 4 reference actions; smelting the
    cactus straight into the grid makes it 3."""
    ids = _ids()
    task = _task(ids["green_bed"], [(ids["white_bed"], 1), (ids["cactus"], 1)])
    r = oracle.solve(task)
    assert r.status == oracle.OPTIMAL and r.length == 3
    assert r.plan[0].startswith("smelt: from [I2] to [")
    assert oracle.replay(task, r.plan)


# ---------------------------------------------------------------- brute force on tiny inventories
SMALL_WORLDS = {  # target -> items that may be in the inventory
    "torch": ["oak_log", "oak_planks", "stick", "coal", "charcoal"],
    "stick": ["oak_log", "oak_planks", "bamboo"],
    "gray_dye": ["white_dye", "black_dye", "bone_meal", "ink_sac"],
    "glass": ["sand", "red_sand"],
    "lever": ["stick", "cobblestone", "oak_planks"],
    "paper": ["sugar_cane"],
    "oak_button": ["oak_planks", "oak_log"],
    "stone_pressure_plate": ["stone", "cobblestone"],
    "bread": ["wheat"],
    "green_bed": ["white_bed", "cactus", "green_dye"],
}


def _ids():
    from groundplan.domains.plancraft.world import item_ids

    return item_ids()


_HEADER = None


def _task(target: int, pockets: list, grid: dict | None = None) -> Task:
    global _HEADER
    if _HEADER is None:
        _HEADER = json.loads(SMALL.read_text().splitlines()[0])
    values = []
    for i, (x, n) in enumerate(pockets):
        values += [[["item", f"I{i + 1}"], x], [["count", f"I{i + 1}"], n]]
    for cell, (x, n) in (grid or {}).items():
        values += [[["item", cell], x], [["count", cell], n]]
    values.append([["target"], target])
    data = dict(_HEADER["defaults"])
    data.update({"name": "GENERATED", "values": values})
    return Task(load_problem(data))


class _TooBig(Exception):
    pass


def brute_force(task, max_depth: int, max_states: int = 60_000) -> list[str] | None:
    """A shortest plan (None: none within max_depth), by breadth-first search over exact slot
    states, written apart from the oracle: the grid's nine cells and the pockets, every move,
    take and smelt with every quantity (the output slot from the domain's crafting table). Empty
    pockets are interchangeable, so only the first empty one is used as a destination. The plan
    is returned as action texts, for the interpreter to replay."""
    rules = oracle.rules_for(str(task.domain.file))
    state0 = task.initial_state()
    target = int(task.value(state0, "target", ()))
    names = list(GRID) + [f"I{i}" for i in range(1, 37)]
    contents = [(int(task.value(state0, "item", (s,))), int(task.value(state0, "count", (s,)))) for s in names]
    used = max([i for i, (_, c) in enumerate(contents) if c] + [8]) + 1
    names = names[:min(len(names), used + max_depth)]
    start = tuple(contents[:len(names)])
    size = len(start)

    def goal(s):
        return any(item == target and c for item, c in s)

    if goal(start):
        return []
    parent = {start: None}
    frontier = [start]
    for _ in range(max_depth):
        nxt = []
        for s in frontier:
            empty = next((j for j in range(9, size) if not s[j][1]), None)
            dests = [j for j in range(size) if j < 9 or s[j][1] or j == empty]
            succ = []
            res, k = rules.find(tuple(item for item, _ in s[:9]))
            if res:
                for j in dests:
                    item, c = s[j]
                    if c and not (item == res and c + k <= rules.stack(res)):
                        continue
                    lst = list(s)
                    for i in range(9):
                        it, ci = lst[i]
                        if ci:
                            lst[i] = (it, ci - 1) if (ci > 1 or i == j) else (0, 0)
                    lst[j] = (res, lst[j][1] + k)
                    succ.append((lst, f"move: from [0] to [{names[j]}] with quantity {k}"))
            for i in range(size):
                item, c = s[i]
                if not c:
                    continue
                for verb, out in (("move", item), ("smelt", rules.smelts.get(item))):
                    if out is None:
                        continue
                    for j in dests:
                        jt, jc = s[j]
                        if j == i or (jc and jt != out):
                            continue
                        for q in range(1, c + 1):
                            if jc + q > rules.stack(out):
                                break
                            lst = list(s)
                            lst[i] = (item, c - q) if q < c else (0, 0)
                            lst[j] = (out, jc + q)
                            succ.append((lst, f"{verb}: from [{names[i]}] to [{names[j]}] with quantity {q}"))
            for lst, text in succ:
                s2 = tuple(lst)
                if s2 in parent:
                    continue
                parent[s2] = (s, text)
                if goal(s2):
                    plan = []
                    while parent[s2] is not None:
                        s2, text = parent[s2]
                        plan.append(text)
                    return plan[::-1]
                nxt.append(s2)
                if len(parent) > max_states:
                    raise _TooBig
        frontier = nxt
    return None


@st.composite
def tiny_tasks(draw):
    ids = _ids()
    target = draw(st.sampled_from(sorted(SMALL_WORLDS)))
    items = SMALL_WORLDS[target]
    counts = draw(st.lists(st.integers(0, 3), min_size=len(items), max_size=len(items)))
    stacks = [(ids[x], n) for x, n in zip(items, counts) if n]
    if not stacks or sum(counts) > 6:
        stacks = [(ids[items[0]], 1)]
    grid = {}
    if draw(st.booleans()):
        cell = draw(st.sampled_from(GRID))
        grid[cell] = stacks.pop(draw(st.integers(0, len(stacks) - 1)))
    return target, _task(ids[target], stacks, grid)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tiny_tasks())
def test_oracle_against_brute_force(case):
    target, task = case
    r = oracle.solve(task)
    depth = r.length if r.plan is not None else 5
    try:
        shortest = brute_force(task, depth)
    except _TooBig:
        return  # too many states for a unit test: nothing to compare
    if r.plan is None:
        assert r.status == oracle.UNSOLVABLE, r
        assert shortest is None, (target, shortest)
        return
    assert oracle.replay(task, r.plan)
    assert shortest is not None and oracle.replay(task, shortest), (target, shortest)
    best = len(shortest)
    assert best <= r.length
    assert r.lower_bound <= best, (target, r.lower_bound, shortest)
    if r.status == oracle.OPTIMAL:
        assert best == r.length, (target, r.plan, shortest)
