"""The imported GRASP problem sets: counts, names, the recorded axis swap, licence, and the
importer's handling of bad input (clear errors naming file, line and pointer)."""
import json
import statistics
from collections import Counter

import pytest

from groundplan.domains.grasp import environments, generate
from groundplan.domains.grasp.grid import Grid, from_text, to_text
from groundplan.engine import Task, problemsets

FOLDER = environments.PROBLEMS


@pytest.fixture(scope="module")
def envs():
    return environments.load()


@pytest.mark.slow
def test_16000_environments_in_160_settings_of_100_grids(envs):
    files = sorted(p.stem for p in FOLDER.glob("*.jsonl"))
    assert len(files) == 20 and set(files) == {f"{s}_{d}_{o}" for s in ("inner", "outer")
                                               for d in ("random", "upDown", "leftRight", "cluster", "spiral")
                                               for o in ("block", "free")}
    assert len(envs) == 16000
    settings = Counter((e.tag, e.rules["moves"], e.rules["carry_limit"], e.rules["step_cost"]) for e in envs)
    assert len(settings) == 160 and set(settings.values()) == {100}
    assert {e.index for e in envs} == set(range(100))


def test_a_problem_loads_in_the_engine_and_its_stored_plan_reaches_its_goal():
    ref = f"{FOLDER / 'outer_spiral_block.jsonl'}#grid42-mu2-limit2-cost0.3"
    task = Task.load(ref)
    assert task.problem.max_steps == 20 and task.problem.settings["carry_limit"] == 2
    state = task.initial_state()
    for word in task.problem.optimal["plan"]:
        result = task.step(state, task.parse_action(word, state))
        assert result.valid
        state = result.state
    assert task.is_goal(state)


def test_the_axis_swap_is_recorded_and_visible_in_the_data(envs):
    header = json.loads((FOLDER / "inner_upDown_free.jsonl").read_text().splitlines()[0])
    assert "COLUMNS" in header["defaults"]["description"] and "Apache-2.0" in header["defaults"]["license"]
    grids = {}
    for e in envs:
        if e.tag.split("_")[1] in ("upDown", "leftRight"):
            grids[(e.tag, e.index)] = e.grid
    def gaps(tag_part):
        chosen = [g for (tag, _), g in grids.items() if tag.split("_")[1] == tag_part]
        return generate.density_split(chosen)
    up_down, left_right = gaps("upDown"), gaps("leftRight")
    # upDown files split by columns, leftRight files by rows (the paper's text says the reverse)
    assert up_down["columns"] > 0.2 > up_down["rows"]
    assert left_right["rows"] > 0.2 > left_right["columns"]


def test_dataset_sanity_figures_of_the_spec(envs):
    """Spec 9D: about 12.1 obstacles in block grids; 55% of outer starts in corner cells."""
    grids = {(e.tag, e.index): e.grid for e in envs}
    block = [len(g.obstacles) for (tag, _), g in grids.items() if tag.endswith("block")]
    assert statistics.mean(block) == pytest.approx(12.1, abs=0.3)
    assert all(not g.obstacles for (tag, _), g in grids.items() if tag.endswith("free"))
    outer = [g.start for (tag, _), g in grids.items() if tag.startswith("outer")]
    corner = sum(1 for r, c in outer if (r < 3 or r > 7) and (c < 3 or c > 7))
    assert corner == 553
    assert all(3 <= r <= 7 and 3 <= c <= 7 for (tag, _), g in grids.items() if tag.startswith("inner") for r, c in [g.start])


def test_the_drawing_round_trips_in_the_reference_format():
    grid = Grid((1, 2), frozenset({(0, 0)}), {(0, 2): 1, (10, 10): 1})
    text = to_text(grid)
    lines = text.split("\n")
    assert lines[0] == "    0   1   2   3   4   5   6   7   8   9   10 "
    assert lines[2] == " 0| O |   | E |   |   |   |   |   |   |   |   |"
    assert lines[2 + 2 * 10][4 + 4 * 10] == "E" and text.endswith("+\n")
    assert from_text(text) == grid


def _release(tmp_path, tag="inner_random_free", rows=None):
    folder = tmp_path / "grids"
    folder.mkdir(exist_ok=True)
    grid = Grid((4, 4), frozenset(), {(4, 5): 1})
    row = {"index": 0, "energy": "random", "energy_probability": 0.5, "obstacle": "free", "start_position": "inner",
           "grid": to_text(grid), "start": [4, 4]}
    rows = rows if rows is not None else [dict(row, index=i) for i in range(100)]
    (folder / f"{tag}.jsonl").write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return folder, row


def test_the_importer_writes_a_loadable_set(tmp_path):
    folder, _ = _release(tmp_path)
    out = tmp_path / "out"
    assert generate.main(["--source", str(folder), "--out", str(out), "--only", "inner_random_free"]) == 0
    names = problemsets.names(str(out / "inner_random_free.jsonl"))
    assert len(names) == 800 and names[0] == "grid00-mu1-nolimit-cost0"
    data, _ = problemsets.read_problem(f"{out / 'inner_random_free.jsonl'}#grid99-mu2-limit2-cost0")
    assert data["metadata"]["optimum_score"] == 1 and data["optimal"]["plan"] == ["RIGHT", "TAKE", "LEFT", "DROP"]
    data, _ = problemsets.read_problem(f"{out / 'inner_random_free.jsonl'}#grid99-mu2-limit2-cost0.3")
    assert data["metadata"]["optimum_score"] == 0 and data["optimal"]["plan"] == []   # 1 - 4 x 0.3 < 0


@pytest.mark.parametrize("change, where", [
    (lambda row: "{not json", ":1: not valid JSON"),
    (lambda row: dict(row, start=[4, 11]), ":1#/start"),
    (lambda row: dict(row, energy="spiral"), ":1#/energy"),
    (lambda row: dict(row, grid=row["grid"].replace(" A ", " X ")), ":1#/grid"),
    (lambda row: {k: v for k, v in row.items() if k != "grid"}, ":1#: missing keys ['grid']"),
])
def test_bad_released_data_gives_a_clear_error(tmp_path, capsys, change, where):
    folder, row = _release(tmp_path)
    _release(tmp_path, rows=[change(row)] + [dict(row, index=i) for i in range(1, 100)])
    assert generate.main(["--source", str(folder), "--out", str(tmp_path / "o"), "--only", "inner_random_free"]) == 1
    err = capsys.readouterr().err
    assert "inner_random_free.jsonl" + where in err and "Traceback" not in err


def test_a_missing_file_is_reported(tmp_path, capsys):
    assert generate.main(["--source", str(tmp_path), "--out", str(tmp_path / "o"), "--only", "outer_spiral_free"]) == 1
    assert "outer_spiral_free.jsonl: file not found" in capsys.readouterr().err
