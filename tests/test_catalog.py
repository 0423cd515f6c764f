"""Shipped sets by name (engine/catalog.py): every set named once, names that work from any
folder, one problem of a set by name, a path of the user's that wins over a name, the nearest
name for a typo, and plan-eval's --list-sets and --limit."""
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.engine import catalog
from groundplan.engine.paths import PROBLEMS_DIR
from groundplan.engine.problemsets import expand
from groundplan.engine.task import Task
from groundplan.evals.cli import run

ISSUE_NAMES = ["kitchen/async", "kitchen/sync", "kitchen/multiagent", "ppnl/single_5x5", "grasp/inner_spiral_block",
               "babyai/plan", "plancraft/test.small"]


def test_every_shipped_set_has_one_name_and_the_papers_sets_have_theirs():
    sets = catalog.shipped_sets()
    assert set(ISSUE_NAMES) <= set(sets)
    named = {s.path.resolve() for s in sets.values()}
    expected = set()
    for folder in (p for p in PROBLEMS_DIR.iterdir() if p.is_dir() and not p.name.startswith("_")):
        if any(folder.glob("*.json")):
            expected.add(folder.resolve())
        expected |= {p.resolve() for p in folder.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz"))}
    assert named == expected and len(named) == len(sets)
    assert sets["kitchen/async"].world == "kitchen" and sets["blocksworld"].world == "blocksworld"
    assert sets["babyai/plan"].world == "babyai" and sets["kitchen/async"].size() == 100


def test_names_work_from_any_folder_and_reach_one_problem(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refs = expand(["ppnl/single_5x5"])
    assert len(refs) == 250 and all(Path(r.split("#")[0]).is_absolute() for r in refs)
    assert expand(["ppnl/single_5x5#3"]) == [refs[0].split("#")[0] + "#3"]  # a row as a path's row: by number
    kitchen = expand(["kitchen/async"])
    assert len(kitchen) == 100 and kitchen == sorted(kitchen)
    one = Path(kitchen[0]).stem
    assert Task.load(f"kitchen/async/{one}").problem.name == Task.load(kitchen[0]).problem.name
    assert Task.load("ppnl/single_5x5#3").problem.name == Task.load(refs[2]).problem.name


def test_a_path_that_exists_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "kitchen" / "async"
    mine.mkdir(parents=True)
    shutil.copy(PROBLEMS_DIR / "blocksworld" / "sussman.json", mine / "sussman.json")
    assert expand(["kitchen/async"]) == ["kitchen/async"]  # the user's folder, reported as a folder when loaded
    assert expand(["kitchen/async/*.json"]) == ["kitchen/async/sussman.json"]


def test_a_typo_gets_the_nearest_name_and_a_missing_file_its_plain_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(run, ["kitchen/asyn", "--agent", "oracle", "--out", str(tmp_path / "r")])
    assert "no shipped set of that name (did you mean 'kitchen/async'?)" in result.output
    with pytest.raises(Exception, match="check the path"):
        Task.load("nowhere/x.json")


@pytest.mark.slow
def test_list_sets_and_limit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    listed = CliRunner().invoke(run, ["--list-sets"])
    assert listed.exit_code == 0
    rows = {line.split()[0]: line.split() for line in listed.output.splitlines()[1:]}
    assert rows["ppnl/single_5x5"][1:3] == ["ppnl", "250"] and rows["kitchen/async"][1:3] == ["kitchen", "100"]
    result = CliRunner().invoke(run, ["ppnl/single_5x5", "--limit", "3", "--agent", "oracle", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    ids = [json.loads(line)["id"] for line in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    assert len(ids) == 3 and all("single_5x5.jsonl#" in i for i in ids)


def test_paths_of_a_checkout_reach_the_installed_files_from_elsewhere(tmp_path, monkeypatch):
    """The README's `problems/...` and `domains/...` commands after a plain install."""
    from groundplan.engine.loader import load_domain

    monkeypatch.chdir(tmp_path)
    gripper = expand(["problems/gripper/*.json"])
    assert len(gripper) == 4 and all(Path(p).is_file() for p in gripper)
    assert load_domain("domains/blocksworld/domain.json").name == "blocksworld"
    assert Task.load("problems/blocksworld/sussman.json").problem.name == Task.load("blocksworld/sussman").problem.name
    (tmp_path / "problems" / "gripper").mkdir(parents=True)  # a folder of the user's own: theirs, though empty
    assert expand(["problems/gripper/*.json"]) == gripper
