"""The LLM harness end to end, with models whose answers are known: prompt, reader, loop and metrics.

A model that knows every answer (tests/knowing_model.py) writes the oracle's next action, plan or
key in the format each strategy's prompt asks for; through the whole of plan-eval it must score
success 1.0 and optimality 1.0 in every world, with every strategy the world accepts. A model
that answers nonsense must score 0 with honest outcomes (never agent-error). The strategies come
from the worlds' profiles, so a strategy added to a world is tested without touching this file.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from groundplan.agents.profile import strategies
from groundplan.evals.cli import run as plan_eval
from knowing_model import KnowingModel, accepted, world_profile
from llm_server import ScriptedServer

# A few small problems per world, covering its kinds (sync, async and two-robot kitchens; single-goal,
# unreachable and multi-goal PPNL; the three BabyAI questions; a possible and an impossible
# Plancraft task; two GRASP rule combinations of one grid) and the classic worlds.
PROBLEMS = {
    "kitchen": ["problems/sync/01_cheese_sandwich_s126.json", "problems/async/01_cheese_chicken_sandwich_s126.json",
                "problems/multiagent/01_lettuce_burger_s126.json"],
    "ppnl": ["problems/ppnl/single_5x5.jsonl#5x5-k1-e000-s06", "problems/ppnl/single_5x5.jsonl#5x5-k5-e020-s28",
             "problems/ppnl/multi_unseen_env.jsonl#6x6-k1-e028-g3-m6-c"],
    "grasp": ["problems/grasp/inner_cluster_block.jsonl#grid00-mu1-nolimit-cost0",
              "problems/grasp/inner_cluster_block.jsonl#grid00-mu2-limit2-cost0.3"],
    "babyai": ["problems/babyai/predict.jsonl.gz#GoToObj-s1", "problems/babyai/plan.jsonl.gz#GoToRedBall-Small-4Dists-s1",
               "problems/babyai/decompose.jsonl.gz#GoToObj-s1"],
    "plancraft": ["problems/plancraft/test.small.jsonl#TEST0289", "problems/plancraft/test.small.jsonl#TEST0487",
                  "problems/plancraft/test.small.jsonl#TEST0385"],
    "classics": ["problems/gripper/prob01.json", "problems/blocksworld/sussman.json", "problems/gridnav/room8-10.json",
                 "problems/logistics/logistics-c2-p2-s1.json", "problems/sokoban/one-box-5x5.json"],
}
MODEL = "openai/knows-the-answer"
RIGHT = {"goal-reached", "declared-unsolvable", "answer-right"}
HONEST_FAILURES = {"invalid-output", "plan-invalid", "plan-exhausted", "step-cap", "answer-wrong", "wrong-declaration",
                   "finished-early", "stuck"}


CASES = [(world, strategy) for world in PROBLEMS for strategy in accepted(world)]


def _problems(world: str, strategy: str) -> list[str]:
    """The world's problems, less those the strategy's tools cannot solve (Plancraft's tool sets: a
    smelting task without 'smelt', an impossible one without 'impossible', which the paper leaves
    out of those sets' numbers)."""
    spec = strategies(world_profile(world))[strategy]
    tools = (spec.get("loop") or {}).get("tools")
    if tools is None or "impossible" in tools:
        return PROBLEMS[world]
    from groundplan.engine.task import Task

    def solvable_with_tools(ref):
        entry = Task.load(ref).problem.optimal or {}
        if entry.get("solvable") is False:
            return "impossible" in tools
        return all(line.split(":", 1)[0] in tools for line in entry.get("plan") or [])

    return [ref for ref in PROBLEMS[world] if solvable_with_tools(ref)]


def _plan_eval(tmp_path, monkeypatch, problems, strategy, respond, name):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000")
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / name
    with ScriptedServer(respond=respond) as server:
        args = [*problems, "--agent", "llm", "--model", MODEL, "--api-base", server.api_base, "--steps-to-go-time", "0",
                "--out", str(out), "--format", "json"]
        if strategy:
            args += ["--strategy", strategy]
        result = CliRunner().invoke(plan_eval, args, catch_exceptions=False)
    rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    return result, rows, summary


@pytest.mark.slow
@pytest.mark.parametrize(("world", "strategy"), CASES, ids=[f"{w}-{s}" for w, s in CASES])
def test_a_model_that_knows_the_answer_scores_one(world, strategy, tmp_path, monkeypatch):
    problems = _problems(world, strategy)
    model = KnowingModel(problems, strategy)
    result, rows, summary = _plan_eval(tmp_path, monkeypatch, problems, strategy, model, "knows")
    assert result.exit_code == 0, result.output
    assert model.unplaced == 0, f"{model.unplaced} request(s) did not show a state or problem the model could recognise"
    assert len(rows) == len(problems)
    for row in rows:
        assert row["outcome"] in RIGHT and row["success"], (row["id"], row["outcome"], row.get("error"), row["trajectory"][-1:])
        assert row["strategy"] == strategy
        if row.get("reference_proven") and row.get("reference_cost") is not None:
            assert row["cost"] == pytest.approx(row["reference_cost"]), (row["id"], row["cost"], row["reference_cost"])
        assert row["invalid_actions"] == 0 and row["reprompts"] == 0
    for entry in summary["by_set"]:
        assert entry["success_rate"] == 1.0, entry
        if entry.get("mean_optimality") is not None:
            assert entry["mean_optimality"] == pytest.approx(1.0), entry


DEFAULTS = [(world, problems) for world, problems in PROBLEMS.items() if world != "classics"]


@pytest.mark.slow
@pytest.mark.parametrize(("world", "problems"), DEFAULTS, ids=[w for w, _ in DEFAULTS])
def test_a_model_that_answers_nonsense_scores_zero_honestly(world, problems, tmp_path, monkeypatch):
    """With each world's default strategy (no --strategy): every episode fails with an outcome that
    says what the model did, none with agent-error, and the run itself succeeds (exit 0)."""
    result, rows, summary = _plan_eval(tmp_path, monkeypatch, problems, None, lambda body: "Bananas are yellow.", "nonsense")
    assert result.exit_code == 0, result.output
    for row in rows:
        assert not row["success"], row["id"]
        assert row["outcome"] in HONEST_FAILURES, (row["id"], row["outcome"], row.get("error"))
        assert row["strategy"] == world_profile(world).prompts["default_strategy"]
    for entry in summary["by_set"]:
        assert entry["success_rate"] == 0.0


@pytest.mark.parametrize("strategy", ["react", "mstsei", "react-prior"])
def test_a_strategy_the_world_lacks_is_refused_before_the_run(strategy, tmp_path):
    """BabyAI's tasks are questions: a step-by-step strategy (react was plan-eval's default) or
    another world's (Plancraft's mstsei) once ran every episode into agent-error, scored 0.000 with
    exit code 0. Now the run does not start, and one message lists what each world accepts."""
    out = tmp_path / "run"
    args = ["problems/babyai/predict.jsonl.gz#GoToObj-s1", "problems/sync/01_cheese_sandwich_s126.json", "--agent", "llm",
            "--model", MODEL, "--api-base", "http://127.0.0.1:9/v1", "--strategy", strategy, "--out", str(out)]
    result = CliRunner().invoke(plan_eval, args)
    assert result.exit_code == 2
    assert f"prompt strategy '{strategy}'" in result.output
    assert "world 'babyai' accepts cot, zero-shot, few-shot, tot (default)" in result.output
    assert result.output.count("error:") == 1 and "Traceback" not in result.output
    assert not (out / "episodes.jsonl").exists() or not (out / "episodes.jsonl").read_text()


def test_the_help_lists_each_worlds_strategies():
    text = CliRunner().invoke(plan_eval, ["--help"]).output
    flat = " ".join(text.split())
    for world, listed in (("babyai", "cot, zero-shot, few-shot, tot (default)"), ("grasp", "oneshot (default)"),
                          ("plancraft", "mstsei (default)"), ("kitchen", "react (default)")):
        assert f"{world}: " in flat and listed in flat, world
