"""The shared step loop with the agents that need no model: caps, policies, declarations,
trajectories, and the Gymnasium adapter."""
import json
import math

import pytest

from groundplan.agents import Limits, make_agent, run_episode
from groundplan.agents.loop import DECLARED, GOAL, PLAN_EXHAUSTED, PLAN_INVALID, STEP_CAP, WRONG_DECLARATION, state_hash
from groundplan.engine.errors import GroundplanError
from groundplan.engine.task import Task

SYNC = "problems/sync/02_lettuce_sandwich_s42.json"
ASYNC_BASE = "domains/kitchen/tasks/async/01_cheese_chicken_sandwich.json"


@pytest.fixture(scope="module")
def sync_task():
    return Task.load(SYNC)


def test_the_oracle_follows_the_stored_optimum(sync_task):
    episode = run_episode(sync_task, make_agent("oracle"))
    assert episode.success and episode.outcome == GOAL
    assert episode.steps == episode.reference_cost == sync_task.problem.optimal["cost"]
    assert episode.invalid_actions == 0 and episode.repeated_transitions == 0


def test_the_oracle_plans_when_nothing_is_stored(tmp_path):
    problem = json.load(open("problems/blocksworld/sussman.json"))
    problem.pop("optimal", None)
    path = tmp_path / "sussman.json"
    path.write_text(json.dumps(problem))
    episode = run_episode(Task.load(str(path)), make_agent("oracle"), Limits(max_steps=20))
    assert episode.success and episode.steps == 6  # the Sussman anomaly with four operators: 6 actions


def test_the_step_cap_is_one_and_a_half_times_the_optimum(sync_task):
    cost = sync_task.problem.optimal["cost"]
    episode = run_episode(sync_task, make_agent("random"), seed=3)
    assert episode.max_steps == math.ceil(1.5 * cost)
    assert run_episode(sync_task, make_agent("random"), Limits(max_steps=4), seed=3).max_steps == 4
    assert run_episode(sync_task, make_agent("random"), Limits(max_steps_factor=3), seed=3).max_steps == 3 * cost


def test_the_random_agent_is_seeded_and_only_takes_valid_actions(sync_task):
    a = run_episode(sync_task, make_agent("random"), seed=11)
    b = run_episode(sync_task, make_agent("random"), seed=11)
    c = run_episode(sync_task, make_agent("random"), seed=12)
    assert [s["action"] for s in a.trajectory] == [s["action"] for s in b.trajectory]
    assert [s["action"] for s in a.trajectory] != [s["action"] for s in c.trajectory]
    assert a.invalid_actions == 0 and all(s["valid"] for s in a.trajectory)
    assert a.outcome in (GOAL, STEP_CAP)


def test_the_trajectory_chains_state_hashes(sync_task):
    episode = run_episode(sync_task, make_agent("oracle"), record_observations=True)
    state = sync_task.initial_state()
    for step in episode.trajectory:
        assert step["state"] == state_hash(state) and "Valid Actions:" in step["observation"]
        state = sync_task.apply(state, sync_task.parse_action(step["action"], state))
    assert episode.final_state_hash == state_hash(state)
    json.dumps(episode.to_json())  # serialisable as is


def test_replay_runs_open_loop_and_stops_at_the_first_invalid_line(sync_task, tmp_path):
    plan = sync_task.problem.optimal["plan"]
    good = tmp_path / "good.plan"
    good.write_text("\n".join(plan) + "\n")
    assert run_episode(sync_task, make_agent("replay", plans=str(good))).success
    short = tmp_path / "short.plan"
    short.write_text("\n".join(plan[:-1]) + "\n")
    episode = run_episode(sync_task, make_agent("replay", plans=str(short)))
    assert episode.outcome == PLAN_EXHAUSTED and episode.steps == len(plan) - 1
    broken = tmp_path / "broken.plan"
    broken.write_text("\n".join([plan[0], plan[0]] + plan[1:]) + "\n")  # the same move twice: the second is invalid
    episode = run_episode(sync_task, make_agent("replay", plans=str(broken)))
    assert episode.outcome == PLAN_INVALID and episode.steps == 1 and episode.invalid_actions == 1


def test_declarations_are_scored_against_solvability(tmp_path):
    problem = json.load(open("problems/blocksworld/sussman.json"))
    problem["goal"] = {"and": [["on", "a", "b"], ["on", "b", "a"]]}
    problem["optimal"] = {"cost": None, "solvable": False, "method": "test"}
    path = tmp_path / "impossible.json"
    path.write_text(json.dumps(problem))
    task = Task.load(str(path))
    plan = tmp_path / "p.plan"
    plan.write_text("impossible\n")
    episode = run_episode(task, make_agent("replay", plans=str(plan)))
    assert episode.success and episode.outcome == DECLARED
    assert run_episode(task, make_agent("oracle")).success  # the oracle declares it too
    solvable = Task.load("problems/blocksworld/sussman.json")
    episode = run_episode(solvable, make_agent("replay", plans=str(plan)))
    assert not episode.success and episode.outcome == WRONG_DECLARATION


def _world(tmp_path, policy: str) -> Task:
    """A tiny world whose profile spends a step on an invalid answer (GRASP's and PPNL's rule)."""
    folder = tmp_path / "line"
    folder.mkdir()
    (folder / "domain.json").write_text(json.dumps({
        "groundplan": "1", "name": "line", "types": {"cell": "object"}, "on_inapplicable": policy,
        "predicates": {"at": {"parameters": [["?c", "cell"]], "text": "the agent is at {c}"},
                       "next": {"parameters": [["?a", "cell"], ["?b", "cell"]], "text": "{b} follows {a}"}},
        "actions": {"step": {"parameters": [["?a", "cell"], ["?b", "cell"]], "text": "step from {a} to {b}",
                             "precondition": {"and": [["at", "?a"], ["next", "?a", "?b"]]},
                             "effect": [{"add": ["at", "?b"]}, {"del": ["at", "?a"]}]}}}))
    (folder / "prompts.yaml").write_text("loop:\n  invalid_answer: step\n  open_plan_invalid: step\n")
    (folder / "p.json").write_text(json.dumps({
        "groundplan": "1", "name": "p", "domain": "domain.json", "objects": {"c1": "cell", "c2": "cell", "c3": "cell"},
        "init": [["at", "c1"], ["next", "c1", "c2"], ["next", "c2", "c3"]], "goal": ["at", "c3"],
        "optimal": {"cost": 2, "method": "by hand", "plan": ["step from c1 to c2", "step from c2 to c3"]}}))
    return Task.load(str(folder / "p.json"))


@pytest.mark.parametrize("policy", ["noop", "reject"])
def test_a_world_can_make_invalid_answers_spend_a_step(tmp_path, policy):
    task = _world(tmp_path, policy)
    plan = tmp_path / "p.plan"
    plan.write_text("step from c2 to c3\nfly\nstep from c1 to c2\nstep from c2 to c3\n")
    episode = run_episode(task, make_agent("replay", plans=str(plan)), Limits(max_steps=10))
    assert episode.success and episode.steps == 4 and episode.invalid_actions == 2
    assert "cannot be done now" in episode.trajectory[1]["feedback"]


def test_unknown_agents_and_options_are_clear_errors():
    with pytest.raises(GroundplanError, match="did you mean 'oracle'"):
        make_agent("oracel")
    with pytest.raises(GroundplanError, match="needs a plan file"):
        make_agent("replay")
    with pytest.raises(GroundplanError, match="unknown prompt strategy 'rect'"):
        make_agent("llm", model="openai/x", strategy="rect")


def test_turn_based_robots_alternate():
    import json

    from groundplan.engine.loader import build_problem

    path = "problems/multiagent/01_lettuce_burger_s42.json"
    data = json.load(open(path))
    data["agents"] = {"mode": "turns"}  # the kitchen's default is any robot at any step
    task = Task(build_problem(data, path, None))
    episode = run_episode(task, make_agent("random"), Limits(max_steps=6), seed=5)
    state, turns = task.initial_state(), []
    for step in episode.trajectory:
        action = task.parse_action(step["action"], state)
        turns.append(task.turn_indicator(state))
        assert action.actor in (turns[-1], None)  # the robot whose turn it is, or "Do nothing"
        state = task.apply(state, action)
    assert turns == ["robot1", "robot2"] * 3


def test_the_gymnasium_adapter_plays_a_problem(sync_task):
    import gymnasium

    import groundplan.agents.gym  # noqa: F401  (registers the environment)

    env = gymnasium.make("groundplan/Problem-v0", problem=SYNC)
    obs, info = env.reset(seed=0)
    assert "Valid Actions:" in obs and info["valid_actions"]
    rewards, terminated = [], False
    for action in sync_task.problem.optimal["plan"]:
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        assert info["valid"]
    assert terminated and rewards[-1] == 1.0 and sum(rewards) == 1.0
    env.reset()
    obs, reward, terminated, truncated, info = env.step("juggle")
    assert not info["valid"] and "not one of the valid actions" in info["feedback"] and reward == 0.0
