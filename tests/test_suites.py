"""Suites (evals/suites/*.yaml): each paper's protocol as data, run by `plan-eval suite`.

Every shipped suite runs end to end here, one problem per part, with a scripted model that knows
the answers (tests/knowing_model.py) on the loopback test server: each part is a plan-eval run
whose manifest carries the suite's name and hash, and the paper's table comes out in the paper's
layout with the published rows beside the run's. Broken suite files are refused with the file,
the JSON pointer and a fix.
"""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from groundplan.evals import suites as S
from groundplan.evals.cli import main as plan_eval_main
from groundplan.evals.suites.cli import suite as suite_command
from knowing_model import NOT_PLACED, KnowingModel
from llm_server import ScriptedServer

SHIPPED = ("all", "babybench", "grasp", "plancraft", "ppnl", "robotouille")
MODEL = "openai/knows-the-answer"


class Responder:
    """The test server's model: the KnowingModels of the suite being run, one per part's strategy."""

    def __init__(self):
        self.models: list = []

    def __call__(self, body):
        for model in self.models:
            reply = model(body)
            if reply != NOT_PLACED:
                return reply
        return NOT_PLACED


@pytest.fixture(scope="module")
def server():
    responder = Responder()
    with ScriptedServer(respond=responder) as running:
        running.responder = responder
        yield running


def test_the_shipped_suites_are_listed_and_valid():
    assert tuple(S.names()) == SHIPPED
    for name in SHIPPED:
        suite = S.load(name)
        assert re.fullmatch(r"[0-9a-f]{64}", suite.hash)
        for table in suite.data["tables"]:
            if table.get("published"):  # figures from the papers are cited
                assert table["source"]["table"], (name, table["title"])
    listed = CliRunner().invoke(suite_command, ["--list"])
    assert listed.exit_code == 0, listed.output
    for name in SHIPPED:
        assert re.search(rf"^{name}\s+\d+\s+[\d,]+\s+[\d,]+\s", listed.output, re.M), listed.output


def test_show_says_what_a_suite_runs_and_costs():
    result = CliRunner().invoke(suite_command, ["ppnl", "--show"])
    assert result.exit_code == 0, result.output
    assert "naive-5" in result.output and "ppnl/single_unseen_env" in result.output and "strategy=io" in result.output
    assert re.search(r"^total\s+2,352\s+3,696$", result.output, re.M), result.output
    assert "Table 3" in result.output and "Table 5" in result.output
    cut = CliRunner().invoke(suite_command, ["plancraft", "--show", "--limit", "2"])
    assert re.search(r"^total\s+40\s", cut.output, re.M) and "subset: {'limit': 2}" in cut.output, cut.output


def test_the_hash_is_the_content_not_the_layout(tmp_path):
    text = S.load("all").path.read_text()
    copy = tmp_path / "all.yaml"
    copy.write_text("# a comment\n" + text.replace("version: 1", "version:   1"))
    assert S.load(str(copy)).hash == S.load("all").hash
    copy.write_text(text.replace("sample: 3}", "sample: 4}", 1))
    assert S.load(str(copy)).hash != S.load("all").hash


@pytest.mark.parametrize(("edit", "said"), [
    (lambda t: t.replace("requests_per_episode: 40", "requests_per_episode: lots"),
     "all.yaml#/parts/0/requests_per_episode: 'lots' is not of type 'number'"),
    (lambda t: t.replace("kitchen-sync.success_rate", "kitchen-sink.success_rate", 1),
     "all.yaml#/tables/0/rows/0/cells/0: 'kitchen-sink.success_rate' names no part of the suite"),
    (lambda t: t.replace("name: all", "name: al"), "all.yaml#/name: 'al' is not the file's name"),
    (lambda t: t.replace("parts:", "parts: [", 1), "all.yaml:"),
])
def test_a_broken_suite_file_is_named_with_its_pointer_and_a_fix(tmp_path, edit, said):
    path = tmp_path / "all.yaml"
    path.write_text(edit(S.load("all").path.read_text()))
    result = CliRunner().invoke(suite_command, [str(path), "--show"])
    assert result.exit_code == 2 and said in result.output, result.output
    assert "Traceback" not in result.output


def test_an_unknown_suite_or_part_is_refused_with_the_names():
    result = CliRunner().invoke(suite_command, ["robotouile", "--show"])
    assert result.exit_code == 2 and "robotouille" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(suite_command, ["ppnl", "--show", "--part", "nope"])
    assert result.exit_code == 2 and "its parts are naive-5" in result.output


@pytest.mark.parametrize("name", SHIPPED)
def test_each_suite_runs_end_to_end_with_the_papers_layout(name, server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000")
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))
    suite = S.load(name)
    planned = S.plan(suite, limit=1)
    server.responder.models = [KnowingModel(p.refs, p.agent.get("strategy")) for p in planned.parts]
    out = tmp_path / "run"
    args = ["suite", name, "--model", MODEL, "--api-base", server.api_base, "--out", str(out), "--limit", "1",
            "--steps-to-go-time", "0"]
    with pytest.raises(SystemExit) as stopped:  # through plan-eval's own entry point, as a user runs it
        plan_eval_main(args)
    assert stopped.value.code in (0, None)
    info = json.loads((out / "suite.json").read_text())
    assert info["hash"] == suite.hash and info["parts"] == [p.name for p in planned.parts]
    for part in planned.parts:
        manifest = json.loads((out / part.name / "manifest.json").read_text())
        assert manifest["suite"] == {"name": name, "version": suite.data["version"], "hash": suite.hash, "part": part.name,
                                     "subset": {"limit": 1}}
        rows = [json.loads(line) for line in (out / part.name / "episodes.jsonl").read_text().splitlines()]
        assert len(rows) == part.episodes and all(r["success"] for r in rows), [(r["id"], r["outcome"]) for r in rows]
        if part.agent.get("strategy"):
            assert all(r["strategy"] == part.agent["strategy"] for r in rows)
    paper = (out / "paper.md").read_text()
    sections = paper.split("\n## ")[1:]
    assert len(sections) == len(suite.data["tables"])
    for table, section in zip(suite.data["tables"], sections):
        assert section.startswith(table["title"] + "\n")
        head = next(line for line in section.splitlines() if line.startswith("| model | source"))
        assert head.endswith(" | ".join(table["columns"]) + " | n |"), head
        for published in table.get("published") or []:  # every published row, beside ours
            for label in published["values"]:
                assert re.search(rf"^\| {re.escape(published['model'])} \| published, {re.escape(table['source']['table'])}[^|]* \|"
                                 + (rf" {re.escape(label)} \|" if label else ""), section, re.M), (published["model"], label)
        assert f"| {MODEL} | this run |" in section
    ours = [line for line in paper.splitlines() if f"| {MODEL} | this run |" in line]
    assert ours and any(re.search(r"\| -?\d+\.\d+ \|", line) for line in ours), paper
    # resumable: the same command with --resume runs nothing again and gives the same table
    before = sum(1 for p in planned.parts for _ in (out / p.name / "episodes.jsonl").read_text().splitlines())
    again = CliRunner().invoke(suite_command, [name, "--model", MODEL, "--api-base", server.api_base, "--out", str(out),
                                               "--limit", "1", "--steps-to-go-time", "0", "--resume"])
    assert again.exit_code == 0, again.output
    assert sum(1 for p in planned.parts for _ in (out / p.name / "episodes.jsonl").read_text().splitlines()) == before
    assert (out / "paper.md").read_text() == paper


def test_paper_table_from_rows_of_several_runs():
    """The leaderboard's entry point: episode lines tagged by part, for one run or several."""
    def row(part, ok, problem="x.jsonl#grid00-mu1-nolimit-cost0", pset="inner_random_block"):
        return {"id": f"a::{part}::{problem}::{ok}", "agent_label": "a", "problem_set": pset, "problem_ref": problem,
                "success": ok, "suite_part": part, "steps": 3, "world": "grasp", "grasp": {"score": 2 if ok else -1, "length": 10,
                "delivered": 2, "invalid": 0, "ratio_to_optimum": 0.5}}
    runs = {"model-a": [row("oneshot", True), row("oneshot", False)], "model-b": [row("oneshot", True)]}
    text = S.paper_table("grasp", runs, fmt="text")
    assert re.search(r"^GPT-4o\s+published, Table 2, §4.1\s+Average\s+17.00\s+-1.38\s+-$", text, re.M), text
    average = [line.split() for line in text.splitlines() if line.split()[:1] in (["model-a"], ["model-b"]) and "Average" in line]
    assert [line[0] for line in average] == ["model-a", "model-b"]
    assert average[0][-3:] == ["10.00", "0.50", "2"] and average[1][-3:] == ["10.00", "2.00", "1"]
    mu2 = [line for line in text.splitlines() if line.startswith("model-a") and "Moves: mu2" in line]
    assert mu2 and mu2[0].split()[-3:] == ["-", "-", "0"]
