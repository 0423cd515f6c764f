"""Engine features added for BabyAI, tested on their own: the 'mod' expression, the 'later' goal
and gzip-compressed problem sets."""
import gzip
import json

import pytest
from hypothesis import given, strategies as st

from groundplan.engine import Task, problemsets
from groundplan.engine.compile import NumericError
from groundplan.engine.errors import ModelError
from groundplan.engine.loader import build_problem, load_domain

DOMAIN = {
    "groundplan": "1", "name": "counter",
    "predicates": {"rang": {}, "armed": {}},
    "fluents": {"n": {}},
    "actions": {
        "tick": {"effect": [{"assign": [["n"], {"mod": [{"+": [["n"], 1]}, 3]}]}, {"del": ["rang"]}], "text": "tick"},
        "ring": {"effect": [{"add": ["rang"]}], "text": "ring"},
        "arm": {"effect": [{"add": ["armed"]}, {"add": ["rang"]}], "text": "arm"},
    },
}


def task(goal, values=(), domain=DOMAIN):
    data = {"groundplan": "1", "name": "p", "domain": "counter", "goal": goal, "values": [list(v) for v in values]}
    return Task(build_problem(data, "<p>", None, domain=load_domain(domain)))


def run(t, words):
    state = t.initial_state()
    for word in words:
        state = t.apply(state, t.parse_action(word, state))
    return state


@given(st.integers(min_value=-50, max_value=50), st.integers(min_value=0, max_value=12))
def test_mod_is_pythons_modulo(start, ticks):
    t = task(True, values=[(["n"], start)])
    assert t.value(run(t, ["tick"] * ticks), "n", ()) == (((start + 1) % 3 + ticks - 1) % 3 if ticks else start)


def test_mod_by_zero_is_a_numeric_error_and_mod_takes_two_operands():
    bad = json.loads(json.dumps(DOMAIN))
    bad["actions"]["tick"]["effect"][0]["assign"][1] = {"mod": [["n"], 0]}
    t = task(True, domain=bad)
    with pytest.raises(NumericError, match="modulo by zero"):
        run(t, ["tick"])
    bad["actions"]["tick"]["effect"][0]["assign"][1] = {"mod": [["n"]]}
    with pytest.raises(ModelError):
        task(True, domain=bad)


def test_later_skips_the_state_where_it_is_first_checked():
    # 'arm' makes 'rang' true in the state that completes the first part: a plain second part
    # counts that state, a 'later' one only a later state.
    plain = task({"sequence": [["armed"], ["rang"]]})
    later = task({"sequence": [["armed"], {"later": ["rang"]}]})
    assert plain.is_goal(run(plain, ["arm"]))
    assert not later.is_goal(run(later, ["arm"]))
    assert not later.is_goal(run(later, ["arm", "tick"]))
    assert later.is_goal(run(later, ["arm", "tick", "ring"]))
    assert later.is_goal(run(later, ["arm", "ring"]))  # still true in the next state: it counts there


def test_later_at_the_top_level_skips_only_the_initial_state_and_latches():
    t = task({"all": [{"later": ["rang"]}, ["armed"]]})
    state = run(t, ["ring", "tick"])  # rang held in a state after the start, then stopped holding
    assert not t.is_goal(state)
    assert t.is_goal(run(t, ["ring", "tick", "arm"]))


def test_gzip_problem_sets_read_like_plain_ones(tmp_path):
    rows = [{"problem_set": "s", "defaults": {"groundplan": "1", "domain": "counter", "goal": True}},
            {"name": "a", "values": [[["n"], 1]]}, {"name": "b", "values": [[["n"], 2]]}]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    plain = tmp_path / "s.jsonl"
    plain.write_text(text)
    packed = tmp_path / "s.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert problemsets.is_set_reference(str(packed) + "#a")
    assert problemsets.names(str(packed)) == problemsets.names(str(plain)) == ["a", "b"]
    assert problemsets.read_problem(f"{packed}#b")[0] == problemsets.read_problem(f"{plain}#b")[0]
    assert problemsets.expand([str(tmp_path / "*.gz")]) == [f"{packed}#a", f"{packed}#b"]
    assert problemsets.set_name(packed) == problemsets.set_name(plain) == "s"
    problemsets.write(tmp_path / "w.jsonl.gz", rows[1:], header=rows[0])
    assert problemsets.names(str(tmp_path / "w.jsonl.gz")) == ["a", "b"]
    assert (tmp_path / "w.jsonl.gz").read_bytes() == problemsets_bytes(tmp_path, rows)


def problemsets_bytes(folder, rows):
    """The same set written again: gzip output carries no time stamp, so files are reproducible."""
    problemsets.write(folder / "again.jsonl.gz", rows[1:], header=rows[0])
    return (folder / "again.jsonl.gz").read_bytes()


def test_a_truncated_gzip_set_is_a_clear_error(tmp_path):
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(b'{"name": "a"}\n' * 50)[:20])
    with pytest.raises(ModelError) as err:
        problemsets.names(str(packed))
    assert "t.jsonl.gz" in str(err.value)
