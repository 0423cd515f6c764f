"""Plan validation with the same interpreter agents and planners use.

A plan is a list of action strings (the action's text, '(name args)' or 'name args'). The result
says whether it is valid and, if not, the first failing step and why, in the manner of VAL and
unified-planning's validator: an unknown action, an inapplicable one (with the failed
precondition in words), or a plan that ends before the goal holds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import Diagnostic, ModelError
from .files import parse_text
from .task import State, Task, UnknownAction

VALID = "valid"
UNKNOWN_ACTION = "unknown-action"
INAPPLICABLE = "inapplicable-action"
GOAL_NOT_REACHED = "goal-not-reached"


@dataclass
class ValidationResult:
    status: str
    steps: int = 0
    cost: float = 0
    failed_step: int | None = None  # 1-based
    action: str | None = None
    reasons: list[str] = field(default_factory=list)
    final_state: State | None = None
    states: list[State] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.status == VALID

    def message(self) -> str:
        if self.valid:
            return f"valid plan: {self.steps} steps, cost {_num(self.cost)}"
        if self.status == GOAL_NOT_REACHED:
            return f"invalid plan: all {self.steps} steps apply but the goal does not hold at the end"
        what = "unknown action" if self.status == UNKNOWN_ACTION else "inapplicable action"
        why = ": " + "; ".join(self.reasons) if self.reasons else ""
        return f"invalid plan: step {self.failed_step}, {what} '{self.action}'{why}"

    def to_json(self) -> dict:
        return {"valid": self.valid, "status": self.status, "steps": self.steps, "cost": self.cost,
                "failed_step": self.failed_step, "action": self.action, "reasons": self.reasons,
                "message": self.message()}


def _num(x):
    return int(x) if float(x).is_integer() else x


def read_plan(path: str | Path) -> list[str]:
    """A plan file: a JSON list of strings, or one action per line ('#' and ';' start comments)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError([Diagnostic(str(path), "", f"cannot read plan: {getattr(exc, 'strerror', None) or exc}")]) from None
    return parse_plan_text(text, str(path))


def parse_plan_text(text: str, file: str = "<plan>") -> list[str]:
    stripped = text.strip()
    if stripped.startswith("["):
        data = parse_text(stripped, file)
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise ModelError([Diagnostic(file, "", "a JSON plan is a list of action strings")])
        return data
    lines = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith(";") or not line:
            continue
        lines.append(line)
    return lines


def _joint_step(task: Task, state: State, line: str):
    """One round of a simultaneous plan, 'action of agent 1 | action of agent 2 | ...'."""
    from .task import InapplicableAction

    parts = [p.strip() for p in line.split("|")]
    if len(parts) != len(task.agents):
        return ValidationResult(UNKNOWN_ACTION, action=line, final_state=state,
                                reasons=[f"a round names one action per agent ({len(task.agents)}), separated by '|'"])
    actions, current = [], state
    for part in parts:
        try:
            action = task.parse_action(part, current)
        except UnknownAction as exc:
            return ValidationResult(UNKNOWN_ACTION, action=part, final_state=state, reasons=[exc.hint] if exc.hint else [])
        actions.append(action)
        try:
            b = task._round(current, [action])
        except InapplicableAction as exc:
            return ValidationResult(INAPPLICABLE, action=part, final_state=state, reasons=exc.reasons)
        current = State(b.facts, task._pad(tuple(b.values)), tuple(sorted(b.timers.items())), state.turn, state.progress,
                        tuple(b.created))
    return actions, task.apply_joint(state, actions)


def validate_plan(task: Task, plan: list[str], state: State | None = None, require_goal: bool = True) -> ValidationResult:
    """Replay `plan` from `state` (default: the initial state); stop at the first failing step."""
    state = state if state is not None else task.initial_state()
    states = [state]
    cost = 0
    joint = task.agent_mode == "simultaneous" and len(task.agents) > 1
    for i, text in enumerate(plan, start=1):
        if joint:
            outcome = _joint_step(task, state, text)
            if isinstance(outcome, ValidationResult):
                outcome.steps, outcome.cost, outcome.failed_step, outcome.states = i - 1, cost, i, states
                return outcome
            actions, state = outcome
            cost += sum(task.action_cost(states[-1], a) for a in actions)
            states.append(state)
            continue
        try:
            action = task.parse_action(text, state)
        except UnknownAction as exc:
            return ValidationResult(UNKNOWN_ACTION, i - 1, cost, i, text, [exc.hint] if exc.hint else [], state, states)
        if not task.is_applicable(state, action):
            return ValidationResult(INAPPLICABLE, i - 1, cost, i, text, task.explain(state, action), state, states)
        cost += task.action_cost(state, action)
        state = task.successor(state, action)
        states.append(state)
    if require_goal and not task.is_goal(state):
        return ValidationResult(GOAL_NOT_REACHED, len(plan), cost, None, None, [], state, states)
    return ValidationResult(VALID, len(plan), cost, None, None, [], state, states)
