"""Lowering timers and numeric fluents (engine/pddl/lower.py), checked against the interpreter.

The law: from every reachable state, the original and the lowered problem offer the same
actions, and after each one (plus the lowered problem's forced bookkeeping chain, exactly one
bookkeeping action applicable at a time) they reach the same state: the same facts, the same
fluent values, the same timer instances in the same order with the same steps to go. It is
checked on random walks (hypothesis) in a small world made to exercise every timer rule, under
both tick rules, and along the stored plans of kitchen tasks. Fast Downward, on the export,
must then find the kitchen's proven optima (test extra)."""
import functools
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task
from groundplan.engine.loader import build_problem, load_domain
from groundplan.engine.pddl.lower import lower
from groundplan.engine.pddl.writer import ExportError, export_pddl
from groundplan.planners import SOLVED_OPTIMAL, solve

LAB = {
    "groundplan": "1", "name": "timer-lab",
    "types": {"item": "object", "place": "object"},
    "predicates": {"at": {"parameters": [["?i", "item"], ["?p", "place"]]}, "hot": {"parameters": [["?p", "place"]]},
                   "busy": {"parameters": [["?i", "item"]]}, "baked": {"parameters": [["?i", "item"]]},
                   "warm": {"parameters": [["?i", "item"]]}, "ringing": {}, "road": {"parameters": [["?a", "place"], ["?b", "place"]]}},
    "fluents": {"heat": {"parameters": [["?i", "item"]], "kind": "int", "default": 0}},
    "timers": {
        "bake": {"parameters": [["?i", "item"], ["?p", "place"]], "duration": 2,
                 "while": {"and": [["at", "?i", "?p"], ["hot", "?p"]]},
                 "running": [{"add": ["busy", "?i"]}], "paused": [{"del": ["busy", "?i"]}],
                 "done": [{"add": ["baked", "?i"]}, {"del": ["busy", "?i"]},
                          {"when": {"<": [["heat", "?i"], 3]}, "then": [{"increase": [["heat", "?i"], 1]}]}]},
        "alarm": {"duration": 1, "restart": "reset", "done": [{"add": ["ringing"]}]},
        "flash": {"parameters": [["?i", "item"]], "duration": 0, "while": ["warm", "?i"], "done": [{"del": ["warm", "?i"]}]},
    },
    "actions": {
        "move": {"parameters": [["?i", "item"], ["?a", "place"], ["?b", "place"]],
                 "precondition": {"and": [["at", "?i", "?a"], ["road", "?a", "?b"]]},
                 "effect": [{"del": ["at", "?i", "?a"]}, {"add": ["at", "?i", "?b"]}], "text": "move {i} from {a} to {b}"},
        "heat": {"parameters": [["?p", "place"]], "precondition": {"not": ["hot", "?p"]},
                 "effect": [{"add": ["hot", "?p"]}], "text": "heat {p}"},
        "cool": {"parameters": [["?p", "place"]], "precondition": ["hot", "?p"],
                 "effect": [{"del": ["hot", "?p"]}], "text": "cool {p}"},
        "bake": {"parameters": [["?i", "item"], ["?p", "place"]], "precondition": ["at", "?i", "?p"],
                 "effect": [{"when": {"<": [["heat", "?i"], 2]}, "then": [{"increase": [["heat", "?i"], 1]}],
                             "else": [{"assign": [["heat", "?i"], 0]}]},
                            {"start": ["bake", "?i", "?p"]}, {"start": ["flash", "?i"]}],
                 "text": "bake {i} at {p}"},
        "warm": {"parameters": [["?i", "item"]], "precondition": {"not": ["warm", "?i"]},
                 "effect": [{"add": ["warm", "?i"]}, {"start": ["flash", "?i"]}], "text": "warm {i}"},
        "set-alarm": {"effect": [{"del": ["ringing"]}, {"start": ["alarm"]}], "text": "set alarm"},
        "wait": {"text": "wait"},
    },
}


def lab(tick_rule="all", goal=None):
    problem = {
        "groundplan": "1", "name": "lab", "domain": "timer-lab", "tick_rule": tick_rule,
        "objects": {"a1": "item", "a2": "item", "p1": "place", "p2": "place"},
        "init": [["at", "a1", "p1"], ["at", "a2", "p2"], ["road", "p1", "p2"], ["road", "p2", "p1"]],
        "goal": goal or {"and": [["baked", "a1"], ["baked", "a2"], ["ringing"], {">=": [["heat", "a1"], 2]}]},
    }
    return Task(build_problem(problem, "<lab>", None, domain=load_domain(LAB)))


def view(task, state, lowered=None):
    """What both problems must agree on: facts, fluent values, the timer queue in order."""
    facts = {(p, tuple(a)) for p, a in task.true_atoms(state, include_derived=False)}
    if lowered is None:
        values = {key: task.value(state, key[0], key[1]) for key in task.fluent_keys}
        queue = [(*task.timer_keys[tid], left) for tid, left in state.timers]
        return {f for f in facts}, {k: v for k, v in values.items()}, queue
    plain = {f for f in facts if not f[0].startswith("gp-") and not f[0].endswith("-value")}
    values = {(f[0][:-len("-value")], f[1][:-1]): float(f[1][-1][4:].replace("m", "-").replace("p", "."))
              for f in facts if f[0].endswith("-value") and f[0][:-len("-value")] in lowered.values}
    slots = sorted((int(f[1][0][len("gp-s"):]), f) for f in facts if f[0].startswith("gp-") and f[0].endswith("-at"))
    queue = [(f[0][3:-3], tuple(f[1][1:-1]), int(f[1][-1][len("gp-c"):])) for _, f in slots]
    return plain, values, queue


def original_view(task, state, fluents):
    facts, _, queue = view(task, state)
    p = task.problem
    values = {(name, args): task.value(state, name, args) for name in fluents
              for args in itertools.product(*[p.objects_of(t) for _, t in p.domain.fluents[name].params])}
    return facts, values, queue


@functools.lru_cache(maxsize=None)
def lowered_lab(rule):
    task = lab(rule)
    low = lower(task.problem)
    return task, low, Task(low.problem)


class Twin:
    """The original task and its lowering, stepped together."""

    def __init__(self, task, low=None, ltask=None):
        self.task = task
        self.low = low or lower(task.problem)
        self.ltask = ltask or Task(self.low.problem)
        self.state, self.lstate = task.initial_state(), self.ltask.initial_state()
        self.fluents = set(self.low.values)

    def offered(self):
        mine = sorted((a.schema.name, tuple(a.args)) for a in self.task.applicable(self.state))
        theirs = sorted(self.low.original_step(a.schema.name, a.args) for a in self.ltask.applicable(self.lstate))
        return mine, theirs

    def step(self, action):
        self.state = self.task.successor(self.state, action)
        key = (action.schema.name, tuple(action.args))
        match = [a for a in self.ltask.applicable(self.lstate) if self.low.original_step(a.schema.name, a.args) == key]
        assert len(match) == 1, f"{action.text}: {len(match)} lowered variants apply"
        self.lstate = self.ltask.successor(self.lstate, match[0])
        chain = 0
        while self.low.slots and not self.ltask.atom_holds(self.lstate, "gp-acting", ()):
            forced = self.ltask.applicable(self.lstate)
            assert len(forced) == 1, f"after {action.text}: bookkeeping offers {[a.schema.name for a in forced]}"
            assert self.low.original(forced[0].schema.name) is None
            self.lstate = self.ltask.successor(self.lstate, forced[0])
            chain += 1
            assert chain < 100
        assert original_view(self.task, self.state, self.fluents) == view(self.ltask, self.lstate, self.low), action.text
        assert self.task.is_goal(self.state) == self.ltask.is_goal(self.lstate)


@pytest.mark.parametrize("rule", ["all", "skip-after-done"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 10_000), min_size=1, max_size=25))
def test_random_walks_agree_step_by_step(rule, choices):
    twin = Twin(*lowered_lab(rule))
    for choice in choices:
        mine, theirs = twin.offered()
        assert mine == theirs
        actions = twin.task.applicable(twin.state)
        twin.step(actions[choice % len(actions)])


SKIP_WALK = [  # worked by hand from docs/language.md's order of one step
    ("heat p1", []),
    # bake starts two new instances: bake runs (busy) but its first step does not count; flash
    # (duration 0) is paused, since a1 is not warm
    ("bake a1 at p1", [("bake", ("a1", "p1"), 2), ("flash", ("a1",), 0)]),
    # flash is already in the queue (restart keep); now warm, it runs and completes (warm removed)
    ("warm a1", [("bake", ("a1", "p1"), 1)]),
    # bake completes (baked, heat + 1); under skip-after-done the new alarm after it waits: 1 + 1
    ("set alarm", [("alarm", (), 2)]),
    ("wait", [("alarm", (), 1)]),
    ("set alarm", [("alarm", (), 1)]),  # restart reset: the full duration again, in place, a new start
    ("wait", []),  # the alarm rings
]


def test_the_lab_walk_under_skip_after_done():
    twin = Twin(*lowered_lab("skip-after-done"))
    for text, queue in SKIP_WALK:
        twin.step(twin.task.parse_action(text, twin.state))
        assert original_view(twin.task, twin.state, twin.fluents)[2] == queue, text
    facts, values, _ = original_view(twin.task, twin.state, twin.fluents)
    assert {("baked", ("a1",)), ("ringing", ())} <= facts and ("warm", ("a1",)) not in facts
    assert values[("heat", ("a1",))] == 2  # one from the bake action, one from the timer's completion


def test_the_lab_walk_under_tick_all():
    """The same walk with every instance ticking: the alarm started as bake completes is not skipped."""
    twin = Twin(*lowered_lab("all"))
    for text, _ in SKIP_WALK[:3]:
        twin.step(twin.task.parse_action(text, twin.state))
    twin.step(twin.task.parse_action("set alarm", twin.state))
    assert original_view(twin.task, twin.state, twin.fluents)[2] == [("alarm", (), 1)]
    twin.step(twin.task.parse_action("wait", twin.state))
    assert ("ringing", ()) in original_view(twin.task, twin.state, twin.fluents)[0]


@pytest.mark.slow
def test_same_optimum_as_the_original():
    task = lab("skip-after-done")
    want = solve(task, "ucs", time_limit=120)
    got = solve(Task(lower(task.problem).problem), "ucs", time_limit=120)
    assert want.status == got.status == SOLVED_OPTIMAL
    assert want.cost == got.cost


KITCHEN = ["domains/kitchen/tasks/sync/02_lettuce_sandwich.json", "domains/kitchen/tasks/async/01_cheese_chicken_sandwich.json",
           "domains/kitchen/tasks/async/03_lettuce_tomato_fried_chicken_sandwich.json",
           "domains/kitchen/tasks/multiagent/05_lettuce_tomato_chicken_sandwich.json"]


@pytest.mark.slow
@pytest.mark.parametrize("path", KITCHEN)
def test_kitchen_stored_plans_agree_step_by_step(path):
    task = Task.load(path)
    twin = Twin(task)
    for text in json.loads(Path(path).read_text())["optimal"]["plan"]:
        assert twin.offered()[0] == twin.offered()[1]
        twin.step(task.parse_action(text, twin.state))
    assert task.is_goal(twin.state)


def test_refusals_name_the_construct():
    with pytest.raises(ExportError, match="object creation"):
        export_pddl(Task.load("domains/kitchen/tasks/async/06_potato_soup.json").problem)
    domain = json.loads(json.dumps(LAB))
    domain["actions"]["cool"]["effect"].append({"stop": ["alarm"]})
    problem = {"groundplan": "1", "name": "lab", "domain": "timer-lab", "objects": {"p1": "place", "a1": "item"},
               "init": [], "goal": ["ringing"]}
    with pytest.raises(ExportError, match="stopping timer 'alarm'"):
        lower(build_problem(problem, "<lab>", None, domain=load_domain(domain)))
    domain = json.loads(json.dumps(LAB))
    domain["actions"]["wait"]["effect"] = [{"forall": [["?i", "item"]], "effect": [{"increase": [["heat", "?i"], 1]}]}]
    with pytest.raises(ExportError, match="read under a quantifier"):
        lower(build_problem(problem, "<lab>", None, domain=load_domain(domain)))


def test_unbounded_fluents_are_refused():
    domain = json.loads(json.dumps(LAB))
    domain["actions"]["wait"]["parameters"] = [["?i", "item"]]
    domain["actions"]["wait"]["effect"] = [{"increase": [["heat", "?i"], 1]}]
    domain["actions"]["wait"]["text"] = "wait {i}"
    problem = {"groundplan": "1", "name": "lab", "domain": "timer-lab", "objects": {"p1": "place", "a1": "item"},
               "init": [], "goal": ["ringing"]}
    with pytest.raises(ExportError, match="more than 64 values"):
        lower(build_problem(problem, "<lab>", None, domain=load_domain(domain)))


def test_export_is_classical_for_fast_downward():
    """No numbers, no axioms, no conditional effects: LM-cut reads the kitchen's export."""
    export = export_pddl(Task.load(KITCHEN[0]).problem, classical=True)
    assert not export.numeric and not export.axioms and not export.conditional
    assert "(:functions (total-cost))" in export.domain
    assert export.plan_texts(["(gp-tick-end gp-s1 gp-s1)"]) == []


fd = pytest.importorskip("groundplan.planners.fast_downward")


@pytest.mark.skipif(fd.driver() is None, reason="Fast Downward is not installed (the test extra installs up-fast-downward)")
@pytest.mark.parametrize("path", KITCHEN[:2] + ["domains/kitchen/tasks/sync/01_cheese_sandwich.json"])
def test_fast_downward_reproves_kitchen_optima(path):
    """The stored optima were proven by our own searches (docs: domains/kitchen/README.md)."""
    task = Task.load(path)
    result = solve(task, "fd", time_limit=300)
    assert result.status == SOLVED_OPTIMAL, result.reason
    assert result.cost == task.problem.optimal["cost"]
