"""Plancraft's step rules: whole episodes through our step loop against plancraft 0.4.9's own loop.

tests/test_plancraft_conformance.py compares the interpreter and the reply reader one step at a
time; here `agents.loop.run_episode` (the loop every agent acts through, with the world's rules
from prompts.yaml) plays seeded reply sequences against plancraft's `Evaluator.eval_example` fed
the same replies: moves and crafts, actions the environment ignores, thoughts, searches, garbled
replies and `impossible:` with and without a reason, under the paper's tool sets. Every turn's
message, the turns and steps counted, success and how the episode ended must agree.
The reference-free tests below pin the same rules without plancraft, in both budgets.
"""
import collections
import importlib.util
import random

import pytest

from groundplan.agents.loop import DECLARED, GOAL, STEP_CAP, STUCK, WRONG_DECLARATION, Limits, run_episode
from groundplan.domains.plancraft.conformance import ScriptedAgent
from groundplan.domains.plancraft.text import observation
from groundplan.engine import Task

needs_plancraft = pytest.mark.skipif(importlib.util.find_spec("plancraft") is None,
                                     reason="the reference, plancraft==0.4.9, is not installed (pip install plancraft==0.4.9)")
VAL = "problems/plancraft/val.jsonl"
EPISODES = 100
COAL = "problems/plancraft/test.small.jsonl#TEST0487"  # coal from coal_ore [I6]; [I3] is free
BUTTON = "problems/plancraft/test.small.jsonl#TEST0385"  # labelled impossible
EMPTY_MOVE = "move: from [A1] to [I3] with quantity 1"  # [A1] is empty: plancraft ignores it
SMELT = "smelt: from [I6] to [I3] with quantity 1"


@pytest.mark.slow
@needs_plancraft
def test_every_turn_agrees_with_plancrafts_evaluator():
    from groundplan.engine.problemsets import names

    from groundplan.domains.plancraft.conformance import loop_agreement

    ok, failures, replays = loop_agreement([f"{VAL}#{name}" for name in names(VAL)], range(EPISODES), stop_rate=0.03)
    endings = collections.Counter(r.ours for r in replays)
    texts = [t.split("\n")[0] for r in replays for t in r.texts]
    print(f"\nplancraft loop conformance: {ok}/{EPISODES} episodes agree on every turn; {sum(r.turns for r in replays)} turns, "
          f"{sum(r.ignored for r in replays)} ignored actions, {sum(r.crafted for r in replays)} crafts, "
          f"{sum(r.smelted for r in replays)} smelts, endings {dict(endings)}")
    assert not failures, "\n".join(f"seed {seed}: {r.difference}\n  texts: {r.texts}" for seed, r in failures[:3])
    # what the sample holds: every kind of reply, and every way an episode ends
    assert sum(r.ignored for r in replays) >= 8 * EPISODES
    assert min(endings[k] for k in ("success", "stop", "turns used")) >= 5
    ended = collections.Counter(r.texts[-1].split("\n")[0] for r in replays if r.ours == "stop")
    assert ended["impossible: "] >= 2 and sum(ended.values()) - ended["impossible: "] >= 2
    assert sum(t.startswith("think:") for t in texts) >= 100 and sum(t.startswith("search:") for t in texts) >= 50
    assert sum(t.startswith("Format") or not t.startswith(("move:", "smelt:", "think:", "search:")) for t in texts) >= 100


# ---------------------------------------------------------------- without the reference
@pytest.mark.parametrize("budget", ["paper", "current"])
def test_an_ignored_action_uses_a_step_and_shows_the_unchanged_inventory(budget):
    task = Task.load(COAL)
    agent = ScriptedAgent([EMPTY_MOVE, SMELT])
    episode = run_episode(task, agent, Limits(budget=budget))
    assert episode.outcome == GOAL and episode.steps == 2 and episode.reprompts == 0
    assert agent.shown[1] == agent.shown[0] == observation(task, task.initial_state())
    assert episode.trajectory[0]["valid"] is False and episode.trajectory[0]["state"] == episode.trajectory[0]["next_state"]


@pytest.mark.parametrize("noop", [EMPTY_MOVE, "move: from [0] to [I3] with quantity 1",
                                  "smelt: from [I1] to [I3] with quantity 1", "smelt: from [0] to [I3] with quantity 1"])
def test_ignored_actions_run_out_the_current_budget(noop):
    """Thirty ignored actions: thirty turns, the cap, never an invalid-output ending."""
    episode = run_episode(Task.load(COAL), ScriptedAgent([noop] * 40), Limits(budget="current"))
    assert episode.outcome == STEP_CAP and episode.steps == 30 and len(episode.trajectory) == 30


def test_ignored_actions_count_towards_the_papers_stuck_rule():
    episode = run_episode(Task.load(COAL), ScriptedAgent([EMPTY_MOVE] * 40), Limits(budget="paper"))
    assert episode.outcome == STUCK and episode.steps == 10 and len(episode.trajectory) == 10


@pytest.mark.parametrize("reply", ["impossible: ", "impossible: \nthink: more", "impossible: no coal here"])
@pytest.mark.parametrize("ref, outcome", [(BUTTON, DECLARED), (COAL, WRONG_DECLARATION)])
def test_impossible_ends_the_episode_with_or_without_a_reason(reply, ref, outcome):
    episode = run_episode(Task.load(ref), ScriptedAgent([reply]), Limits())
    assert episode.outcome == outcome and episode.declaration == "impossible" and len(episode.trajectory) == 1


def test_impossible_without_its_space_is_the_references_format_error():
    task = Task.load(BUTTON)
    agent = ScriptedAgent(["impossible:", "impossible: x"])
    episode = run_episode(task, agent, Limits())
    assert agent.shown[1] == "Format Error: 'NoneType' object has no attribute 'group'. Correct format: `impossible: <reason>`"
    assert episode.outcome == DECLARED and episode.tool_calls == {"invalid": 1}


def test_the_sample_is_seeded():
    from groundplan.domains.plancraft.conformance import LoopReplies

    task = Task.load(COAL)
    a, b = LoopReplies(task, random.Random(4)), LoopReplies(task, random.Random(4))
    state = task.initial_state()
    assert [a.next(state) for _ in range(50)] == [b.next(state) for _ in range(50)]
