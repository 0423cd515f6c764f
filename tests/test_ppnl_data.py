"""PPNL data sets: the paper's counts, determinism, the committed evaluation sets."""
import itertools
import json
import random

import pytest

from groundplan.domains.ppnl import generate as G
from groundplan.engine import problemsets
from groundplan.engine.task import Task
from groundplan.engine.validate import validate_plan
from groundplan.planners import solve

SETS = {"single_unseen_env": 336, "single_5x5": 250, "single_7x7": 250, "single_obstacles": 300, "multi_unseen_env": 336}


@pytest.fixture(scope="module")
def envs():
    return G.environments(0)


def test_environment_counts_match_tables_2_and_7(envs):
    def count(**where):
        return sum(all(e[k] == v for k, v in where.items()) for e in envs)

    assert count(setup="6x6") == 836 and count(setup="6x6", group="dev") == 668 and count(setup="6x6", group="unseen") == 168
    assert count(setup="5x5") == 125 and count(setup="7x7") == 125 and count(setup="obstacles") == 150
    per_k = {k: sum(e["setup"] == "6x6" and len(e["obstacles"]) == k for e in envs) for k in range(1, 6)}
    assert per_k == {1: 36, 2: 200, 3: 200, 4: 200, 5: 200}
    dev_k = {k: sum(e["group"] == "dev" and len(e["obstacles"]) == k for e in envs) for k in range(1, 6)}
    assert dev_k == {1: 28, 2: 160, 3: 160, 4: 160, 5: 160}
    assert {len(e["obstacles"]) for e in envs if e["setup"] == "obstacles"} == set(range(6, 12))
    # the 36 one-obstacle grids are all 36 cells; obstacle sets are distinct within a setup
    assert sorted(tuple(e["obstacles"][0]) for e in envs if e["setup"] == "6x6" and len(e["obstacles"]) == 1) == \
        [(r, c) for r in range(6) for c in range(6)]
    for setup in ("6x6", "5x5", "7x7", "obstacles"):
        sets = [tuple(map(tuple, e["obstacles"])) for e in envs if e["setup"] == setup]
        assert len(sets) == len(set(sets))


def test_placements_per_environment_and_split_shares(envs):
    rng = random.Random(5)
    dev_env = rng.choice([e for e in envs if e["group"] == "dev"])
    single = list(G.instances(dev_env, 0, "single"))
    assert len(single) == 30
    assert [s["split"] for s in single].count("train") == 24 and [s["split"] for s in single].count("dev") == 3
    multi = list(G.instances(dev_env, 0, "multi"))
    assert len(multi) == 100  # 5 goal counts x 10 placements x (plain, constrained)
    for plain, constrained in zip(multi[::2], multi[1::2]):
        assert plain["goals"] == constrained["goals"] and plain["start"] == constrained["start"]
        n = len(plain["goals"])
        assert len(constrained["before"]) == n // 2 and sorted(constrained["before"] + constrained["after"]) == list(range(n))
        assert constrained["after"] == sorted(constrained["after"]) and not plain["before"]
        cells = [tuple(plain["start"])] + [tuple(g) for g in plain["goals"]]
        assert len(set(cells)) == len(cells) and not set(cells) & {tuple(o) for o in dev_env["obstacles"]}
    unseen = next(e for e in envs if e["group"] == "unseen")
    assert {s["split"] for s in G.instances(unseen, 0, "single")} == {"test_unseen"}


def test_totals_add_up_to_table_2():
    per_dev_env = (30, 100)
    assert 668 * per_dev_env[0] + 168 * 30 == 25080 and 836 * 100 == 83600
    assert 668 * 24 == 16032 and 668 * 3 == 2004 and 668 * 80 == 53440 and 168 * 100 == 16800
    assert (125 + 125 + 150) * 30 == 12000 and 400 * 100 == 40000


def test_generation_is_deterministic_and_seeded(envs):
    again = G.environments(0)
    assert again == envs
    other = G.environments(1)
    assert other != envs
    env = envs[500]
    assert list(G.instances(env, 0, "multi")) == list(G.instances(env, 0, "multi"))
    assert list(G.instances(env, 0, "single")) != list(G.instances(env, 1, "single"))


def _problems(name):
    return [json.loads(line) for line in open(f"problems/ppnl/{name}.jsonl")][1:]


@pytest.mark.parametrize("name, size", SETS.items())
def test_committed_sets_have_the_gpt4_sample_sizes(name, size):
    problems = _problems(name)
    assert len(problems) == size
    envs = [p["metadata"]["env"] for p in problems]
    assert all(n == 2 for n in __import__("collections").Counter(envs).values())  # 2 per environment


@pytest.mark.slow
def test_committed_sets_are_what_the_generator_makes(tmp_path):
    G.write_eval_sets(tmp_path, 0, "ours", "brute-force", lambda _: None)
    for name in SETS:
        assert (tmp_path / f"{name}.jsonl").read_text() .replace("(brute force)", "CP-SAT") == \
            open(f"problems/ppnl/{name}.jsonl").read(), name


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_stored_optima_agree_with_the_interpreter_and_planners(name):
    refs = problemsets.expand([f"problems/ppnl/{name}.jsonl"])
    rng = random.Random(name)
    unreachable = [r for r in refs if Task.load(r).problem.optimal["cost"] is None]
    for ref in rng.sample(refs, 12) + unreachable[:2]:
        task = Task.load(ref)
        optimal = task.problem.optimal
        result = solve(task, "tsp" if task.problem.routing else "bfs")
        if optimal["cost"] is None:
            assert optimal["solvable"] is False and result.status == "unsolvable-proven"
            assert task.problem.metadata["answer"] == "Goal not reachable"
            continue
        check = validate_plan(task, optimal["plan"])
        assert check.valid and check.cost == optimal["cost"] == result.cost, ref
        assert result.status == "solved-optimal"
        assert task.problem.metadata["answer"] == "".join(a + " " for a in optimal["plan"])


def test_verbalisation_follows_the_data_format():
    from groundplan.domains.ppnl import text

    assert text.description(6, [[2, 1]], [4, 2], [[2, 2]]) == \
        "You are in a 6 by 6 world. There are obstacles that you have to avoid at: (2,1). Go from (4,2) to (2,2)"
    # the released sample files: goal cells "(r, c)", the text ends with ". "
    assert text.description(6, [[2, 1]], [0, 3], [[0, 1], [4, 4]], [1], [0]) == (
        "You are in a 6 by 6 world. There are obstacles that you have to avoid at: (2,1). You are at (0,3). "
        "You have to visit p0 and p1. p0 is located at (0, 1) and p1 is located at (4, 4). Visit p1 before p0. ")
    # the in-context sets, as the paper's prompt prints two of its examples (Appendix, "Prompting
    # for a valid ordering"): goal cells "(r,c)", a final period
    assert text.description(6, [[5, 2], [2, 3], [5, 0]], [0, 2], [[3, 5], [5, 4], [2, 4], [3, 2], [4, 4]], [1, 3], [0, 2, 4],
                            style="in-context") == (
        "You are in a 6 by 6 world. There are obstacles that you have to avoid at: (5,2), (2,3) and (5,0). "
        "You are at (0,2). You have to visit p0, p1, p2, p3 and p4. p0 is located at (3,5), p1 is located at (5,4), "
        "p2 is located at (2,4), p3 is located at (3,2) and p4 is located at (4,4). Visit p1 and p3 before p0, p2 and p4.")
    assert text.description(6, [[2, 5], [0, 2], [4, 5]], [4, 2], [[0, 1], [2, 2], [1, 2], [5, 3], [5, 5]],
                            style="in-context") == (
        "You are in a 6 by 6 world. There are obstacles that you have to avoid at: (2,5), (0,2) and (4,5). "
        "You are at (4,2). You have to visit p0, p1, p2, p3 and p4. p0 is located at (0,1), p1 is located at (2,2), "
        "p2 is located at (1,2), p3 is located at (5,3) and p4 is located at (5,5).")
    assert text.listing(["p2", "p4", "p1"]) == "p2, p4 and p1"
