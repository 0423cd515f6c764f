"""The groundplan command line: outputs and exit codes (0 valid, 1 invalid, 2 unusable input)."""
import json
import subprocess
import sys

from click.testing import CliRunner

from groundplan.cli import main


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_validate_domain_problem_and_plans(tmp_path):
    assert run("validate", "domains/blocksworld/domain.json")[0] == 0
    assert run("validate", "problems/blocksworld/sussman.json")[0] == 0
    good = tmp_path / "good.plan"
    good.write_text("unstack c from a\nput down c\npick up b\nstack b on c\npick up a\nstack a on b\n")
    code, out = run("validate", "problems/blocksworld/sussman.json", str(good), "--json")
    assert code == 0 and json.loads(out)["valid"] is True
    bad = tmp_path / "bad.plan"
    bad.write_text("unstack c from a\n(fly c)\n")
    code, out = run("validate", "problems/blocksworld/sussman.json", str(bad), "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "unknown-action" and data["failed_step"] == 2
    short = tmp_path / "short.plan"
    short.write_text("unstack c from a\n")
    code, out = run("validate", "problems/blocksworld/sussman.json", str(short))
    assert code == 1 and "goal does not hold" in out


def test_invalid_and_unreadable_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"groundplan": "1", "name": "x", ')
    code, out = run("validate", str(broken))
    assert code == 2 and "not valid JSON" in out
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"groundplan": "1", "name": "x", "domain": "blocksworld", "goal": ["clera", "a"]}))
    code, out = run("validate", str(wrong))
    assert code == 1 and "/goal/0" in out and "did you mean 'clear'" in out
    code, out = run("show", str(wrong))
    assert code == 1 and "Traceback" not in out  # read, and wrong: 1 for every command
    code, out = run("show", str(broken))
    assert code == 2  # cannot be read at all


def test_show_actions_and_plan():
    code, out = run("show", "problems/blocksworld/sussman.json", "--format", "structured")
    assert code == 0 and "on: (c a)" in out
    code, out = run("actions", "problems/blocksworld/sussman.json", "--json")
    assert code == 0 and [a["text"] for a in json.loads(out)] == ["pick up b", "unstack c from a"]
    code, out = run("plan", "problems/blocksworld/blocks-4-0.json", "--planner", "astar", "--heuristic", "hmax", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "solved-optimal" and data["cost"] == 6


def test_play_in_the_terminal():
    result = CliRunner().invoke(main, ["play", "problems/blocksworld/sussman.json"],
                                input="2\nput down c\npick up b\n3\npick up a\nstack a on b\n")
    assert result.exit_code == 0 and "Goal reached in 6 steps" in result.output


def test_check_command():
    code, out = run("check", "problems/gripper/prob01.json", "--examples", "20")
    assert code == 0 and "all laws and invariants hold" in out


def test_help_is_fast_and_imports_nothing_heavy():
    code = ("import sys, time; t=time.perf_counter(); import groundplan.cli; "
            "heavy=[m for m in ('litellm','ortools','matplotlib','networkx','jsonschema') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_plan_polish_re_optimises_a_satisficing_plan():
    """On sync cheeseburger explore's plan takes 20 steps and the windows bring it to 15 (the
    optimum) and stop by themselves, in about a second, well inside the 20 s asked for. (It was
    async 05, where the windows ran until the 20 s were up: a timed world's windows are tested in
    tests/test_windows.py.)"""
    name = "domains/kitchen/tasks/sync/05_cheeseburger.json"
    code, out = run("plan", name, "--planner", "explore", "--time-limit", "30", "--json")
    plain = json.loads(out)
    code, out = run("plan", name, "--planner", "explore", "--time-limit", "30", "--polish", "20", "--json")
    polished = json.loads(out)
    assert code == 0 and polished["status"] == "solved-satisficing"
    from groundplan.engine import Task, validate_plan
    check = validate_plan(Task.load(name), polished["plan"])
    assert check.valid and check.cost == polished["cost"] <= plain["cost"]
    assert polished["planner"].endswith("+ windows") == (polished["cost"] < plain["cost"])
    assert polished["cost"] < plain["cost"] and polished["seconds"] < 20  # improved, and ended before its budget


def test_actions_of_a_world_too_large_to_ground_are_listed_in_the_state():
    """Plancraft grounds 256,320 actions: listing the ~10,000 valid ones must not ground them all."""
    import time

    began = time.process_time()
    code, out = run("actions", "plancraft/test.small#1")
    assert code == 0 and len(out.splitlines()) > 1000 and time.process_time() - began < 20
