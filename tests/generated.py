"""Hypothesis strategies for generated problems and problem-file copies, shared by the planner tests."""
import json
import shutil
from pathlib import Path

from hypothesis import strategies as st


def copy_problem(tmp_path, source: str, domain: str):
    """A copy of a problem file in tmp_path, its domain pointed at the repository's (absolute):
    (path, data). Tests that store results write to the copy, never to the shipped file."""
    path = tmp_path / Path(source).name
    shutil.copy(source, path)
    data = json.loads(path.read_text())
    data["domain"] = str(Path(domain).resolve())
    path.write_text(json.dumps(data))
    return path, data


def blocks_task(data):
    """The engine's task of a generated blocksworld problem (see blocks_problems)."""
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem, load_domain

    return Task(build_problem(data, "<gen>", None, domain=load_domain("domains/blocksworld/domain.json")))


@st.composite
def blocks_problems(draw):
    n = draw(st.integers(2, 4))
    blocks = [f"b{i}" for i in range(n)]

    def towers():
        order = draw(st.permutations(blocks))
        cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
        out, last = [], 0
        for c in cuts + [n]:
            out.append(order[last:c])
            last = c
        return out

    def facts(ts):
        out = []
        for t in ts:
            out.append(["ontable", t[0]])
            out += [["on", x, y] for y, x in zip(t, t[1:])]
            out.append(["clear", t[-1]])
        return out
    init = facts(towers()) + [["handempty"]]
    goal = [f for f in facts(towers()) if f[0] == "on"] or [["handempty"]]
    return {"groundplan": "1", "name": "gen", "domain": "blocksworld", "objects": {b: "block" for b in blocks},
            "init": init, "goal": {"and": goal}}


def in_turns(path: str):
    """A multi-agent kitchen task with the robots taking turns (the domain's default is any robot
    at any step): what the turn-scheduling planners and their tests are about."""
    from groundplan.engine import Task
    from groundplan.engine.loader import build_problem

    data = json.loads(Path(path).read_text())
    data["agents"] = {"mode": "turns"}
    return Task(build_problem(data, path, None))
