"""Lookup tables and computed fluents: the index and memo agree with a brute-force reading of the
rows, and the loader refuses what cannot mean anything."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundplan.engine.errors import ModelError
from groundplan.engine.loader import build_problem, load_domain
from groundplan.engine.tables import Row, Table, placements
from groundplan.engine.task import Task

VALUES = (0, 1, 2, 3)


def brute_force(rows, key, grid, blank=0, default=(0,)):
    """The first row matching `key`, straight from the definitions in docs/language.md."""
    for kind, cells, result in rows:
        if kind == "match" and all(k in c for k, c in zip(key, cells)):
            return result
        if kind == "unordered":
            padded = list(cells) + [{blank}] * (len(key) - len(cells))
            if any(all(k in c for k, c in zip(key, order)) for order in itertools.permutations(padded)):
                return result
        if kind == "pattern":
            height, width = len(cells), len(cells[0])
            for top in range(grid[0] - height + 1):
                for left in range(grid[1] - width + 1):
                    ok = True
                    for r in range(grid[0]):
                        for c in range(grid[1]):
                            v = key[r * grid[1] + c]
                            inside = top <= r < top + height and left <= c < left + width
                            if inside and v not in cells[r - top][c - left] or not inside and v != blank:
                                ok = False
                    if ok:
                        return result
    return default


cell = st.sets(st.sampled_from(VALUES), min_size=1, max_size=2)


@st.composite
def tables(draw):
    rows = []
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(("match", "unordered", "pattern")))
        if kind == "match":
            cells = [draw(cell) for _ in range(4)]
        elif kind == "unordered":
            cells = [draw(st.sets(st.sampled_from(VALUES[1:]), min_size=1, max_size=2)) for _ in range(draw(st.integers(1, 4)))]
        else:
            h, w = draw(st.integers(1, 2)), draw(st.integers(1, 2))
            cells = [[draw(cell) for _ in range(w)] for _ in range(h)]
        rows.append((kind, cells, (i + 1,)))
    return rows


def build(rows, grid=(2, 2)):
    compiled = []
    for kind, cells, result in rows:
        if kind == "pattern":
            compiled.append(Row(kind, tuple(frozenset(c) for line in cells for c in line), result,
                                placements(len(cells), len(cells[0]), grid)))
        else:
            compiled.append(Row(kind, tuple(frozenset(c) for c in cells), result))
    return Table("t", 4, ("r",), (0,), compiled, 0, grid)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(tables(), st.lists(st.tuples(*[st.sampled_from(VALUES)] * 4), min_size=1, max_size=10))
def test_lookup_is_the_first_matching_row(rows, keys):
    table = build(rows)
    for key in keys + keys:  # the second pass reads the memo
        assert table.find(key) == brute_force(rows, key, (2, 2))


DOMAIN = {
    "groundplan": "1", "name": "bench",
    "types": {"cell": "object"},
    "constants": {"a": "cell", "b": "cell"},
    "values": [[["size", "a"], 2]],
    "labels": {"a": "[a]"},
    "tables": {"join": {"keys": 2, "grid": [1, 2], "results": ["item", "count"],
                        "rows": [{"pattern": [[1, 2]], "result": [3, 4]}, {"unordered": [1], "result": [5, 1]}]}},
    "fluents": {"item": {"parameters": [["?c", "cell"]]}, "size": {"parameters": [["?c", "cell"]]},
                "made": {"value": {"lookup": "join", "result": "item", "keys": [["item", "a"], ["item", "b"]]}},
                "made-twice": {"value": {"*": [2, ["made"]]}}},
    "actions": {"put": {"parameters": [["?c", "cell"]], "text": "put one in {c}",
                        "effect": [{"increase": [["item", "?c"], 1]}]}},
}


def test_computed_fluents_follow_the_state():
    domain = load_domain(DOMAIN)
    task = Task(build_problem({"groundplan": "1", "name": "p", "domain": "x", "goal": {">": [["made"], 0]}}, "p", None, domain))
    s = task.initial_state()
    assert task.value(s, "size", ("a",)) == 2 and task.value(s, "made", ()) == 0
    s = task.apply(s, task.parse_action("put one in [a]", s))
    assert task.value(s, "made", ()) == 5 and task.value(s, "made-twice", ()) == 10 and task.is_goal(s)
    s = task.apply(s, task.parse_action("put one in b", s))
    s = task.apply(s, task.parse_action("put one in b", s))
    assert task.value(s, "made", ()) == 3


@pytest.mark.parametrize("change, pointer", [
    (lambda d: d["fluents"]["made"].update(value={"+": [["made-twice"], 1]}), "/fluents/made"),
    (lambda d: d["actions"]["put"]["effect"].append({"assign": [["made"], 1]}), "/actions/put/effect/1/assign/0/0"),
    (lambda d: d["values"].append([["made"], 1]), "/values/1/0"),
    (lambda d: d["tables"]["join"].update(grid=[2, 2]), "/tables/join/grid"),
    (lambda d: d["tables"]["join"]["rows"].append({"match": [1], "result": [1, 1]}), "/tables/join/rows/2/match"),
    (lambda d: d["fluents"]["made"]["value"].update(lookup="joint"), "/fluents/made/value/lookup"),
    (lambda d: d["fluents"]["made"]["value"].update(keys=[1]), "/fluents/made/value/keys"),
])
def test_bad_tables_and_computed_fluents_are_refused_where_they_are(change, pointer):
    import copy

    data = copy.deepcopy(DOMAIN)
    change(data)
    with pytest.raises(ModelError) as caught:
        load_domain(data)
    assert any(d.pointer.startswith(pointer) for d in caught.value.diagnostics), str(caught.value)
