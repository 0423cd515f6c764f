"""Writes domains/grasp/domain.json: the GRASP world as data (run once; the output is committed).

    python -m groundplan.domains.grasp.make_domain

The 11x11 map is the same in every GRASP problem, so its 121 cells, the 8 directions and the
adjacency between cells are the domain's constants and facts (the domain-level `init`); a problem
only says where the agent starts, which cells are obstacles and how much energy each cell holds.
The rule variants are settings: moves (4 or 8), carry_limit (2, or 100 for "no limit", the
reference's value) and step_cost (0 or 0.3).
"""
from __future__ import annotations

import json
from pathlib import Path

from .grid import DIAGONAL, DIRECTIONS, SIZE, cell_name

PATH = Path(__file__).with_name("domain.json")


# How the viewer draws a state (engine/picture.py): grid cells, obstacles, the start, energy, the agent.
RENDER = {"picture": {"kind": "grid",
             "cells": {"pattern": "c(?P<row>\\d+)_(?P<col>\\d+)"},
             "axes": {"rows": "row", "cols": "column"},
             # under the picture: what is carried, what is home, and the score so far (the paper's
             # "Energy": units on the start cell minus the step costs spent, ?cost from the viewer)
             "status": [{"for": [{"fluent": ["carried"], "value": "?n"}], "text": "carrying {n} energy"},
                        {"for": [["start", "?s"], {"fluent": ["energy", "?s"], "value": "?v"}],
                         "text": "on the start cell: {v} energy"},
                        {"for": [["start", "?s"], {"fluent": ["energy", "?s"], "value": "?v"},
                                 {"compute": ["?score", "?v", "-", "?cost"]}],
                         "text": "score so far: {score} ({v} on the start cell - {cost} step costs)"}],
             "marks": [{"for": [["obstacle", "?c"]], "at": "?c", "fill": "#4a4a4a", "title": "obstacle {c}"},
                       {"for": [["start", "?c"]],
                        "at": "?c",
                        "fill": "#cfe3ff",
                        "glyph": "⌂",
                        "color": "#1f4e9a",
                        "title": "start {c}: bring the energy here"},
                       {"for": [{"fluent": ["energy", "?c"], "value": "?v"}, {"compare": ["?v", ">", 0]}],
                        "at": "?c",
                        "fill": "#ffe28a",
                        "label": "{v}",
                        "title": "{c}: {v} energy"},
                       {"for": [["at", "?c"], {"fluent": ["carried"], "value": "?n"}],
                        "at": "?c",
                        "glyph": "●",
                        "color": "#c0392b",
                        "title": "the agent at {c}, carrying {n} energy"}]}}


def build() -> dict:
    cells = [cell_name(r, c) for r in range(SIZE) for c in range(SIZE)]
    constants = {name: "cell" for name in cells}
    constants.update({d: "direction" for d in DIRECTIONS})
    init = [["diagonal", d] for d in DIAGONAL]
    for r in range(SIZE):
        for c in range(SIZE):
            for d, (dr, dc) in DIRECTIONS.items():
                if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
                    init.append(["adjacent", cell_name(r, c), cell_name(r + dr, c + dc), d])
    cost = {"setting": "step_cost"}
    return {
        "groundplan": "1",
        "name": "grasp",
        "description": (
            "GRASP (Tang and Kejriwal): an agent on an 11x11 grid collects units of energy and brings them back to "
            "the cell where it started, within 20 actions. Cell c<row>_<col> is in row <row> (0 at the top) and column "
            "<col> (0 at the left); UP decreases the row, LEFT the column. Moves go in {moves} directions (4: UP, DOWN, "
            "LEFT, RIGHT; 8: also UPLEFT, UPRIGHT, DOWNLEFT, DOWNRIGHT, and a diagonal move only needs its target free). "
            "TAKE picks up one unit of energy from the agent's cell when it carries fewer than {carry_limit} units "
            "(100 stands for no limit); DROP puts down everything carried. An action that cannot be done changes "
            "nothing but still uses a step and costs {step_cost} units. The score is the energy on the start cell at "
            "the end minus {step_cost} times the number of actions."),
        "license": "Apache-2.0 (the GRASP rules and data, (c) the GRASP authors; see domains/grasp/LICENSE and NOTICE)",
        "types": {"cell": "object", "direction": "object"},
        "constants": constants,
        "init": init,
        "settings": {
            "moves": {"default": 4, "allowed": [4, 8], "description": "4: UP, DOWN, LEFT, RIGHT; 8: also the diagonals"},
            "carry_limit": {"default": 100, "allowed": [2, 100],
                            "description": "units the agent can carry at once (100 stands for no limit)"},
            "step_cost": {"default": 0, "allowed": [0, 0.3], "description": "energy each action costs"},
        },
        "predicates": {
            "at": {"parameters": [["?c", "cell"]], "text": "the agent is at {c}"},
            "start": {"parameters": [["?c", "cell"]], "text": "{c} is the start cell, where energy must be brought"},
            "obstacle": {"parameters": [["?c", "cell"]], "text": "{c} is blocked by an obstacle"},
            "adjacent": {"parameters": [["?from", "cell"], ["?to", "cell"], ["?d", "direction"]],
                         "text": "{to} is {d} of {from}", "hidden": True},
            "diagonal": {"parameters": [["?d", "direction"]], "text": "{d} is a diagonal direction", "hidden": True},
        },
        "fluents": {
            "energy": {"parameters": [["?c", "cell"]], "text": "{c} holds {value} units of energy"},
            "carried": {"text": "the agent carries {value} units of energy"},
        },
        "actions": {
            "move": {
                "parameters": [["?d", "direction"], ["?from", "cell"], ["?to", "cell"]],
                "precondition": {"and": [
                    ["at", "?from"],
                    ["adjacent", "?from", "?to", "?d"],
                    {"not": ["obstacle", "?to"]},
                    {"imply": [["diagonal", "?d"], {"=": [{"setting": "moves"}, 8]}]},
                ]},
                "effect": [{"del": ["at", "?from"]}, {"add": ["at", "?to"]}],
                "cost": cost,
                "text": "{d}",
            },
            "take": {
                "parameters": [["?c", "cell"]],
                "precondition": {"and": [["at", "?c"], {">": [["energy", "?c"], 0]},
                                         {"<": [["carried"], {"setting": "carry_limit"}]}]},
                "effect": [{"decrease": [["energy", "?c"], 1]}, {"increase": [["carried"], 1]}],
                "cost": cost,
                "text": "TAKE",
            },
            "drop": {
                "parameters": [["?c", "cell"]],
                "precondition": ["at", "?c"],
                "effect": [{"increase": [["energy", "?c"], ["carried"]]}, {"assign": [["carried"], 0]}],
                "cost": cost,
                "text": "DROP",
            },
        },
        "on_inapplicable": "noop",
        "noop_cost": cost,  # an answer naming no action also uses its step and pays for it
        "invariants": [
            {"name": "one-cell", "text": "the agent is in exactly one cell",
             "formula": {"=": [{"count": [["?c", "cell"]], "formula": ["at", "?c"]}, 1]}},
            {"name": "never-on-obstacle", "text": "the agent never stands on an obstacle",
             "formula": {"forall": [["?c", "cell"]], "formula": {"imply": [["at", "?c"], {"not": ["obstacle", "?c"]}]}}},
            {"name": "within-limit", "text": "the agent never carries more than the limit",
             "formula": {"<=": [["carried"], {"setting": "carry_limit"}]}},
        ],
        "metadata": {"source": "https://github.com/jasontangzs0/GRASP (Apache-2.0)", "budget": 20},
        "render": RENDER,
    }


def dumps(domain: dict) -> str:
    """Indented JSON, but the long constant and fact lists written 11 entries to a line."""
    compact = {}
    for key in ("constants", "init"):
        items = list(domain[key].items()) if key == "constants" else domain[key]
        chunks = [items[i:i + SIZE] for i in range(0, len(items), SIZE)]
        if key == "constants":
            lines = [", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in chunk) for chunk in chunks]
            compact[key] = "{\n  " + ",\n  ".join(lines) + "\n }"
        else:
            lines = [", ".join(json.dumps(atom) for atom in chunk) for chunk in chunks]
            compact[key] = "[\n  " + ",\n  ".join(lines) + "\n ]"
    text = json.dumps({k: (f"@@{k}@@" if k in compact else v) for k, v in domain.items()}, indent=1)
    for key, value in compact.items():
        text = text.replace(json.dumps(f"@@{key}@@"), value)
    return text + "\n"


def main() -> int:
    PATH.write_text(dumps(build()), encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
