"""The leaderboard over any number of runs (issue 34, item 3): rows keyed by (model, strategy,
settings) with a world column and an overall row, 95% intervals checked against values computed by
hand, pass@k, the worlds' own metrics, tokens and dollars, Markdown/CSV/JSON that agree, a plot
per world, a suite's paper table, and runs of different protocols refused with the reason.

LLM runs talk to the scripted server on loopback (`llm_server.py`): a model that knows the answers
of some problems (`knowing_model.py`) and says nothing useful on the others, so that rates are
neither 0 nor 1. Runs are built once per module."""
import csv
import importlib.machinery
import io
import json
import math
import shutil
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.evals import intervals as I
from groundplan.evals.cli import leaderboard, report, run
from knowing_model import NOT_PLACED, KnowingModel
from llm_server import ScriptedServer

P1, P2, P3 = ("problems/sync/01_cheese_sandwich_s42.json", "problems/sync/02_lettuce_sandwich_s42.json",
              "problems/sync/04_burger_s42.json")
KITCHEN = [P1, P2, P3]
MINI, BIG = "openai/gpt-4o-mini", "openai/gpt-4o"
# (run, model, strategy, the problems it knows): two models, two strategies, three runs
RUNS = (("mini-io", MINI, "io", [P1, P2]), ("big-io", BIG, "io", [P1]), ("mini-cot", MINI, "cot", [P1, P3]))
WORLDS = ["ppnl/single_5x5#1", "ppnl/single_5x5#2", "ppnl/single_5x5#3", "grasp/inner_cluster_free#1",
          "grasp/inner_cluster_free#2"]
Z = 1.959963984540054


def _invoke(command, args, code=0):
    result = CliRunner().invoke(command, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def llm_runs(tmp_path_factory):
    """Three run folders of two models and two strategies, 2 samples of each of 3 kitchen problems."""
    root = tmp_path_factory.mktemp("runs")
    knowers = {(model, strategy): KnowingModel(known, strategy) for _, model, strategy, known in RUNS}

    def respond(body):
        model = "openai/" + body["model"]
        for (who, _), knower in knowers.items():
            if who == model:
                reply = knower(body)
                if reply != NOT_PLACED:
                    return reply
        return NOT_PLACED

    with pytest.MonkeyPatch.context() as patch, ScriptedServer(respond=respond) as server:
        patch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
        patch.setenv("GROUNDPLAN_CACHE", str(root / "cache"))
        for name, model, strategy, _ in RUNS:
            _invoke(run, [*KITCHEN, "--agent", "llm", "--model", model, "--strategy", strategy, "--api-base", server.api_base,
                          "--samples", "2", "--steps-to-go-time", "0", "--llm-retries", "0", "--out", root / name])
    return root


@pytest.fixture(scope="module")
def world_runs(tmp_path_factory):
    """The oracle and the random agent on PPNL and GRASP problems (one sample each), and the
    random agent again under another --seed (the same protocol)."""
    root = tmp_path_factory.mktemp("worlds")
    _invoke(run, [*WORLDS, "--agent", "oracle", "--agent", "random", "--steps-to-go-time", "0", "--out", root / "a"])
    _invoke(run, [*WORLDS, "--agent", "random", "--seed", "1", "--steps-to-go-time", "0", "--out", root / "b"])
    return root


def _board(*args) -> dict:
    return json.loads(_invoke(leaderboard, [*args, "--format", "json"]).stdout)


def _rows(board, world):
    return {(e["model"], e["strategy"]): e for e in board["entries"] if e["world"] == world}


# ------------------------------------------------------------------ intervals, by hand
def test_wilson_matches_the_interval_computed_by_hand():
    # 7 of 10: centre (0.7 + z²/20) / (1 + z²/10), half-width z / (1 + z²/10) * sqrt(0.021 + z²/400)
    lo, hi = I.wilson(7, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.3968, 0.8922)
    # 0 of n and n of n: the bounds are z² / (n + z²) from the side of the count
    assert I.wilson(0, 5) == (0.0, pytest.approx(Z * Z / (5 + Z * Z)))
    assert I.wilson(5, 5) == (pytest.approx(5 / (5 + Z * Z)), 1.0)
    assert I.wilson(0, 0) == (None, None)
    assert I.wilson_rate(0.7, 10) == pytest.approx(I.wilson(7, 10))


def test_the_bootstrap_is_seeded_and_agrees_with_the_normal_approximation():
    ones = [1] * 200 + [0] * 200
    lo, hi = I.bootstrap_ratio(ones, [1] * 400, 2000, "s")
    half = Z * math.sqrt(0.25 / 400)  # 0.049
    assert lo == pytest.approx(0.5 - half, abs=0.01) and hi == pytest.approx(0.5 + half, abs=0.01)
    assert I.bootstrap_ratio(ones, [1] * 400, 2000, "s") == (lo, hi)  # the same seed, the same interval
    assert I.bootstrap_ratio([3, 3, 3], [1, 1, 1], 500, "s") == (3.0, 3.0)  # every problem alike: a point
    assert I.bootstrap_ratio([0, 0], [0, 0], 500, "s") == (None, None)  # a mean over no success: undefined
    assert I.percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5


# ------------------------------------------------------------------ the acceptance: three runs, two models, two strategies
def test_three_runs_of_two_models_and_two_strategies_give_a_row_per_key_with_intervals_and_overall_rows(llm_runs):
    result = _invoke(report, [llm_runs / name for name, *_ in RUNS])
    text = result.stdout
    lines = [line for line in text.splitlines() if line.startswith(("kitchen", "overall"))]
    assert len(lines) == 6 and sum(line.startswith("overall") for line in lines) == 3
    assert "success rate [95% CI]" in text and "pass@2 [95% CI]" in text and "Wilson" in text

    board = _board(*(llm_runs / name for name, *_ in RUNS))
    kitchen, overall = _rows(board, "kitchen"), _rows(board, "overall")
    assert set(kitchen) == set(overall) == {(MINI, "io"), (BIG, "io"), (MINI, "cot")}
    expected = {(MINI, "io"): 2 / 3, (BIG, "io"): 1 / 3, (MINI, "cot"): 2 / 3}
    for key, rate in expected.items():
        entry = kitchen[key]
        assert entry["problems"] == 3 and entry["episodes"] == 6 and entry["samples"] == 2
        success = entry["metrics"]["success_rate"]
        assert success["value"] == pytest.approx(rate)
        # two samples a problem: Wilson over the 3 problems, not the 6 episodes
        assert (success["lo"], success["hi"]) == pytest.approx(I.wilson(3 * rate, 3))
        assert success["method"] == I.WILSON_PROBLEMS
        for k in ("pass@1", "pass@2"):  # the scripted model is deterministic: both samples agree
            assert entry["metrics"][k]["value"] == pytest.approx(rate) and entry["metrics"][k]["lo"] is not None
        assert entry["metrics"]["mean_optimality"]["value"] == 1.0
        assert entry["tokens"] > 0 and entry["cost_usd"] > 0
        assert overall[key]["metrics"]["success_rate"]["value"] == pytest.approx(rate)
        assert overall[key]["tokens"] == entry["tokens"]
    assert [e["world"] for e in board["entries"]] == ["kitchen"] * 3 + ["overall"] * 3
    assert board["entries"][-1]["model"] == BIG  # ranked by overall success
    assert board["settings_in_key"] == [] and "Wilson" in board["intervals"]


def test_markdown_csv_and_json_say_the_same(llm_runs, tmp_path):
    out = tmp_path / "board"
    _invoke(leaderboard, [*(llm_runs / name for name, *_ in RUNS), "--out", out, "--seed", "3"])
    board = json.loads((out / "leaderboard.json").read_text())
    lines = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text())))
    md = (out / "leaderboard.md").read_text()
    assert len(lines) == len(board["entries"]) == 6
    for line, entry in zip(lines, board["entries"]):
        assert (line["world"], line["model"], line["strategy"]) == (entry["world"], entry["model"], entry["strategy"])
        for metric, m in entry["metrics"].items():
            assert float(line[metric]) == pytest.approx(m["value"])
            assert float(line[f"{metric}_lo"]) == pytest.approx(m["lo"]) and line[f"{metric}_ci"] == m["method"]
        assert int(line["tokens"]) == entry["tokens"]
        success = entry["metrics"]["success_rate"]
        row = f"| {entry['world']} | {entry['model']} | {entry['strategy']} |"
        assert row in md and f"{success['value']:.3f} [{success['lo']:.3f}, {success['hi']:.3f}]" in md
    assert "seed 3" in md and "## Intervals" in md
    again = _board(*(llm_runs / name for name, *_ in RUNS), "--seed", "3")
    assert again["entries"] == board["entries"]  # seeded: the same intervals every time


# ------------------------------------------------------------------ protocols
def test_runs_of_different_protocols_are_refused_with_the_reason_unless_mixed(llm_runs, world_runs, tmp_path):
    other = tmp_path / "capped"
    _invoke(run, [P1, P2, "--agent", "oracle", "--max-steps", "30", "--steps-to-go-time", "0", "--out", other])
    result = _invoke(report, [llm_runs / "mini-io", other], code=2)
    message = result.output
    assert "not of one protocol" in message and "--mixed" in message and "Traceback" not in message
    assert "setting max_steps: not set in" in message and str(other) in message
    assert "1 problem(s) only in" in message and "04_burger_s42.json" in message
    assert "setting samples: 2" in message

    board = _board(llm_runs / "mini-io", other, "--mixed")
    assert board["settings_in_key"] == ["max_steps", "samples"]
    oracle = _rows(board, "overall")[("oracle", "-")]
    assert oracle["settings"] == {"max_steps": 30, "samples": 1} and oracle["problems"] == 2
    assert any("not all cover the same problems" in n for n in board["notes"])
    assert any(n.startswith("mixed protocols") for n in board["notes"])
    text = _invoke(leaderboard, [llm_runs / "mini-io", other, "--mixed"]).stdout
    assert "max_steps=30, samples=1" in text

    # another seed is the same protocol: its episodes are more samples of the same problems
    board = _board(world_runs / "a", world_runs / "b")
    rows = _rows(board, "grasp")
    assert set(rows) == {("oracle", "-"), ("random", "-")}
    assert rows[("random", "-")]["samples"] == 2 and rows[("random", "-")]["runs"] == [str(world_runs / "a"), str(world_runs / "b")]
    assert "pass@2" in rows[("random", "-")]["metrics"]


def test_a_run_without_a_manifest_cannot_be_proven_of_the_protocol(llm_runs, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(llm_runs / "big-io", bare)
    (bare / "manifest.json").unlink()
    result = _invoke(report, [llm_runs / "mini-io", bare], code=2)
    assert f"{bare / 'manifest.json'} is missing" in result.output
    board = _board(llm_runs / "mini-io", bare, "--mixed")
    assert {e["settings"].get("manifest") for e in board["entries"]} == {"present", "missing"}
    assert (BIG, "io") in _rows(board, "kitchen")  # the model and strategy read from the label


# ------------------------------------------------------------------ the worlds' own metrics, Wilson over episodes
def test_the_worlds_own_metrics_have_intervals_and_one_sample_gets_wilson_over_episodes(world_runs):
    board = _board(world_runs / "a")
    ppnl, grasp = _rows(board, "ppnl"), _rows(board, "grasp")
    oracle = ppnl[("oracle", "-")]
    success = oracle["metrics"]["success_rate"]
    assert success["value"] == 1.0 and success["method"] == I.WILSON
    assert success["lo"] == pytest.approx(3 / (3 + Z * Z)) and success["hi"] == 1.0
    assert "pass@1" not in oracle["metrics"]
    assert oracle["world_metrics"]["ppnl_optimal"]["value"] == 1.0
    assert oracle["world_metrics"]["ppnl_optimal"]["method"] == I.PERCENTILE_BOOTSTRAP
    score = grasp[("oracle", "-")]["world_metrics"]["grasp_score"]
    assert score["lo"] <= score["value"] <= score["hi"]
    assert not _rows(board, "overall")[("oracle", "-")]["world_metrics"]  # a world's metrics stay in its rows
    md = _invoke(leaderboard, [world_runs / "a", "--format", "markdown"]).stdout
    assert "## ppnl: its own metrics" in md and "ppnl_optimal [95% CI]" in md and "## grasp: its own metrics" in md


def test_a_big_row_bootstraps_its_worlds_metrics_with_fewer_resamples_and_says_so(world_runs, monkeypatch):
    from groundplan.evals import leaderboard as L

    monkeypatch.setattr(L, "WORLD_VISITS", 300)  # 3 PPNL episodes x 1000 resamples is more
    board = _board(world_runs / "a", "--bootstrap", "200")
    metric = _rows(board, "ppnl")[("random", "-")]["world_metrics"]["ppnl_success"]
    assert metric["resamples"] == 100 and metric["lo"] is not None
    assert _rows(board, "ppnl")[("random", "-")]["metrics"]["mean_steps"]["lo"] is not None
    assert any("fewer resamples (100, 150, not 200)" in n for n in board["notes"])  # PPNL: 3 episodes a row, GRASP: 2


def test_a_plot_per_world(world_runs, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "board"
    _invoke(leaderboard, [world_runs / "a", "--out", out, "--plot"])
    for world in ("grasp", "ppnl", "overall"):
        assert (out / f"leaderboard-{world}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = _invoke(leaderboard, [world_runs / "a", "--plot"], code=2)
    assert "--out" in result.output


# ------------------------------------------------------------------ folders, damage, the one-run report
def test_folders_of_runs_damaged_lines_and_the_one_run_report(llm_runs, world_runs, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(llm_runs / "mini-io", copy)
    with open(copy / "episodes.jsonl", "a") as f:
        f.write('{"id": 3, "agent_label": "x", "problem_set": "y"}\n')
    result = _invoke(leaderboard, [copy, "--format", "json"])
    assert "could not be read as episode lines" in result.stderr and str(copy) in result.stderr
    assert json.loads(result.stdout)["entries"][0]["episodes"] == 6
    board = _board(llm_runs)  # a folder of run folders stands for them
    assert len(board["runs"]) == 3 and len(_rows(board, "overall")) == 3
    result = _invoke(leaderboard, [world_runs / "a", world_runs / "a" / ".." / "a"])
    assert "given twice" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _invoke(leaderboard, [empty], code=2)
    assert f"{empty}: not a run folder" in result.output
    # one run folder: `report` rebuilds its summary as before; the leaderboard's options point to it
    assert "by_set" in json.loads(_invoke(report, [world_runs / "a", "--format", "json"]).stdout)
    result = _invoke(report, [world_runs / "a", "--out", tmp_path / "x"], code=2)
    assert "plan-eval leaderboard" in result.output


# ------------------------------------------------------------------ a suite's published rows
def _as_suite(llm_runs, root: Path, name: str, digest: str, parts: dict) -> list[Path]:
    """Copies of the LLM runs as the parts of a suite run (root/PART, manifests naming the suite)."""
    folders = []
    for run_name, part in parts.items():
        folder = root / part
        shutil.copytree(llm_runs / run_name, folder)
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["suite"] = {"name": name, "hash": digest, "part": part}
        (folder / "manifest.json").write_text(json.dumps(manifest))
        folders.append(folder)
    return folders


def test_a_suite_gets_its_paper_table_when_the_suites_module_has_one(llm_runs, tmp_path, monkeypatch):
    # model A's suite run (two parts: io and cot) and model B's (one part), as `plan-eval suite` lays them out
    a = _as_suite(llm_runs, tmp_path / "a", "robotouille", "abc123", {"mini-io": "sync-io", "mini-cot": "sync-cot"})
    b = _as_suite(llm_runs, tmp_path / "b", "robotouille", "abc123", {"big-io": "sync-io"})
    seen = []

    def paper_table(name, runs, fmt="markdown"):
        seen.append((name, {label: sorted({r["suite_part"] for r in rows}) for label, rows in runs.items()}, fmt))
        return f"| model | source |\n|---|---|\n| gpt4-o | published, Table 2 |\n| {' / '.join(sorted(runs))} | this run |"

    fake = types.ModuleType("groundplan.evals.suites")
    fake.__spec__ = importlib.machinery.ModuleSpec("groundplan.evals.suites", None)
    fake.paper_table = paper_table
    monkeypatch.setitem(sys.modules, "groundplan.evals.suites", fake)
    md = _invoke(leaderboard, [tmp_path / "a", tmp_path / "b", "--format", "markdown"]).stdout  # parts differ: one protocol
    assert "## Suite robotouille: the paper's layout" in md and "| gpt4-o | published, Table 2 |" in md
    assert seen[0] == ("robotouille", {MINI: ["sync-cot", "sync-io"], BIG: ["sync-io"]}, "markdown")
    assert {(e["model"], e["strategy"]) for e in json.loads(_invoke(leaderboard, [*a, *b, "--format", "json"]).stdout)["entries"]
            if e["world"] == "overall"} == {(MINI, "io"), (MINI, "cot"), (BIG, "io")}

    # a suite of another hash is another protocol; so is a run of no suite beside a suite's
    manifest = json.loads((b[0] / "manifest.json").read_text())
    manifest["suite"]["hash"] = "def456"
    (b[0] / "manifest.json").write_text(json.dumps(manifest))
    result = _invoke(leaderboard, [*a, *b], code=2)
    assert "suite robotouille (hash abc123)" in result.output and "(hash def456)" in result.output
    board = _board(*a, *b, "--mixed")
    assert {e["settings"]["suite"] for e in board["entries"]} == {"robotouille (abc123)", "robotouille (def456)"}
    result = _invoke(leaderboard, [a[0], llm_runs / "big-io"], code=2)
    assert "of none" in result.output

    def broken(name, runs, fmt="markdown"):
        raise KeyError("layout")

    fake.paper_table = broken
    board = _board(*a)
    assert board["published"][0]["table"] is None
    assert any("paper table could not be made (KeyError" in n for n in board["notes"])


def test_the_real_suites_paper_table_beside_the_leaderboard(llm_runs, tmp_path):
    suites = pytest.importorskip("groundplan.evals.suites")  # issue 34, items 1-2: on its own branch until merged
    robotouille = suites.load("robotouille")
    folders = _as_suite(llm_runs, tmp_path / "suite", "robotouille", robotouille.hash,
                        {"mini-io": "sync-io", "mini-cot": "sync-cot"})
    board = _board(*folders)
    (entry,) = board["published"]
    assert entry["table"] and "published" in entry["table"] and MINI in entry["table"], board["notes"]
    text = _invoke(leaderboard, folders).stdout
    assert "the paper's layout, published rows beside ours" in text and "this run" in text
