"""Planners: known optima, agreement between optimal planners, plans that validate, routing
exactness against brute force, the any-state oracle, and fail-fast statuses."""
import glob
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task, validate_plan
from groundplan.engine.loader import build_problem, load_domain
from groundplan.planners import SOLVED_OPTIMAL, UNSOLVABLE_PROVEN, UNSUPPORTED, solve
from groundplan.planners.oracle import Oracle
from groundplan.planners.routing import brute_force_sequence, solve_sequence

from generated import blocks_problems, copy_problem

KNOWN = {
    "problems/blocksworld/blocks-4-0.json": 6,
    "problems/blocksworld/sussman.json": 6,
    "problems/gripper/prob01.json": 11,
    "problems/gripper/prob02.json": 17,
    "problems/gripper/prob03.json": 23,
    "problems/gripper/prob04.json": 29,
}
SMALL = [p for p in KNOWN if "prob03" not in p and "prob04" not in p]


@pytest.mark.parametrize("path,optimum", KNOWN.items())
def test_known_optima_with_bfs(path, optimum):
    result = solve(Task.load(path), planner="bfs")
    assert result.status == SOLVED_OPTIMAL and result.cost == optimum
    assert validate_plan(Task.load(path), result.plan).valid


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(glob.glob("problems/blocksworld/*.json") + glob.glob("problems/gripper/*.json")
                                         + glob.glob("problems/gridnav/*.json")))
@pytest.mark.parametrize("heuristic", ["blind", "hmax"])
def test_astar_with_admissible_heuristics_agrees_with_bfs(path, heuristic):
    task = Task.load(path)
    bfs = solve(task, planner="bfs")
    astar = solve(task, planner="astar", heuristic=heuristic)
    assert astar.status == SOLVED_OPTIMAL and astar.cost == bfs.cost
    assert validate_plan(task, astar.plan).valid


@pytest.mark.parametrize("planner,heuristic", [("gbfs", "hff"), ("gbfs", "hadd"), ("wastar", "hff"), ("gbfs", "goal-count"),
                                               ("lazy", "hff"), ("lazy", "goal-count")])
def test_satisficing_planners_return_valid_plans_with_honest_status(planner, heuristic):
    task = Task.load("problems/gripper/prob02.json")
    result = solve(task, planner=planner, heuristic=heuristic)
    assert result.status == "solved-satisficing"
    assert validate_plan(task, result.plan).valid and result.cost >= 17


def test_blocks_acceptance_json():
    result = solve(Task.load("problems/blocksworld/blocks-4-0.json"), planner="astar", heuristic="hmax")
    data = result.to_json()
    assert data["status"] == "solved-optimal" and data["cost"] == 6
    assert {"status", "plan", "cost", "expanded", "generated", "seconds"} <= set(data)


def test_unsolvable_is_proven_and_unknown_heuristic_is_unsupported():
    task = Task.load("problems/blocksworld/sussman.json")
    impossible = task.with_goal(build_goal(task, {"and": [["on", "a", "b"], ["on", "b", "a"]]}))
    assert solve(impossible, planner="bfs").status == UNSOLVABLE_PROVEN
    assert solve(impossible, planner="astar", heuristic="hmax").status == UNSOLVABLE_PROVEN
    assert solve(task, planner="astar", heuristic="nope").status == UNSUPPORTED


def test_time_limit_gives_timeout():
    result = solve(Task.load("problems/gripper/prob04.json"), planner="bfs", time_limit=0.01)
    assert result.status == "timeout"


def build_goal(task, raw):
    from groundplan.engine.parse import Parser, _Scope
    from groundplan.engine.errors import Collector
    p = Parser(Collector("<goal>"))
    p.types, p.predicates, p.fluents, p.derived, p.settings = task.domain.types, task.domain.predicates, task.domain.fluents, task.domain.derived, task.domain.settings
    return p.goal(raw, [], _Scope({}, task.problem.objects))


# ---------------------------------------------------------------- generated problems
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(blocks_problems(), st.sampled_from(["bfs", "astar", "gbfs", "wastar", "ucs"]))
def test_every_returned_plan_validates_and_optimal_ones_agree(data, planner):
    task = Task(build_problem(data, "<gen>", None, domain=load_domain("domains/blocksworld/domain.json")))
    result = solve(task, planner=planner)
    assert result.solved
    assert validate_plan(task, result.plan).valid
    reference = solve(task, planner="bfs").cost
    if result.status == SOLVED_OPTIMAL:
        assert result.cost == reference
    else:
        assert result.cost >= reference


# ---------------------------------------------------------------- routing
@st.composite
def routing_instances(draw):
    n = draw(st.integers(1, 8))
    cost = st.one_of(st.integers(1, 20), st.none()) if draw(st.booleans()) else st.integers(1, 20)
    first = [draw(st.integers(1, 20)) for _ in range(n)]
    leg = [[None if i == j else draw(cost) for j in range(n)] for i in range(n)]
    closed = draw(st.booleans())
    last = [draw(st.integers(1, 20)) if closed else 0 for _ in range(n)]
    precedence = []
    if n >= 2 and draw(st.booleans()):
        split = draw(st.integers(1, n - 1))
        order = draw(st.permutations(range(n)))
        precedence = [(list(order[:split]), list(order[split:]))]
    prizes = budget = None
    if draw(st.booleans()):
        prizes = [draw(st.integers(0, 9)) for _ in range(n)]
        budget = draw(st.integers(0, 60))
    return n, first, leg, last, precedence, prizes, budget


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(routing_instances())
def test_routing_equals_brute_force_up_to_8_targets(instance):
    n, first, leg, last, precedence, prizes, budget = instance
    if prizes is None and n == 8:
        leg = [[c if c is not None else 20 for c in row] for row in leg]  # keep brute force fast: 40k orders
    exact = solve_sequence(n, first, leg, last, precedence, prizes, budget)
    brute = brute_force_sequence(n, first, leg, last, precedence, prizes, budget)
    assert (exact is None) == (brute is None)
    if exact is not None:
        assert exact[3] is True  # proven by CP-SAT
        assert exact[1] == brute[1] if prizes is None else (exact[2], exact[1]) == (brute[2], brute[1])


LINE_WORLD = {
    "groundplan": "1", "name": "corridor",
    "types": {"cell": "object"},
    "predicates": {"at": {"parameters": [["?c", "cell"]]}, "adj": {"parameters": [["?a", "cell"], ["?b", "cell"]]},
                   "seen": {"parameters": [["?c", "cell"]]}},
    "actions": {"go": {"parameters": [["?a", "cell"], ["?b", "cell"]], "precondition": {"and": [["at", "?a"], ["adj", "?a", "?b"]]},
                       "effect": [{"del": ["at", "?a"]}, {"add": ["at", "?b"]}], "text": "go {b}"},
                "inspect": {"parameters": [["?c", "cell"]], "precondition": ["at", "?c"], "effect": [{"add": ["seen", "?c"]}],
                            "text": "inspect {c}"}}
}


def corridor(targets, precedence=(), tour="open"):
    cells = [f"c{i}" for i in range(7)]
    adj = [["adj", a, b] for a, b in zip(cells, cells[1:])] + [["adj", b, a] for a, b in zip(cells, cells[1:])]
    routing = {"targets": {t: ["seen", t] for t in targets}, "tour": tour, "exact": True,
               "precedence": [{"before": list(a), "after": list(b)} for a, b in precedence]}
    if tour == "closed":
        routing["return"] = ["at", "c3"]
    goal = {"and": [["seen", t] for t in targets] + ([["at", "c3"]] if tour == "closed" else [])}
    data = {"groundplan": "1", "name": "corridor", "domain": "corridor", "objects": {c: "cell" for c in cells},
            "init": [["at", "c3"]] + adj, "goal": goal, "routing": routing}
    if precedence:  # the same ordering as an 'always' constraint, so BFS can check it independently
        a, b = precedence[0]
        data["goal"] = {"all": [{"always": {"imply": [{"or": [["seen", x] for x in b]}, {"and": [["seen", x] for x in a]}]}}, goal]}
    return Task(build_problem(data, "<corridor>", None, domain=load_domain(LINE_WORLD)))


@pytest.mark.parametrize("targets,precedence,tour", [
    (["c0", "c6"], (), "open"), (["c1", "c5", "c6"], (), "open"), (["c0", "c6"], (), "closed"),
    (["c0", "c2", "c6"], [(["c6"], ["c0", "c2"])], "open"),
])
def test_routing_planner_matches_bfs_on_the_whole_task(targets, precedence, tour):
    task = corridor(targets, precedence, tour)
    routed = solve(task, planner="tsp")
    reference = solve(task, planner="bfs")
    assert routed.status == SOLVED_OPTIMAL, routed.reason
    assert routed.cost == reference.cost
    assert validate_plan(task, routed.plan).valid


def test_oracle_from_any_state_and_cache():
    task = Task.load("problems/gripper/prob01.json")
    oracle = Oracle(task)
    s0 = task.initial_state()
    assert oracle.cost(s0) == 11
    plan = oracle.plan(s0)
    state = s0
    for i, action in enumerate(plan):
        assert oracle.cost(state) == 11 - i
        state = task.successor(state, action)
    assert oracle.searches == 1  # every state on the optimal plan came from the first search
    moved = task.successor(s0, task.parse_action("move from rooma to roomb", s0) if False else task.applicable(s0)[-1])
    assert oracle.cost(moved) in (10, 11, 12)
    assert math.isinf(Oracle(task.with_goal(build_goal(task, {"and": [["at-robby", "rooma"], ["at-robby", "roomb"]]}))).cost(s0))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["problems/gripper/prob02.json", "problems/blocksworld/blocks-4-0.json", "problems/gridnav/room8-10.json"]),
       st.lists(st.integers(0, 1000), max_size=15))
def test_layered_hmax_equals_generic_cost_propagation(path, choices):
    from groundplan.engine.testing import replay_choices
    from groundplan.planners.heuristics import _propagate, make
    task = _tasks.setdefault(path, Task.load(path))
    h = make(task, "hmax")
    bits = h.r.initial_facts(replay_choices(task, choices).states[-1])
    assert h.from_bits(bits) == _propagate(h.r, bits, max)[0]


_tasks: dict = {}


@pytest.mark.parametrize("path", ["problems/blocksworld/blocks-4-0.json", "problems/gripper/prob03.json",
                                  "problems/blocksworld/sussman.json"])
def test_lazy_greedy_plans_validate_and_evaluate_only_what_it_expands(path):
    """Deferred evaluation (Fast Downward's lazy_greedy): a valid plan, never cheaper than the optimum."""
    task = Task.load(path)
    result = solve(task, planner="lazy", heuristic="hff")
    assert result.status == "solved-satisficing" and result.planner == "gbfs"
    assert validate_plan(task, result.plan).valid and result.cost >= KNOWN[path]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["problems/gripper/prob02.json", "problems/blocksworld/blocks-4-0.json", "problems/gridnav/room8-10.json"]),
       st.lists(st.integers(0, 1000), max_size=15))
def test_compiled_hff_equals_python_hff(path, choices):
    pytest.importorskip("numba")
    from groundplan.engine.testing import replay_choices
    from groundplan.planners.heuristics import _FFTables, make
    task = _tasks.setdefault(path, Task.load(path))
    h = make(task, "hff")
    tables = _ffs.get(path) or _ffs.setdefault(path, _FFTables.build(h.r, h.goal_deletion))
    assert tables is not None
    bits = h.r.initial_facts(replay_choices(task, choices).states[-1])
    assert tables.value(bits) == h.evaluate(h.r, bits, {})


_ffs: dict = {}


def timed_kitchen(goal, settings=None):
    """The semantics tests' kitchen without its object-creating action (relaxation refuses creation)."""
    import copy
    import test_semantics
    domain = copy.deepcopy(test_semantics.KITCHEN)
    del domain["actions"]["fill"], domain["timers"]["fill"]
    problem = {"groundplan": "1", "name": "p", "domain": "mini", "objects": {
        "patty": "item", "lettuce": "item", "stove1": "station", "table": "station"},
        "init": [["on", "patty", "stove1"], ["stove", "stove1"], ["on", "lettuce", "table"]], "goal": goal,
        "settings": settings or {}}
    return Task(build_problem(problem, "<p>", None, domain=load_domain(domain)))


def test_goals_on_created_objects_are_relaxed_with_placeholders():
    from test_semantics import kitchen
    task = kitchen(goal={"and": [{"exists": [["?m", "meal"]], "formula": ["in", "?m", "pot"]}, ["cooked", "patty"]]})
    astar, bfs = solve(task, planner="astar", heuristic="hmax"), solve(task, planner="bfs")
    assert astar.status == bfs.status == SOLVED_OPTIMAL and astar.cost == bfs.cost == 4
    from groundplan.planners.heuristics import make
    # time-aware h_max: one step to start cooking, then three ticks before the patty is cooked
    assert make(task, "hmax")(task.initial_state()) == 4


def test_timed_world_bfs_and_hmax_agree_and_plans_wait_for_timers():
    task = timed_kitchen({"and": [["cooked", "patty"], ["cut", "lettuce"]]})
    bfs, astar = solve(task, planner="bfs"), solve(task, planner="astar", heuristic="hmax")
    assert bfs.status == astar.status == SOLVED_OPTIMAL and bfs.cost == astar.cost == 4  # cook, then cut three times
    assert validate_plan(task, astar.plan).valid
    slow = timed_kitchen(["cooked", "patty"], settings={"cook_time": 5})
    result = solve(slow, planner="astar", heuristic="hmax")
    assert result.cost == 6 and result.plan[0] == "cook patty on stove1"  # then five steps of waiting (or anything)


def test_simultaneous_agents_search_joint_actions():
    from test_semantics import two_robots
    task = two_robots("simultaneous")
    result = solve(task, planner="bfs")
    # a round applies actions in agent order (r1 first), so r1 cannot enter y in the round r2 leaves it
    assert result.status == SOLVED_OPTIMAL and len(result.plan) == 2 and all("|" in line for line in result.plan)
    assert result.cost == 4  # a round costs the sum of its agents' action costs
    assert validate_plan(task, result.plan).valid
    turns = solve(two_robots("turns"), planner="bfs")
    assert turns.status == SOLVED_OPTIMAL and len(turns.plan) == 3  # r1 waits, r2 moves, r1 moves


def test_a_later_agent_may_use_what_an_earlier_one_made_possible_in_the_round():
    from test_semantics import TURNS
    problem = {"groundplan": "1", "name": "p", "domain": "two", "agents": {"mode": "simultaneous", "order": ["r2", "r1"]},
               "objects": {"r1": "robot", "r2": "robot", "x": "spot", "y": "spot", "z": "spot"},
               "init": [["at", "r1", "x"], ["at", "r2", "y"], ["free", "z"]],
               "goal": {"and": [["at", "r1", "y"], ["at", "r2", "z"]]}}
    task = Task(build_problem(problem, "<p>", None, domain=load_domain(TURNS)))
    result = solve(task, planner="bfs")
    assert result.plan == ["r2 moves from y to z | r1 moves from x to y"]
    assert validate_plan(task, result.plan).valid
    assert not validate_plan(task, ["r1 moves from x to y | r2 moves from y to z"]).valid  # wrong order for this round


@pytest.mark.slow
@pytest.mark.parametrize("path,planner,heuristic", [
    ("problems/gripper/prob02.json", "ucs", None),
    ("domains/kitchen/tasks/sync/02_lettuce_sandwich.json", "ucs", None),
    ("domains/kitchen/tasks/sync/05_cheeseburger.json", "astar", "hmax"),
    ("domains/kitchen/tasks/async/06_potato_soup.json", "astar", "max(hmax,lmcut)"),
])
def test_symmetry_reduction_keeps_optimal_costs_and_real_plans(path, planner, heuristic):
    from groundplan.planners.search.symmetry import Symmetry
    task = Task.load(path)
    assert Symmetry.detect(task) is not None  # these tasks have interchangeable objects
    with_sym = solve(task, planner=planner, heuristic=heuristic, symmetry=True)
    without = solve(task, planner=planner, heuristic=heuristic, symmetry=False)
    assert with_sym.status == without.status == SOLVED_OPTIMAL and with_sym.cost == without.cost
    assert with_sym.expanded <= without.expanded
    assert validate_plan(task, with_sym.plan).valid


def test_objects_named_by_the_goal_are_never_interchangeable():
    from groundplan.planners.search.symmetry import Symmetry
    task = Task.load("problems/gripper/prob01.json")  # balls are named by the goal, grippers are not
    classes = Symmetry.detect(task).classes
    assert classes == [["left", "right"]]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 1000), max_size=12))
def test_symmetric_states_have_equal_keys_and_equal_optimal_costs(choices):
    from groundplan.engine.testing import replay_choices
    from groundplan.planners.search.symmetry import Symmetry
    task = _tasks.setdefault("problems/gripper/prob01.json", Task.load("problems/gripper/prob01.json"))
    sym = Symmetry.detect(task)
    state = replay_choices(task, choices).states[-1]
    # swap the grippers by hand: the key must not change
    swap = {"left": "right", "right": "left"}
    bits = 0
    for pred, args in task.facts.decode(state.facts):
        bits |= 1 << task.facts.id(pred, tuple(swap.get(a, a) for a in args))
    twin = state._replace(facts=bits)
    assert sym.key(twin) == sym.key(state)
    assert solve(task, planner="bfs", start=twin).cost == solve(task, planner="bfs", start=state).cost


def test_store_keeps_the_best_plan_and_bound_and_recognises_a_proof(tmp_path):
    import json as _json
    from groundplan.planners.cli import store_result
    from groundplan.planners.result import PlanResult
    path, _ = copy_problem(tmp_path, "problems/blocksworld/sussman.json", "domains/blocksworld/domain.json")
    store_result(str(path), PlanResult("timeout", "astar", lower_bound=4, heuristic="hmax"))
    assert _json.loads(path.read_text())["optimal"] == {"cost": None, "method": "unproven", "lower_bound": 4,
                                                        "lower_bound_method": "astar + hmax"}
    store_result(str(path), PlanResult("solved-satisficing", "gbfs", plan=["a"] * 8, cost=8, heuristic="hff"))
    store_result(str(path), PlanResult("solved-satisficing", "gbfs", plan=["b"] * 9, cost=9, heuristic="hff"))
    entry = _json.loads(path.read_text())["optimal"]
    assert entry["upper_bound"] == 8 and entry["plan"] == ["a"] * 8 and entry["lower_bound"] == 4 and entry["cost"] is None
    assert entry["lower_bound_method"] == "astar + hmax"  # kept while no better bound arrives
    store_result(str(path), PlanResult("timeout", "astar", lower_bound=8))  # bounds meet: proven
    entry = _json.loads(path.read_text())["optimal"]
    assert entry["cost"] == 8 and entry["plan"] == ["a"] * 8 and "lower_bound" not in entry
    store_result(str(path), PlanResult("solved-optimal", "bfs", plan=["c"] * 6, cost=6))  # a proof is final
    assert _json.loads(path.read_text())["optimal"]["cost"] == 8
    from groundplan.engine.loader import load_problem
    load_problem(path)  # the entry stays valid against the schema


def test_time_limit_holds_under_a_slow_heuristic():
    import time as _time

    class Slow:
        name, admissible = "slow", True

        def __call__(self, state):
            _time.sleep(0.05)
            return 0
    from groundplan.planners.search import best_first
    task = Task.load("problems/gripper/prob04.json")
    began = _time.perf_counter()
    result = best_first(task, Slow(), time_limit=0.5)
    assert result.status == "timeout" and _time.perf_counter() - began < 2.0


@pytest.mark.slow
@pytest.mark.parametrize("path", ["domains/kitchen/tasks/sync/03_lettuce_tomato_sandwich.json",
                                  "domains/kitchen/tasks/async/06_potato_soup.json"])
def test_greedy_search_with_preferred_operators_returns_valid_plans(path):
    task = Task.load(path)
    result = solve(task, planner="gbfs", heuristic="hff", time_limit=60)
    assert result.status == "solved-satisficing" and validate_plan(task, result.plan).valid
    assert result.cost >= solve(task, planner="astar", heuristic="hmax").cost


def test_every_result_reports_cpu_time_beside_wall_time():
    """Issue 35: `seconds` is wall time, `cpu_seconds` CPU time (Fast Downward's and pyperplan's
    figures are CPU time); `groundplan plan --json` prints both, and Fast Downward's run counts
    the child process's CPU time."""
    import json

    from click.testing import CliRunner

    from groundplan.cli import main
    from groundplan.planners.fast_downward import driver

    task = Task.load("problems/blocksworld/sussman.json")
    planners = [("bfs", None), ("ucs", None), ("astar", "lmcut"), ("gbfs", "hff"), ("prove", None), ("explore", "hff")]
    for planner, heuristic in planners + ([("fd", None)] if driver() is not None else []):
        result = solve(task, planner=planner, heuristic=heuristic, time_limit=60)
        assert result.solved and result.cpu_seconds is not None and result.cpu_seconds >= 0, (planner, result)
        if planner == "fd":  # the translator and search run in a child: more than this process spends
            assert result.cpu_seconds > 0.05, result
    out = CliRunner().invoke(main, ["plan", "problems/blocksworld/sussman.json", "--planner", "astar", "--json"]).output
    data = json.loads(out)
    assert list(data)[list(data).index("seconds") + 1] == "cpu_seconds" and data["cpu_seconds"] >= 0


def _pretend_fast_downward_is_installed(monkeypatch, started):
    """`auto` sees a Fast Downward driver; starting it records the call instead of running it."""
    from pathlib import Path

    import groundplan.planners.fast_downward as fd
    from groundplan.planners.result import TIMEOUT, PlanResult

    def plan_with_fast_downward(task, search=None, time_limit=None, memory_limit=None):
        started.append(time_limit)
        return PlanResult(TIMEOUT, "fd", reason="stand-in for Fast Downward")

    monkeypatch.setattr(fd, "driver", lambda: Path("fast-downward.py"))
    monkeypatch.setattr(fd, "plan_with_fast_downward", plan_with_fast_downward)


@pytest.mark.parametrize("path", SMALL)
def test_auto_settles_a_tiny_task_itself_without_starting_fast_downward(path, monkeypatch):
    """Issue 35 item 5: Fast Downward's start-up made `auto` the slowest choice on tiny tasks."""
    started = []
    _pretend_fast_downward_is_installed(monkeypatch, started)
    result = solve(Task.load(path), planner="auto", time_limit=60)
    assert started == []
    assert result.status == SOLVED_OPTIMAL and result.cost == KNOWN[path]
    assert result.planner == "auto:bfs" and result.reason.startswith("auto chose bfs (a small task")


def test_auto_hands_a_task_its_slice_does_not_settle_to_fast_downward_then_to_our_astar(monkeypatch):
    from groundplan.planners.portfolio import SMALL_SLICE, run_auto
    from groundplan.planners.result import TIMEOUT, PlanResult

    started = []
    _pretend_fast_downward_is_installed(monkeypatch, started)
    calls = []

    def solve_with(planner, heuristic, seconds):
        calls.append((planner, heuristic, seconds))
        return PlanResult(TIMEOUT, planner, reason="stand-in")

    result = run_auto(Task.load("problems/gripper/prob04.json"), solve_with, 100.0)
    assert [c[:2] for c in calls] == [("bfs", None), ("fd", None), ("astar", "hmax")]
    assert calls[0][2] == SMALL_SLICE and 45 < calls[1][2] <= 50  # the slice, then half of what is left
    assert result.status == TIMEOUT and result.planner == "auto:fd"


def test_auto_leaves_grounding_to_the_planners_it_starts(monkeypatch):
    """Deciding the last resort grounds the whole task (18 s on IPC depot pfile22): with Fast
    Downward tried first, that question waits until the last resort is reached."""
    from groundplan.planners.portfolio import LAST_RESORT, choices

    _pretend_fast_downward_is_installed(monkeypatch, [])
    task = Task.load("problems/gripper/prob04.json")
    steps = choices(task)
    assert [s[0] for s in steps] == ["bfs", "fd", LAST_RESORT]
    assert task._universes == {}  # nothing grounded to choose


def test_auto_without_fast_downward_keeps_its_order(monkeypatch):
    import groundplan.planners.fast_downward as fd
    from groundplan.planners.portfolio import choices

    monkeypatch.setattr(fd, "driver", lambda: None)
    assert [c[:2] for c in choices(Task.load("problems/gripper/prob01.json"))] == [("astar", "hmax")]
