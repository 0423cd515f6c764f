"""Subsets of problem sets: row ranges (`FILE#A-B`, `NAME#A-B`) and `--sample N --seed S`.

A handful of problems must be one option, and the same handful on every machine: the sample is
a sha256 of the seed and each problem's place in its set, so the committed expectation
(tests/expected/sample_5_seed_1.json) fails the day the definition or a set's rows change.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.engine.catalog import shipped_sets
from groundplan.engine.errors import GroundplanError
from groundplan.engine.problemsets import expand, names, sample, stable_key
from groundplan.evals.cli import run as plan_eval

EXPECTED = json.loads((Path(__file__).parent / "expected" / "sample_5_seed_1.json").read_text())


def test_sample_5_seed_1_picks_the_committed_rows():
    for name, picks in EXPECTED["picks"].items():
        assert [stable_key(r) for r in sample(expand([name]), EXPECTED["n"], EXPECTED["seed"])] == picks, name


def test_the_sample_does_not_depend_on_where_the_set_lies(tmp_path):
    """Another machine: the same set file in another folder, reached by its path."""
    source = shipped_sets()["ppnl/single_5x5"].path
    other = tmp_path / "elsewhere" / "ppnl"
    other.mkdir(parents=True)
    shutil.copy(source, other / source.name)
    picked = sample(expand([str(other / source.name)]), 5, 1)
    assert [stable_key(r) for r in picked] == EXPECTED["picks"]["ppnl/single_5x5"]
    assert all(r.startswith(str(other)) for r in picked)


def test_sample_keeps_set_order_and_all_when_n_is_large():
    refs = expand(["kitchen/async"])
    picked = sample(refs, 5, 1)
    assert picked == [r for r in refs if r in picked]
    assert sample(refs, 1000, 1) == refs
    assert sample(refs, 5, 2) != picked


def test_row_ranges_by_path_and_by_name():
    path = str(shipped_sets()["ppnl/single_5x5"].path)
    listed = names(path)
    assert expand(["ppnl/single_5x5#2-4"]) == [f"{path}#{n}" for n in listed[1:4]]
    assert expand([f"{path}#2-4"]) == expand(["ppnl/single_5x5#2-4"])
    assert expand(["ppnl/single_5x5#250-250"]) == [f"{path}#{listed[-1]}"]
    with pytest.raises(GroundplanError, match=r"rows 3-900 are not in the set, whose rows are 1-250"):
        expand(["ppnl/single_5x5#3-900"])
    with pytest.raises(GroundplanError, match="1 <= A <= B"):
        expand(["ppnl/single_5x5#5-2"])


def test_plan_eval_sample_and_ranges(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(plan_eval, ["ppnl/single_5x5", "--sample", "5", "--seed", "1", "--agent", "oracle",
                                            "--out", str(out), "--format", "json", "--steps-to-go-time", "0"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert sorted(stable_key(r["problem_ref"]) for r in rows) == sorted(EXPECTED["picks"]["ppnl/single_5x5"])
    # --sample-seed chooses the rows apart from the run's seed; --limit then cuts the sample
    out2 = tmp_path / "run2"
    result = CliRunner().invoke(plan_eval, ["ppnl/single_5x5", "--sample", "5", "--sample-seed", "1", "--limit", "2",
                                            "--agent", "oracle", "--out", str(out2), "--format", "json", "--steps-to-go-time", "0"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out2 / "episodes.jsonl").read_text().splitlines()]
    assert [stable_key(r["problem_ref"]) for r in rows] == EXPECTED["picks"]["ppnl/single_5x5"][:2]
    bad = CliRunner().invoke(plan_eval, ["ppnl/single_5x5#0-3", "--agent", "oracle", "--out", str(tmp_path / "bad")])
    assert bad.exit_code == 2 and "rows 0-3 are not in the set" in bad.output and "Traceback" not in bad.output
