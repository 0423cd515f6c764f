"""The GRASP one-shot prompt (data in prompts/oneshot.json) and the reference's answer parsing.

The paper's agents see the whole grid once and answer with their whole plan; the evaluator
keeps the first 20 actions. `parse_plan` reproduces how the reference read the answers (spec
section 4, recovered from the stored results): every occurrence of an action word, anywhere in
the answer, in order (longest words first, case-sensitive, also inside other words, as the
regex does), truncated to 20. `start="bracket"` applies it from the first '[' on (the whole text
when there is none), which approximates the GPT-4o column.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .grid import BUDGET, NO_LIMIT, Grid, to_text

TEMPLATE = Path(__file__).with_name("prompts") / "oneshot.json"
ACTION_WORDS = re.compile(r"(UPLEFT|UPRIGHT|DOWNLEFT|DOWNRIGHT|UP|DOWN|LEFT|RIGHT|TAKE|DROP)")


def template() -> dict:
    return json.loads(TEMPLATE.read_text(encoding="utf-8"))


def messages(grid: Grid, rules: dict) -> list[dict]:
    """[system, user] chat messages for one environment."""
    t = template()
    slots = t["slots"]
    has_obstacles = bool(grid.obstacles)
    system = t["system"].format(
        obstacles=slots["obstacles"] if has_obstacles else "",
        moves=slots["moves8"] if rules["moves"] == 8 else slots["moves4"],
        limit=slots["limit"].format(carry_limit=rules["carry_limit"]) if rules["carry_limit"] < NO_LIMIT else "",
        cost=slots["cost"].format(step_cost=rules["step_cost"]) if rules["step_cost"] else "")
    user = t["user"].format(obstacle_legend=slots["obstacle_legend"] if has_obstacles else "", grid=to_text(grid))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def request(task, spec: dict) -> list[dict]:
    """The `oneshot` strategy's request (agents.llm.prompts.WorldPrompt): this problem's grid under
    its own rule combination, so the 8 combinations of one grid are 8 different prompts."""
    from .grid import from_problem

    return messages(from_problem(task.problem.raw), {name: task.settings[name] for name in ("moves", "carry_limit", "step_cost")})


def read_plan(answer: str, spec: dict) -> tuple[list[str], None]:
    """The `oneshot` strategy's reading: the reference's (`parse_plan`, from `spec['start']`). Any
    text is a plan, perhaps an empty one, as in the reference: never a format error."""
    return parse_plan(answer, spec.get("start", "anywhere")), None


def parse_plan(answer: str, start: str = "anywhere") -> list[str]:
    """The action words of an answer, as the reference read them, at most 20."""
    if start not in ("anywhere", "bracket"):
        raise ValueError("start is 'anywhere' (GPT-3.5 column, exact) or 'bracket' (GPT-4o column, approximate)")
    text = answer or ""
    if start == "bracket" and "[" in text:
        text = text[text.index("["):]
    return ACTION_WORDS.findall(text)[:BUDGET]
