"""The engine's laws and each domain's invariants, on every shipped problem, by random walks."""
import glob

import pytest
from hypothesis import HealthCheck, given, settings

from groundplan.engine import Task
from groundplan.engine.testing import check_task, law_violations, walks

def _sample():
    """Every problem of the small sets; the first two of each large generated set (seeds differ only in layout)."""
    out = []
    for folder in sorted(glob.glob("problems/*/")):
        files = sorted(glob.glob(folder + "*.json"))
        out += files if len(files) <= 10 else files[:2]
    return out + sorted(glob.glob("domains/kitchen/tasks/*/0[1-3]_*.json"))


SHIPPED = _sample()
_TASKS = {}


def task_for(path):
    if path not in _TASKS:
        _TASKS[path] = Task.load(path)
    return _TASKS[path]


def test_there_are_shipped_problems():
    assert len(SHIPPED) >= 8


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED)
def test_laws_hold_on_random_walks(path):
    task = task_for(path)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(walks(task, max_steps=12))
    def laws(walk):
        assert law_violations(task, walk) == []
    laws()


def test_check_finds_and_shrinks_a_broken_invariant(tmp_path):
    import json
    domain = json.load(open("domains/blocksworld/domain.json"))
    # a false invariant: "nothing is ever held" breaks as soon as a block is picked up
    domain["invariants"].append({"name": "never-hold", "formula": {"forall": [["?x", "block"]], "formula": {"not": ["holding", "?x"]}}})
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    problem = json.load(open("problems/blocksworld/sussman.json"))
    problem["domain"] = "domain.json"
    (tmp_path / "p.json").write_text(json.dumps(problem))
    report = check_task(Task.load(tmp_path / "p.json"), examples=200)
    assert not report.ok
    assert len(report.walk.actions) == 1  # shrunk to the shortest walk: one pick-up or unstack
    assert any("never-hold" in v for v in report.violations)
