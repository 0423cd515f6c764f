"""Bad input gives a ModelError whose diagnostics point at the offending value and say how to fix it.

Each test breaks one thing in the blocksworld domain or the Sussman problem and checks the
diagnostic's RFC 6901 pointer exactly, plus the gist of its message and hint.
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
import yaml

from groundplan.engine.errors import Diagnostic, ModelError
from groundplan.engine.files import MAX_DEPTH
from groundplan.engine.loader import load_domain, load_problem
from groundplan.engine.task import Task

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = json.loads((ROOT / "domains" / "blocksworld" / "domain.json").read_text())
PROBLEM = json.loads((ROOT / "problems" / "blocksworld" / "sussman.json").read_text())


@pytest.fixture
def domain() -> dict:
    return copy.deepcopy(DOMAIN)


@pytest.fixture
def problem() -> dict:
    return copy.deepcopy(PROBLEM)


def domain_errors(source) -> list[Diagnostic]:
    with pytest.raises(ModelError) as info:
        load_domain(source)
    assert info.value.diagnostics, "a ModelError must carry diagnostics"
    return info.value.diagnostics


def problem_errors(source, domain=None) -> list[Diagnostic]:
    with pytest.raises(ModelError) as info:
        load_problem(source, domain)
    assert info.value.diagnostics, "a ModelError must carry diagnostics"
    return info.value.diagnostics


def at(diagnostics: list[Diagnostic], pointer: str) -> Diagnostic:
    """The (first) diagnostic at exactly `pointer`."""
    found = [d for d in diagnostics if d.pointer == pointer]
    assert found, f"no diagnostic at {pointer!r}; got {[(d.pointer, d.message) for d in diagnostics]}"
    return found[0]


def only(diagnostics: list[Diagnostic]) -> Diagnostic:
    assert len(diagnostics) == 1, [(d.pointer, d.message) for d in diagnostics]
    return diagnostics[0]


def two_type_domain() -> dict:
    """Blocksworld with a second type, so objects can be of the wrong type."""
    doc = copy.deepcopy(DOMAIN)
    doc["types"]["table"] = "object"
    doc["predicates"]["at-table"] = {"parameters": [["?t", "table"]]}
    return doc


# ------------------------------------------------------------------ syntax
def test_not_json_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "groundplan": "1",\n  "name": "x"\n  "types": {}\n}\n')
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert d.pointer == ""
    assert "not valid JSON" in d.message
    assert "line 4 column 3" in d.message
    assert "missing comma" in d.hint
    assert str(path) in str(d)


def test_truncated_problem_file_names_the_file(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(PROBLEM)[:40])
    d = only(problem_errors(path))
    assert d.file == str(path)
    assert "not valid JSON" in d.message and "line 1" in d.message


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"groundplan": "1", "name": "caf\xe9"}')
    d = only(domain_errors(path))
    assert d.file == str(path) and "UTF-8" in d.message


def test_missing_file(tmp_path):
    d = only(problem_errors(tmp_path / "nowhere.json"))
    assert d.message == "file not found"
    assert d.hint == "check the path"


def test_top_level_must_be_an_object(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    d = only(domain_errors(path))
    assert d.pointer == "" and "a domain is a JSON object" in d.message


# ------------------------------------------------------------------ names: predicates, types, objects, keys
def test_unknown_predicate_in_precondition_suggests_the_spelling(domain):
    domain["actions"]["pick-up"]["precondition"]["and"][0][0] = "clera"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/precondition/and/0/0"
    assert d.message == "unknown predicate 'clera'"
    assert d.hint == "did you mean 'clear'?"
    assert d.file == "<domain>"


def test_unknown_predicate_in_effect(domain):
    domain["actions"]["stack"]["effect"][4]["add"][0] = "onn"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/stack/effect/4/add/0"
    assert "unknown predicate 'onn'" in d.message
    assert d.hint == "did you mean 'on'?"


def test_wrong_arity(domain):
    domain["actions"]["pick-up"]["precondition"]["and"][0] = ["clear", "?x", "?x"]
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/precondition/and/0"
    assert "clear takes 1 argument(s), got 2" in d.message
    assert d.hint == "signature: clear(?x - block)"


def test_wrong_arity_in_init(problem):
    problem["init"][0] = ["on", "c"]
    d = only(problem_errors(problem))
    assert d.pointer == "/init/0"
    assert "on takes 2 argument(s), got 1" in d.message
    assert "on(?x - block, ?y - block)" in d.hint


def test_unbound_variable_lists_the_variables_in_scope(domain):
    domain["actions"]["stack"]["precondition"]["and"][1] = ["clear", "?z"]
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/stack/precondition/and/1/1"
    assert d.message == "unbound variable ?z"
    assert "?x" in d.hint and "?y" in d.hint


def test_unbound_variable_suggests_a_close_one(domain):
    domain["actions"]["pick-up"]["effect"][3]["add"][1] = "?xx"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/effect/3/add/1"
    assert "unbound variable ?xx" in d.message
    assert d.hint == "did you mean '?x'?"


def test_variable_bound_only_inside_a_quantifier(domain):
    domain["invariants"][1]["formula"]["or"].append(["holding", "?x"])
    d = only(domain_errors(domain))
    assert d.pointer == "/invariants/1/formula/or/2/1"
    assert "unbound variable ?x" in d.message


def test_unknown_type_in_parameters(domain):
    domain["actions"]["pick-up"]["parameters"][0][1] = "blok"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/parameters/0/1"
    assert d.message == "unknown type 'blok'"
    assert d.hint == "did you mean 'block'?"


def test_unknown_type_of_an_object(problem):
    problem["objects"]["a"] = "blocks"
    diagnostics = problem_errors(problem)
    d = at(diagnostics, "/objects/a")
    assert "unknown type 'blocks'" in d.message
    assert d.hint == "did you mean 'block'?"


def test_unknown_parent_type(domain):
    domain["types"]["cube"] = "blok"
    d = only(domain_errors(domain))
    assert d.pointer == "/types/cube"
    assert "unknown parent type 'blok'" in d.message
    assert d.hint == "did you mean 'block'?"


def test_type_mismatch_of_an_object_in_init(problem):
    domain = load_domain(two_type_domain())
    problem["objects"]["t"] = "table"
    problem["init"].append(["clear", "t"])
    diagnostics = problem_errors(problem, domain)
    d = at(diagnostics, "/init/6/1")
    assert "type mismatch" in d.message
    assert "t is of type 'table'" in d.message and "block" in d.message
    assert {x.pointer for x in diagnostics} == {"/init/6/1"}


def test_type_mismatch_of_a_variable_in_a_precondition():
    doc = two_type_domain()
    doc["actions"]["pick-up"]["parameters"].append(["?t", "table"])
    doc["actions"]["pick-up"]["precondition"]["and"].append(["clear", "?t"])
    d = only(domain_errors(doc))
    assert d.pointer == "/actions/pick-up/precondition/and/3/1"
    assert "type mismatch: ?t is of type 'table', argument 1 of clear(?x - block) needs type 'block'" in d.message


def test_unknown_object_in_goal(problem):
    problem["goal"]["and"][0] = ["on", "a", "e"]
    d = only(problem_errors(problem))
    assert d.pointer == "/goal/and/0/2"
    assert d.message == "unknown object 'e'"
    assert "objects" in d.hint


def test_unknown_object_in_goal_suggests_a_close_one(problem):
    problem["objects"]["block-a"] = problem["objects"].pop("a")
    problem["init"] = [[x if x != "a" else "block-a" for x in atom] for atom in problem["init"]]
    problem["goal"]["and"][0] = ["on", "block-A", "b"]
    d = only(problem_errors(problem))
    assert d.pointer == "/goal/and/0/1"
    assert d.hint == "did you mean 'block-a'?"


def test_cyclic_type_hierarchy(domain):
    domain["types"].update({"cube": "brick", "brick": "cube"})
    d = only(domain_errors(domain))
    assert d.pointer == "/types/cube"
    assert d.message == "cyclic type hierarchy: cube -> brick -> cube"
    assert "object" in d.hint


def test_type_that_is_its_own_parent(domain):
    domain["types"]["block"] = "block"
    d = at(domain_errors(domain), "/types/block")
    assert "cyclic type hierarchy: block -> block" in d.message


def test_object_is_not_a_declared_type(domain):
    domain["types"]["object"] = "block"
    d = at(domain_errors(domain), "/types/object")
    assert "root type" in d.message


def test_unknown_top_level_key_suggests_the_spelling(domain):
    domain["predicats"] = domain.pop("predicates")
    d = at(domain_errors(domain), "/predicats")
    assert d.message == "unknown key 'predicats'"
    assert d.hint == "did you mean 'predicates'?"


def test_unknown_top_level_key_in_a_problem(problem):
    problem["goals"] = problem.pop("goal")
    diagnostics = problem_errors(problem)
    d = at(diagnostics, "/goals")
    assert d.hint == "did you mean 'goal'?"
    missing = at(diagnostics, "")
    assert "'goal' is a required property" in missing.message
    assert missing.hint == "add the missing key"


def test_unknown_key_inside_an_action(domain):
    domain["actions"]["pick-up"]["preconditions"] = domain["actions"]["pick-up"].pop("precondition")
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/preconditions"
    assert d.hint == "did you mean 'precondition'?"


def test_unknown_formula_operator(domain):
    domain["actions"]["stack"]["precondition"] = {"nad": domain["actions"]["stack"]["precondition"]["and"]}
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/stack/precondition/nad"
    assert "unknown formula operator 'nad'" in d.message
    assert d.hint == "did you mean 'and'?"


def test_unknown_effect(domain):
    domain["actions"]["pick-up"]["effect"][3] = {"ad": ["holding", "?x"]}
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/effect/3/ad"
    assert d.hint == "did you mean 'add'?"


def test_unknown_template_field(domain):
    domain["actions"]["stack"]["text"] = "stack {x} on {z}"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/stack/text"
    assert "unknown template field '{z}'" in d.message
    assert d.hint == "did you mean '{y}'?"


def test_unknown_template_field_lists_the_fields(domain):
    domain["actions"]["stack"]["text"] = "stack {x} on {bottom}"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/stack/text"
    assert "{x}" in d.hint and "{y}" in d.hint


def test_wrong_value_type(domain):
    domain["types"] = ["block"]
    d = only(domain_errors(domain))
    assert d.pointer == "/types"
    assert "is not of type 'object'" in d.message


def test_duplicate_parameter(domain):
    domain["actions"]["stack"]["parameters"][1][0] = "?x"
    diagnostics = domain_errors(domain)
    d = at(diagnostics, "/actions/stack/parameters/1/0")
    assert "parameter ?x is declared twice" in d.message


def test_bad_variable_name_in_parameters(domain):
    domain["actions"]["pick-up"]["parameters"][0][0] = "x"
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/parameters/0/0"
    assert "does not match" in d.message


def test_bad_variable_name_in_a_quantifier(domain):
    domain["invariants"][1]["formula"]["or"][1]["exists"][0][0] = "x"
    diagnostics = domain_errors(domain)
    d = at(diagnostics, "/invariants/1/formula/or/1/exists/0/0")
    assert "a variable must start with '?'" in d.message
    assert d.hint == "write ?x"


def test_effect_on_a_derived_predicate(domain):
    domain["derived"] = {"above": {"parameters": [["?x", "block"], ["?y", "block"]], "formula": ["on", "?x", "?y"]}}
    domain["actions"]["stack"]["effect"].append({"add": ["above", "?x", "?y"]})
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/stack/effect/5/add/0"
    assert "derived" in d.message


def test_fluent_used_as_a_predicate(domain):
    domain["fluents"] = {"height": {"parameters": [["?x", "block"]]}}
    domain["actions"]["pick-up"]["precondition"]["and"].append(["height", "?x"])
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/precondition/and/3/0"
    assert "numeric fluent" in d.hint


def test_init_facts_are_ground(problem):
    problem["init"].append(["clear", "?x"])
    diagnostics = problem_errors(problem)
    assert "init facts are ground" in at(diagnostics, "/init/6").message


# ------------------------------------------------------------------ versions, domains, settings
def test_wrong_language_version(domain):
    domain["groundplan"] = "2"
    d = only(domain_errors(domain))
    assert d.pointer == "/groundplan"
    assert 'set "groundplan": "1"' in d.hint


def test_language_version_as_a_number(problem):
    problem["groundplan"] = 1
    d = only(problem_errors(problem))
    assert d.pointer == "/groundplan"
    assert '"1"' in d.hint


def test_problem_naming_a_missing_shipped_domain(problem):
    problem["domain"] = "blockworld"
    d = only(problem_errors(problem))
    assert d.pointer == "/domain"
    assert d.message == "domain 'blockworld' not found"
    assert d.hint == "did you mean 'blocksworld'?"


def test_problem_naming_a_missing_domain_file(problem, tmp_path):
    problem["domain"] = "../worlds/nothing-here.json"
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(problem))
    d = only(problem_errors(path))
    assert d.file == str(path)
    assert d.pointer == "/domain"
    assert "not found" in d.message
    assert "blocksworld" in d.hint  # lists the shipped domains


def test_problem_finds_its_domain_relative_to_itself(problem, tmp_path):
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "domain.json").write_text(json.dumps(DOMAIN))
    problem["domain"] = "worlds"
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(problem))
    assert load_problem(path).domain.name == "blocksworld"


def test_unknown_setting_in_a_formula(domain):
    domain["settings"] = {"fast-mode": {"default": False}}
    domain["actions"]["pick-up"]["precondition"]["and"].append({"setting": "fast_mode"})
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/precondition/and/3/setting"
    assert d.message == "unknown setting 'fast_mode'"
    assert d.hint == "did you mean 'fast-mode'?"


def test_unknown_setting_without_settings(domain):
    domain["actions"]["pick-up"]["precondition"] = {"setting": "fast"}
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/precondition/setting"
    assert "declare it under 'settings'" in d.hint


def test_unknown_setting_in_a_problem(problem):
    doc = copy.deepcopy(DOMAIN)
    doc["settings"] = {"max-height": {"default": 3}}
    problem["settings"] = {"max_height": 2, "speed": 1}
    diagnostics = problem_errors(problem, load_domain(doc))
    assert at(diagnostics, "/settings/max_height").hint == "did you mean 'max-height'?"
    assert at(diagnostics, "/settings/speed").message == "unknown setting 'speed'"


def test_setting_value_not_allowed(problem):
    doc = copy.deepcopy(DOMAIN)
    doc["settings"] = {"hands": {"default": 1, "allowed": [1, 2]}}
    problem["settings"] = {"hands": 3}
    d = only(problem_errors(problem, load_domain(doc)))
    assert d.pointer == "/settings/hands"
    assert "not allowed" in d.message and "[1, 2]" in d.hint


# ------------------------------------------------------------------ derived predicates
def test_derived_predicate_through_negation_of_itself(domain):
    domain["derived"] = {"lonely": {"parameters": [["?x", "block"]],
                                    "formula": {"and": [["clear", "?x"], {"not": ["lonely", "?x"]}]}}}
    d = only(domain_errors(domain))
    assert d.pointer == "/derived/lonely"
    assert "depend on themselves through negation" in d.message
    assert d.hint


def test_derived_predicates_negating_each_other(domain):
    domain["derived"] = {"p": {"formula": {"not": ["q"]}}, "q": {"formula": ["p"]}}
    diagnostics = domain_errors(domain)
    assert [d.pointer for d in diagnostics] in (["/derived/p"], ["/derived/q"])


def test_positive_recursion_is_fine(domain):
    domain["derived"] = {"above": {"parameters": [["?x", "block"], ["?y", "block"]],
                                   "formula": {"or": [["on", "?x", "?y"], {"exists": [["?z", "block"]], "formula": {
                                       "and": [["on", "?x", "?z"], ["above", "?z", "?y"]]}}]}}}
    assert "above" in load_domain(domain).derived


def test_derived_predicate_set_in_init(problem):
    doc = copy.deepcopy(DOMAIN)
    doc["derived"] = {"free": {"parameters": [["?x", "block"]], "formula": ["clear", "?x"]}}
    problem["init"].append(["free", "a"])
    d = at(problem_errors(problem, load_domain(doc)), "/init/6/0")
    assert "derived" in d.message


# ------------------------------------------------------------------ numbers and nesting
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_in_json_text(tmp_path, token):
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(DOMAIN).replace('"text": "pick up {x}"', f'"cost": {token}, "text": "pick up {{x}}"'))
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert token in d.message and "not allowed" in d.message


def test_nan_in_data(domain):
    domain["actions"]["pick-up"]["cost"] = math.nan
    d = only(domain_errors(domain))
    assert "NaN is not allowed" in d.message


def test_nan_in_data_points_at_the_value(domain):
    domain["actions"]["pick-up"]["cost"] = math.nan
    assert only(domain_errors(domain)).pointer == "/actions/pick-up/cost"


def test_infinity_in_data(domain):
    domain["actions"]["pick-up"]["cost"] = -math.inf
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/cost"
    assert "out of range" in d.message


def test_huge_number(domain):
    domain["actions"]["pick-up"]["cost"] = 10**20
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/cost"
    assert d.message == "number 100000000000000000000 is out of range"
    assert "1e+15" in d.hint


def test_huge_number_in_json_text(tmp_path, problem):
    problem["max_steps"] = 1
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(problem).replace('"max_steps": 1', '"max_steps": 1e999'))
    d = only(problem_errors(path))
    assert d.pointer == "/max_steps"
    assert "out of range" in d.message


def test_largest_allowed_number_loads(domain):
    domain["actions"]["pick-up"]["cost"] = 10**15
    load_domain(domain)


def nested_not(depth: int):
    formula = ["clear", "?x"]
    for _ in range(depth):
        formula = {"not": formula}
    return formula


def test_deep_nesting_as_data(domain):
    domain["actions"]["pick-up"]["precondition"] = nested_not(500)
    d = only(domain_errors(domain))
    assert d.pointer == "/actions/pick-up/precondition/not/not/not/not/not/..."
    assert d.message == f"nesting deeper than {MAX_DEPTH} levels"
    assert "flatten" in d.hint


def test_deep_nesting_in_a_file(tmp_path, domain):
    domain["actions"]["pick-up"]["precondition"] = nested_not(500)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(domain))
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert d.pointer.startswith("/actions/pick-up/precondition/not/")
    assert "nesting deeper" in d.message


def test_nesting_too_deep_for_the_json_reader(tmp_path):
    path = tmp_path / "brackets.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert "too deep" in d.message


def test_nesting_at_the_limit_is_fine(domain):
    # the precondition sits at depth 3; MAX_DEPTH - 4 'not's keep the atom's arguments within the limit
    domain["actions"]["pick-up"]["precondition"] = nested_not(MAX_DEPTH - 4)
    assert "pick-up" in load_domain(domain).actions


# ------------------------------------------------------------------ YAML
def test_yaml_domain_and_problem(tmp_path):
    (tmp_path / "domain.yaml").write_text(yaml.safe_dump(DOMAIN, sort_keys=False))
    problem = dict(PROBLEM, domain="domain.yaml")
    (tmp_path / "problem.yml").write_text(yaml.safe_dump(problem, sort_keys=False))
    from_yaml = load_domain(tmp_path / "domain.yaml")
    assert set(from_yaml.actions) == set(load_domain(copy.deepcopy(DOMAIN)).actions)
    task = Task(load_problem(tmp_path / "problem.yml"))
    assert sorted(a.name for a in task.applicable(task.initial_state())) == ["(pick-up b)", "(unstack c a)"]


def test_handwritten_yaml_domain(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(
        "groundplan: '1'\n"
        "name: switch\n"
        "predicates:\n"
        "  lit: {text: the light is on}\n"
        "actions:\n"
        "  flip:\n"
        "    precondition: {not: [lit]}\n"
        "    effect:\n"
        "      - add: [lit]\n"
    )
    domain = load_domain(path)
    assert set(domain.actions) == {"flip"}


def test_yaml_boolean_names_are_refused(tmp_path):
    """YAML 1.1 reads an unquoted key `on` as the boolean true: refused, not silently renamed."""
    path = tmp_path / "norway.yaml"
    path.write_text("groundplan: '1'\nname: switch\npredicates:\n  on: {}\n")
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert "True is not a string" in d.message


def test_yaml_errors_name_the_file_and_point_into_it(tmp_path):
    doc = copy.deepcopy(DOMAIN)
    doc["actions"]["pick-up"]["precondition"]["and"][0][0] = "clera"
    path = tmp_path / "domain.yaml"
    path.write_text(yaml.safe_dump(doc))
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert d.pointer == "/actions/pick-up/precondition/and/0/0"
    assert d.hint == "did you mean 'clear'?"


def test_yaml_syntax_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("groundplan: '1'\nname: [unclosed\n")
    d = only(domain_errors(path))
    assert d.file == str(path)
    assert "not valid YAML" in d.message


def test_yaml_non_string_key(tmp_path):
    path = tmp_path / "keys.yaml"
    path.write_text("groundplan: '1'\nname: x\n1: 2\n")
    d = only(domain_errors(path))
    assert "not a string" in d.message


# ------------------------------------------------------------------ several errors at once
def test_all_errors_in_a_domain_are_reported_together(domain):
    domain["actions"]["pick-up"]["precondition"]["and"][0][0] = "clera"
    domain["actions"]["stack"]["parameters"][0][1] = "blok"
    domain["actions"]["put-down"]["precondition"] = ["holding", "?z"]
    domain["actions"]["unstack"]["effect"][0]["add"] = ["holding", "?x", "?y"]
    diagnostics = domain_errors(domain)
    assert {d.pointer for d in diagnostics} == {
        "/actions/pick-up/precondition/and/0/0",
        "/actions/stack/parameters/0/1",
        "/actions/put-down/precondition/1",
        "/actions/unstack/effect/0/add",
    }
    text = str(ModelError(diagnostics))
    assert "clera" in text and "blok" in text and "?z" in text and "holding takes 1" in text


def test_all_schema_errors_are_reported_together(domain):
    domain["groundplan"] = "0"
    domain["typos"] = {}
    domain["predicates"]["on"]["parameters"] = "?x ?y"
    diagnostics = domain_errors(domain)
    assert {"/groundplan", "/typos", "/predicates/on/parameters"} <= {d.pointer for d in diagnostics}


def test_all_errors_in_a_problem_are_reported_together(problem):
    problem["objects"]["d"] = "blok"
    problem["init"].append(["ontable", "e"])
    problem["init"].append(["clera", "a"])
    problem["goal"]["and"][1] = ["on", "b"]
    diagnostics = problem_errors(problem)
    assert {d.pointer for d in diagnostics} == {"/objects/d", "/init/6/1", "/init/7/0", "/goal/and/1"}
    assert all(d.file == "<problem>" for d in diagnostics)


def test_diagnostic_text_and_json(tmp_path, domain):
    domain["actions"]["pick-up"]["precondition"]["and"][0][0] = "clera"
    path = tmp_path / "d.json"
    path.write_text(json.dumps(domain))
    d = only(domain_errors(path))
    assert str(d) == f"{path}#/actions/pick-up/precondition/and/0/0: unknown predicate 'clera' (did you mean 'clear'?)"
    assert d.to_json() == {"file": str(path), "pointer": "/actions/pick-up/precondition/and/0/0",
                           "message": "unknown predicate 'clera'", "hint": "did you mean 'clear'?"}


def test_pointer_escapes_slash_and_tilde(domain):
    domain["actions"]["a/b~c"] = domain["actions"].pop("pick-up")
    domain["actions"]["a/b~c"]["precondition"]["and"][0][0] = "clera"
    diagnostics = domain_errors(domain)
    assert "/actions/a~1b~0c/precondition/and/0/0" in {d.pointer for d in diagnostics}
