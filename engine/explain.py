"""Why a precondition fails, in the domain's own words.

Walks the lifted precondition under the action's binding and reports the parts that do not
hold, phrased with the predicates' text templates ("b is not clear"), so an agent's feedback
names the blocking fact instead of a bare "invalid action".
"""
from __future__ import annotations

from . import model as m
from .render import atom_text


def explain_failure(task, state, formula, binding: dict) -> list[str]:
    reasons: list[str] = []
    _explain(task, state, formula, binding, True, reasons)
    return reasons or ["its precondition does not hold"]


def _explain(task, state, f, b, want: bool, out: list[str]) -> None:
    if isinstance(f, m.And) and want or isinstance(f, m.Or) and not want:
        for part in f.parts:
            if _truth(task, state, part, b) != want:
                _explain(task, state, part, b, want, out)
        return
    if isinstance(f, m.Not):
        _explain(task, state, f.part, b, not want, out)
        return
    if _truth(task, state, f, b) == want:
        return
    if isinstance(f, m.Atom):
        args = tuple(b.get(a, a) for a in f.args)
        text = atom_text(task.domain, f.pred, args, labels=task.problem.labels)
        out.append(f"it is not true that {text}" if want else f"it is true that {text}")
    elif isinstance(f, m.Equal):
        labels = task.problem.labels
        left, right = b.get(f.left, f.left), b.get(f.right, f.right)
        left, right = labels.get(left, left), labels.get(right, right)
        out.append(f"{left} and {right} must be {'the same' if want else 'different'}")
    elif isinstance(f, m.Compare):
        out.append(f"the condition {_expr_text(task, state, f.left, b)} {f.op} {_expr_text(task, state, f.right, b)} "
                   f"is {'false' if want else 'true'}")
    elif isinstance(f, m.Quantified):
        names = ", ".join(v for v, _ in f.params)
        if (f.kind == "forall") == want:
            out.append(f"not every {names} satisfies its condition" if want else f"every {names} satisfies its condition")
        else:
            out.append(f"no {names} satisfies its condition" if want else f"some {names} satisfies its condition")
    elif isinstance(f, m.Or):
        out.append("none of the alternatives holds")
    elif isinstance(f, m.Imply):
        out.append("an implied condition does not hold")
    elif isinstance(f, m.SettingTest):
        out.append(f"setting '{f.name}' is {'off' if want else 'on'}")
    else:
        out.append("a condition does not hold")


def _truth(task, state, f, b) -> bool:
    return task.holds(f, state, b)


def _expr_text(task, state, e, b) -> str:
    if isinstance(e, m.Num):
        return _num(e.value)
    if isinstance(e, m.FluentTerm):
        args = tuple(b.get(a, a) for a in e.args)
        return f"{e.name}({', '.join(args)})={_num(task.value(state, e.name, args))}"
    if isinstance(e, m.SettingValue):
        return f"{e.name}={task.settings[e.name]}"
    return "expression"


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
