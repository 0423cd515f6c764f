"""`groundplan check` on a grid world: fast enough to run by default, with progress, and as strict as before.

The laws' formulas are compiled once per universe and the brute-force applicable-actions law
lists only the bindings the static facts allow; these tests pin that the result is the same
check, not a weaker one (issue 19, item 4).
"""
import io
import re

from click.testing import CliRunner

from groundplan.engine import Task
from groundplan.engine.cli import main
from groundplan.engine.progress import Counter
from groundplan.engine.testing import _compiled, all_groundings, check_task, replay_choices

SOKOBAN = "problems/sokoban/two-boxes-6x6.json"


def test_check_on_the_sokoban_holds_and_shows_progress():
    result = CliRunner().invoke(main, ["check", SOKOBAN, "--examples", "30", "--progress"])
    assert result.exit_code == 0, result.output
    assert "30 random walks of up to 20 steps, all laws and invariants hold" in result.stdout
    assert "possible actions" not in result.stdout  # the brute-force law ran
    assert re.search(r"check: 1/30 walks, \d+ steps, \d+ walks/s", result.stderr)
    assert re.search(r"check: \d+ walks, \d+ steps in [\d.]+ s", result.stderr)


def test_no_progress_unless_asked_when_stderr_is_not_a_terminal():
    result = CliRunner().invoke(main, ["check", SOKOBAN, "--examples", "5"])
    assert result.exit_code == 0 and result.stderr == ""


def test_the_brute_force_law_now_covers_the_sokoban_and_catches_a_missing_action():
    task = Task.load(SOKOBAN)  # 291,852 type-correct bindings, which used to skip this law
    report = check_task(task, examples=5)
    assert report.ok and report.brute_forced and report.walks == 5
    listed = task.applicable

    def one_missing(state):
        return listed(state)[1:]
    task.applicable = one_missing
    report = check_task(task, examples=20)
    assert not report.ok and "is not listed as applicable" in report.violations[0]


def test_the_bindings_kept_are_exactly_those_whose_precondition_can_hold():
    """Pruning by static atoms drops only bindings whose precondition is false in every state."""
    task = Task.load("problems/gridnav/room8-10.json")
    walk = replay_choices(task, [3, 1, 4, 1, 5, 9, 2, 6])
    compiled = _compiled(task, walk.states[0])
    kept = {(name, args) for entries in compiled.by_actor.values() for name, args, *_ in entries}
    u = task.universe()
    possible = set()
    for schema, args in all_groundings(task, walk.states[0]):
        if u.compiler.condition(schema.precondition, dict(zip([v for v, _ in schema.params], args))) is not False:
            possible.add((schema.name, args))
    assert kept == possible and len(kept) < 1000 < 16_384
    for state in walk.states[:3]:  # and they are tested right: the same answers as the engine
        assert {(a.schema.name, a.args) for a in task.applicable(state)} == {
            (s.name, args) for s, args in all_groundings(task, state) if task.holds(s.precondition, state, dict(zip([v for v, _ in s.params], args)))}


def test_the_progress_line_is_rewritten_on_a_terminal_and_printed_sparingly_elsewhere():
    tty = io.StringIO()
    counter = Counter(100, tty, tty=True)
    for i in range(1, 101):
        counter.show(i, f"{i}/100")
    counter.finish("done")
    assert tty.getvalue().startswith("\r1/100") and tty.getvalue().endswith("\rdone   \n") and "\n" not in tty.getvalue()[:-1]
    log = io.StringIO()
    counter = Counter(100, log, tty=False)
    for i in range(1, 101):
        counter.show(i, f"{i}/100")
    counter.finish("done")
    assert log.getvalue().splitlines() == [f"{i}/100" for i in range(1, 101, 10)] + ["done"]
