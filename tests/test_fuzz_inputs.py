"""Fuzzing the loader and the interpreter with mutated domain and problem files.

Each example takes a known-good domain or problem (blocksworld, plus a small inline domain that
uses most of the language), applies a few random mutations at random JSON paths, feeds the result
to `load_domain` / `load_problem` as data, as a written JSON or YAML file, or as corrupted text,
and, when loading succeeds, runs the task for a few steps.

The property: every outcome is a valid model or a `GroundplanError` (normally `ModelError`, with
at least one well-formed diagnostic). Any other exception is an engine crash and fails the test.
"""
from __future__ import annotations

import copy
import itertools
import json
import math
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from groundplan.engine.errors import Diagnostic, GroundplanError, ModelError
from groundplan.engine.loader import load_domain, load_problem
from groundplan.engine.render import FORMATS, render
from groundplan.engine.task import Task

ROOT = Path(__file__).resolve().parent.parent
BLOCKS_DOMAIN = json.loads((ROOT / "domains" / "blocksworld" / "domain.json").read_text())
BLOCKS_PROBLEMS = [json.loads((ROOT / "problems" / "blocksworld" / name).read_text())
                   for name in ("sussman.json", "blocks-4-0.json")]

# A small world exercising most of the language: a type hierarchy, constants, settings, fluents,
# recursive and negated derived predicates, quantifiers, comparisons, count/if/min/max/abs/'/',
# conditional, universal and object-creating effects, timers, agents and temporal goals.
RICH_DOMAIN = {
    "groundplan": "1",
    "name": "kitchen",
    "description": "A small world using most of the language, for fuzzing.",
    "types": {"thing": "object", "cup": "thing", "robot": "object", "place": "object"},
    "constants": {"sink": "place"},
    "settings": {"boil-time": {"default": 2, "allowed": [1, 2, 3]}, "strict": {"default": False}},
    "predicates": {
        "at": {"parameters": [["?r", "robot"], ["?p", "place"]], "text": "{r} is at {p}", "describe": {"?r": "at {p}"}},
        "in": {"parameters": [["?t", "thing"], ["?p", "place"]], "text": "{t} is in {p}"},
        "link": {"parameters": [["?a", "place"], ["?b", "place"]]},
        "holding": {"parameters": [["?r", "robot"], ["?t", "thing"]], "text": "{r} holds {t}"},
        "hot": {"parameters": [["?t", "thing"]], "text": "{t} is hot"},
        "free": {"parameters": [["?r", "robot"]], "hidden": True},
    },
    "fluents": {
        "energy": {"parameters": [["?r", "robot"]], "kind": "int", "default": 5, "text": "{r} has {value} energy"},
        "temp": {"parameters": [["?t", "thing"]], "kind": "float", "default": 20.0},
        "made": {"kind": "int", "default": 0, "hidden": True},
    },
    "derived": {
        "reach": {"parameters": [["?a", "place"], ["?b", "place"]],
                  "formula": {"or": [["link", "?a", "?b"],
                                     {"exists": [["?c", "place"]],
                                      "formula": {"and": [["link", "?a", "?c"], ["reach", "?c", "?b"]]}}]}},
        "cold": {"parameters": [["?t", "thing"]], "formula": {"not": ["hot", "?t"]}, "text": "{t} is cold"},
        "all-cold": {"formula": {"forall": [["?t", "thing"]], "formula": ["cold", "?t"]}},
    },
    "actions": {
        "move": {
            "parameters": [["?r", "robot"], ["?a", "place"], ["?b", "place"]],
            "actor": "?r",
            "precondition": {"and": [["at", "?r", "?a"], ["reach", "?a", "?b"], {"!=": ["?a", "?b"]},
                                     {">=": [["energy", "?r"], {"/": [2, 2]}]}]},
            "effect": [{"del": ["at", "?r", "?a"]}, {"add": ["at", "?r", "?b"]}, {"decrease": [["energy", "?r"], 1]}],
            "cost": {"+": [1, {"abs": {"-": [0, 1]}}]},
            "text": "{r} goes from {a} to {b}",
            "aliases": ["walk"],
        },
        "take": {
            "parameters": [["?r", "robot"], ["?t", "thing"], ["?p", "place"]],
            "precondition": {"and": [["at", "?r", "?p"], ["in", "?t", "?p"], ["free", "?r"],
                                     {"imply": [{"setting": "strict"}, ["cold", "?t"]]}]},
            "effect": [{"del": ["in", "?t", "?p"]}, {"del": ["free", "?r"]}, {"add": ["holding", "?r", "?t"]}],
            "cost": {"if": {"setting": "strict"}, "then": 2, "else": 1},
            "text": "{r} takes {t}",
        },
        "drop": {
            "parameters": [["?r", "robot"], ["?t", "thing"], ["?p", "place"]],
            "precondition": {"and": [["at", "?r", "?p"], ["holding", "?r", "?t"]]},
            "effect": [{"add": ["in", "?t", "?p"]}, {"add": ["free", "?r"]}, {"del": ["holding", "?r", "?t"]},
                       {"when": {"=": ["?p", "sink"]}, "then": [{"start": ["boil", "?t"]}],
                        "else": [{"stop": ["boil", "?t"]}]}],
            "text": "{r} drops {t} in {p}",
        },
        "brew": {
            "parameters": [["?r", "robot"]],
            "precondition": {"and": [["at", "?r", "sink"],
                                     {"<": [{"count": [["?c", "cup"]], "formula": ["in", "?c", "sink"]}, 4]},
                                     {"<=": [["made"], {"max": [1, {"setting": "boil-time"}]}]}]},
            "effect": [{"create": ["?n", "cup"], "name": "mug",
                        "effect": [{"add": ["in", "?n", "sink"]}, {"assign": [["temp", "?n"], {"/": [90, 2]}]}]},
                       {"increase": [["made"], 1]},
                       {"forall": [["?t", "thing"]], "effect": [{"when": ["hot", "?t"], "then": [{"del": ["hot", "?t"]}]}]}],
            "cost": {"*": [1, {"min": [3, 4]}]},
            "text": "{r} brews",
        },
        "rest": {"parameters": [["?r", "robot"]], "effect": [{"assign": [["energy", "?r"], 5]}]},
    },
    "timers": {
        "boil": {
            "parameters": [["?t", "thing"]],
            "duration": {"setting": "boil-time"},
            "while": ["in", "?t", "sink"],
            "running": [{"increase": [["temp", "?t"], 10]}],
            "paused": [],
            "done": [{"add": ["hot", "?t"]}],
            "restart": "reset",
            "text": "{t} is boiling",
        }
    },
    "invariants": [{"name": "one-place", "formula": {"forall": [["?r", "robot"]], "formula": {
        "exists": [["?p", "place"]], "formula": ["at", "?r", "?p"]}}}],
    "agents": {"type": "robot", "mode": "turns"},
    "on_inapplicable": "noop",
    "render": {"group_by_object": True, "object_header": "{object}:", "type_names": {"cup": "cups"}},
    "metadata": {"source": "fuzz"},
}

RICH_PROBLEM = {
    "groundplan": "1",
    "name": "kitchen-1",
    "domain": "domain.json",
    "objects": {"r1": "robot", "r2": "robot", "table": "place", "shelf": "place", "c1": "cup", "c2": "cup"},
    "init": [["at", "r1", "table"], ["at", "r2", "sink"], ["free", "r1"], ["holding", "r2", "c2"],
             ["link", "table", "shelf"], ["link", "shelf", "sink"], ["link", "sink", "table"],
             ["in", "c1", "table"]],
    "values": [[["energy", "r1"], 3], [["temp", "c1"], 21.5]],
    "settings": {"boil-time": 1, "strict": True},
    "goal": {"sequence": [{"eventually": ["holding", "r1", "c1"]},
                          {"all": [["in", "c1", "sink"], {"always": {"<=": [["made"], 3]}}]}]},
    "goal_text": "Bring c1 to the sink.",
    "agents": {"order": ["r1", "r2"]},
    "max_steps": 30,
    "optimal": {"cost": None, "method": "none"},
    "metadata": {},
}

# (domain, problems) pairs the mutations start from.
WORLDS = [(BLOCKS_DOMAIN, BLOCKS_PROBLEMS), (RICH_DOMAIN, [RICH_PROBLEM])]

# ------------------------------------------------------------------ mutation vocabulary
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
HUGE_NUMBERS = [10**15, 10**15 + 1, -(10**16), 10**100, 2**63, 2**64 + 1, 1e15, 1e16, 1e308, -1e308,
                1.7976931348623157e308, 5e-324, -0.0, 0, float("inf"), float("-inf"), float("nan")]
BAD_VARIABLES = ["x", "?", "??x", "?1x", "? x", "?x y", "", "$x", "?X", "?x-", "?_", "?object", "?" + "x" * 300]
SURPRISING_NAMES = ["clera", "zzz", "object", "", " ", "?x", "a" * 300, "a/" * 200, "x\x00y", "../..", ".", "/",
                    "domain.json", "blocksworld", "and", "not", "forall", "{x}", "{", "}", "{{x}}", "{0}", "{x!r}",
                    "ü-ñ", "1", "-", "true", "null", "NaN"]
OPERATOR_KEYS = ["and", "or", "not", "imply", "exists", "forall", "formula", "=", "<", "!=", "setting",
                 "+", "-", "*", "/", "min", "max", "abs", "if", "then", "else", "count", "add", "del", "assign",
                 "increase", "decrease", "when", "effect", "start", "stop", "create", "name", "all", "sequence",
                 "eventually", "always", "parameters", "type", "default", "allowed", "order", "mode"]
TOP_LEVEL_KEYS = ["groundplan", "name", "domain", "types", "constants", "settings", "predicates", "fluents",
                  "derived", "actions", "timers", "invariants", "agents", "objects", "init", "values", "goal",
                  "on_inapplicable", "render", "metadata", "max_steps", "optimal", "predicats", "goals"]


def all_paths(doc):
    """Every JSON path in doc (the root included), depth first; iterative, as docs may nest deeply."""
    out = []
    stack = [((), doc)]
    while stack:
        path, value = stack.pop()
        out.append(path)
        if isinstance(value, dict):
            stack.extend((path + (key,), item) for key, item in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((path + (index,), item) for index, item in reversed(list(enumerate(value))))
    return out


def clone(value):
    """A deep copy, or None when the value nests too deeply to copy recursively."""
    try:
        return copy.deepcopy(value)
    except RecursionError:
        return None


def get_at(doc, path):
    for part in path:
        doc = doc[part]
    return doc


def set_at(doc, path, value):
    if not path:
        return value
    get_at(doc, path[:-1])[path[-1]] = value
    return doc


def strings_in(doc) -> list[str]:
    """Every string value and key of a document: names that exist somewhere, for confusing renames."""
    found = set()
    for path in all_paths(doc):
        value = get_at(doc, path)
        if isinstance(value, str):
            found.add(value)
        if isinstance(value, dict):
            found.update(value)
    return sorted(found)


def is_parameter_list(value) -> bool:
    return (isinstance(value, list) and bool(value) and
            all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and x[0].startswith("?") for x in value))


MUTATIONS = ["delete", "wrong_type", "rename", "rename_key", "inject_key", "deep_nesting", "huge_number",
             "cyclic_types", "duplicate_parameter", "bad_variable", "copy_elsewhere", "duplicate_element"]
# Mutations that often keep a file loadable, so the interpreter itself gets exercised too.
GENTLE = ["rename", "rename", "small_number", "small_number", "duplicate_element", "delete"]


def mutate(draw, doc, kind: str):
    """Apply one mutation of `kind` at a drawn path of doc (a fresh copy); returns the new document."""
    paths = all_paths(doc)
    if kind == "delete":
        path = draw(st.sampled_from(paths[1:] or [()]))
        if not path:
            return {}
        parent = get_at(doc, path[:-1])
        del parent[path[-1]]
        return doc
    if kind == "wrong_type":
        path = draw(st.sampled_from(paths))
        return set_at(doc, path, draw(json_values))
    if kind == "rename":
        candidates = [p for p in paths if isinstance(get_at(doc, p), str)] or paths
        path = draw(st.sampled_from(candidates))
        name = draw(st.one_of(st.sampled_from(SURPRISING_NAMES), st.sampled_from(strings_in(doc) or ["x"]),
                              st.text(min_size=1, max_size=10)))
        return set_at(doc, path, name)
    if kind == "rename_key":
        candidates = [p for p in paths if isinstance(get_at(doc, p), dict) and get_at(doc, p)]
        if not candidates:
            return doc
        path = draw(st.sampled_from(candidates))
        obj = get_at(doc, path)
        old = draw(st.sampled_from(sorted(obj)))
        new = draw(st.one_of(st.sampled_from(SURPRISING_NAMES + OPERATOR_KEYS + TOP_LEVEL_KEYS),
                             st.sampled_from(strings_in(doc) or ["x"]), st.text(max_size=10)))
        renamed = {(new if k == old else k): v for k, v in obj.items()}
        return set_at(doc, path, renamed)
    if kind == "inject_key":
        candidates = [p for p in paths if isinstance(get_at(doc, p), dict)] or [()]
        path = draw(st.sampled_from(candidates))
        obj = get_at(doc, path)
        if not isinstance(obj, dict):
            return doc
        key = draw(st.one_of(st.sampled_from(OPERATOR_KEYS + TOP_LEVEL_KEYS + SURPRISING_NAMES), st.text(max_size=10)))
        obj[key] = draw(st.one_of(json_values, st.sampled_from([get_at(doc, p) for p in paths[1:]] or [None])
                                  .map(clone)))
        return doc
    if kind == "deep_nesting":
        path = draw(st.sampled_from(paths))
        value = get_at(doc, path)
        depth = draw(st.one_of(st.integers(1, 10), st.integers(50, 70), st.integers(100, 600)))
        wrapper = draw(st.sampled_from(["not", "and", "list", "always", "eventually", "+", "abs"]))
        for _ in range(depth):
            if wrapper == "list":
                value = [value]
            elif wrapper in ("and", "+"):
                value = {wrapper: [value]}
            else:
                value = {wrapper: value}
        return set_at(doc, path, value)
    if kind == "huge_number":
        numeric = [p for p in paths if isinstance(get_at(doc, p), (int, float)) and not isinstance(get_at(doc, p), bool)]
        path = draw(st.sampled_from(numeric or paths))
        return set_at(doc, path, draw(st.sampled_from(HUGE_NUMBERS)))
    if kind == "small_number":
        numeric = [p for p in paths if isinstance(get_at(doc, p), (int, float)) and not isinstance(get_at(doc, p), bool)]
        if not numeric:
            return doc
        return set_at(doc, draw(st.sampled_from(numeric)), draw(st.sampled_from([0, 0, 0, 1, -1, 2, 3, 0.5, -0.0])))
    if kind == "cyclic_types":
        types = doc.get("types") if isinstance(doc, dict) else None
        if not isinstance(types, dict) or not types:
            if isinstance(doc, dict):
                doc["types"] = {"a": "b", "b": "a"}
            return doc
        names = draw(st.lists(st.sampled_from(sorted(types) + ["object", "fresh"]), min_size=1, max_size=4))
        for child, parent in zip(names, names[1:] + names[:1]):
            types[child] = parent
        return doc
    if kind == "duplicate_parameter":
        candidates = [p for p in paths if is_parameter_list(get_at(doc, p))]
        if not candidates:
            return doc
        params = get_at(doc, draw(st.sampled_from(candidates)))
        i = draw(st.integers(0, len(params) - 1))
        twin = list(params[i])
        if draw(st.booleans()):
            twin[1] = draw(st.sampled_from(strings_in(doc) or ["object"]))
        params.insert(draw(st.integers(0, len(params))), twin)
        return doc
    if kind == "bad_variable":
        candidates = [p for p in paths if isinstance(get_at(doc, p), str) and get_at(doc, p).startswith("?")]
        if not candidates:
            return doc
        return set_at(doc, draw(st.sampled_from(candidates)), draw(st.sampled_from(BAD_VARIABLES)))
    if kind == "copy_elsewhere":
        source = get_at(doc, draw(st.sampled_from(paths)))
        return set_at(doc, draw(st.sampled_from(paths)), clone(source))
    # duplicate_element
    candidates = [p for p in paths if isinstance(get_at(doc, p), list) and get_at(doc, p)]
    if not candidates:
        return doc
    items = get_at(doc, draw(st.sampled_from(candidates)))
    items.insert(draw(st.integers(0, len(items))), clone(items[draw(st.integers(0, len(items) - 1))]))
    return doc


@st.composite
def mutated(draw, original, max_mutations: int = 3):
    """A copy of `original` with 1..max_mutations random mutations, and the names of the mutations."""
    doc = copy.deepcopy(original)
    kinds = draw(st.lists(st.sampled_from(MUTATIONS + GENTLE), min_size=1, max_size=max_mutations))
    for kind in kinds:
        doc = mutate(draw, doc, kind)
    return doc, kinds


@st.composite
def corrupted_text(draw, text: str) -> bytes:
    """JSON text damaged at the byte level: truncated, spliced with junk, or with bytes flipped."""
    raw = text.encode("utf-8")
    how = draw(st.sampled_from(["truncate", "insert", "overwrite", "delete", "random"]))
    if how == "random":
        return draw(st.binary(max_size=200))
    at = draw(st.integers(0, len(raw)))
    if how == "truncate":
        return raw[:at]
    junk = draw(st.one_of(st.binary(min_size=1, max_size=8),
                          st.sampled_from([b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"NaN", b"-Infinity",
                                           b"1e999", b"\xff\xfe", b"\x00", b"[" * 3000, b"\n", b"//"])))
    if how == "insert":
        return raw[:at] + junk + raw[at:]
    if how == "overwrite":
        return raw[:at] + junk + raw[at + len(junk):]
    return raw[:at] + raw[at + draw(st.integers(1, 20)):]


# ------------------------------------------------------------------ the property
def check_model_error(error: ModelError) -> None:
    """A ModelError must carry at least one well-formed diagnostic."""
    assert error.diagnostics, "ModelError without diagnostics"
    for d in error.diagnostics:
        assert isinstance(d, Diagnostic)
        assert isinstance(d.file, str) and d.file
        assert isinstance(d.pointer, str) and (d.pointer == "" or d.pointer.startswith("/")), d.pointer
        assert isinstance(d.message, str) and d.message
        assert d.hint is None or isinstance(d.hint, str)
        str(d), d.to_json()
    str(error)


def expect_model_or_error(load):
    """Run `load()`; return its result, or None when it raised a GroundplanError (checked)."""
    try:
        result = load()
    except ModelError as error:
        check_model_error(error)
        event("load: ModelError")
        return None
    except GroundplanError as error:
        event(f"load: {type(error).__name__}")
        return None
    event("load: ok")
    return result


def exercise(problem, draw) -> None:
    """Build the task and take up to a few steps; only GroundplanErrors may escape the engine."""
    try:
        task = Task(problem)
        state = task.initial_state()
        task.is_goal(state)
        tried = None
        for _ in range(draw(st.integers(0, 6))):
            actions = task.applicable(state)
            if not actions:
                break
            action = actions[draw(st.integers(0, len(actions) - 1))]
            assert task.is_applicable(state, action), f"applicable() listed {action.name} but it is not applicable"
            tried = tried or action
            state = task.apply(state, action)
            task.is_goal(state)
            task.is_dead(state)
        if tried is not None:  # an action taken earlier, perhaps inapplicable now: exercises explain()
            task.step(state, tried)
        task.wait_step(state)
        for fmt in FORMATS:
            render(task, state, fmt)
    except ModelError as error:
        check_model_error(error)
        event("run: ModelError")
    except GroundplanError as error:
        event(f"run: {type(error).__name__}")
    else:
        event("run: ok")


# ------------------------------------------------------------------ files
@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


_counter = itertools.count()


def fresh_dir(base: Path) -> Path:
    """A new directory per example, so the loader's per-file domain cache never sees stale files."""
    path = base / f"ex{next(_counter)}"
    path.mkdir()
    return path


def dump(doc, syntax: str) -> str:
    if syntax == "yaml":
        try:
            return yaml.safe_dump(doc, allow_unicode=True)
        except (yaml.YAMLError, RecursionError):
            return "{"
    try:
        return json.dumps(doc, ensure_ascii=False)  # NaN and Infinity are written as such
    except (RecursionError, ValueError):
        return "["


COMMON = settings(deadline=None, suppress_health_check=list(HealthCheck))
# Longer campaigns: FUZZ_SCALE=20 python3 -m pytest tests/test_fuzz_inputs.py
SCALE = max(1, int(os.environ.get("FUZZ_SCALE", "1")))


# ------------------------------------------------------------------ tests
@pytest.mark.slow
@settings(COMMON, max_examples=300 * SCALE)
@given(world=st.sampled_from(WORLDS), data=st.data())
def test_mutated_domain_data(world, data):
    """A mutated domain given as data; when it loads, an unmutated problem of it is run."""
    domain_doc, problems = world
    doc, _ = data.draw(mutated(domain_doc), label="domain")
    domain = expect_model_or_error(lambda: load_domain(doc))
    if domain is None:
        return
    problem_doc = data.draw(st.sampled_from(problems), label="problem")
    problem = expect_model_or_error(lambda: load_problem(copy.deepcopy(problem_doc), domain))
    if problem is not None:
        exercise(problem, data.draw)


@pytest.mark.slow
@settings(COMMON, max_examples=400 * SCALE)
@given(world=st.sampled_from(WORLDS), data=st.data())
def test_gently_mutated_worlds_run(world, data):
    """One loadable-looking change to a domain or a problem (a renamed name, a small number, a
    duplicated or deleted element), so most examples load and the interpreter runs on them."""
    domain_doc, problems = world
    problem_doc = data.draw(st.sampled_from(problems), label="problem")
    kind = data.draw(st.sampled_from(GENTLE + ["copy_elsewhere", "duplicate_parameter"]), label="mutation")
    if data.draw(st.booleans(), label="mutate the domain"):
        domain_doc = mutate(data.draw, copy.deepcopy(domain_doc), kind)
    else:
        problem_doc = mutate(data.draw, copy.deepcopy(problem_doc), kind)
    domain = expect_model_or_error(lambda: load_domain(domain_doc))
    if domain is None:
        return
    problem = expect_model_or_error(lambda: load_problem(copy.deepcopy(problem_doc), domain))
    if problem is not None:
        exercise(problem, data.draw)


@pytest.mark.slow
@settings(COMMON, max_examples=300 * SCALE)
@given(world=st.sampled_from(WORLDS), data=st.data())
def test_mutated_problem_data(world, data):
    """A mutated problem given as data, against its intact domain (or resolving its own 'domain')."""
    domain_doc, problems = world
    problem_doc = data.draw(st.sampled_from(problems), label="problem")
    doc, _ = data.draw(mutated(problem_doc), label="mutated problem")
    domain = load_domain(copy.deepcopy(domain_doc))
    given_domain = data.draw(st.sampled_from([domain, domain, None]), label="domain given")
    problem = expect_model_or_error(lambda: load_problem(doc, given_domain))
    if problem is not None:
        exercise(problem, data.draw)


@pytest.mark.slow
@settings(COMMON, max_examples=150 * SCALE)
@given(world=st.sampled_from(WORLDS), data=st.data())
def test_mutated_files(world, data, workdir):
    """Mutated domain and problem written as JSON or YAML files and loaded by path."""
    domain_doc, problems = world
    directory = fresh_dir(workdir)
    syntax = data.draw(st.sampled_from(["json", "yaml"]), label="syntax")
    if data.draw(st.booleans(), label="mutate domain"):
        domain_doc, _ = data.draw(mutated(domain_doc), label="domain")
    problem_doc = copy.deepcopy(data.draw(st.sampled_from(problems), label="problem"))
    if isinstance(problem_doc, dict):
        problem_doc["domain"] = "domain." + syntax
    if data.draw(st.booleans(), label="mutate problem"):
        problem_doc, _ = data.draw(mutated(problem_doc), label="mutated problem")
    (directory / f"domain.{syntax}").write_text(dump(domain_doc, syntax), encoding="utf-8")
    (directory / f"problem.{syntax}").write_text(dump(problem_doc, syntax), encoding="utf-8")
    expect_model_or_error(lambda: load_domain(directory / f"domain.{syntax}"))
    problem = expect_model_or_error(lambda: load_problem(directory / f"problem.{syntax}"))
    if problem is not None:
        exercise(problem, data.draw)


@settings(COMMON, max_examples=200 * SCALE)
@given(world=st.sampled_from(WORLDS), data=st.data())
def test_corrupted_text(world, data, workdir):
    """Truncated JSON, spliced junk and random bytes, as a domain file and as a problem file."""
    domain_doc, problems = world
    directory = fresh_dir(workdir)
    suffix = data.draw(st.sampled_from([".json", ".json", ".yaml"]), label="suffix")
    problem_doc = dict(data.draw(st.sampled_from(problems), label="problem"), domain="domain.json")
    (directory / "domain.json").write_text(json.dumps(domain_doc), encoding="utf-8")
    target = data.draw(st.sampled_from(["domain", "problem"]), label="target")
    original = json.dumps(domain_doc if target == "domain" else problem_doc, indent=data.draw(st.sampled_from([None, 1])))
    corrupt = directory / f"corrupt{suffix}"
    corrupt.write_bytes(data.draw(corrupted_text(original), label="bytes"))
    if target == "domain":
        domain = expect_model_or_error(lambda: load_domain(corrupt))
        if domain is None:
            return
        problem = expect_model_or_error(lambda: load_problem(copy.deepcopy(problem_doc), domain))
    else:
        problem = expect_model_or_error(lambda: load_problem(corrupt))
    if problem is not None:
        exercise(problem, data.draw)


def test_base_worlds_are_valid():
    """The unmutated starting points load and run, so mutations are what the fuzzing tests."""
    for domain_doc, problems in WORLDS:
        domain = load_domain(copy.deepcopy(domain_doc))
        for problem_doc in problems:
            task = Task(load_problem(copy.deepcopy(problem_doc), domain))
            state = task.initial_state()
            assert task.applicable(state)


def test_nan_and_infinity_survive_dumping():
    """The file-based tests really write NaN/Infinity tokens (json.dumps allows them)."""
    text = dump({"x": [math.nan, math.inf]}, "json")
    assert "NaN" in text and "Infinity" in text


# ------------------------------------------------------------------ crashes found by fuzzing, kept as regressions
def run_plan(domain_doc, problem_doc, plan):
    """Load, build the task and take the actions of `plan` (by text); return what the engine raised, if anything."""
    try:
        task = Task(load_problem(copy.deepcopy(problem_doc), load_domain(copy.deepcopy(domain_doc))))
        state = task.initial_state()
        for text in plan:
            state = task.step(state, task.parse_action(text, state)).state
            task.is_goal(state)
        for fmt in FORMATS:
            render(task, state, fmt)
    except GroundplanError as error:
        return error
    return None


def _rich(edit):
    doc = copy.deepcopy(RICH_DOMAIN)
    edit(doc)
    return doc


BIG_FLOAT = {"*": [1e15] * 25}  # 1e375: every literal is in range, the product is not
BIG_INT = {"*": [10**15] * 30}


@pytest.mark.parametrize("domain_doc, plan", [
    # division by zero decided at grounding time, in a cost, and in an effect run by a created object
    (_rich(lambda d: d["actions"]["move"]["precondition"]["and"][3][">="][1].update({"/": [2, 0]})), []),
    (_rich(lambda d: d["actions"]["move"].update(cost={"/": [1, {"-": [1, 1]}]})), ["r1 goes from table to shelf"]),
    (_rich(lambda d: d["actions"]["brew"]["effect"][0]["effect"][1].update(assign=[["temp", "?n"], {"/": [90, ["made"]]}])),
     ["r2 brews"]),
    # timer durations that are infinite, NaN or beyond float range
    (_rich(lambda d: d["timers"]["boil"].update(duration=BIG_FLOAT)), ["r2 drops c2 in sink"]),
    (_rich(lambda d: d["timers"]["boil"].update(duration={"-": [BIG_FLOAT, BIG_FLOAT]})), ["r2 drops c2 in sink"]),
    (_rich(lambda d: d["timers"]["boil"].update(duration={"/": [BIG_INT, 3]})), ["r2 drops c2 in sink"]),
    (_rich(lambda d: d["timers"]["boil"].update(duration={"+": [BIG_INT, 0.5]})), ["r2 drops c2 in sink"]),
    # a fluent pushed beyond float range, then explained and rendered
    (_rich(lambda d: d["actions"]["rest"].update(effect=[{"decrease": [["energy", "?r"], BIG_INT]}])),
     ["(rest r1)", "r2 brews", "r1 goes from table to shelf"]),
    (_rich(lambda d: d["actions"]["rest"].update(effect=[
        {"assign": [["energy", "?r"], {"*": [1e15] * 20 + [1.5e8]}]}, {"increase": [["energy", "?r"], ["energy", "?r"]]}])),
     ["(rest r1)", "(rest r2)", "(rest r1)"]),
])
def test_numeric_trouble_is_a_groundplan_error(domain_doc, plan):
    error = run_plan(domain_doc, RICH_PROBLEM, plan)
    assert error is not None, "expected the engine to refuse this numeric expression"
    assert "division by zero" in str(error) or "overflow" in str(error)


@pytest.mark.parametrize("reference", ["a" * 300, "a/" * 3000, "x\x00y"])
def test_unusable_domain_reference_is_a_model_error(reference):
    problem = dict(BLOCKS_PROBLEMS[0], domain=reference)
    with pytest.raises(ModelError) as info:
        load_problem(problem)
    assert info.value.diagnostics[0].pointer == "/domain"


@pytest.mark.parametrize("path", ["x\x00y.json", "a" * 300 + ".json"])
@pytest.mark.parametrize("load", [load_domain, load_problem])
def test_unusable_path_is_a_model_error(load, path):
    with pytest.raises(ModelError):
        load(path)
