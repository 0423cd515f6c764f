"""Issue 31, "References that hold": answer keys and stored optima are checked against the world
before anything is scored against them, and an episode that beats a proven optimum is flagged.

Each defect is shown on a shipped row mutated in a temporary copy (a few rows, not whole sets):
a BabyAI Predict target, a Plan row's expert actions one short, a Decompose help count,
Plancraft's impossible label flipped both ways, gripper prob01's optimum stored as 9 (or 13)."""
import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.engine.cli import main as groundplan
from groundplan.engine.task import Task
from groundplan.engine.validate import check_references
from groundplan.evals.cli import run as plan_eval
from groundplan.evals.summary import markdown, summarise, to_csv

ROOT = Path(__file__).resolve().parent.parent
BABYAI = {"predict": "GoToObj-s1", "plan": "GoToRedBall-Small-4Dists-s1", "decompose": "GoToObj-s1"}
CRAFT_POSSIBLE, CRAFT_IMPOSSIBLE = "TEST0289", "TEST0303"  # test.small: paper (4 actions), and an impossible row


def _small_set(source: Path, names: list[str], folder: Path, out_name: str, mutate=None) -> Path:
    """A copy of `source` with its header, its group lines and only the rows named, read up to
    the last of them (the shipped sets are large); `mutate(row)` edits each row kept (in place)."""
    kept, wanted = [], set(names)
    with (gzip.open(source, "rt", encoding="utf-8") if source.suffix == ".gz" else source.open(encoding="utf-8")) as lines:
        for line in lines:
            data = json.loads(line)
            if "name" not in data:
                kept.append(line.rstrip("\n"))
            elif data["name"] in wanted:
                if mutate is not None:
                    mutate(data)
                kept.append(json.dumps(data))
                wanted.discard(data["name"])
                if not wanted:
                    break
    path = folder / out_name
    path.write_text("\n".join(kept) + "\n")
    return path


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """Unmutated copies: one BabyAI row per task and two Plancraft rows."""
    folder = tmp_path_factory.mktemp("keys")
    out = {kind: _small_set(ROOT / f"problems/babyai/{kind}.jsonl.gz", [name], folder, f"{kind}.jsonl")
           for kind, name in BABYAI.items()}
    out["plancraft"] = _small_set(ROOT / "problems/plancraft/test.small.jsonl", [CRAFT_POSSIBLE, CRAFT_IMPOSSIBLE],
                                  folder, "craft.jsonl")
    return out


def _mutated(shipped, tmp_path, kind: str, edit) -> Path:
    names = [BABYAI[kind]] if kind in BABYAI else [CRAFT_POSSIBLE, CRAFT_IMPOSSIBLE]
    return _small_set(shipped[kind], names, tmp_path, f"{kind}-mutated.jsonl", edit)


def _meta(key, change, only=None):
    def edit(row):
        if only is None or row["name"] == only:
            row["metadata"][key] = change(row["metadata"][key])
    return edit


def _shorter(actions: str) -> str:
    return ", ".join(actions.split(", ")[:-1])


def test_the_shipped_rows_hold(shipped):
    for kind, path in shipped.items():
        names = [BABYAI[kind]] if kind in BABYAI else [CRAFT_POSSIBLE, CRAFT_IMPOSSIBLE]
        for name in names:
            assert check_references(Task.load(f"{path}#{name}")) == [], (kind, name)


MUTATIONS = {
    # a Predict target moved one cell: the oracle would score 1.0 against the wrong key
    "predict target": ("predict", _meta("target", lambda t: [[t[0][0] + 1, t[0][1]], t[1]]), "/metadata/target",
                       "set the target to [["),
    # the expert one action short: it no longer reaches the goal, and efficiency divides by the wrong length
    "plan expert one short": ("plan", _meta("expert_actions", _shorter), "/metadata/expert_actions", "whole action sequence"),
    # one action after the goal: the goal holds before the last step, so the length is not what the metrics use
    "plan expert one long": ("plan", _meta("expert_actions", lambda a: a + ", left"), "/metadata/expert_actions",
                             "keep the first"),
    "plan target not the ball": ("plan", _meta("target_subgoal", lambda t: [t[0], t[1] + 1]), "/metadata/target_subgoal",
                                 "set it to"),
    "decompose help count": ("decompose", _meta("help_count", lambda h: h + 1), "/metadata/help_count", "set help_count to"),
    # labelled impossible with a valid stored plan, and labelled possible though proven unsolvable
    "craft possible labelled impossible": ("plancraft", _meta("impossible", lambda v: True, CRAFT_POSSIBLE),
                                           "/metadata/impossible", "set impossible to false"),
    "craft impossible labelled possible": ("plancraft", _meta("impossible", lambda v: False, CRAFT_IMPOSSIBLE),
                                           "/metadata/impossible", "set impossible to true"),
    "craft reference actions": ("plancraft", _meta("reference_actions", lambda n: n - 1, CRAFT_POSSIBLE),
                                "/metadata/reference_actions", "set reference_actions to 4"),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_mutated_answer_key_is_refused_where_it_is(shipped, tmp_path, mutation):
    kind, edit, where, hint = MUTATIONS[mutation]
    path = _mutated(shipped, tmp_path, kind, edit)
    found = []
    for name in ([BABYAI[kind]] if kind in BABYAI else [CRAFT_POSSIBLE, CRAFT_IMPOSSIBLE]):
        found += check_references(Task.load(f"{path}#{name}"))
    assert found, mutation
    first = found[0]
    assert first.pointer == where, found
    assert first.file.startswith(str(path) + ":")  # the set file and the row's line
    assert "row '" in first.message and hint in (first.hint or ""), first


def test_groundplan_validate_and_plan_eval_refuse_a_wrong_answer_key(shipped, tmp_path):
    path = _mutated(shipped, tmp_path, "predict", _meta("target", lambda t: [t[0], (t[1] + 1) % 4]))
    ref = f"{path}#{BABYAI['predict']}"
    result = CliRunner().invoke(groundplan, ["validate", ref])
    assert result.exit_code == 1 and "/metadata/target" in result.output, result.output
    result = CliRunner().invoke(plan_eval, [str(path), "--agent", "oracle", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert "could not be loaded" in result.output and "/metadata/target" in result.output


def _gripper(folder: Path, cost) -> Path:
    data = json.loads((ROOT / "problems/gripper/prob01.json").read_text())
    data["domain"] = "gripper"
    data["optimal"]["cost"] = cost
    path = folder / f"prob01-{cost}.json"
    path.write_text(json.dumps(data))
    return path


def test_an_optimum_stored_without_a_plan_is_re_proven(tmp_path):
    assert CliRunner().invoke(groundplan, ["validate", str(ROOT / "problems/gripper/prob01.json")]).exit_code == 0
    wrong = _gripper(tmp_path, 9)  # the oracle's 11 steps would score 9/11 against it, silently
    result = CliRunner().invoke(groundplan, ["validate", str(wrong)])
    assert result.exit_code == 1 and "/optimal/cost" in result.output and "the optimum is 11" in result.output
    result = CliRunner().invoke(plan_eval, [str(wrong), "--agent", "oracle", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1 and "the optimum is 11" in result.output


def test_an_unverified_optimum_is_marked_and_an_episode_below_a_proven_one_fails_the_run(tmp_path, monkeypatch):
    """A search that proves nothing in time leaves the stored 13 unverified; the oracle's 11 steps
    then prove it wrong: the line says so, the summary names the problem, and the exit code is 1."""
    import groundplan.planners.reference as PR
    from groundplan.planners.result import TIMEOUT, PlanResult

    monkeypatch.setattr(PR, "_search", lambda task, seconds: PlanResult(TIMEOUT, "bfs", reason="made up by the test"))
    path = _gripper(tmp_path, 13)
    result = CliRunner().invoke(groundplan, ["validate", str(path)])
    assert result.exit_code == 0 and "not re-proven" in result.output
    folder = tmp_path / "r"
    result = CliRunner().invoke(plan_eval, [str(path), "--agent", "oracle", "--out", str(folder), "--format", "json"])
    assert result.exit_code == 1, result.output
    line = json.loads((folder / "episodes.jsonl").read_text())
    assert line["success"] and line["cost"] == 11 and line["reference_cost"] == 13
    assert line["beats_reference"] is True and "below the proven optimum 13" in line["beats_reference_message"]
    assert "not re-proven" in line["reference_unverified"]
    summary = summarise([line])
    entry = summary["by_set"][0]
    assert entry["reference_unverified"] == 1 and entry["beats_reference"] == 1
    assert any("unverified optimum" in n and "prob01-13.json" in n for n in summary["notes"])
    assert any("proven optimum" in n and "prob01-13.json" in n for n in summary["notes"])
    assert "reference_unverified" in to_csv(summary).splitlines()[0]
    assert "unverified optimum" in markdown(summary)
    assert json.loads((folder / "summary.json").read_text())["by_set"][0]["beats_reference"] == 1
    assert "below a proven optimum" in result.stderr
