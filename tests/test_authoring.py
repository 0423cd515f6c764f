"""What a new author met when writing worlds from the docs alone (issue 19): every command's exit
codes, mistakes that used to load silently and now are errors or warnings naming the place,
timers whose remaining steps agents can see, invariants that look back at the initial state,
comments in JSON files, and a `--heuristic` help that names every heuristic.

The worlds are small logistics and tank worlds written here, so each test changes one thing.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.engine import Task
from groundplan.engine.cli import main
from groundplan.engine.errors import Diagnostic, ModelError
from groundplan.engine.loader import build_problem, load_domain, load_problem
from groundplan.engine.render import render

ROOT = Path(__file__).resolve().parent.parent

LOGISTICS = {
    "groundplan": "1", "name": "logistics",
    "types": {"truck": "object", "package": "object", "city": "object"},
    "settings": {"capacity": {"default": 3}, "rush": {"default": False}},
    "predicates": {"at": {"parameters": [["?x", "object"], ["?c", "city"]], "text": "{x} is at {c}"},
                   "in": {"parameters": [["?p", "package"], ["?t", "truck"]], "text": "{p} is in {t}"}},
    "fluents": {"load": {"parameters": [["?t", "truck"]]}},
    "actions": {
        "drive": {"parameters": [["?t", "truck"], ["?from", "city"], ["?to", "city"]],
                  "precondition": {"and": [["at", "?t", "?from"], {"!=": ["?from", "?to"]}]},
                  "effect": [{"del": ["at", "?t", "?from"]}, {"add": ["at", "?t", "?to"]}],
                  "text": "drive {t} from {from} to {to}"},
    },
    "invariants": [{"name": "somewhere", "text": "every truck is in some city",
                    "formula": {"forall": [["?t", "truck"]],
                                "formula": {"exists": [["?c", "city"]], "formula": ["at", "?t", "?c"]}}}],
}
PROBLEM = {"groundplan": "1", "name": "two-cities", "domain": "domain.json",
           "objects": {"t1": "truck", "c1": "city", "c2": "city", "p1": "package", "p2": "package"},
           "init": [["at", "t1", "c1"]], "goal": ["at", "t1", "c2"]}


def logistics() -> dict:
    return copy.deepcopy(LOGISTICS)


def write_world(folder: Path, domain: dict, problem: dict | None = None) -> Path:
    """Save a domain (as domain.json) and a problem (as p.json) in `folder`; the problem's path."""
    (folder / "domain.json").write_text(json.dumps(domain, indent=1))
    (folder / "p.json").write_text(json.dumps(problem or PROBLEM, indent=1))
    return folder / "p.json"


def run(*args, stdin: str | None = None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    return result.exit_code, result.output


def errors_of(domain: dict) -> list[Diagnostic]:
    with pytest.raises(ModelError) as info:
        load_domain(domain)
    return info.value.diagnostics


def at(diagnostics: list[Diagnostic], pointer: str) -> Diagnostic:
    found = [d for d in diagnostics if d.pointer == pointer]
    assert found, f"no diagnostic at {pointer!r}; got {[(d.pointer, d.message) for d in diagnostics]}"
    return found[0]


# ------------------------------------------------------------------ 2. exit codes, every command
COMMANDS = {  # each command's arguments after the problem, and what it reads on stdin
    "validate": ([], None),
    "show": ([], None),
    "actions": ([], None),
    "play": ([], "q\n"),
    "check": (["--examples", "3", "--max-steps", "3"], None),
    "plan": (["--planner", "bfs"], None),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind, code", [("valid", 0), ("invalid", 1), ("unreadable", 2), ("missing", 2)])
def test_every_command_exits_0_valid_1_invalid_2_unreadable(tmp_path, command, kind, code):
    """docs/language.md, "Errors and exit codes": 1 for a problem that was read and is wrong,
    2 for one that cannot be read at all, for every command alike."""
    problem = write_world(tmp_path, logistics())
    if kind == "invalid":
        problem.write_text(json.dumps({**PROBLEM, "goal": ["att", "t1", "c2"]}))
    elif kind == "unreadable":
        problem.write_text('{"groundplan": "1", "name": ')
    elif kind == "missing":
        problem.unlink()
    extra, stdin = COMMANDS[command]
    exit_code, out = run(command, problem, *extra, stdin=stdin)
    assert exit_code == code, out
    assert "Traceback" not in out
    if kind == "invalid":
        assert "p.json#/goal/0: unknown predicate 'att'" in out


# ------------------------------------------------------------------ 3. silent mistakes
def test_an_unused_action_parameter_is_a_warning_at_its_place(tmp_path):
    domain = logistics()
    domain["actions"]["drive"]["parameters"].append(["?p", "package"])
    loaded = load_domain(domain)
    (warning,) = loaded.warnings
    assert warning.pointer == "/actions/drive/parameters/3"
    assert warning.message == ("parameter ?p of action 'drive' is used nowhere "
                               "(not in its precondition, effect, cost or text)")
    assert "one more copy of the same action" in warning.hint
    problem = write_world(tmp_path, domain)
    code, out = run("validate", problem)
    assert code == 0 and "valid problem" in out
    assert "warning: " + str(tmp_path / "domain.json") + "#/actions/drive/parameters/3: parameter ?p" in out
    code, out = run("validate", problem, "--json")
    assert code == 0 and json.loads(out)["warnings"][0]["pointer"] == "/actions/drive/parameters/3"


def test_a_parameter_used_only_by_the_text_or_the_actor_is_no_warning():
    domain = logistics()
    domain["actions"]["drive"]["parameters"].append(["?p", "package"])
    domain["actions"]["drive"]["text"] = "drive {t} from {from} to {to} for {p}"
    assert load_domain(domain).warnings == []
    for path in sorted((ROOT / "domains").glob("*/domain.json")):  # no shipped world trips it
        assert load_domain(path).warnings == [], path


def test_an_object_declared_twice_is_an_error(tmp_path):
    """Issue 19's case: `p1` a package and again a truck was "valid", then "unsolvable-proven"."""
    text = json.dumps(PROBLEM).replace('"p1": "package"', '"p1": "package", "p1": "truck"')
    problem = write_world(tmp_path, logistics())
    problem.write_text(text)
    code, out = run("validate", problem)
    assert code == 1 and "p.json#/objects/p1: duplicate key 'p1'" in out


def test_an_invariant_false_in_the_initial_state_is_an_error_naming_it_and_the_problem(tmp_path):
    problem = write_world(tmp_path, logistics(), {**PROBLEM, "init": []})
    code, out = run("validate", problem)
    assert code == 1
    assert (f"{tmp_path / 'domain.json'}#/invariants/0: invariant 'somewhere' (every truck is in some city) "
            f"is false in the initial state of problem 'two-cities' ({problem})") in out
    code, out = run("validate", problem, "--json")
    assert code == 1 and json.loads(out)["diagnostics"][0]["pointer"] == "/invariants/0"


@pytest.mark.parametrize("where, value, pointer, message, hint", [
    ("precondition", {">": [["capacity"], 0]}, "/actions/drive/precondition/>/0",
     "'capacity' is a setting, not a fluent", 'write {"setting": "capacity"}'),
    ("precondition", {">": ["capacity", 0]}, "/actions/drive/precondition/>/0",
     "expected a number or numeric expression, got the string 'capacity'", 'write {"setting": "capacity"}'),
    ("precondition", ["rush"], "/actions/drive/precondition/0",
     "'rush' is a setting, not a predicate", 'write {"setting": "rush"}'),
    ("cost", ["capacity"], "/actions/drive/cost", "'capacity' is a setting, not a fluent", 'write {"setting": "capacity"}'),
])
def test_a_setting_where_a_fluent_or_predicate_belongs_suggests_the_setting_form(where, value, pointer, message, hint):
    domain = logistics()
    domain["actions"]["drive"][where] = value
    d = at(errors_of(domain), pointer)
    assert message in d.message and hint in d.hint


@pytest.mark.parametrize("op", ["add", "del"])
def test_a_numeric_fluent_in_an_add_or_del_effect_says_how_to_change_it(op):
    domain = logistics()
    domain["actions"]["drive"]["effect"].append({op: ["load", "?t"]})
    d = at(errors_of(domain), f"/actions/drive/effect/2/{op}/0")
    assert d.message == f"'load' is a numeric fluent, not a predicate: '{op}' makes facts true or false"
    assert "assign, increase or decrease" in d.hint


def test_a_problem_object_named_in_a_domain_suggests_constants_not_objects():
    domain = logistics()
    domain["actions"]["drive"]["precondition"]["and"].append({"not": ["at", "?t", "c9"]})
    d = at(errors_of(domain), "/actions/drive/precondition/and/2/not/2")
    assert d.message == "unknown object 'c9'"
    assert "'constants'" in d.hint and "under 'objects'" not in d.hint
    domain = logistics()
    domain["init"] = [["at", "t9", "c9"]]
    d = at(errors_of(domain), "/init/0/1")
    assert d.hint == "declare 't9' under 'constants', or move this fact to the problem's 'init'"
    with pytest.raises(ModelError) as info:  # in a problem, 'objects' is the place
        load_problem({**PROBLEM, "goal": ["at", "t1", "c9"]}, load_domain(logistics()))
    assert at(info.value.diagnostics, "/goal/2").hint == "declare it under 'objects'"


def test_a_type_mismatch_names_the_predicate_and_its_signature():
    domain = logistics()
    domain["actions"]["drive"]["precondition"]["and"].append({"not": ["in", "?t", "?t"]})
    d = at(errors_of(domain), "/actions/drive/precondition/and/2/not/1")
    assert d.message == ("type mismatch: ?t is of type 'truck', argument 1 of in(?p - package, ?t - truck) "
                         "needs type 'package'")


def test_a_control_character_in_json_is_reported_without_a_doubled_word(tmp_path):
    path = tmp_path / "domain.json"
    path.write_text('{"groundplan": "1", "name": "a\tb"}')
    with pytest.raises(ModelError) as info:
        load_domain(path)
    message = info.value.diagnostics[0].message
    assert message == "not valid JSON: Invalid control character at line 1 column 31"
    assert "at at" not in message


# ------------------------------------------------------------------ 8. timers agents can see
TANK = {
    "groundplan": "1", "name": "tank",
    "types": {"tank": "object"},
    "predicates": {"full": {"parameters": [["?k", "tank"]], "text": "{k} is full"},
                   "filling": {"parameters": [["?k", "tank"]], "text": "{k} is filling", "hidden": True}},
    "timers": {"fill": {"parameters": [["?k", "tank"]], "duration": 3, "shown": True,
                        "text": "{k} is filling: {remaining} steps to go",
                        "running": [{"add": ["filling", "?k"]}],
                        "done": [{"del": ["filling", "?k"]}, {"add": ["full", "?k"]}]}},
    "actions": {"open": {"parameters": [["?k", "tank"]], "precondition": {"not": ["filling", "?k"]},
                         "effect": [{"start": ["fill", "?k"]}], "text": "open {k}"},
                "wait": {"text": "wait"}},
}


def tank_task(domain: dict | None = None) -> Task:
    problem = {"groundplan": "1", "name": "garden", "domain": "tank", "objects": {"tank1": "tank"}, "goal": ["full", "tank1"]}
    return Task(build_problem(problem, "<garden>", None, load_domain(domain or TANK)))


def after(task: Task, plan: list[str]):
    state = task.initial_state()
    for text in plan:
        state = task.apply(state, task.parse_action(text, state))
    return state


def test_a_shown_timer_tells_its_remaining_steps_in_every_format():
    task = tank_task()
    texts = [render(task, after(task, ["open tank1"] + ["wait"] * n)) for n in range(4)]
    assert texts == ["tank1 is filling: 3 steps to go", "tank1 is filling: 2 steps to go",
                     "tank1 is filling: 1 steps to go", "tank1 is full"]
    state = after(task, ["open tank1", "wait"])
    assert render(task, state, "structured") == "timer fill(tank1): 2 remaining"
    assert json.loads(render(task, state, "json"))["timers"] == [[["fill", "tank1"], 2]]
    assert render(task, state, "observation").startswith("tank1 is filling: 2 steps to go\n\nActions:\nwait")
    grouped = copy.deepcopy(TANK)
    grouped["render"] = {"group_by_object": True}
    task = tank_task(grouped)
    assert render(task, after(task, ["open tank1"])) == "Tank tank1:\ntank1 is filling: 3 steps to go"


def test_timers_stay_unseen_unless_shown():
    hidden = copy.deepcopy(TANK)
    del hidden["timers"]["fill"]["shown"]
    task = tank_task(hidden)
    state = after(task, ["open tank1"])
    assert render(task, state) == "" and "timers" not in json.loads(render(task, state, "json"))
    # the kitchen's timers have texts but do not opt in: its observations stay the reference's
    kitchen = Task.load("domains/kitchen/tasks/async/01_cheese_chicken_sandwich.json")
    assert not any(timer.shown for timer in kitchen.domain.timers.values())
    robot_at = next(args[1] for pred, args in kitchen.problem.init if pred == "loc" and args[0] == "robot1")
    chicken_at = next(args[1] for pred, args in kitchen.problem.init if pred == "item_on" and args[0] == "chicken1")
    stove = next(o for o in kitchen.problem.objects if o.startswith("stove"))
    state = after(kitchen, [f"Move robot1 from {robot_at} to {chicken_at}", f"Pick up chicken1 from {chicken_at} using robot1",
                            f"Move robot1 from {chicken_at} to {stove}", f"Place chicken1 on {stove} using robot1",
                            f"Cook chicken1 on {stove} using robot1"])
    assert state.timers and "cooking on" not in render(kitchen, state, "observation")


@pytest.mark.parametrize("change, pointer, words", [
    ({"text": "{k} needs {remaning} more"}, "/timers/fill/text", "unknown template field '{remaning}'"),
    ({"text": None}, "/timers/fill/shown", "is shown but has no 'text'"),
])
def test_a_shown_timer_text_is_checked(change, pointer, words):
    domain = copy.deepcopy(TANK)
    domain["timers"]["fill"].update(change)
    domain["timers"]["fill"] = {k: v for k, v in domain["timers"]["fill"].items() if v is not None}
    assert words in at(errors_of(domain), pointer).message


# ------------------------------------------------------------------ 8. invariants over the initial state
STAYS_HOME = {"name": "stays-home", "text": "a truck stays in its starting city",
              "formula": {"forall": [["?t", "truck"], ["?c", "city"]],
                          "formula": {"imply": [{"initially": ["at", "?t", "?c"]}, ["at", "?t", "?c"]]}}}


def test_an_invariant_can_compare_with_the_initial_state(tmp_path):
    domain = logistics()
    domain["invariants"].append(STAYS_HOME)
    problem = write_world(tmp_path, domain)
    code, out = run("validate", problem)  # true in the initial state by definition
    assert code == 0, out
    task = Task.load(problem)
    invariant = task.domain.invariants[1].formula
    assert task.holds(invariant, task.initial_state())
    assert not task.holds(invariant, after(task, ["drive t1 from c1 to c2"]))
    code, out = run("check", problem, "--examples", "20", "--max-steps", "3")
    assert code == 1 and "invariant 'stays-home' (a truck stays in its starting city) is false after 1 step(s)" in out


@pytest.mark.parametrize("place", ["precondition", "goal"])
def test_initially_is_refused_outside_invariants(place):
    formula = {"initially": ["at", "t1", "c1"]}
    if place == "goal":
        with pytest.raises(ModelError) as info:
            load_problem({**PROBLEM, "goal": formula}, load_domain(logistics()))
        d = at(info.value.diagnostics, "/goal/initially")
    else:
        domain = logistics()
        domain["actions"]["drive"]["precondition"] = {"initially": ["at", "?t", "?from"]}
        d = at(errors_of(domain), "/actions/drive/precondition/initially")
    assert d.message == "'initially' is allowed only in an invariant's formula"


# ------------------------------------------------------------------ 8. comments
def with_comments(value, depth: int = 0):
    """`value` with a "//" comment (two, at even depths) added to every object in it."""
    if isinstance(value, dict):
        out = {key: with_comments(item, depth + 1) for key, item in value.items()}
        out["//"] = f"a note at depth {depth}"
        return out
    if isinstance(value, list):
        return [with_comments(item, depth + 1) for item in value]
    return value


def test_comment_keys_are_allowed_anywhere_and_change_nothing(tmp_path):
    plain = write_world(tmp_path, logistics())
    before = Task.load(plain)
    plan = [a.text for a in before.applicable(before.initial_state())]
    folder = tmp_path / "commented"
    folder.mkdir()
    text = json.dumps(with_comments(LOGISTICS), indent=1)
    # several comments in one object are no duplicate key
    (folder / "domain.json").write_text(text.replace('"//":', '"//": "first", "//":', 1))
    (folder / "p.json").write_text(json.dumps(with_comments(PROBLEM), indent=1))
    code, out = run("validate", folder / "p.json")
    assert code == 0 and "warning" not in out, out
    after_ = Task.load(folder / "p.json")
    assert [a.text for a in after_.applicable(after_.initial_state())] == plan
    assert after_.domain.raw == load_domain(logistics()).raw
    yaml_file = folder / "d.yaml"
    yaml_file.write_text('groundplan: "1"   # the version\nname: lamp\n"//": a YAML file may use both\n')
    assert load_domain(yaml_file).name == "lamp"


def test_the_schemas_accept_comment_keys_for_editors():
    """Editors that validate against engine/schema/*.json must not flag a comment."""
    from jsonschema import Draft202012Validator

    from groundplan.engine.loader import _validators

    _validators.cache_clear()
    commented = with_comments(LOGISTICS)
    assert list(_validators()["domain"].iter_errors(commented)) == []
    assert list(_validators()["problem"].iter_errors(with_comments(PROBLEM))) == []
    schema = json.loads((ROOT / "engine" / "schema" / "domain.schema.json").read_text())
    Draft202012Validator.check_schema(schema)


# ------------------------------------------------------------------ 9. --heuristic help
def test_plan_help_names_every_heuristic():
    from groundplan.planners.heuristics import NAMES

    code, out = run("plan", "--help")
    flat = " ".join(out.split())
    assert code == 0
    for name in NAMES:
        assert name in flat, name
    assert "lmcount" in flat and "opcount" in flat
