"""The benchmark's verbalisation of an instance, and the goal sentence agents are shown.

The task description is part of the data set's format (the model input of the fine-tuned
baselines), so it follows the released data to the character: obstacles print as `(r,c)`,
lists use ", " with " and " before the last item, and a single-goal text ends without a period.
The released multi-goal texts come in two styles (TEXT_STYLES), which differ only in the goal
cells and the end: `samples` (the released `multi_goal/*_samples.json`): `(r, c)`, ending with
". "; `in-context` (the GPT-4 test sets and the paper's prompts): `(r,c)`, ending with ".".
"""
from __future__ import annotations


TEXT_STYLES = ("samples", "in-context")


def cell(rc, space: bool = False) -> str:
    r, c = rc
    return f"({r}, {c})" if space else f"({r},{c})"


def listing(items) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def world(size: int, obstacles) -> str:
    text = f"You are in a {size} by {size} world."
    if obstacles:
        text += f" There are obstacles that you have to avoid at: {listing(cell(o) for o in obstacles)}."
    return text


def single_task(start, goal) -> str:
    return f"Go from {cell(start)} to {cell(goal)}"


def multi_task(start, goals, before=(), after=(), style: str = "samples") -> str:
    if style not in TEXT_STYLES:
        raise ValueError(f"unknown text style '{style}' (choose from {', '.join(TEXT_STYLES)})")
    names = [f"p{i}" for i in range(len(goals))]
    spaced = style == "samples"
    text = (f"You are at {cell(start)}. You have to visit {listing(names)}. "
            + listing(f"p{i} is located at {cell(g, space=spaced)}" for i, g in enumerate(goals)) + ".")
    if before and after:
        text += f" Visit {listing(f'p{i}' for i in before)} before {listing(f'p{i}' for i in after)}."
    return text + " " if spaced else text


def description(size, obstacles, start, goals, before=(), after=(), multi: bool | None = None,
                style: str = "samples") -> str:
    """The benchmark's full task text, e.g. 'You are in a 6 by 6 world. ... Go from (4,2) to (2,2)'."""
    multi = len(goals) > 1 if multi is None else multi
    task = multi_task(start, goals, before, after, style) if multi else single_task(start, goals[0])
    return f"{world(size, obstacles)} {task}"


def goal_text(start, goals, before=(), after=(), multi: bool = False, style: str = "samples") -> str:
    """What the step loop shows as the goal (the state itself lists the obstacles and the position)."""
    if not multi:
        return f"Go from {cell(start)} to {cell(goals[0])}."
    return multi_task(start, goals, before, after, style).rstrip() + " A location counts as visited only when you inspect it while standing on it."


def answer(plan) -> str:
    """A plan in the data set's target format: the actions, each followed by a space."""
    return "".join(f"{a} " for a in plan)
