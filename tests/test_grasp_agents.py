"""GRASP through plan-eval: the world's baselines as agents, and invalid answers under the loop's
`invalid_answer: step` policy (a no-op that uses a step and pays step_cost), each checked against
the reference scoring (domains/grasp/scoring.py) of the same plan."""
import json

import pytest
from click.testing import CliRunner

from groundplan.agents import make_agent, run_episode
from groundplan.agents.base import Agent, Reply
from groundplan.domains.grasp import baselines, scoring
from groundplan.domains.grasp import grid as G
from groundplan.domains.grasp.metrics import episode_metrics
from groundplan.engine import Task, problemsets
from groundplan.engine.errors import GroundplanError
from groundplan.evals.cli import run
from groundplan.evals.run import episode_seed

FILE = "problems/grasp/inner_random_free.jsonl"
BLOCK = "problems/grasp/outer_random_block.jsonl"
COMBOS = ("mu1-nolimit-cost0", "mu1-nolimit-cost0.3", "mu1-limit2-cost0", "mu1-limit2-cost0.3",
          "mu2-nolimit-cost0", "mu2-nolimit-cost0.3", "mu2-limit2-cost0", "mu2-limit2-cost0.3")


def _invoke(args):
    result = CliRunner().invoke(run, args, catch_exceptions=False)
    return result.exit_code, result.output


def _rows(folder):
    return [json.loads(line) for line in (folder / "episodes.jsonl").read_text().splitlines()]


def _reference(ref, plan):
    data, _ = problemsets.read_problem(ref)
    return scoring.metrics(G.from_problem(data), plan, G.rules(data), data["metadata"]["optimum_score"])


# ------------------------------------------------------------------ the baselines as agents

@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory):
    """Both baselines on two grids under all 8 rule combinations, one worker and two."""
    refs = [f"{FILE}#grid{g}-{combo}" for g in ("00", "33") for combo in COMBOS]
    folders = {}
    for workers in (1, 2):
        folder = tmp_path_factory.mktemp(f"baselines{workers}")
        code, out = _invoke(refs + ["--agent", "baseline:greedy", "--agent", "baseline:random-walk", "--out", str(folder),
                                    "--workers", str(workers), "--seed", "5", "--steps-to-go-time", "0", "--format", "json"])
        assert code == 0, out
        folders[workers] = (folder, json.loads(out))
    return refs, folders


def test_a_baseline_agent_plans_what_the_world_baseline_plans_for_the_episode_seed(baseline_run):
    refs, folders = baseline_run
    rows = _rows(folders[1][0])
    assert len(rows) == 2 * len(refs)
    for row in rows:
        name = row["agent_label"].partition(":")[2]
        assert row["seed"] == episode_seed(5, row["agent_label"], row["problem_ref"])
        data, _ = problemsets.read_problem(row["problem_ref"])
        plan = baselines.BASELINES[name](G.from_problem(data), G.rules(data), row["seed"])
        assert row["trajectory"][0]["detail"]["actions"] == plan
        assert row["grasp"] == _reference(row["problem_ref"], plan), row["id"]
        assert row["steps"] == row["grasp"]["length"] == len(plan)  # the loop ran the whole plan


def test_a_plan_runs_to_its_end_even_where_the_goal_holds_from_the_start(baseline_run):
    """Where the optimum is 0 the problem's goal (the optimum's units home) holds before the first
    action; GRASP's profile (stop_at_goal: false) still runs and scores the whole plan, as the paper."""
    rows = _rows(baseline_run[1][1][0])
    walks = [r for r in rows if r["problem_ref"].endswith("mu1-limit2-cost0.3") and r["agent_label"] == "baseline:random-walk"]
    assert walks and all(r["steps"] == 19 and r["grasp"]["score"] < 0 for r in walks)


def test_baseline_episodes_do_not_depend_on_the_number_of_workers(baseline_run):
    _, folders = baseline_run

    def key(folder):
        return sorted((r["id"], r["seed"], json.dumps(r["grasp"], sort_keys=True), [s["action"] for s in r["trajectory"]])
                      for r in _rows(folder))

    assert key(folders[1][0]) == key(folders[2][0])
    by_set = {e["agent"]: e for e in folders[1][1]["by_set"]}
    assert set(by_set) == {"baseline:greedy", "baseline:random-walk"}
    assert by_set["baseline:random-walk"]["grasp_length"] == 19


def test_an_unknown_baseline_is_a_clear_error_naming_the_worlds_baselines(tmp_path):
    code, out = _invoke([f"{FILE}#grid00-mu1-nolimit-cost0", "--agent", "baseline:greedie", "--out", str(tmp_path / "r")])
    assert code == 2 and "greedy, random-walk" in out and "did you mean 'greedy'" in out and "Traceback" not in out
    assert not (tmp_path / "r").exists()  # refused before anything was written
    code, out = _invoke(["problems/sync/01_cheese_sandwich_s42.json", "--agent", "baseline:greedy", "--out", str(tmp_path / "k")])
    assert code == 2 and "'kitchen' has no baselines" in out
    code, out = _invoke([f"{FILE}#grid00-mu1-nolimit-cost0", "--agent", "baseline:"])
    assert code == 2 and "baseline:greedy" in out
    code, out = _invoke([f"{FILE}#grid00-mu1-nolimit-cost0", "--agent", "greedy"])
    assert code == 2 and "baseline:NAME" in out
    with pytest.raises(GroundplanError, match="baseline:NAME"):
        make_agent("baseline")
    # from Python, the world is known only at reset: the episode ends as an agent error, clearly worded
    episode = run_episode(Task.load(f"{FILE}#grid00-mu1-nolimit-cost0"), make_agent("baseline:nope"), seed=1)
    assert episode.outcome == "agent-error" and "its baselines: greedy, random-walk" in episode.error


# ------------------------------------------------------------------ invalid answers

class FixedPlan(Agent):
    """Gives a fixed list of answers: all at once (open loop) or one per step (closed loop); with
    `plans`, one plan per trial of the open loop."""

    name = "fixed"

    def __init__(self, words, mode, plans=None):
        self.words, self.mode = list(words), mode
        self.plans = plans
        self.trials = len(plans) if plans else None

    def reset(self, task, seed=None):
        super().reset(task, seed)
        self.next = 0

    def plan(self, observation):
        words = self.plans[self.next] if self.plans else self.words
        self.next += 1
        return Reply("\n".join(words), detail={"actions": list(words)})

    def act(self, observation):
        self.next += 1
        return Reply(self.words[self.next - 1] if self.next <= len(self.words) else "finish")


def _collect(grid, rules, units):
    """Walk to the nearest energy and TAKE, `units` times (no DROP): the last TAKEs hit the limit."""
    energy, pos, plan = dict(grid.energy), grid.start, []
    for _ in range(units):
        dist = grid.distances(pos, rules["moves"])
        target = min((c for c in energy if energy[c] > 0 and c in dist), key=lambda c: (dist[c], c))
        plan += grid.path(pos, target, rules["moves"]) + ["TAKE"]
        energy[target] -= 1
        pos = target
    return plan


def _blocked(grid, rules):
    """Moves that cannot be done from the start: off the grid or into an obstacle."""
    r, c = grid.start
    return [d for d in G.move_names(rules["moves"]) if not grid.free(r + G.DIRECTIONS[d][0], c + G.DIRECTIONS[d][1])]


def _case(kind):
    """(problem reference, plan) for one kind of invalid action; none of the plans reaches the goal."""
    if kind == "nonsense words":
        return f"{FILE}#grid33-mu2-limit2-cost0.3", ["JUMP", "UP", "banana", "TAKE", "", "take a nap", "RIGHT", "TAKE"]
    if kind == "diagonals under 4-move rules":
        return f"{FILE}#grid33-mu1-nolimit-cost0.3", ["UPLEFT", "UP", "DOWNRIGHT", "TAKE", "UPRIGHT", "DOWNLEFT", "LEFT"]
    if kind == "TAKE at the carry limit":
        ref = f"{FILE}#grid33-mu2-limit2-cost0.3"
        data, _ = problemsets.read_problem(ref)
        return ref, _collect(G.from_problem(data), G.rules(data), 4)
    if kind == "TAKE on an empty cell, blocked moves":
        ref = f"{BLOCK}#grid00-mu1-nolimit-cost0.3"
        data, _ = problemsets.read_problem(ref)
        grid, rules = G.from_problem(data), G.rules(data)
        blocked = _blocked(grid, rules)
        assert blocked, "the outer start should be on the border"
        return ref, ["TAKE", *blocked, "TAKE", *_collect(grid, rules, 1), blocked[0]]
    raise AssertionError(kind)


KINDS = ("nonsense words", "diagonals under 4-move rules", "TAKE at the carry limit", "TAKE on an empty cell, blocked moves")


def _engine_outcome(task, state):
    """(cell, units carried, units on the start cell) of an engine state."""
    data = task.problem.raw
    start = G.from_problem(data).start
    at = [(r, c) for r in range(G.SIZE) for c in range(G.SIZE) if task.atom_holds(state, "at", (G.cell_name(r, c),))]
    return at[0], task.value(state, "carried", ()), task.value(state, "energy", (G.cell_name(*start),))


@pytest.mark.parametrize("mode", ["open", "closed"])
@pytest.mark.parametrize("kind", KINDS)
def test_an_invalid_action_is_a_no_op_that_uses_a_step_and_scores_as_the_reference(kind, mode):
    ref, plan = _case(kind)
    task = Task.load(ref)
    data = task.problem.raw
    grid, rules = G.from_problem(data), G.rules(data)
    expected = scoring.run(grid, plan, rules["moves"], rules["carry_limit"], rules["step_cost"])
    assert expected.invalid >= 2 and len(plan) < G.BUDGET
    episode = run_episode(task, FixedPlan(plan, mode), seed=0)
    assert episode.outcome != "goal-reached"
    assert episode.steps == len(plan)  # every answer used a step, valid or not
    assert episode.invalid_actions == expected.invalid
    assert _engine_outcome(task, episode.final_state) == (expected.final_cell, expected.carried, expected.delivered)
    scored = episode_metrics(task, episode)["grasp"]
    assert scored["score"] == expected.score and scored["length"] == len(plan) and scored["invalid"] == expected.invalid


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "nonsense words"])
def test_an_inapplicable_action_pays_the_step_cost_in_the_loops_own_cost(kind):
    ref, plan = _case(kind)
    task = Task.load(ref)
    for mode in ("open", "closed"):
        episode = run_episode(task, FixedPlan(plan, mode), seed=0)
        assert episode.cost == pytest.approx(0.3 * len(plan))


def test_an_unknown_word_pays_the_step_cost_in_the_loops_own_cost():
    ref, plan = _case("nonsense words")
    task = Task.load(ref)
    for mode in ("open", "closed"):
        assert run_episode(task, FixedPlan(plan, mode), seed=0).cost == pytest.approx(0.3 * len(plan))


@pytest.mark.parametrize("mode", ["open", "closed"])
def test_only_twenty_answers_count_and_a_declaration_is_not_an_action(mode):
    ref = f"{FILE}#grid33-mu1-nolimit-cost0.3"
    task = Task.load(ref)
    long_plan = ["LEFT", "RIGHT", "JUMP"] * 9
    episode = run_episode(task, FixedPlan(long_plan, mode), seed=0)
    assert episode.steps == 20 and episode.outcome == "step-cap"
    assert episode_metrics(task, episode)["grasp"]["score"] == _reference(ref, long_plan)["score"] == pytest.approx(-6.0)
    short = ["UP", "finish", "TAKE"]
    episode = run_episode(task, FixedPlan(short, mode), seed=0)
    assert episode.steps == 1
    assert episode_metrics(task, episode)["grasp"]["length"] == 1


def test_every_plan_of_a_several_trial_episode_is_scored():
    """An open-loop agent with trials gets a new plan after one ends short of the goal; the
    words of all of them count, the plans' own records do not."""
    ref = f"{FILE}#grid33-mu2-limit2-cost0.3"
    task = Task.load(ref)
    plans = [["UPRIGHT", "TAKE", "JUMP"], ["DOWN", "TAKE", "LEFT"], ["DROP", "UP"]]
    episode = run_episode(task, FixedPlan([], "open", plans=plans), seed=0)
    words = [w for plan in plans for w in plan]
    assert sum("tokens" in r for r in episode.trajectory) == 3 and episode.steps == len(words)  # on past the goal at DROP
    assert episode_metrics(task, episode)["grasp"] == _reference(ref, words)
    assert episode_metrics(task, episode)["grasp"]["delivered"] == 2
