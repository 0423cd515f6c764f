"""The LLM agent over a real HTTP path: litellm talks to a scripted OpenAI-compatible server on
loopback. No test needs a key or the network."""
import json
import math

import pytest

from groundplan.agents import make_agent, run_episode
from groundplan.agents.loop import GOAL, INVALID_OUTPUT, PLAN_INVALID
from groundplan.engine.task import Task
from llm_server import ScriptedServer

TASK = "problems/sync/02_lettuce_sandwich_s42.json"
FAKE_KEY = "sk-test-0123456789abcdef"


@pytest.fixture(scope="module")
def task():
    return Task.load(TASK)


@pytest.fixture(scope="module")
def plan(task):
    return task.problem.optimal["plan"]


def _agent(server, tmp_path=None, **options):
    options.setdefault("strategy", "react")
    options.setdefault("backoff", 0.01)
    if tmp_path is None:
        options["no_cache"] = True
    else:
        options["cache_dir"] = str(tmp_path / "cache")
    return make_agent("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key=FAKE_KEY, **options)


def test_a_react_episode_reaches_the_goal_and_accounts_tokens_and_dollars(task, plan):
    import litellm

    script = [{"text": f"Reasoning: the plan goes on.\nAction: {a}", "usage": (100 + i, 7)} for i, a in enumerate(plan)]
    with ScriptedServer(script) as server:
        episode = run_episode(task, _agent(server))
        requests = server.requests
    assert episode.success and episode.outcome == GOAL
    assert episode.steps == len(plan) == len(requests)
    assert episode.prompt_tokens == sum(100 + i for i in range(len(plan)))
    assert episode.completion_tokens == 7 * len(plan)
    price = litellm.model_cost["gpt-4o-mini"]
    expected = episode.prompt_tokens * price["input_cost_per_token"] + episode.completion_tokens * price["output_cost_per_token"]
    assert math.isclose(episode.cost_usd, expected, rel_tol=1e-6)
    # what was sent: system prompt, instructions with the worked example, then the observation
    first = requests[0]["body"]["messages"]
    assert first[0]["role"] == "system" and "Recipes" in first[1]["content"] and "example" in first[1]["content"]
    assert "Valid Actions:" in first[-1]["content"]
    # ReAct keeps only the previous step as history
    assert f"Previous Action: {plan[0]}" in requests[1]["body"]["messages"][-1]["content"]
    assert f"Previous Action: {plan[0]}" not in requests[2]["body"]["messages"][-1]["content"]


def test_an_io_plan_that_fails_on_its_third_line(task, plan):
    bad = list(plan[:2]) + ["Juggle the lettuce"] + list(plan[3:])
    with ScriptedServer(["Plan:\n" + "\n".join(f"{i}. {a}" for i, a in enumerate(bad, 1))]) as server:
        episode = run_episode(task, _agent(server, strategy="io"))
    assert not episode.success and episode.outcome == PLAN_INVALID
    assert episode.steps == 2 and episode.invalid_actions == 1
    assert episode.trajectory[-1]["answer"] == "Juggle the lettuce"
    assert "not one of the valid actions" in episode.trajectory[-1]["feedback"]


def test_malformed_replies_get_feedback_and_a_reprompt_without_using_a_step(task, plan):
    script = ["I think I should make a sandwich.",  # no Action line
              "Reasoning: hm\nAction: move robot1 to table2",  # not an exact action of the list
              f"Reasoning: ok\nAction: {plan[0]}"] + [f"Action: {a}" for a in plan[1:]]
    with ScriptedServer(script) as server:
        episode = run_episode(task, _agent(server))
        second, third = server.requests[1]["body"]["messages"][-1]["content"], server.requests[2]["body"]["messages"][-1]["content"]
    assert episode.success and episode.steps == len(plan)
    assert episode.invalid_actions == 2 and episode.reprompts == 2
    assert "Error Feedback:" in second and "no 'Action:' line" in second
    assert "The action 'move robot1 to table2' is not valid" in third
    assert [e["valid"] for e in episode.trajectory[:3]] == [False, False, True]


def test_three_exhausted_steps_end_the_episode(task):
    with ScriptedServer(default="Action: dance") as server:
        episode = run_episode(task, _agent(server))
        count = len(server.requests)
    assert episode.outcome == INVALID_OUTPUT and episode.steps == 0
    assert count == 3 * 5  # Robotouille's 5 answers per step (1 + 4 re-prompts), three times
    assert episode.exhausted_steps == 3


def test_a_timeout_is_retried(task, plan):
    script = [{"sleep": 1.5, "text": "Action: too late"}] + [f"Action: {a}" for a in plan]
    with ScriptedServer(script) as server:
        episode = run_episode(task, _agent(server, timeout=0.5, max_retries=2))
    assert episode.success
    assert episode.requests == len(plan) + 1  # the timed-out request counts


def test_a_rate_limit_then_success(task, plan):
    script = [{"status": 429}, {"status": 503}] + [f"Action: {a}" for a in plan]
    with ScriptedServer(script) as server:
        episode = run_episode(task, _agent(server, max_retries=3))
        assert len(server.requests) == len(plan) + 2
    assert episode.success and episode.requests == len(plan) + 2


def test_a_provider_that_keeps_failing_ends_the_episode_with_a_clean_error(task):
    with ScriptedServer(default=None) as server:  # every request answers 500
        episode = run_episode(task, _agent(server, max_retries=1))
    assert episode.outcome == "agent-error" and not episode.success
    assert FAKE_KEY not in json.dumps(episode.to_json())


def test_a_rerun_is_served_from_the_cache(task, plan, tmp_path):
    script = [f"Reasoning: r{i}\nAction: {a}" for i, a in enumerate(plan)]
    with ScriptedServer(script) as server:
        first = run_episode(task, _agent(server, tmp_path, temperature=0.0))
        assert len(server.requests) == len(plan)
    with ScriptedServer([]) as server:  # answers nothing: any request would fail the episode
        again = run_episode(task, _agent(server, tmp_path, temperature=0.0))
        assert server.requests == []
    assert again.success and again.requests == 0
    # nothing was spent by the rerun: what its replies cost when first asked is counted apart
    assert (again.prompt_tokens, again.completion_tokens, again.cost_usd) == (0, 0, 0.0)
    assert (again.cached_tokens, again.cached_cost_usd) == (first.tokens, first.cost_usd) and first.cached_tokens == 0
    assert all(step["cached"] for step in again.trajectory)


def test_the_key_never_reaches_the_trajectory(task, plan):
    script = [f"Action: {a}" for a in plan]
    with ScriptedServer(script) as server:
        episode = run_episode(task, _agent(server))
        sent = server.requests[0]["headers"]
    headers = {k.lower(): v for k, v in sent.items()}  # HTTP header names are case-insensitive
    assert FAKE_KEY in headers.get("authorization", "")  # it was used ...
    assert FAKE_KEY not in json.dumps(episode.to_json())  # ... and recorded nowhere
