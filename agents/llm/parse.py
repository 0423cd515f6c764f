"""Reading a model's reply: the plan of an I/O answer, the actions of a chain of thought, the
action of a ReAct step. Tolerant of the usual decorations (numbering, bullets, code fences,
bold), strict about which lines count, and explicit about what was missing."""
from __future__ import annotations

import re

_DECORATION = re.compile(r"^\s*(?:[-*•>]+|\d+\s*[.):]|step\s*\d+\s*[.):]?)\s*", re.IGNORECASE)
_LABEL = re.compile(r"^\s*[*_`#]*\s*(plan|action|actions|reasoning|thought|next state changes)\s*[*_`]*\s*:\s*[*_`]*\s*(.*)$",
                    re.IGNORECASE)


def _clean(line: str) -> str:
    line = _DECORATION.sub("", line.strip())
    return line.strip().strip("`*_\"'").strip().rstrip(".").strip()


def _lines(text: str) -> list[str]:
    return [line for line in (text or "").replace("\r\n", "\n").split("\n") if not line.strip().startswith("```")]


def plan_lines(text: str) -> tuple[list[str], str | None]:
    """The actions after 'Plan:' (one per line), or every line when there is no such label."""
    lines = _lines(text)
    start = None
    for i, line in enumerate(lines):
        match = _LABEL.match(line)
        if match and match.group(1).lower() == "plan":
            start = i
            rest = match.group(2).strip()
            if rest:
                lines[i] = rest
                start = i - 1
            break
    body = lines[start + 1:] if start is not None else lines
    actions = [_clean(line) for line in body if _clean(line)]
    if not actions:
        return [], "the answer holds no plan: write 'Plan:' and then one action per line"
    return actions, None


def cot_actions(text: str) -> tuple[list[str], str | None]:
    """The 'Action:' lines of a chain-of-thought answer, in order."""
    actions = []
    for line in _lines(text):
        match = _LABEL.match(line)
        if match and match.group(1).lower() in ("action", "actions") and _clean(match.group(2)):
            actions.append(_clean(match.group(2)))
    if not actions:
        return [], "the answer holds no 'Action:' line"
    return actions, None


def react_step(text: str) -> tuple[str, str, str | None]:
    """(reasoning, action, problem): the last 'Action:' of the answer and the reasoning before it."""
    lines = _lines(text)
    action, where = None, None
    for i, line in enumerate(lines):
        match = _LABEL.match(line)
        if match and match.group(1).lower() == "action":
            value = _clean(match.group(2))
            if not value and i + 1 < len(lines):
                value = _clean(lines[i + 1])
            if value:
                action, where = value, i
    if action is None:
        return text.strip(), "", "the answer holds no 'Action:' line naming the next action"
    reasoning = "\n".join(lines[:where]).strip()
    reasoning = re.sub(r"^\s*[*_]*\s*(reasoning|thought)\s*[*_]*\s*:\s*", "", reasoning, flags=re.IGNORECASE)
    return reasoning, action, None
