"""Goal landmarks: what the inequalities between the parts of an order imply (planners/heuristics/goal_landmarks.py)."""
import itertools
import math

from generated import blocks_task
from hypothesis import example, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task
from groundplan.planners import heuristics as H
from groundplan.planners.heuristics import relaxation
from groundplan.planners.heuristics.relaxation import Relaxation

VARIABLES = ("?x", "?y", "?z")


def _parted_goal(blocks, predicates, cross):
    """exists ?x ?y ...: p1(?x) and p2(?y) and ... with some inequalities: one part per variable."""
    variables = VARIABLES[:len(predicates)]
    inequalities = [{"not": {"=": [a, b]}} for a, b in cross]
    return {"groundplan": "1", "name": "gen", "domain": "blocksworld", "objects": {b: "block" for b in blocks},
            "init": [["ontable", b] for b in blocks] + [["clear", b] for b in blocks] + [["handempty"]],
            "goal": {"exists": [[v, "block"] for v in variables],
                     "formula": {"and": [[p, v] for p, v in zip(predicates, variables)] + inequalities}}}


@st.composite
def parted_goals(draw):
    n = draw(st.integers(2, 3))
    predicates = draw(st.lists(st.sampled_from(["clear", "ontable"]), min_size=2, max_size=3))
    pairs = list(itertools.combinations(VARIABLES[:len(predicates)], 2))
    return n, predicates, sorted(draw(st.sets(st.sampled_from(pairs))))


@settings(max_examples=40, deadline=None)
@given(parted_goals())
@example((2, ["clear", "clear"], [("?x", "?y")]))  # two blocks, two distinct clear ones: both
def test_goal_landmarks_are_the_facts_every_binding_of_the_whole_goal_has(case):
    """Brute force over every binding of the whole goal: the facts all of them have are the goal
    landmarks (no part alone needs any fact here: each part has every block as a binding)."""
    n, predicates, cross = case
    blocks = [f"b{i}" for i in range(n)]
    task = blocks_task(_parted_goal(blocks, predicates, cross))
    limit = relaxation.MAX_GOAL_DISJUNCTS
    relaxation.MAX_GOAL_DISJUNCTS = 0  # keep the parts (small goals are listed whole)
    try:
        r = Relaxation(task)
    finally:
        relaxation.MAX_GOAL_DISJUNCTS = limit
    every = None
    variables = VARIABLES[:len(predicates)]
    for values in itertools.product(blocks, repeat=len(predicates)):
        bound = dict(zip(variables, values))
        if any(bound[a] == bound[b] for a, b in cross):
            continue
        facts = {(p, (bound[v],)) for p, v in zip(predicates, variables)}
        every = facts if every is None else every & facts
    if every is None:  # more distinct blocks asked for than there are: no goal state at all
        assert r.goal_unreachable and H.make(task, "hmax")(task.initial_state()) == math.inf
        return
    atoms = task.facts.atoms
    assert not r.goal_unreachable
    assert {atoms[i] for i in relaxation.set_bits(r.goal_landmarks)} == every


def test_an_order_of_two_lettuce_sandwiches_cuts_both_lettuces():
    """Sync 08 has two lettuces and two chickens for two sandwiches: both of each are needed,
    though either sandwich alone may use either one. Landmark counting at the start was 0."""
    task = Task.load("domains/kitchen/tasks/sync/08_two_lettuce_chicken_sandwich.json")
    r = Relaxation(task)
    atoms = task.facts.atoms
    assert {atoms[i] for i in relaxation.set_bits(r.goal_landmarks)} == {
        ("iscut", ("lettuce1",)), ("iscut", ("lettuce2",)), ("iscooked", ("chicken1",)), ("iscooked", ("chicken2",))}
    start = task.initial_state()
    assert H.make(task, "lmcount")(start) >= 6  # three cuts of each lettuce at least
    final = start
    for action in task.parse_plan(task.problem.optimal["plan"]):
        final = task.successor(final, action)
    assert task.is_goal(final)
    assert all(task.bits(final) >> i & 1 for i in relaxation.set_bits(r.goal_landmarks))


def test_a_variable_name_bound_twice_is_not_merged_into_one_variable():
    """exists ?x ?y (clear ?x, clear ?y, ?x != ?y, exists ?x (on ?x b0)): the inner ?x is another
    variable. Split into parts as one, it asked one block to be clear and on b0 at once, and h_max
    said 1 in a goal state (b2 on b1 on b0, b3 alone)."""
    blocks = ["b0", "b1", "b2", "b3"]
    data = {"groundplan": "1", "name": "gen", "domain": "blocksworld", "objects": {b: "block" for b in blocks},
            "init": [["ontable", "b0"], ["on", "b1", "b0"], ["on", "b2", "b1"], ["ontable", "b3"],
                     ["clear", "b2"], ["clear", "b3"], ["handempty"]],
            "goal": {"exists": [["?x", "block"], ["?y", "block"]],
                     "formula": {"and": [["clear", "?x"], ["clear", "?y"], {"not": {"=": ["?x", "?y"]}},
                                         {"exists": [["?x", "block"]], "formula": ["on", "?x", "b0"]}]}}}
    task = blocks_task(data)
    assert task.is_goal(task.initial_state())
    limit = relaxation.MAX_GOAL_DISJUNCTS
    relaxation.MAX_GOAL_DISJUNCTS = 0
    try:
        for name in ("hmax", "lmcut", "lmcount", "hff"):
            assert H.make(task, name)(task.initial_state()) == 0, name
    finally:
        relaxation.MAX_GOAL_DISJUNCTS = limit
