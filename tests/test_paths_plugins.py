"""Which files a problem can make groundplan read, and which Python a domain can make it import.

Issue 18, items 10 and 11: plug-ins were chosen by the domain's *name* (any file could claim
"grasp"), a problem's "domain" was also looked up in the working directory (a stray
./blocksworld/domain.json replaced the shipped world), a non-groundplan file named as a domain
had its keys echoed in error messages, and a replayed problem's name could lead out of --plans.
"""
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.agents import Limits, make_agent, run_episode
from groundplan.engine import problemsets
from groundplan.engine.cli import main
from groundplan.engine.errors import ModelError
from groundplan.engine.loader import load_domain, load_problem, plugin_world, resolve_domain_reference, world_module
from groundplan.engine.paths import DOMAINS_DIR, PROBLEMS_DIR
from groundplan.engine.task import Task
from groundplan.evals.metrics import episode_row

SUSSMAN = PROBLEMS_DIR / "blocksworld" / "sussman.json"
BLOCKS = json.loads((DOMAINS_DIR / "blocksworld" / "domain.json").read_text())
SUSSMAN_PLAN = "unstack c a\nput-down c\npick-up b\nstack b c\npick-up a\nstack a b\n"


def _sussman_against(tmp_path: Path, domain: dict) -> Task:
    """The Sussman problem in tmp_path, against a copy of blocksworld saved beside it."""
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    problem = json.loads(SUSSMAN.read_text())
    problem["domain"] = "domain.json"
    (tmp_path / "p.json").write_text(json.dumps(problem))
    return Task.load(str(tmp_path / "p.json"))


# ============================================================== plug-ins follow the file
@pytest.mark.parametrize("name", ["grasp", "x..y", "plancraft"])
def test_a_domain_does_not_get_plug_ins_by_claiming_a_name(tmp_path, name):
    task = _sussman_against(tmp_path, dict(BLOCKS, name=name))
    assert task.domain.plugin_world is None
    for kind in ("metrics", "replies", "text", "baselines", "questions"):
        assert world_module(task.domain, kind) is None
    episode = run_episode(task, make_agent("oracle"))
    assert episode.success and episode.error is None  # GRASP's text or replies would break the walk
    row = episode_row(task, episode)  # GRASP's metrics crashed here; 'x..y' raised ModuleNotFoundError
    assert "grasp" not in row and "plancraft" not in row


def test_plan_eval_asks_a_renamed_domain_for_its_own_baselines(tmp_path):
    """A blocksworld copy named 'grasp' has no baselines: refused before the run, not at its first episode."""
    from groundplan.evals.cli import run

    _sussman_against(tmp_path, dict(BLOCKS, name="grasp"))
    result = CliRunner().invoke(run, [str(tmp_path / "p.json"), "--agent", "baseline:greedy", "--out", str(tmp_path / "r")])
    assert result.exit_code != 0 and "no baselines" in result.output
    assert not (tmp_path / "r" / "episodes.jsonl").exists()


def test_python_beside_a_domain_outside_the_installed_worlds_is_never_imported(tmp_path):
    marker = tmp_path / "imported"
    (tmp_path / "metrics.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (tmp_path / "replies.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    task = _sussman_against(tmp_path, dict(BLOCKS, name="mine"))
    episode = run_episode(task, make_agent("random"), Limits(max_steps=3), seed=1)
    episode_row(task, episode, steps_to_go_time=0)
    assert world_module(task.domain, "metrics") is None and not marker.exists()


def test_a_domain_loaded_from_data_has_no_plug_ins():
    domain = load_domain(json.loads((DOMAINS_DIR / "grasp" / "domain.json").read_text()))
    assert domain.name == "grasp" and domain.plugin_world is None
    assert world_module(domain, "metrics") is None


def test_names_that_are_no_installed_world_give_no_module():
    for name in ("x..y", "", "..", "../grasp", "grasp/../plancraft", "nowhere", "os"):
        assert world_module(name, "metrics") is None
    assert world_module("grasp", "x.y") is None
    assert world_module("grasp", "metrics") is not None  # an installed world by its folder's name


def _first(path: Path) -> str:
    return f"{path}#{problemsets.names(str(path))[0]}"


@pytest.mark.parametrize("ref, modules", [
    ("problems/grasp/inner_cluster_free.jsonl", ["metrics", "baselines"]),
    ("problems/ppnl/single_5x5.jsonl", ["metrics", "text"]),
    ("problems/plancraft/val.small.jsonl", ["metrics", "baselines", "replies", "text", "prompting"]),
    ("problems/babyai/decompose.jsonl.gz", ["metrics", "questions", "text"]),
    ("problems/sync/01_cheese_sandwich_s42.json", []),
    ("problems/gridnav/room8-10.json", []),
])
def test_every_shipped_world_still_finds_its_plug_ins(ref, modules):
    path = PROBLEMS_DIR.parent / ref
    task = Task.load(_first(path) if ".jsonl" in path.name else str(path))
    world = Path(task.domain.file).resolve().parent.name
    assert task.domain.plugin_world == world
    for kind in modules:
        assert world_module(task.domain, kind) is not None, kind


def test_a_domain_file_anywhere_inside_an_installed_world_belongs_to_it(tmp_path, monkeypatch):
    worlds = tmp_path / "domains"
    (worlds / "mini" / "variants").mkdir(parents=True)
    (worlds / "mini" / "domain.json").write_text("{}")
    (worlds / "mini" / "variants" / "small.json").write_text("{}")
    (worlds / "not-a-module").mkdir()
    (worlds / "not-a-module" / "domain.json").write_text("{}")
    monkeypatch.setattr("engine.loader.DOMAINS_DIR", worlds)
    assert plugin_world((worlds / "mini" / "variants" / "small.json").resolve()) == "mini"
    assert plugin_world((worlds / "mini" / "domain.json").resolve()) == "mini"
    assert plugin_world((worlds / "not-a-module" / "domain.json").resolve()) is None
    assert plugin_world((tmp_path / "domain.json").resolve()) is None


# ============================================================== where a problem's domain is looked for
def test_a_domain_in_the_working_directory_does_not_replace_a_shipped_world(tmp_path, monkeypatch):
    (tmp_path / "blocksworld").mkdir()
    (tmp_path / "blocksworld" / "domain.json").write_text(json.dumps(dict(BLOCKS, name="impostor")))
    monkeypatch.chdir(tmp_path)
    problem = load_problem(SUSSMAN)
    assert problem.domain.name == "blocksworld"
    assert Path(problem.domain.file).resolve() == (DOMAINS_DIR / "blocksworld" / "domain.json").resolve()


def test_a_problem_given_as_data_does_not_read_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "mine.json").write_text(json.dumps(BLOCKS))
    monkeypatch.chdir(tmp_path)
    data = dict(json.loads(SUSSMAN.read_text()), domain="mine.json")
    with pytest.raises(ModelError) as info:
        load_problem(data)
    (d,) = info.value.diagnostics
    assert d.pointer == "/domain" and "not found" in d.message and "absolute path" in d.hint
    assert load_problem(dict(data, domain=str(tmp_path / "mine.json"))).domain.name == "blocksworld"


def test_a_problem_names_its_domain_beside_above_or_away_from_itself(tmp_path):
    (tmp_path / "domain.json").write_text(json.dumps(BLOCKS))
    (tmp_path / "problems" / "x").mkdir(parents=True)
    problem = json.loads(SUSSMAN.read_text())
    for where, ref in ((tmp_path, "domain.json"), (tmp_path / "problems" / "x", "../../domain.json"),
                       (tmp_path / "problems", str(tmp_path / "domain.json")), (tmp_path / "problems", "..")):
        (where / "p.json").write_text(json.dumps(dict(problem, domain=ref)))
        assert load_problem(where / "p.json").domain.name == "blocksworld", ref
    assert resolve_domain_reference("blocksworld", None) == DOMAINS_DIR / "blocksworld" / "domain.json"
    assert resolve_domain_reference("../domains/blocksworld", None) is None  # a path, not a world's name


@pytest.mark.parametrize("content", [
    {"db_password": "hunter2", "api_key": "sk-live-123"},
    ["hunter2", "sk-live-123"],
    "hunter2",
])
def test_a_file_that_is_no_groundplan_domain_is_named_but_not_echoed(tmp_path, content):
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "config.json").write_text(json.dumps(content))
    (tmp_path / "work").mkdir()
    problem = dict(json.loads(SUSSMAN.read_text()), domain="../secret/config.json")
    (tmp_path / "work" / "p.json").write_text(json.dumps(problem))
    with pytest.raises(ModelError) as info:
        load_problem(tmp_path / "work" / "p.json")
    text = str(info.value)
    assert "not a groundplan domain" in text and "config.json" in text
    for leak in ("db_password", "hunter2", "api_key", "sk-live"):
        assert leak not in text
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "work" / "p.json")])
    assert result.exit_code != 0 and "not a groundplan domain" in result.output
    assert "hunter2" not in result.output and "db_password" not in result.output and "Traceback" not in result.output


def test_a_problem_named_as_a_domain_says_so(tmp_path):
    shutil.copy(SUSSMAN, tmp_path / "other.json")
    problem = dict(json.loads(SUSSMAN.read_text()), domain="other.json")
    (tmp_path / "p.json").write_text(json.dumps(problem))
    with pytest.raises(ModelError, match="a groundplan problem, not a domain"):
        load_problem(tmp_path / "p.json")


# ============================================================== replayed plans stay in their folder
def _named(tmp_path: Path, name: str) -> Task:
    problem = dict(json.loads(SUSSMAN.read_text()), name=name, domain=str(DOMAINS_DIR / "blocksworld"))
    (tmp_path / "p.json").write_text(json.dumps(problem))
    return Task.load(str(tmp_path / "p.json"))


def test_replay_never_reads_a_plan_outside_its_folder(tmp_path):
    (tmp_path / "plans").mkdir()
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "outside.plan").write_text(SUSSMAN_PLAN)
    episode = run_episode(_named(tmp_path, "../secret/outside"), make_agent("replay", plans=str(tmp_path / "plans")))
    assert not episode.success
    assert "outside the plans folder" in episode.error and "unstack" not in json.dumps(episode.to_json())
    (tmp_path / "plans" / "escape.plan").symlink_to(tmp_path / "secret" / "outside.plan")
    episode = run_episode(_named(tmp_path, "escape"), make_agent("replay", plans=str(tmp_path / "plans")))
    assert not episode.success and "outside the plans folder" in episode.error


def test_replay_still_finds_plans_in_subfolders_and_by_flattened_names(tmp_path):
    (tmp_path / "plans" / "set").mkdir(parents=True)
    (tmp_path / "plans" / "set" / "p1.plan").write_text(SUSSMAN_PLAN)
    (tmp_path / "plans" / "set__p2.plan").write_text(SUSSMAN_PLAN)
    for name in ("set/p1", "set/p2"):
        assert run_episode(_named(tmp_path, name), make_agent("replay", plans=str(tmp_path / "plans"))).success, name


def test_the_summary_asks_the_plug_in_that_scored_the_rows_not_the_domain_name():
    """Rows of a blocksworld copy named 'grasp' (no plug-in) must not get GRASP's summary columns."""
    from groundplan.evals.summary import _plugin_columns

    rows = [{"world": "grasp", "plugin_world": None, "success": True, "steps": 3}]
    assert _plugin_columns(rows) == {}
