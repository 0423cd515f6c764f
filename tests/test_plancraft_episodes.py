"""Plancraft episodes through the shared step loop: an LLM (a scripted server on loopback) that
thinks, searches and declares, the paper's and the current step budgets, the tool sets, the
reference's messages as the next user turn, the random baseline and the metrics."""
from __future__ import annotations

import pytest
from llm_server import ScriptedServer

from groundplan.agents.loop import DECLARED, GOAL, STEP_CAP, STUCK, WRONG_DECLARATION, Limits, run_episode
from groundplan.agents.registry import make_agent
from groundplan.engine.task import Task

COAL = "problems/plancraft/test.small.jsonl#TEST0487"  # coal from coal_ore [I6]; [I3] is free
BUTTON = "problems/plancraft/test.small.jsonl#TEST0385"  # labelled impossible
SMELT = "smelt: from [I6] to [I3] with quantity 1"
SAME = "Format Error: [Source] and [Target] must be different. Correct format: `move: from [Source] to [Target] with quantity N`"


def _episode(ref, strategy, script, budget=None):
    with ScriptedServer(script, default="think: still thinking") as server:
        agent = make_agent("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test", strategy=strategy,
                           no_cache=True, backoff=0.01, temperature=0.0)
        episode = run_episode(Task.load(ref), agent, Limits(budget=budget))
        sent = [r["body"]["messages"] for r in server.requests]
    return episode, sent


def test_an_llm_that_thinks_searches_and_declares_an_impossible_task():
    episode, sent = _episode(BUTTON, "mstsei", ["think: a button needs planks", "search: jungle_button",
                                                "impossible: there are no jungle planks"])
    assert episode.outcome == DECLARED and episode.success
    assert episode.tool_calls == {"think": 1, "search": 1} and episode.steps == 0
    system = sent[0][0]["content"]
    assert sent[0][0]["role"] == "system" and "impossible: <reason>" in system and "search: <item name>" in system
    assert any(m["content"].startswith("Recipes to craft andesite:") for m in sent[0])  # the few-shot search turn
    assert sent[1][-2] == {"role": "assistant", "content": "think: a button needs planks"}
    assert sent[1][-1] == {"role": "user", "content": "Ok"}
    assert sent[2][-1]["content"].startswith("Recipes to craft jungle_button:\nrecipe 1:\n")


def test_an_llm_crafts_the_target_and_is_told_the_reference_error_messages():
    episode, sent = _episode(COAL, "mstsei", ["move: from [I6] to [I6] with quantity 1", "think: smelt it", SMELT])
    assert episode.outcome == GOAL and episode.steps == 1 and episode.invalid_actions == 1
    assert sent[1][-1] == {"role": "user", "content": SAME}
    assert sent[0][-1]["content"].startswith("Craft an item of type: coal\ninventory:\n - music_disc_strad [I1] quantity 1")


def test_declaring_a_solvable_task_impossible_fails():
    episode, _ = _episode(COAL, "mstsei", ["impossible: no idea"])
    assert episode.outcome == WRONG_DECLARATION and not episode.success


def test_a_tool_outside_the_strategy_is_refused_with_the_reference_message():
    episode, sent = _episode(COAL, "ms", ["think: hmm", SMELT])
    assert sent[1][-1]["content"] == "Only select actions from the following: move, smelt"
    assert "think" not in sent[0][0]["content"].split("Format:")[1]
    assert episode.outcome == GOAL


def test_the_paper_budget_passes_a_step_after_three_tool_turns_and_stops_a_stuck_agent():
    moves = ["move: from [I2] to [I3] with quantity 1", "move: from [I3] to [I2] with quantity 1"] * 6
    episode, _ = _episode(COAL, "mstsei", ["think: a", "think: b", "think: c"] + moves)
    assert episode.outcome == STUCK
    assert episode.steps == 1 + 9  # the step that passed after three thoughts, then nine moves: ten steps without a craft


def test_the_current_budget_counts_every_turn():
    episode, _ = _episode(COAL, "mstsei", [], budget="current")
    assert episode.outcome == STEP_CAP and episode.steps == 30 and episode.tool_calls == {"think": 30}


def test_an_unknown_budget_is_a_clear_error():
    from groundplan.engine.errors import GroundplanError

    with pytest.raises(GroundplanError, match="no budget 'papr' .*paper"):
        run_episode(Task.load(COAL), make_agent("random"), Limits(budget="papr"))


def test_the_random_baseline_answers_in_the_reference_grammar_without_listing_actions():
    task = Task.load(COAL)
    episode = run_episode(task, make_agent("random"), seed=3)
    assert episode.outcome in (STUCK, GOAL, STEP_CAP)
    assert all(e["answer"].split(":")[0] in ("move", "smelt") for e in episode.trajectory)
    assert not isinstance(task.universe()._actions, list)  # it never needed the 256,000 ground actions


def test_metrics_follow_the_analysis_code():
    from groundplan.domains.plancraft.metrics import impossible_f1, summary_metrics

    assert impossible_f1([(True, True), (True, False), (False, True), (False, False)]) == 0.5
    assert impossible_f1([(False, False)]) == 0.0
    rows = [{"success": True, "plancraft": {"bin": 0, "impossible": False, "turns": 5, "think": 1, "search": 0,
                                            "declared_impossible": False, "reference_actions": 3}},
            {"success": False, "plancraft": {"bin": 3, "impossible": False, "turns": 9, "think": 0, "search": 2,
                                             "declared_impossible": True, "reference_actions": 7}},
            {"success": True, "plancraft": {"bin": 5, "impossible": True, "turns": 1, "think": 0, "search": 0,
                                            "declared_impossible": True, "reference_actions": None}}]
    out = summary_metrics(rows)
    assert out["plancraft_easy"] == 1.0 and out["plancraft_hard"] == 0.0 and out["plancraft_overall"] == 0.5
    assert out["plancraft_plan_length"] == 7 and out["plancraft_action_efficiency"] == 2
    assert out["plancraft_impossible"] == 0.5 and out["plancraft_impossible_f1"] == pytest.approx(2 / 3)


def test_the_oracle_follows_its_stored_optimum_and_a_state_keeps_one_hash():
    """Actions built one by one must not lengthen the state's value tuple: the oracle agent finds
    its route by state, and a mismatch would send it to the generic planners."""
    from groundplan.engine.validate import validate_plan

    task = Task.load("problems/plancraft/test.small.jsonl#2")
    plan = task.problem.optimal["plan"]
    states = validate_plan(task, plan).states
    assert len({len(s.values) for s in states}) == 1
    episode = run_episode(Task.load("problems/plancraft/test.small.jsonl#2"), make_agent("oracle"))
    assert episode.outcome == GOAL and episode.steps == len(plan) == task.problem.optimal["cost"]
