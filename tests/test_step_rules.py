"""Each world's step rules, as its reference runs them: what an invalid answer costs, how many
re-prompts, when the episode ends, how a reply is read. The rules are data (the `loop:` section of
domains/<world>/prompts.yaml); these tests pin the ones that once differed from the reference
(see each world's README, "What a step costs and how replies are read"). Plancraft's are in
tests/test_plancraft_loop.py."""
from __future__ import annotations

import pytest
from llm_server import ScriptedServer

from groundplan.agents.base import Agent, Reply
from groundplan.agents.loop import FINISHED, INVALID_OUTPUT, Limits, run_episode
from groundplan.agents.registry import make_agent
from groundplan.engine.task import Task

KITCHEN = "problems/sync/01_cheese_sandwich_s126.json"


class Script(Agent):
    """Answers with the given texts in order (then the last one again)."""

    name, mode = "script", "closed"

    def __init__(self, texts):
        self.texts, self.asked = list(texts), 0

    def act(self, observation):
        self.asked += 1
        return Reply(self.texts[min(self.asked, len(self.texts)) - 1])


def _llm(server, strategy):
    return make_agent("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test", strategy=strategy,
                      no_cache=True, backoff=0.01, temperature=0.0)


# ---------------------------------------------------------------- Robotouille (kitchen)
def test_robotouille_asks_five_times_per_step_and_stops_after_three_such_steps():
    """ReActAgent.propose_actions asks while feedback_steps < 5 (five answers, the first and four
    re-prompts); the third step whose five answers were all invalid ends the episode."""
    agent = Script(["Jump on the table"])
    episode = run_episode(Task.load(KITCHEN), agent)
    assert episode.outcome == INVALID_OUTPUT and episode.steps == 0
    assert agent.asked == 15 and episode.exhausted_steps == 3


@pytest.mark.parametrize("answer", ["done", "finish", "Finish.", "impossible", "Goal not reachable"])
def test_robotouille_reads_only_the_exact_finish(answer):
    """'Finish' is the only answer besides the valid actions; anything else, 'done' or 'finish'
    included, is an invalid action and is re-prompted."""
    agent = Script([answer, "Finish"])
    episode = run_episode(Task.load(KITCHEN), agent)
    assert agent.asked == 2 and episode.outcome == FINISHED and episode.reprompts == 1 and episode.declaration == "finish"


def test_robotouille_ends_an_io_run_whose_answer_holds_no_plan():
    """IOAgent: 'IO misformatted output - terminate', without asking again."""
    with ScriptedServer(["Plan:"], default="Plan:\nDo nothing") as server:
        episode = run_episode(Task.load(KITCHEN), _llm(server, "io"))
        asked = len(server.requests)
    assert episode.outcome == INVALID_OUTPUT and asked == 1

