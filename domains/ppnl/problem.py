"""A PPNL instance (grid, obstacles, start, goals, ordering groups) as groundplan problem data.

Rows and columns are the index objects i-1, i0, ..., i<N> (labelled -1 .. N); i-1 and i<N> are
the border just outside the grid, so a refused move names the cell it would have entered. The
objects and labels of one grid size are shared by every problem of a set file (its header);
each problem line carries only its own facts, goal, routing section, optimum and metadata.
"""
from __future__ import annotations

from . import text
from .oracle import NOT_REACHABLE, Answer

DOMAIN = "ppnl"


def index(k: int) -> str:
    return f"i{k}"


def header(size: int, multi: bool, set_name: str) -> dict:
    """The set file's first line: what every problem of one grid size shares."""
    defaults = {
        "groundplan": "1",
        "domain": DOMAIN,
        "objects": {index(k): "index" for k in range(-1, size + 1)},
        "labels": {index(k): str(k) for k in range(-1, size + 1)},
    }
    if multi:
        defaults["settings"] = {"inspect": True}
    return {"problem_set": set_name, "defaults": defaults}


def at(rc) -> list:
    return [index(rc[0]), index(rc[1])]


def geometry(size: int) -> list:
    facts = [["next", index(k), index(k + 1)] for k in range(-1, size)]
    return facts + [["border", index(-1)], ["border", index(size)]]


def goal_formula(goals, before=(), after=(), multi=False):
    if not multi:
        return ["at", *at(goals[0])]
    visits = {"and": [["inspected", *at(g)] for g in goals]}
    if not (before and after):
        return visits
    order = {"imply": [{"or": [["inspected", *at(goals[j])] for j in after]},
                       {"and": [["inspected", *at(goals[i])] for i in before]}]}
    return {"all": [{"always": order}, visits]}


def optimal_record(answer: Answer, multi: bool, method: str) -> dict:
    if not answer.solvable:
        return {"cost": None, "solvable": False,
                "method": "breadth-first search: a goal lies outside the start's connected component"}
    return {"cost": answer.cost, "method": method, "plan": list(answer.plan)}


def problem(instance: dict, answer: Answer, method: str, style: str = "samples") -> dict:
    """One problem line. `instance`: name, split, env, size, obstacles, start, goals, before, after, multi;
    `style`: how a multi-goal text is written (text.TEXT_STYLES), recorded as metadata.text_style."""
    size, obstacles, start, goals = instance["size"], instance["obstacles"], instance["start"], instance["goals"]
    before, after, multi = instance.get("before", []), instance.get("after", []), instance["multi"]
    init = [["at", *at(start)]] + geometry(size) + [["obstacle", *at(o)] for o in obstacles]
    if multi:
        init += [["goal-cell", *at(g)] for g in goals]
    data = {
        "name": instance["name"],
        "init": init,
        "goal": goal_formula(goals, before, after, multi),
        "goal_text": text.goal_text(start, goals, before, after, multi, style),
    }
    if multi:
        routing = {"exact": True, "tour": "open",
                   "targets": {f"p{i}": ["inspected", *at(g)] for i, g in enumerate(goals)}}
        if before and after:
            routing["precedence"] = [{"before": [f"p{i}" for i in before], "after": [f"p{j}" for j in after]}]
        data["routing"] = routing
    data["optimal"] = optimal_record(answer, multi, method)
    data["metadata"] = {**({"text_style": style} if multi else {}),
        "split": instance["split"], "env": instance["env"], "size": size, "obstacles": obstacles,
        "start": list(start), "goals": [list(g) for g in goals],
        "before": [f"p{i}" for i in before], "after": [f"p{j}" for j in after],
        "nl": text.description(size, obstacles, start, goals, before, after, multi, style),
        "answer": text.answer(answer.plan) if answer.solvable else NOT_REACHABLE,
    }
    return data
