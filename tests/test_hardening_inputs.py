"""Inputs that are readable but make no sense, and paths that are no ordinary file.

Each test here is a regression test for a way bad input used to get through: a device or a
named pipe given as a problem (a read that never ends), a stored reference (`optimal`) whose
cost or plan is wrong, which silently skews every score computed against it, values with no
meaning (negative or fractional durations, negative costs, a JSON key written twice), control
characters inside a plan, and errors that ignored the documented exit codes or `--json`.
"""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.engine.cli import main
from groundplan.engine.errors import ModelError
from groundplan.engine.files import MAX_FILE_BYTES, read_data
from groundplan.engine.loader import load_domain, load_problem
from groundplan.engine.task import Task
from groundplan.engine.validate import check_references, parse_plan_text, read_plan

ROOT = Path(__file__).resolve().parent.parent
SUSSMAN = json.loads((ROOT / "problems" / "blocksworld" / "sussman.json").read_text())
BLOCKS = json.loads((ROOT / "domains" / "blocksworld" / "domain.json").read_text())
KITCHEN = ROOT / "problems" / "async" / "01_cheese_chicken_sandwich_s42.json"
SUSSMAN_PLAN = ["unstack c from a", "put down c", "pick up b", "stack b on c", "pick up a", "stack a on b"]


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def run_process(*args, timeout=20):
    """The real command in a child process: a regression that blocks fails here instead of hanging."""
    return subprocess.run([sys.executable, "-m", "groundplan.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def sussman(**optimal) -> dict:
    doc = copy.deepcopy(SUSSMAN)
    doc["optimal"] = {"method": "test", **optimal}
    return doc


def reference_errors(doc: dict) -> list:
    """The diagnostics of a problem's stored reference: refused on loading when they are plain
    from the entry alone, by check_references otherwise."""
    try:
        task = Task(load_problem(doc))
    except ModelError as exc:
        return exc.diagnostics
    return check_references(task)


# ------------------------------------------------------------------ paths that are no ordinary file
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_at_once():
    done = run_process("validate", "/dev/zero")
    assert done.returncode == 2 and "not a regular file" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("name", ["problem.json", "set.jsonl", "plan.txt"])
def test_a_named_pipe_is_refused_without_blocking(tmp_path, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    args = ["validate", "problems/blocksworld/sussman.json", fifo] if name == "plan.txt" else ["validate", fifo]
    done = run_process(*args)
    assert done.returncode == 2 and "not a regular file" in done.stderr and "Traceback" not in done.stderr


def test_an_oversized_file_is_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: instant, and takes no disk space
    with pytest.raises(ModelError) as info:
        read_data(huge)
    assert info.value.malformed and "larger than" in str(info.value)
    code, out = run("validate", huge)
    assert code == 2 and "larger than" in out
    plan = tmp_path / "huge.plan"
    os.link(huge, plan)
    code, out = run("validate", "problems/blocksworld/sussman.json", plan)
    assert code == 2 and "larger than" in out
    big_set = tmp_path / "huge.jsonl"
    os.link(huge, big_set)
    code, out = run("validate", f"{big_set}#1")
    assert code == 2 and "larger than" in out


def test_the_size_limit_is_documented():
    assert f"{MAX_FILE_BYTES // 2**20} MB" in (ROOT / "docs" / "language.md").read_text()


# ------------------------------------------------------------------ duplicate keys
def test_a_duplicate_key_in_json_names_the_duplicate(tmp_path):
    text = json.dumps(SUSSMAN)[:-1] + ', "goal": ["on", "a", "b"]}'
    with pytest.raises(ModelError) as info:
        load_problem(write(tmp_path / "p.json", text))
    (d,) = info.value.diagnostics
    assert d.pointer == "/goal" and "duplicate key 'goal'" in d.message and d.hint
    code, out = run("validate", tmp_path / "p.json", "--json")
    assert code == 1 and json.loads(out)["diagnostics"][0]["pointer"] == "/goal"


def test_a_duplicate_action_in_a_domain(tmp_path):
    text = json.dumps(BLOCKS)
    stack = json.dumps(BLOCKS["actions"]["stack"])
    text = text.replace('"actions": {', '"actions": {"stack": ' + stack + ", ", 1)
    with pytest.raises(ModelError) as info:
        load_domain(write(tmp_path / "d.json", text))
    assert [d.pointer for d in info.value.diagnostics] == ["/actions/stack"]


def test_a_duplicate_key_in_yaml(tmp_path):
    (tmp_path / "p.yaml").write_text("groundplan: '1'\nname: x\ndomain: blocksworld\nobjects: {a: block}\n"
                                     "goal: [clear, a]\ngoal: [ontable, a]\n", encoding="utf-8")
    with pytest.raises(ModelError) as info:
        load_problem(tmp_path / "p.yaml")
    assert [d.pointer for d in info.value.diagnostics] == ["/goal"]


def test_yaml_merge_keys_are_not_duplicates(tmp_path):
    (tmp_path / "p.yaml").write_text("groundplan: '1'\nname: x\ndomain: blocksworld\nobjects: {a: block}\n"
                                     "base: &b {x: 1}\nmetadata: {<<: *b, x: 2}\ngoal: [clear, a]\n", encoding="utf-8")
    data = read_data(tmp_path / "p.yaml")
    assert data["metadata"] == {"x": 2}


def test_a_duplicate_key_in_a_problem_set_line(tmp_path):
    line = json.dumps(dict(SUSSMAN, name="one"))[:-1] + ', "name": "two"}'
    write(tmp_path / "s.jsonl", line + "\n")
    code, out = run("validate", f"{tmp_path / 's.jsonl'}#1")
    assert code == 1 and "s.jsonl:1#/name: duplicate key 'name'" in out


# ------------------------------------------------------------------ values that make no sense
@pytest.mark.parametrize("value, words", [(-7, "negative"), (2.5, "whole number")])
def test_a_senseless_timer_duration_from_a_problem_setting(tmp_path, value, words):
    doc = json.loads(KITCHEN.read_text())
    doc["settings"] = {"cook_time": value}
    code, out = run("validate", write(tmp_path / "k.json", doc))
    assert code == 1 and "k.json#/settings/cook_time:" in out and words in out


@pytest.mark.parametrize("value, words", [(-1, "negative"), (0.5, "whole number")])
def test_a_senseless_literal_timer_duration(value, words):
    doc = copy.deepcopy(BLOCKS)
    doc["timers"] = {"t": {"duration": value}}
    with pytest.raises(ModelError) as info:
        load_domain(doc)
    (d,) = info.value.diagnostics
    assert d.pointer == "/timers/t/duration" and words in d.message


def test_a_negative_setting_default_used_as_a_duration():
    doc = copy.deepcopy(BLOCKS)
    doc["settings"] = {"t": {"default": -2}}
    doc["timers"] = {"t": {"duration": {"setting": "t"}}}
    with pytest.raises(ModelError) as info:
        load_domain(doc)
    assert [d.pointer for d in info.value.diagnostics] == ["/settings/t/default"]


def test_a_negative_action_cost():
    doc = copy.deepcopy(BLOCKS)
    doc["actions"]["stack"]["cost"] = -1
    with pytest.raises(ModelError) as info:
        load_domain(doc)
    (d,) = info.value.diagnostics
    assert d.pointer == "/actions/stack/cost" and "negative" in d.message


def test_a_negative_cost_through_a_problem_setting():
    domain = copy.deepcopy(BLOCKS)
    domain["settings"] = {"price": {"default": 1}}
    domain["actions"]["stack"]["cost"] = {"setting": "price"}
    loaded = load_domain(domain)
    with pytest.raises(ModelError) as info:
        load_problem(dict(SUSSMAN, settings={"price": -3}), loaded)
    assert [d.pointer for d in info.value.diagnostics] == ["/settings/price"]


def test_computed_durations_are_left_to_run_time():
    """An expression the loader cannot evaluate alone (here: out of float range) is not refused."""
    doc = copy.deepcopy(BLOCKS)
    doc["timers"] = {"t": {"duration": {"*": [1e15] * 25}}}
    load_domain(doc)


# ------------------------------------------------------------------ plans
@pytest.mark.parametrize("text, pointer", [
    ("unstack c from a\nput down\x00 c\n", "/1"),
    ('["unstack c from a", "put down c\\u0000"]', "/1"),
    ("unstack c\x1b[31m from a\n", "/0"),
])
def test_a_control_character_in_a_plan_is_refused(tmp_path, text, pointer):
    with pytest.raises(ModelError) as info:
        parse_plan_text(text, "p.plan")
    (d,) = info.value.diagnostics
    assert d.pointer == pointer and "control character" in d.message and not info.value.malformed
    plan = tmp_path / "p.plan"
    plan.write_text(text, encoding="utf-8")
    code, out = run("validate", "problems/blocksworld/sussman.json", plan)
    assert code == 1 and "control character" in out


def test_tabs_and_comments_in_a_line_plan_are_fine():
    assert parse_plan_text("unstack c from a\t# first\n\tput down c\n; note\n") == ["unstack c from a", "put down c"]


def test_an_unreadable_plan_exits_2_for_every_command(tmp_path):
    missing = tmp_path / "missing.plan"
    latin = tmp_path / "latin.plan"
    latin.write_bytes("pick up b \xe9\n".encode("latin-1"))
    for plan in (missing, latin):
        with pytest.raises(ModelError) as info:
            read_plan(plan)
        assert info.value.malformed
        assert run("validate", "problems/blocksworld/sussman.json", plan)[0] == 2
        assert run("show", "problems/blocksworld/sussman.json", "--after", plan)[0] == 2
        assert run("actions", "problems/blocksworld/sussman.json", "--after", plan)[0] == 2


def test_an_invalid_plan_exits_1_for_every_command(tmp_path):
    bad = write(tmp_path / "bad.plan", "fly away\n")
    assert run("validate", "problems/blocksworld/sussman.json", bad)[0] == 1
    assert run("show", "problems/blocksworld/sussman.json", "--after", bad)[0] == 1
    assert run("actions", "problems/blocksworld/sussman.json", "--after", bad)[0] == 1
    not_a_list = write(tmp_path / "obj.plan", '["a", 1]')
    assert run("validate", "problems/blocksworld/sussman.json", not_a_list)[0] == 1


# ------------------------------------------------------------------ --json
@pytest.mark.parametrize("args, code", [
    (["validate", "missing.json", "--json"], 2),
    (["validate", "problems/blocksworld/sussman.json", "missing.plan", "--json"], 2),
    (["plan", "domains/blocksworld/domain.json", "--json"], 1),  # a domain where a problem belongs
    (["actions", "missing.json", "--json"], 2),
    (["actions", "problems/blocksworld/sussman.json", "--after", "missing.plan", "--json"], 2),
    (["plan", "missing.json", "--json"], 2),
    (["validate", "--json"], 2),  # a usage error
])
def test_errors_come_out_as_json_with_json(args, code):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == code, result.output
    data = json.loads(result.stdout)
    assert data["valid"] is False and data["exit_code"] == code and data["error"]
    if code == 2 and args[1] != "--json":
        assert data["diagnostics"] and {"file", "pointer", "message", "hint"} <= set(data["diagnostics"][0])


def test_json_error_of_an_invalid_after_plan(tmp_path):
    bad = write(tmp_path / "bad.plan", "fly away\n")
    result = CliRunner().invoke(main, ["actions", "problems/blocksworld/sussman.json", "--after", str(bad), "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["valid"] is False and "unknown action" in data["error"]


def test_exit_codes_are_documented_alike():
    """README and the language reference give the same meaning to 1 and 2."""
    docs = (ROOT / "docs" / "language.md").read_text()
    assert "for `show`, `actions`, `play`, `check` and `plan` also an invalid domain or problem" not in docs


# ------------------------------------------------------------------ stored references
def test_a_correct_reference_passes():
    assert reference_errors(sussman(cost=6, plan=SUSSMAN_PLAN)) == []
    assert reference_errors(sussman(cost=None, upper_bound=6, lower_bound=4, plan=SUSSMAN_PLAN)) == []


@pytest.mark.parametrize("optimal, pointer, words", [
    ({"cost": -1}, "/optimal/cost", "negative"),
    ({"cost": 5.5}, "/optimal/cost", "whole number"),
    ({"cost": 0}, "/optimal/cost", "goal does not hold"),
    ({"cost": 7, "plan": SUSSMAN_PLAN}, "/optimal/cost", "the stored plan costs 6"),
    ({"cost": None, "upper_bound": 5, "plan": SUSSMAN_PLAN}, "/optimal/upper_bound", "the stored plan costs 6"),
    ({"cost": 6, "lower_bound": 7}, "/optimal/lower_bound", "above"),
    ({"cost": 6, "upper_bound": 5}, "/optimal/upper_bound", "below"),
    ({"cost": None, "lower_bound": -2}, "/optimal/lower_bound", "negative"),
    ({"cost": 6, "plan": SUSSMAN_PLAN[:3] + ["fly b"] + SUSSMAN_PLAN[4:]}, "/optimal/plan/3", "step 4 'fly b' is unknown"),
    ({"cost": 6, "plan": SUSSMAN_PLAN[:3] + ["stack a on b"] + SUSSMAN_PLAN[4:]}, "/optimal/plan/3",
     "step 4 'stack a on b' is not applicable: "),
    ({"cost": 5, "plan": SUSSMAN_PLAN[:5]}, "/optimal/plan", "goal does not hold"),
    ({"cost": 6, "plan": SUSSMAN_PLAN, "solvable": False}, "/optimal/solvable", "unsolvable"),
])
def test_a_wrong_reference_is_refused_with_a_pointer(optimal, pointer, words):
    errors = reference_errors(sussman(**optimal))
    assert errors and errors[0].pointer == pointer and words in errors[0].message, [str(e) for e in errors]


@pytest.mark.parametrize("optimal", [{"cost": -1}, {"cost": 6, "lower_bound": 7}, {"cost": None, "upper_bound": 3, "lower_bound": 4},
                                     {"cost": 6, "solvable": False}])
def test_a_reference_wrong_on_its_face_is_refused_on_every_load(optimal):
    with pytest.raises(ModelError) as info:
        load_problem(sussman(**optimal))
    assert info.value.diagnostics[0].pointer.startswith("/optimal/")


def test_validate_refuses_a_wrong_reference(tmp_path):
    doc = sussman(cost=6, plan=SUSSMAN_PLAN[:3] + ["stack a on b"] + SUSSMAN_PLAN[4:])
    code, out = run("validate", write(tmp_path / "p.json", doc))
    assert code == 1 and "p.json#/optimal/plan/3: step 4 'stack a on b' is not applicable: " in out
    code, out = run("validate", tmp_path / "p.json", "--json")
    assert code == 1 and json.loads(out)["diagnostics"][0]["pointer"] == "/optimal/plan/3"


def test_validate_refuses_a_wrong_reference_in_a_problem_set(tmp_path):
    rows = [dict(sussman(cost=6, plan=SUSSMAN_PLAN), name="good"), dict(sussman(cost=-6), name="bad")]
    write(tmp_path / "s.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert run("validate", f"{tmp_path / 's.jsonl'}#good")[0] == 0
    code, out = run("validate", f"{tmp_path / 's.jsonl'}#bad")
    assert code == 1 and "s.jsonl:2#/optimal/cost" in out


def test_shipped_references_of_one_world_hold():
    for path in sorted((ROOT / "problems" / "blocksworld").glob("*.json")) + [KITCHEN]:
        assert check_references(Task.load(path)) == [], path


# ---------------------------------------------------------------- issue 32, item 6: absurd step caps
def test_an_absurd_max_steps_is_refused_with_its_pointer(tmp_path):
    doc = copy.deepcopy(SUSSMAN)
    doc["max_steps"] = 10**15
    with pytest.raises(ModelError) as err:
        load_problem(doc)
    message = str(err.value)
    assert "/max_steps" in message and "at most 1000000" in message, message
    doc["max_steps"] = 1_000_000  # the documented maximum itself is fine
    assert load_problem(doc).max_steps == 1_000_000
    assert "1000000" in (ROOT / "docs" / "language.md").read_text().split("| `max_steps` |")[1].splitlines()[0]


def test_plan_eval_refuses_an_absurd_step_cap_instead_of_running_forever(tmp_path):
    from groundplan.evals.cli import run as plan_eval

    doc = copy.deepcopy(SUSSMAN)
    doc.pop("optimal", None)
    doc["max_steps"] = 10**15
    doc["goal"] = {"and": [["on", "a", "b"], ["on", "b", "a"]]}  # never reached
    problem = write(tmp_path / "endless.json", doc)
    # a child process with a timeout: the regression ran without end
    done = subprocess.run([sys.executable, "-m", "groundplan.evals.cli", str(problem), "--agent", "random", "--steps-to-go-time", "0",
                           "--out", str(tmp_path / "r")], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "endless.json#/max_steps" in done.stdout + done.stderr and "Traceback" not in done.stderr
    result = CliRunner().invoke(plan_eval, [str(problem), "--agent", "random", "--max-steps", str(10**15),
                                            "--out", str(tmp_path / "r2")])
    assert result.exit_code == 2 and "--max-steps" in result.output
