"""LLM-BabyBench's three tasks through plan-eval's loop: the oracle scores 100%, the random
baseline does not, an LLM answers through litellm (a scripted server on loopback), and answers
that cannot be read are failures with a reason, never a crash."""
import json
import random

import pytest

from groundplan.agents import make_agent, run_episode
from groundplan.agents.loop import ANSWER_RIGHT, ANSWER_WRONG, INVALID_OUTPUT
from groundplan.engine import Task, problemsets
from llm_server import ScriptedServer

SETS = "problems/babyai/{}.jsonl.gz"
FAKE_KEY = "sk-test-0123456789abcdef"


def rows(kind: str, every: int):
    path = SETS.format(kind)
    return [f"{path}#{name}" for name in problemsets.names(path)[::every]]


@pytest.fixture(scope="module")
def samples():
    # one or two rows of every environment of every set (the sets are grouped by environment)
    return {kind: rows(kind, 250) for kind in ("predict", "plan", "decompose")}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["predict", "plan", "decompose"])
def test_the_oracle_answers_every_sampled_row_right(samples, kind):
    for ref in samples[kind]:
        episode = run_episode(Task.load(ref), make_agent("oracle"), seed=0)
        assert episode.success and episode.outcome == ANSWER_RIGHT, (ref, episode.trajectory[-1])
        score = episode.trajectory[-1]["score"]
        if kind == "plan":
            assert score["efficiency"] >= 1.0  # the exact oracle is never longer than the expert
        if kind == "decompose":  # a locked door on the way makes the bot add its own unlock steps
            assert score["helps"] <= 3


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["predict", "plan", "decompose"])
def test_the_random_baseline_mostly_fails(samples, kind):
    results = [run_episode(Task.load(ref), make_agent("random"), seed=3) for ref in samples[kind]]
    assert sum(e.success for e in results) <= len(results) // 4
    assert all(e.outcome in (ANSWER_RIGHT, ANSWER_WRONG) for e in results)


def _llm(server, strategy="tot"):
    return make_agent("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key=FAKE_KEY,
                      strategy=strategy, no_cache=True, backoff=0.01)


def test_an_llm_answers_each_task_through_litellm():
    predict = Task.load(f"{SETS.format('predict')}#BossLevel-s47")
    plan = Task.load(f"{SETS.format('plan')}#GoToRedBall-Small-4Dists-s1")
    decompose = Task.load(f"{SETS.format('decompose')}#GoTo-s54")
    from groundplan.domains.babyai import questions

    script = [{"text": "Thinking it through... The agent's final state is: ((19, 18), 0)", "usage": (900, 40)},
              {"text": "Let me plan.\n" + questions.oracle_answer(plan), "usage": (800, 30)},
              {"text": questions.oracle_answer(decompose), "usage": (700, 20)}]
    with ScriptedServer(script) as server:
        episodes = [run_episode(t, _llm(server)) for t in (predict, plan, decompose)]
        sent = [r["body"]["messages"] for r in server.requests]
    assert [e.outcome for e in episodes] == [ANSWER_RIGHT] * 3
    assert [e.prompt_tokens for e in episodes] == [900, 800, 700]
    # the prompts describe the environment in the benchmark's structured format
    assert "(3, 6)" in sent[0][-1]["content"] and "left, forward" in json.dumps(sent[0])
    assert "red ball" in json.dumps(sent[1]).lower()
    assert "<START>" in json.dumps(sent[2])


def test_nonsense_answers_are_failures_with_a_reason():
    predict = Task.load(f"{SETS.format('predict')}#GoToObj-s1")
    decompose = Task.load(f"{SETS.format('decompose')}#GoToObj-s1")
    script = [{"text": "I cannot tell."}, {"text": "<START>\n(FlySubgoal)\n<END>"}]
    with ScriptedServer(script) as server:
        episodes = [run_episode(t, _llm(server, "zero-shot")) for t in (predict, decompose)]
    for episode in episodes:
        assert not episode.success and episode.outcome == INVALID_OUTPUT
        assert episode.trajectory[-1]["score"]["parse_error"]


def test_an_unknown_strategy_for_a_question_is_a_clear_error():
    task = Task.load(f"{SETS.format('predict')}#GoToObj-s1")
    with ScriptedServer([]) as server:
        episode = run_episode(task, _llm(server, "react"))
    assert episode.outcome == "agent-error" and "zero-shot" in episode.error


def test_plan_eval_scores_a_set_sample_and_groups_as_the_paper_does(tmp_path):
    from click.testing import CliRunner

    from groundplan.evals.cli import run

    refs = rows("plan", 500)
    result = CliRunner().invoke(run, [*refs, "--agent", "oracle", "--agent", "random", "--out", str(tmp_path / "run"),
                                      "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    text = json.dumps(summary)
    assert "Ultra" in text and "efficiency" in text
    by_agent = {row["agent"]: row for row in _summary_rows(summary)}
    assert by_agent["oracle"]["success_rate"] == 1.0 and by_agent["random"]["success_rate"] < 0.5


def _summary_rows(summary):
    if isinstance(summary, list):
        return summary
    for value in summary.values():
        if isinstance(value, list) and value and isinstance(value[0], dict) and "agent" in value[0]:
            return value
    raise AssertionError(f"no per-agent rows in {list(summary)}")
