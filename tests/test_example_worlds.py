"""The example worlds shipped for new authors (issue 19): Sokoban and logistics.

They are what the next author copies, so their problems must be exactly what their generators
make, their stored optima must be right (replayed, re-proven by a second method, reached by the
oracle agent), and the Sokoban goal written through the derived `on-goal` must mean the same as
the goal spelt out.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.agents import make_agent, run_episode
from groundplan.agents.loop import GOAL
from groundplan.engine import Task
from groundplan.cli import main
from groundplan.engine.loader import load_domain
from groundplan.engine.testing import check_task
from groundplan.engine.validate import check_references, validate_plan
from groundplan.planners import solve

ROOT = Path(__file__).resolve().parent.parent
SOKOBAN = sorted((ROOT / "problems" / "sokoban").glob("*.json"))
LOGISTICS = sorted((ROOT / "problems" / "logistics").glob("*.json"))
# the problems added with the worlds as examples; the two-boxes-6x6 pair (issue 19's own) stores no optimum
STORED = [p for p in SOKOBAN if not p.stem.startswith("two-boxes-6x6")] + LOGISTICS
TWINS = ROOT / "problems" / "sokoban" / "two-boxes-6x6.json", ROOT / "problems" / "sokoban" / "two-boxes-6x6-inline.json"


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_examples_are_there():
    assert len(STORED) >= 6 and len(LOGISTICS) >= 3
    for world in ("sokoban", "logistics"):
        assert (ROOT / "domains" / world / "README.md").is_file()
        assert load_domain(ROOT / "domains" / world / "domain.json").warnings == []


@pytest.mark.parametrize("path", SOKOBAN + LOGISTICS, ids=rel)
def test_each_problem_validates(path):
    code, out = run("validate", path)
    assert code == 0 and out.strip().endswith("valid problem"), out
    assert "warning" not in out


@pytest.mark.parametrize("path", STORED, ids=rel)
def test_the_stored_optimum_replays_with_its_cost(path):
    task = Task.load(path)
    entry = task.problem.optimal
    assert entry["cost"] is not None and entry["plan"], "a proven optimum with its plan"
    assert check_references(task) == []
    result = validate_plan(task, entry["plan"])
    assert result.valid and result.cost == entry["cost"] == len(entry["plan"])


@pytest.mark.slow
@pytest.mark.parametrize("path", STORED, ids=rel)
def test_a_second_method_proves_the_same_optimum(path):
    """Breadth-first search for Sokoban (no heuristic to trust), A* with LM-cut for logistics."""
    task = Task.load(path)
    planner, heuristic = ("bfs", None) if path.parent.name == "sokoban" else ("astar", "lmcut")
    result = solve(task, planner=planner, heuristic=heuristic, time_limit=60)
    assert result.status == "solved-optimal"
    assert result.to_json()["cost"] == task.problem.optimal["cost"]


@pytest.mark.parametrize("path", STORED, ids=rel)
def test_the_oracle_agent_solves_it_at_the_optimum(path):
    task = Task.load(path)
    episode = run_episode(task, make_agent("oracle"))
    assert episode.success and episode.outcome == GOAL
    assert episode.cost == episode.reference_cost == task.problem.optimal["cost"]
    assert episode.invalid_actions == 0


def test_the_derived_and_the_inline_sokoban_goal_have_the_same_optimum():
    derived, inline = (Task.load(p) for p in TWINS)
    assert derived.problem.goal != inline.problem.goal  # one names on-goal, the other spells it out
    costs = set()
    for task in (derived, inline):
        for planner in ("bfs", "auto"):
            result = solve(task, planner=planner, time_limit=60)
            assert result.status == "solved-optimal", (task.problem.name, planner, result.reason)
            costs.add(result.to_json()["cost"])
    assert costs == {14}
    # and the goals agree on every state of the optimal plan, not only on its cost
    plan = solve(derived, planner="bfs", time_limit=60).plan
    for state in validate_plan(derived, plan).states:
        assert derived.is_goal(state) == inline.is_goal(state)


@pytest.mark.parametrize("path", SOKOBAN, ids=rel)
def test_each_sokoban_problem_is_its_map_regenerated(path):
    from groundplan.domains.sokoban.generate import problem

    data = json.loads(path.read_text())
    again = problem(data["metadata"]["map"], data["name"], inline_goal=path.stem.endswith("-inline"))
    for key in ("objects", "init", "goal", "domain", "description", "goal_text"):
        assert again[key] == data[key], key


@pytest.mark.parametrize("path", LOGISTICS, ids=rel)
def test_each_logistics_problem_is_its_options_regenerated(path):
    from groundplan.domains.logistics.generate import generate

    data = json.loads(path.read_text())
    options = data["metadata"]["options"]
    again = generate(options["cities"], options["packages"], options["seed"], options["locations"],
                     options["trucks"], options["airplanes"], data["name"])
    for key in ("objects", "init", "goal", "domain", "description", "goal_text"):
        assert again[key] == data[key], key


def test_groundplan_generate_runs_both_generators(tmp_path):
    level = tmp_path / "level.txt"
    level.write_text("#####\n#@$.#\n#####\n")
    out = tmp_path / "sokoban.json"
    code, text = run("generate", "sokoban", level, "tiny", "--out", out)
    assert code == 0, text
    code, text = run("plan", out)
    assert code == 0 and "cost: 1" in text
    code, text = run("generate", "logistics", "--cities", 2, "--packages", 1, "--seed", 5, "--out", tmp_path / "l.json")
    assert code == 0, text
    code, text = run("validate", tmp_path / "l.json")
    assert code == 0, text


def test_generators_refuse_impossible_input(tmp_path):
    from groundplan.domains.logistics.generate import generate
    from groundplan.domains.sokoban.generate import problem

    with pytest.raises(ValueError, match="exactly one player"):
        problem(["#@$.@#"], "two-players")
    with pytest.raises(ValueError, match="walled off"):
        problem(["#@ .#$#"], "unreachable-box")
    with pytest.raises(ValueError, match="unknown map character"):
        problem(["#@$.x#"], "typo")
    with pytest.raises(ValueError, match="every city needs a truck"):
        generate(3, 2, trucks=2)
    with pytest.raises(ValueError, match="airplane"):
        generate(2, 2, airplanes=0)


def test_the_outside_of_a_walled_level_is_no_cell():
    """A level pasted from a collection has blanks outside its walls: they are not floor."""
    from groundplan.domains.sokoban.generate import problem

    data = problem(["  ####", "###@ #", "#  $.#", "######"], "walled")
    assert "c0_0" not in data["objects"] and "c1_3" in data["objects"]
    assert sum(1 for t in data["objects"].values() if t == "cell") == 6  # c1_3 c1_4 c2_1 .. c2_4


def test_a_truck_that_can_leave_its_city_breaks_the_looking_back_invariant(tmp_path):
    """The invariant `truck-stays-in-its-city` (with `initially`) is what catches a drive whose
    destination is not checked to be in the truck's city."""
    domain = json.loads((ROOT / "domains" / "logistics" / "domain.json").read_text())
    domain["actions"]["drive-truck"]["precondition"]["and"].remove(["in-city", "?to", "?c"])
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    problem = json.loads(LOGISTICS[0].read_text())
    problem["domain"] = "domain.json"
    (tmp_path / "p.json").write_text(json.dumps(problem))
    report = check_task(Task.load(tmp_path / "p.json"), examples=200)
    assert not report.ok and len(report.walk.actions) == 1
    assert report.walk.actions[0].schema.name == "drive-truck"
    assert any("truck-stays-in-its-city" in v for v in report.violations)
