"""plan-eval end to end: the default run, kill -9 and --resume, workers, bad files, reports."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.evals.cli import report, run

KITCHEN = ["problems/sync/01_cheese_sandwich_s42.json", "problems/sync/02_lettuce_sandwich_s42.json",
           "problems/sync/04_burger_s42.json"]


def _invoke(command, args):
    result = CliRunner().invoke(command, args, catch_exceptions=False)
    return result.exit_code, result.stdout if "--format" in args else result.output


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


@pytest.fixture(scope="module")
def many_problems(tmp_path_factory):
    """Twenty small blocksworld problems: fast to solve, enough to interrupt a run."""
    folder = tmp_path_factory.mktemp("bw")
    base = json.loads(Path("problems/blocksworld/blocks-4-0.json").read_text())
    base["domain"] = str(Path("domains/blocksworld/domain.json").resolve())
    for i in range(20):
        problem = dict(base, name=f"bw-{i:02d}")
        (folder / f"bw-{i:02d}.json").write_text(json.dumps(problem))
    return folder


def test_the_default_run_puts_the_oracle_beside_the_random_baseline(tmp_path):
    code, out = _invoke(run, KITCHEN + ["--out", str(tmp_path / "r"), "--format", "json", "--steps-to-go-time", "5"])
    assert code == 0, out
    summary = json.loads(out)
    by_agent = {e["agent"]: e for e in summary["by_set"]}
    assert set(by_agent) == {"oracle", "random"}
    assert by_agent["oracle"]["success_rate"] == 1.0 and by_agent["oracle"]["mean_optimality"] == 1.0
    assert by_agent["oracle"]["episodes"] == by_agent["random"]["episodes"] == 3
    for key in ("episodes", "success_rate", "mean_optimality", "invalid_actions", "tokens", "cost_usd"):
        assert key in by_agent["random"]
    lines = [json.loads(x) for x in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    failed = [x for x in lines if not x["success"]]
    assert all(x["steps"] == x["max_steps"] for x in failed)
    assert all("steps_to_go" in x for x in failed)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert set(manifest["problems"]) == set(KITCHEN) and manifest["prompt_templates"]["kitchen"]["merged"]
    for name in ("summary.md", "summary.csv"):
        assert (tmp_path / "r" / name).read_text().strip()


def test_kill_minus_9_then_resume_gives_the_uninterrupted_summary(tmp_path, many_problems):
    problems = sorted(str(p) for p in many_problems.glob("*.json"))
    args = ["--agent", "random", "--agent", "oracle", "--seed", "7", "--steps-to-go-time", "5"]
    code, _ = _invoke(run, problems + args + ["--out", str(tmp_path / "whole")])
    assert code == 0
    cut = tmp_path / "cut"
    env = dict(os.environ, PYTHONPATH=str(Path.cwd()))
    proc = subprocess.Popen([sys.executable, "-m", "groundplan.evals.cli", *problems, *args, "--out", str(cut)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    episodes = cut / "episodes.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not episodes.exists() or episodes.read_text().count("\n") < 5):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = episodes.read_text().count("\n")
    assert 5 <= written < 40, "the run was not interrupted in the middle"
    with open(episodes, "a") as f:
        f.write('{"id": "torn')  # what a kill during a write could leave behind
    code, _ = _invoke(run, problems + args + ["--out", str(cut), "--resume"])
    assert code == 0
    assert _summary(cut) == _summary(tmp_path / "whole")  # a summary holds no timings: all of it must agree
    ids = [json.loads(x)["id"] for x in episodes.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 40


def test_a_finished_run_is_not_overwritten_without_resume(tmp_path, many_problems):
    problems = sorted(str(p) for p in many_problems.glob("*.json"))[:2]
    assert _invoke(run, problems + ["--out", str(tmp_path / "r")])[0] == 0
    code, out = _invoke(run, problems + ["--out", str(tmp_path / "r")])
    assert code == 2 and "--resume" in out
    code, out = _invoke(run, problems + ["--out", str(tmp_path / "r"), "--resume", "--seed", "3"])
    assert code == 2 and "other agents, settings or problems" in out


def test_workers_do_not_change_the_results(tmp_path, many_problems):
    problems = sorted(str(p) for p in many_problems.glob("*.json"))[:8]
    args = ["--agent", "random", "--seed", "3", "--steps-to-go-time", "0"]
    assert _invoke(run, problems + args + ["--out", str(tmp_path / "one")])[0] == 0
    assert _invoke(run, problems + args + ["--out", str(tmp_path / "two"), "--workers", "2"])[0] == 0

    def episodes(folder):
        rows = [json.loads(x) for x in (folder / "episodes.jsonl").read_text().splitlines()]
        return sorted((r["id"], r["success"], r["steps"], [s["action"] for s in r["trajectory"]]) for r in rows)

    assert episodes(tmp_path / "one") == episodes(tmp_path / "two")


def test_a_bad_problem_file_is_reported_and_the_others_run(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"groundplan": "1", "name": "bad", "domain": "blocksworld", "objects": {"a": "blok"}, "init": [], "goal": []}')
    code, out = _invoke(run, [KITCHEN[0], str(bad), "--agent", "oracle", "--out", str(tmp_path / "r")])
    assert code == 1
    assert "could not be loaded" in out and "bad.json#/objects/a" in out
    assert _summary(tmp_path / "r")["by_set"][0]["episodes"] == 1


def test_report_rebuilds_and_compares(tmp_path, many_problems):
    problems = sorted(str(p) for p in many_problems.glob("*.json"))[:3]
    _invoke(run, problems + ["--agent", "random", "--out", str(tmp_path / "a"), "--seed", "1", "--steps-to-go-time", "0"])
    _invoke(run, problems + ["--agent", "random", "--out", str(tmp_path / "b"), "--seed", "2", "--steps-to-go-time", "0"])
    code, out = _invoke(report, [str(tmp_path / "a"), "--format", "json"])
    assert code == 0 and json.loads(out) == _summary(tmp_path / "a")
    code, out = _invoke(report, [str(tmp_path / "a"), str(tmp_path / "b")])  # several runs: the leaderboard
    assert code == 0 and "success rate [95% CI]" in out and "pass@2 [95% CI]" in out
    assert [line.split()[:2] for line in out.splitlines() if line.startswith(("blocksworld", "overall"))] == [
        ["blocksworld", "random"], ["overall", "random"]]  # the two seeds' episodes are two samples of one row


def test_usage_errors_are_clear(tmp_path):
    code, out = _invoke(run, [KITCHEN[0], "--agent", "llm", "--out", str(tmp_path / "x")])
    assert code == 2 and "--model" in out
    code, out = _invoke(run, [KITCHEN[0], "--resume"])
    assert code == 2 and "--out" in out


def test_world_metric_plug_ins_reach_the_summary(tmp_path):
    """GRASP's and PPNL's own metrics appear per episode and per group; the oracle matches the stored optima."""
    from groundplan.engine import problemsets

    grasp = "problems/grasp/inner_cluster_free.jsonl"
    refs = [f"{grasp}#{n}" for n in problemsets.names(grasp)[:8]]
    refs += [f"problems/ppnl/single_5x5.jsonl#{n}" for n in problemsets.names("problems/ppnl/single_5x5.jsonl")[:5]]
    code, out = _invoke(run, refs + ["--out", str(tmp_path / "r"), "--steps-to-go-time", "0", "--format", "json"])
    assert code == 0, out
    by = {(e["agent"], e["problem_set"]): e for e in json.loads(out)["by_set"]}
    oracle = by[("oracle", "inner_cluster_free")]
    assert oracle["grasp_ratio_to_optimum"] == 1.0 and oracle["grasp_score"] > 0
    assert by[("random", "inner_cluster_free")]["grasp_length"] <= 20  # GRASP's fixed budget
    assert by[("oracle", "single_5x5")]["ppnl_optimal"] == 1.0


def test_every_agent_of_a_problem_runs_in_one_batch_so_it_is_grounded_once():
    from groundplan.evals.run import agent_specs, batches

    specs = agent_specs(["oracle", "random", "baseline:greedy", "oracle"])
    assert [s.label for s in specs] == ["oracle", "random", "baseline:greedy"]  # a repeated agent runs once
    jobs = [(ref, spec, None) for ref in ("a", "b") for spec in specs]
    assert [[job[0] for job in batch] for batch in batches(jobs)] == [["a"] * 3, ["b"] * 3]
    assert [len(batch) for batch in batches(jobs, concurrency=4)] == [4, 2]  # threads: as many jobs as asked
    assert len(batches(jobs, workers=4)) == 6  # fewer problems than workers: spread the agents out instead


def test_a_world_can_opt_out_of_steps_to_go_and_the_help_names_world_baselines(tmp_path):
    """GRASP's plug-in sets STEPS_TO_GO = False: its failures are not sent to the oracle, whatever
    --steps-to-go-time says (the kitchen's still are, see the default run above)."""
    from groundplan.engine import problemsets

    grasp = "problems/grasp/inner_cluster_free.jsonl"
    refs = [f"{grasp}#{n}" for n in problemsets.names(grasp)[:4]]
    code, _ = _invoke(run, refs + ["--agent", "random", "--out", str(tmp_path / "r"), "--steps-to-go-time", "30"])
    assert code == 0
    rows = [json.loads(x) for x in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    assert any(not r["success"] for r in rows) and not any("steps_to_go" in r for r in rows)
    code, out = _invoke(run, ["--help"])
    assert code == 0 and "baseline:NAME" in out and "baseline:greedy" in out


def test_a_world_strategy_is_accepted_and_an_unknown_one_refused_before_the_run(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(run, ["problems/ppnl/single_5x5.jsonl#1", "--agent", "llm", "--model", "openai/x",
                                      "--strategy", "naiv", "--out", str(out)])
    assert result.exit_code != 0 and "did you mean 'naive-" in result.output
    assert not out.exists()
    from groundplan.evals.run import agent_specs

    (spec,) = agent_specs(["llm"], model="openai/x", strategy="action-effect")
    assert dict(spec.options)["strategy"] == "action-effect"
