"""The LLM agent on PPNL with the paper's own prompts (domains/ppnl/prompts/shots/), over a real
HTTP path: litellm talks to a scripted OpenAI-compatible server on loopback (no key, no network).

Worked by hand: in 5x5-k1-e001-s20 (obstacle (0,1)) the agent starts at (0,3) and must reach
(4,0); going left first is blocked after one move, at (0,2), by the obstacle at (0,1)."""
import json

import pytest
from llm_server import ScriptedServer

from groundplan.agents import make_agent, run_episode
from groundplan.agents.llm import shots
from groundplan.agents.loop import DECLARED, GOAL, INVALID_OUTPUT, PLAN_EXHAUSTED, PLAN_INVALID
from groundplan.agents.profile import profile_for
from groundplan.domains.ppnl import prompts as ppnl_prompts
from groundplan.domains.ppnl.metrics import episode_metrics
from groundplan.engine.errors import GroundplanError
from groundplan.engine.problemsets import read_problem
from groundplan.engine.task import Task

SINGLE = "problems/ppnl/single_5x5.jsonl#5x5-k1-e001-s20"
WALLED = "problems/ppnl/single_5x5.jsonl#5x5-k5-e020-s28"
MULTI = "problems/ppnl/multi_unseen_env.jsonl#6x6-k2-e182-g2-m4"
BLOCKED = "Obs 1: After 1 step(s), you are at (0,2). 'left' cannot be done now: it is true that there is an obstacle at (0,1)."


def _agent(server, strategy, **options):
    return make_agent("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test", strategy=strategy,
                      no_cache=True, backoff=0.01, temperature=0.0, **options)


def _episode(ref, strategy, script, default=None):
    with ScriptedServer(script, default=default) as server:
        episode = run_episode(Task.load(ref), _agent(server, strategy))
        sent = [r["body"]["messages"] for r in server.requests]
    return episode, sent


def _paper_scores(ref, episode) -> dict:
    return episode_metrics(Task.load(ref), episode)["ppnl"]


# one-shot strategies: (strategy, method and examples of domains/ppnl/prompts.py, a correct reply, wording it must show)
ONE_SHOT = [
    ("io", ("naive", 5), "down down down down left left left", "Answer: "),
    ("naive-10", ("naive", 10), "Answer: down down down down left left left", "Goal not reachable"),
    ("naive-15", ("naive", 15), "down, down, down, down, left, left, left.", "Goal not reachable"),
    ("action-effect", ("action_effect", 7),
     ("Move down: now at (1,3). Move down: now at (2,3). Move down: now at (3,3). Move down: now at (4,3). Move left: now at "
      "(4,2). Move left: now at (4,1). Move left: now at (4,0). So the actions are: down down down down left left left"), "now at"),
    ("cot", ("cot", 7), ("The goal (4,0) is 4 row(s) down and 3 column(s) to the left from (0,3). No obstacle lies between "
                         "them. So the actions are: down down down down left left left"), "column(s) to the left"),
]


@pytest.mark.slow
@pytest.mark.parametrize("strategy,method,reply,wording", ONE_SHOT)
def test_each_one_shot_strategy_sends_the_worlds_prompt_and_replays_the_plan(strategy, method, reply, wording):
    episode, sent = _episode(SINGLE, strategy, [reply])
    assert episode.success and episode.outcome == GOAL and episode.steps == 7
    assert len(sent) == 1 and [m["role"] for m in sent[0]] == ["user"]  # one block of text, no system message
    text = sent[0][0]["content"]
    data, _ = read_problem(SINGLE)
    assert text == ppnl_prompts.prompt(method[0], data, shots=method[1])  # exactly the world's prompt
    blocks = text.split("\n###\n")
    shown = 1 + (method[1] if method[0] == "naive" else 7) + 1
    assert len(blocks) == shown and blocks[0] == ppnl_prompts.wording("common")["header"]
    assert blocks[-1] == f"Task: {data['metadata']['nl']}\nAnswer:" and wording in text
    scores = _paper_scores(SINGLE, episode)
    assert scores["success"] and scores["optimal"] and scores["feasible"]


def test_a_chain_of_thought_that_declares_the_goal_unreachable():
    reply = "(1,2) is walled in by obstacles and the grid's edge, so it cannot be reached from (3,3). Goal not reachable."
    episode, _ = _episode(WALLED, "cot", [reply])
    assert episode.outcome == DECLARED and episode.success and episode.declaration == "unreachable"


def test_a_one_shot_plan_is_judged_where_it_ends_and_stops_at_a_blocked_move():
    passing = "So the actions are: down down down down left left left up"
    episode, _ = _episode(SINGLE, "cot", [passing])  # through the goal and out again: the paper's failure
    assert episode.outcome == PLAN_EXHAUSTED and not episode.success and episode.steps == 8
    episode, sent = _episode(SINGLE, "cot", ["So the actions are: left left left down down down down"])
    assert episode.outcome == PLAN_INVALID and episode.steps == 1 and len(sent) == 1  # one trial only
    assert "obstacle at (0,1)" in episode.trajectory[-1]["feedback"]
    assert not _paper_scores(SINGLE, episode)["feasible"]  # a one-shot plan with a blocked move is infeasible


def test_a_reply_without_a_plan_fails_without_a_reprompt():
    episode, sent = _episode(SINGLE, "cot", ["I would go down and then left."])
    assert episode.outcome == INVALID_OUTPUT and len(sent) == 1
    assert "no actions after 'So the actions are:'" in episode.trajectory[0]["feedback"]


def test_react_hits_an_obstacle_is_told_the_cell_and_succeeds_in_trial_two():
    script = [("Thought 1: The goal is 4 rows down and 3 columns to the left.\nAct 1: left left left down down down down\n"
               "Obs 1: (invented by the model, dropped)"),
              "Thought 2: The obstacle at (0,1) is in the way, so I go down first.\nAct 2: down down down down left left"]
    episode, sent = _episode(SINGLE, "react", script)
    assert episode.success and episode.outcome == GOAL
    assert episode.steps == 1 + 6 and episode.invalid_actions == 1  # the executed prefixes, concatenated
    first, second = sent[0][0]["content"], sent[1][0]["content"]
    assert first.endswith("Go from (0,3) to (4,0)\nAnswer:") and "Thought 2: " in first  # the examples show trial 2
    assert second.startswith(first)
    assert second[len(first):] == ("\nThought 1: The goal is 4 rows down and 3 columns to the left.\n"
                                   "Act 1: left left left down down down down\n" + BLOCKED)
    trials = [e.get("trial") for e in episode.trajectory]
    assert trials[0] == 1 and trials[-1] == 2 and episode.trajectory[2]["feedback"].endswith("obstacle at (0,1)")
    scores = _paper_scores(SINGLE, episode)  # the executed prefixes: left, then down x4, left x2 (7 = the optimum)
    assert scores["success"] and scores["feasible"] and scores["optimal"] and not scores["exact_match"]


def test_react_ends_after_three_trials():
    episode, sent = _episode(SINGLE, "react", [], default="Thought: left.\nAct 1: left left left")
    assert len(sent) == 3 and not episode.success and episode.outcome == PLAN_INVALID
    assert episode.steps == 1 and episode.invalid_actions == 3  # the agent stays at (0,2), refused every time
    assert sent[2][0]["content"].count("you are at (0,2). 'left' cannot be done now") == 2
    scores = _paper_scores(SINGLE, episode)  # ReAct never makes a refused move: feasible, 6 moves short
    assert scores["feasible"] and not scores["success"] and scores["distance"] == 6


def test_a_react_trial_that_runs_out_short_of_the_goal_is_reported_and_continued():
    script = ["Act 1: down down", "Act 2: down down left left left"]
    episode, sent = _episode(SINGLE, "react", script)
    assert episode.success and episode.steps == 7
    assert sent[1][0]["content"].endswith("Act 1: down down\nObs 1: After 2 step(s), you are at (2,3). The task is not solved yet.")


def test_multi_goal_problems_get_the_multi_goal_header_and_inspect():
    episode, sent = _episode(MULTI, "io", ["down down inspect up right right inspect"])
    assert episode.success and episode.steps == 7
    header = sent[0][0]["content"].split("\n###\n")[0]
    assert header == ppnl_prompts.wording("common")["multi_header"]


def test_the_shots_files_are_generated_from_the_wording():
    files = ppnl_prompts.shots_files()
    for name, content in files.items():
        assert (ppnl_prompts.SHOTS / name).read_text(encoding="utf-8") == content, \
            f"prompts/shots/{name} is stale: run python -m groundplan.domains.ppnl.prompts"
    profile = profile_for(Task.load(SINGLE))
    for name in ppnl_prompts.STRATEGIES:
        assert profile.prompts["strategies"][name]["shots"] == f"prompts/shots/{name}.json"
    react = ppnl_prompts.wording("react")
    assert profile.prompts["strategies"]["react"]["trials"] == react["max_trials"] == 3
    assert profile.template("plan_ended") == react["unsolved"]
    assert any(k.endswith("shots/react.json") for k in profile.hashes())  # a wording change shows in run manifests


def test_reading_answers():
    react = shots.load(str(ppnl_prompts.SHOTS / "react.json"))
    assert shots.read(react, "Thought 2: x\nAct 2: up, up.\nObs 2: y", 2) == (["up", "up"], None, "Thought 2: x\nAct 2: up, up.")
    assert shots.read(react, "Act 1: right", 2)[0] == ["right"]  # a misnumbered Act line still counts
    assert shots.read(react, "Act 1: Goal not reachable.", 1)[0] == ["Goal not reachable."]
    naive = shots.load(str(ppnl_prompts.SHOTS / "io.json"))
    assert shots.read(naive, "\nup left\n", 1)[0] == ["up", "left"]
    actions, problem, _ = shots.read(shots.load(str(ppnl_prompts.SHOTS / "cot.json")), "no idea", 1)
    assert actions == [] and "So the actions are:" in problem


def test_strategy_names_are_checked_against_the_world(tmp_path):
    with pytest.raises(GroundplanError, match="did you mean 'action-effect'"):
        make_agent("llm", model="openai/x", strategy="action-efect")
    with ScriptedServer([]) as server:
        episode = run_episode(Task.load("problems/sync/02_lettuce_sandwich_s42.json"), _agent(server, "action-effect"))
        assert server.requests == []
    assert episode.outcome == "agent-error" and "world 'kitchen' has no prompt strategy 'action-effect'" in episode.error


def test_a_broken_shots_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"header": "h", "separator": "#", "examples": [], "task": "t"}))
    with pytest.raises(GroundplanError, match="missing 'answer_after'"):
        shots.load(str(bad))
    bad.write_text("{")
    with pytest.raises(GroundplanError, match="not valid JSON"):
        shots.load(str(bad))
