"""Engine features added for GRASP, tested on their own: domain-level facts, problem-set group
lines, template words that must name objects, and the cost of a `noop` step for an action that
can never apply."""
import json

import pytest

from groundplan.engine import Task, problemsets
from groundplan.engine.errors import ModelError
from groundplan.engine.loader import build_problem, load_domain

DOMAIN = {
    "groundplan": "1", "name": "corridor", "types": {"spot": "object", "dir": "object"},
    "constants": {"a": "spot", "b": "spot", "c": "spot", "east": "dir", "west": "dir"},
    "init": [["next", "a", "b", "east"], ["next", "b", "c", "east"], ["next", "b", "a", "west"], ["next", "c", "b", "west"]],
    "settings": {"price": {"default": 2}},
    "predicates": {"at": {"parameters": [["?s", "spot"]]}, "next": {"parameters": [["?x", "spot"], ["?y", "spot"], ["?d", "dir"]]},
                   "rung": {}},
    "actions": {
        "go": {"parameters": [["?d", "dir"], ["?x", "spot"], ["?y", "spot"]],
               "precondition": {"and": [["at", "?x"], ["next", "?x", "?y", "?d"]]},
               "effect": [{"del": ["at", "?x"]}, {"add": ["at", "?y"]}], "cost": {"setting": "price"}, "text": "{d}"},
        "ring": {"effect": [{"add": ["rung"]}], "text": "ring"},
    },
    "on_inapplicable": "noop",
}


def problem(**extra):
    data = {"groundplan": "1", "name": "p", "domain": "corridor", "init": [["at", "a"]], "goal": ["at", "c"]}
    data.update(extra)
    return Task(build_problem(data, "<p>", None, domain=load_domain(DOMAIN)))


def test_domain_facts_hold_in_every_problem_and_plans_use_them():
    t = problem()
    state = t.initial_state()
    assert t.atom_holds(state, "next", ("a", "b", "east"))
    for word in ["east", "east"]:
        state = t.apply(state, t.parse_action(word, state))
    assert t.is_goal(state)


def test_a_domain_fact_naming_an_unknown_object_is_reported_with_its_pointer():
    bad = dict(DOMAIN, init=[["next", "a", "zz", "east"]])
    with pytest.raises(ModelError) as info:
        load_domain(bad)
    assert "#/init/0/2" in str(info.value)


def test_a_template_word_that_names_no_object_falls_through_to_other_texts():
    t = problem()
    state = t.initial_state()
    assert t.parse_action("ring", state).schema.name == "ring"      # not go with ?d = ring
    with pytest.raises(Exception) as info:
        t.parse_action("north", state)
    assert type(info.value).__name__ == "UnknownAction"


def test_a_noop_step_for_an_impossible_action_pays_its_cost():
    t = problem(settings={"price": 3})
    state = t.initial_state()
    result = t.step(state, t.parse_action("west", state))   # nothing lies west of a
    assert not result.valid and result.counted and result.cost == 3 and result.state == state


def test_group_lines_share_data_between_the_problems_after_them(tmp_path):
    path = tmp_path / "set.jsonl"
    lines = [{"group": "g1", "defaults": {"init": [["at", "a"]], "description": "from a"}},
             {"name": "one", "goal": ["at", "c"]},
             {"name": "two", "goal": ["at", "b"], "description": "own"},
             {"group": "g2", "defaults": {"init": [["at", "c"]]}},
             {"name": "three", "goal": ["at", "a"]}]
    problemsets.write(path, lines, {"problem_set": "s", "defaults": {"groundplan": "1", "domain": str(tmp_path / "d.json")}})
    (tmp_path / "d.json").write_text(json.dumps(DOMAIN))
    assert problemsets.names(str(path)) == ["one", "two", "three"]
    one, _ = problemsets.read_problem(f"{path}#one")
    two, _ = problemsets.read_problem(f"{path}#two")
    three, _ = problemsets.read_problem(f"{path}#three")
    assert one["init"] == [["at", "a"]] and one["description"] == "from a"
    assert two["description"] == "own" and three["init"] == [["at", "c"]] and "description" not in three
    assert Task.load(f"{path}#three").is_goal(Task.load(f"{path}#three").initial_state())
    # storing a result keeps the group's data out of the problem's line
    problemsets.replace_problem(f"{path}#one", dict(one, max_steps=5))
    line = path.read_text().splitlines()[2]
    assert json.loads(line) == {"name": "one", "goal": ["at", "c"], "max_steps": 5}


def test_a_malformed_group_line_is_named_by_file_and_line(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text('{"group": "g", "defaults": [1]}\n{"name": "x", "goal": true}\n')
    with pytest.raises(ModelError) as info:
        problemsets.names(str(path))
    assert "set.jsonl:1" in str(info.value)
