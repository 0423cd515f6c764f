"""Plan validation with the same interpreter agents and planners use.

A plan is a list of action strings (the action's text, '(name args)' or 'name args'). The result
says whether it is valid and, if not, the first failing step and why, in the manner of VAL and
unified-planning's validator: an unknown action, an inapplicable one (with the failed
precondition in words), or a plan that ends before the goal holds.

`check_references` holds a problem's stored reference (its `optimal` entry) to the same
standard: scores divide by the reference cost, so a wrong one silently skews every result. It
also asks the problem's world to check its answer keys (`check_answer_keys`): a benchmark row may
carry what an answer is scored against (LLM-BabyBench's Predict target, Plancraft's impossible
label), and only the world knows how to replay those, so a world module may define
`check_answer_key(task) -> list[Diagnostic]` (in its `questions.py` or `metrics.py`); the engine
calls it without knowing the world. `stored_cost_unchecked` says when a stored optimum has no
plan to replay (`planners.reference` then tries to re-prove it).
`check_initial_invariants` holds the problem's initial state to the domain's invariants: they
are promised for every reachable state, the first one included.
"""
from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Diagnostic, GroundplanError, ModelError, ResourceLimit, pointer
from .files import parse_text, read_file_text
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
    """A plan file: a JSON list of strings, or one action per line ('#' and ';' start comments).

    A plan that cannot be read (missing, a pipe, not UTF-8) is unusable input, exit status 2;
    one that is read but is no list of action texts is an invalid plan, exit status 1."""
    text = read_file_text(path, str(path), "save the plan as UTF-8 text")
    return parse_plan_text(text, str(path))


def parse_plan_text(text: str, file: str = "<plan>") -> list[str]:
    """The action texts of a plan; errors point at the step (`/3` is the fourth) as in a JSON list."""
    stripped = text.strip()
    if stripped.startswith("["):
        data = parse_text(stripped, file)
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise ModelError([Diagnostic(file, "", "a JSON plan is a list of action strings")])
        plan = data
    else:
        plan = []
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith(";") or not line:
                continue
            plan.append(line.replace("\t", " ") if "\t" in line else line)
    _check_printable(plan, file)
    return plan


def _check_printable(plan: list[str], file: str) -> None:
    """Refuse control characters in action texts: a NUL or an escape sequence is never part of an
    action, and passed on it would end up in prompts, logs and terminals."""
    errors = []
    for i, step in enumerate(plan):
        bad = next((ch for ch in step if unicodedata.category(ch) == "Cc"), None)
        if bad is not None:
            errors.append(Diagnostic(file, pointer([i]), f"step {i + 1} contains the control character U+{ord(bad):04X}",
                                     "an action is printable text: remove it"))
    if errors:
        raise ModelError(errors)


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
        current = State(b.facts, task._canonical_values(tuple(b.values)), tuple(b.timers.items()), state.turn, state.progress,
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


# ------------------------------------------------------------ invariants
def check_initial_invariants(task: Task) -> list[Diagnostic]:
    """The domain's invariants that are false in the problem's initial state, one error each at
    the invariant (/invariants/i of the domain file), naming the problem: a problem that starts
    outside what its domain promises makes every later check of that invariant fail."""
    state = task.initial_state()
    problem = task.problem
    out = []
    for i, inv in enumerate(task.domain.invariants):
        try:
            holds = task.holds(inv.formula, state)
        except ResourceLimit:  # --time-limit/--memory-limit ran out: not the invariant's fault
            raise
        except GroundplanError as exc:  # e.g. a division by zero in its expression
            out.append(Diagnostic(task.domain.file, pointer(["invariants", i]),
                                  f"invariant '{inv.name}' cannot be evaluated in the initial state of problem "
                                  f"'{problem.name}' ({problem.file}): {exc}"))
            continue
        if not holds:
            what = f" ({inv.text})" if inv.text else ""
            out.append(Diagnostic(task.domain.file, pointer(["invariants", i]),
                                  f"invariant '{inv.name}'{what} is false in the initial state of problem "
                                  f"'{problem.name}' ({problem.file})",
                                  "fix the problem's 'init' or 'values', or the invariant"))
    return out


# ------------------------------------------------------------ stored references
def optimal_entry_errors(entry, file: str) -> list[Diagnostic]:
    """What is wrong with an `optimal` entry on its face, without the domain: a cost or bound
    below 0, bounds out of order (`lower_bound <= cost <= upper_bound`), or an unsolvable problem
    with a cost or a plan. Cheap, so the loader runs it on every problem it builds."""
    if not isinstance(entry, dict):
        return []
    out: list[Diagnostic] = []

    def error(path, message, hint=None):
        out.append(Diagnostic(file, pointer(["optimal", *path]), message, hint))

    cost, lower, upper = entry.get("cost"), entry.get("lower_bound"), entry.get("upper_bound")
    if entry.get("solvable") is False:
        for key in ("cost", "upper_bound", "plan"):
            if entry.get(key) is not None:
                error(["solvable"], f"the entry says the problem is unsolvable, yet it has a '{key}'",
                      f"remove '{key}' (and set \"cost\": null), or remove \"solvable\": false")
                break
    for key, value in (("cost", cost), ("lower_bound", lower), ("upper_bound", upper)):
        if _number(value) and value < 0:
            error([key], f"{key} {_num(value)} is negative", "a cost adds up action costs, which are 0 or more")
    if _number(cost) and _number(lower) and lower > cost:
        error(["lower_bound"], f"lower_bound {_num(lower)} is above the cost {_num(cost)}", "a lower bound is at most the optimum")
    if _number(cost) and _number(upper) and upper < cost:
        error(["upper_bound"], f"upper_bound {_num(upper)} is below the cost {_num(cost)}", "an upper bound is at least the optimum")
    if _number(lower) and _number(upper) and lower > upper:
        error(["lower_bound"], f"lower_bound {_num(lower)} is above upper_bound {_num(upper)}", "one of the two bounds is wrong")
    return out


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_optimal_entry(task: Task) -> list[Diagnostic]:
    """What is wrong with the problem's stored reference (its `optimal` entry), at JSON pointers
    under /optimal; empty when it holds.

    Beyond `optimal_entry_errors`, the stored plan is replayed: every step must be known and
    applicable, the goal must hold at the end, and its cost must be the stored `cost` (or,
    unproven, the `upper_bound`). Costs must be whole numbers when every action of the domain
    costs a whole number, and 0 only when the goal already holds or some action may cost nothing.
    Replaying grounds the task, so this is for `groundplan validate` and for a run's check before
    it starts, not for every load: scores computed against a wrong reference are silently wrong."""
    entry = task.problem.optimal
    if not isinstance(entry, dict):
        return []
    file = task.problem.file
    out = optimal_entry_errors(entry, file)

    def error(path, message, hint=None):
        out.append(Diagnostic(file, pointer(["optimal", *path]), message, hint))

    integral, positive = _cost_profile(task)
    goal_at_start = None
    for key in ("cost", "upper_bound"):
        value = entry.get(key)
        if not _number(value) or value < 0:
            continue
        if integral and not float(value).is_integer():
            error([key], f"{key} {value} is not a whole number, but every action of this domain costs a whole number",
                  "store the cost of the plan as the replay computes it")
        elif value == 0 and positive:
            if goal_at_start is None:
                goal_at_start = task.is_goal(task.initial_state())
            if not goal_at_start:
                error([key], f"{key} 0, but the goal does not hold in the initial state and every action costs more than 0",
                      "store the cost of a plan that reaches the goal")
    plan = entry.get("plan")
    if isinstance(plan, list):
        _check_plan(task, entry, plan, error)
    return out


def check_references(task: Task) -> list[Diagnostic]:
    """What is wrong with the problem's stored references: its `optimal` entry (at pointers under
    /optimal, `check_optimal_entry`) and the answer keys its world checks (`check_answer_keys`,
    e.g. /metadata/target); empty when they hold."""
    return check_optimal_entry(task) + check_answer_keys(task)


# the world modules that may define check_answer_key(task), in the order they are asked
ANSWER_KEY_PLUGINS = ("questions", "metrics")


def check_answer_keys(task: Task) -> list[Diagnostic]:
    """The world's own check of the answer keys a problem carries (`check_answer_key(task)` in
    the world's questions.py or metrics.py, each asked when present; see the module docstring).
    A check that raises is reported as what it is, an answer key that could not be checked, at
    /metadata: the problem is not scored against what nobody could confirm."""
    from .loader import world_module

    out: list[Diagnostic] = []
    for name in ANSWER_KEY_PLUGINS:
        check = getattr(world_module(task.domain, name), "check_answer_key", None)
        if check is None:
            continue
        try:
            out.extend(check(task) or [])
        except (MemoryError, KeyboardInterrupt, ResourceLimit):
            raise  # out of memory or time: the caller's limit, not the row's fault
        except Exception as exc:  # a malformed row the check did not foresee, or a bug in it
            out.append(Diagnostic(task.problem.file, pointer(["metadata"]),
                                  f"the answer key of problem '{task.problem.name}' could not be checked "
                                  f"({type(exc).__name__}: {exc})", "fix the row's metadata, or the world's check_answer_key"))
    return out


def stored_cost_unchecked(task: Task) -> bool:
    """The problem stores a proven optimum (`optimal.cost`) with no plan to replay, so nothing here
    confirms even that it can be reached. A stored plan, replayed by `check_optimal_entry`,
    confirms its cost is reached (that none is cheaper stays the method's claim, except for a
    cost of 0, which no plan undercuts: GRASP's 2,892 empty plans)."""
    entry = task.problem.optimal
    return isinstance(entry, dict) and _number(entry.get("cost")) and not isinstance(entry.get("plan"), list) \
        and entry.get("solvable") is not False


def _check_plan(task: Task, entry: dict, plan: list, error) -> None:
    """Replay the stored plan and compare its cost with the stored one."""
    try:
        _check_printable(plan, task.problem.file)
        result = validate_plan(task, plan)
    except ModelError as exc:
        for d in exc.diagnostics:
            error(["plan", *d.pointer.split("/")[1:]], d.message, d.hint)
        return
    except GroundplanError as exc:  # e.g. a division by zero while replaying
        error(["plan"], f"replaying the stored plan fails: {exc}")
        return
    if not result.valid:
        if result.status == GOAL_NOT_REACHED:
            error(["plan"], f"all {result.steps} steps of the stored plan apply, but the goal does not hold at the end",
                  "store a plan that reaches the goal")
        else:
            what = "unknown" if result.status == UNKNOWN_ACTION else "not applicable"
            why = ": " + "; ".join(result.reasons) if result.reasons else ""
            error(["plan", result.failed_step - 1], f"step {result.failed_step} '{result.action}' is {what}{why}",
                  "store a plan that the interpreter replays, e.g. with groundplan plan --store")
        return
    max_steps = task.problem.max_steps
    if max_steps is not None and result.steps > max_steps:
        error(["plan"], f"the stored plan has {result.steps} steps, more than max_steps ({max_steps})",
              "store a plan within the step limit, or raise max_steps")
    key = "cost" if entry.get("cost") is not None else "upper_bound" if entry.get("upper_bound") is not None else None
    if key is not None and not _same(result.cost, entry[key]):
        error([key], f"{key} is {_num(entry[key])}, but the stored plan costs {_num(result.cost)}",
              f"set it to {_num(result.cost)}, or store the plan it belongs to")
    lower = entry.get("lower_bound")
    if lower is not None and result.cost < lower and not _same(result.cost, lower):
        error(["lower_bound"], f"lower_bound {_num(lower)} is above the cost of the stored plan ({_num(result.cost)})",
              "a plan can never cost less than a proven lower bound: one of them is wrong")


def _same(a, b) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _cost_profile(task: Task) -> tuple[bool, bool]:
    """(every action costs a whole number, every action costs more than 0), as far as the cost
    expressions tell before the task runs: a cost that reads the state counts as possibly
    fractional (unless built from whole numbers) and possibly 0."""
    from .parse import static_number

    integral, positive = True, True
    for action in task.domain.actions.values():
        value = static_number(action.cost, task.settings)
        if value is None:
            positive = False
            integral = integral and _whole(action.cost, task)
        else:
            positive = positive and value > 0
            integral = integral and float(value).is_integer()
    return integral, positive


def _whole(expr, task: Task) -> bool:
    """The expression can only take whole-number values."""
    from . import model as m

    if isinstance(expr, m.Num):
        return float(expr.value).is_integer()
    if isinstance(expr, m.SettingValue):
        return float(task.settings.get(expr.name, 0.5)).is_integer()
    if isinstance(expr, m.FluentTerm):
        fluent = task.domain.fluents.get(expr.name)
        return fluent is not None and fluent.kind == "int"
    if isinstance(expr, m.Arith):
        return expr.op != "/" and all(_whole(x, task) for x in expr.parts)
    if isinstance(expr, m.IfExpr):
        return _whole(expr.then, task) and _whole(expr.otherwise, task)
    if isinstance(expr, m.Sum):
        return _whole(expr.value, task)
    return isinstance(expr, m.Count)
