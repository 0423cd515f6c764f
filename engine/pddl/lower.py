"""Lowering: timers and bounded numeric fluents compiled into plain predicates and actions.

PDDL 2.1 level 1 has no timers and Fast Downward takes no numeric fluents, yet the kitchen has
both (cooking timers, a cut counter). `lower(problem)` returns an equivalent problem in our own
model, so the PDDL writer exports it unchanged and our own interpreter can check the compilation
against the original (tests/test_pddl_lowering.py). Nothing here is specific to a world.

Timers become a queue of slots `gp-s1..gp-sR+1` (R = the timer instances the grounded actions can
start, so the queue never overflows). Slot k holding instance T(args) with c steps to go is the
fact `gp-T-at(k, args, c)`; `gp-T-on(args)` says T(args) is in the queue. A step is one of the
original actions (only while `gp-acting`), which appends the timers it starts at the queue's
end, followed by a forced chain of bookkeeping actions of cost 0 that tick the slots in order
(read pointer k, write pointer w <= k, so finished instances leave no holes), apply running,
paused and done effects exactly where the interpreter applies them (engine.task._Builder.tick:
a new instance's first step does not count, "skip-after-done" steps over the next instance), and
end in `gp-acting` again. In every state exactly one bookkeeping action is applicable until the
tick ends, so optimal costs are equal and a plan maps back by dropping bookkeeping steps.

Numeric fluents become value facts `F-value(args, gp-vX)` over the finite set of values the
fluent can take, found by a fixpoint over the actions that ignores their fact preconditions (an
over-approximation: exactness does not depend on it, only the size). An action that reads or
writes fluents is split into one variant per combination of their values; in a variant every
comparison is decided and every update's result known. A fluent that could take more than
`max_values` values is refused.

Refused with the construct named: object creation, stopping timers, starting a timer inside a
conditional or universal effect or a timer's own effects, durations that are not constants,
numeric fluents read under a quantifier or by derived predicates, computed fluents and tables.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

from .. import model as m
from .writer import TEMPORAL_GOALS, ExportError, _constant

SLOT, COUNT, NUMBER = "gp-slot", "gp-count", "gp-number"
ACTING, READ, WRITE, END, NEW, SKIP, NEXT, FINISHING = (
    "gp-acting", "gp-read", "gp-write", "gp-end", "gp-new", "gp-skip", "gp-next", "gp-finishing")
SUCC, MORE, POSITIVE, LAST, ZERO = "gp-succ", "gp-more", "gp-positive", "gp-last", "gp-zero"
NOT_AFTER = "gp-not-after"  # static (w, k) with w <= k: the write pointer never passes the read pointer
GOAL_ACTION, GOAL_REACHED = "gp-reach-goal", "gp-goal-reached"
K, KN, W, WN, C, C2 = "?gp-k", "?gp-kn", "?gp-w", "?gp-wn", "?gp-c", "?gp-c2"


@dataclass
class Lowered:
    problem: m.Problem
    origin: dict = field(default_factory=dict)  # lowered action name -> the original's (None: bookkeeping)
    slots: int = 0  # queue slots (0: no timers)
    values: dict = field(default_factory=dict)  # lowered fluent -> its values, in order
    notes: list = field(default_factory=list)  # what was compiled, for the user

    source: m.Problem | None = None  # the problem before lowering

    def original(self, name: str) -> str | None:
        """The original action of a lowered one; None for a bookkeeping step."""
        return self.origin.get(name, name)

    def original_step(self, name: str, args) -> tuple | None:
        """(the original action, its arguments) of a lowered step; None for bookkeeping. Variants
        add parameters (the queue's end) after the original's, which are dropped."""
        orig = self.original(name)
        if orig is None:
            return None
        return orig, tuple(args)[:len(self.source.domain.actions[orig].params)]


def _slot(i: int) -> str:
    return f"gp-s{i}"


def _count(i: int) -> str:
    return f"gp-c{i}"


def _value_object(v: float) -> str:
    text = str(int(v)) if float(v) == int(v) else repr(float(v))
    return "gp-v" + text.replace("-", "m").replace(".", "p")


def _and(parts) -> object:
    parts = [p for p in parts if not (isinstance(p, m.Const) and p.value)]
    if any(isinstance(p, m.Const) and not p.value for p in parts):
        return m.Const(False)
    if not parts:
        return m.Const(True)
    return parts[0] if len(parts) == 1 else m.And(tuple(parts))


def _negate(f):
    return f.part if isinstance(f, m.Not) else m.Const(not f.value) if isinstance(f, m.Const) else m.Not(f)


def _false_cases(cond) -> list[list]:
    """Mutually exclusive conjunctions, one of which holds exactly when `cond` does not: a
    negated conjunction as a disjunction split into actions, which Fast Downward's LM-cut reads
    (a negated conjunction in a precondition becomes an axiom, which it does not)."""
    if isinstance(cond, m.And):
        parts = list(cond.parts)
        return [parts[:i] + [_negate(parts[i])] for i in range(len(parts))]
    return [[_negate(cond)]]


def _literal(f) -> bool:
    f = f.part if isinstance(f, m.Not) else f
    return isinstance(f, (m.Atom, m.Equal))


def split_conditional(a: m.ActionSchema, limit: int = 64) -> list[m.ActionSchema]:
    """The action as variants without top-level conditional effects over literals: one per
    outcome of each condition, the outcome moved into the precondition. Exact (conditions and
    preconditions are both read in the state before the step) and exclusive, so each original
    transition is one variant's; LM-cut and other heuristics take no conditional effects."""
    whens = [e for e in a.effects if isinstance(e, m.When)
             and all(_literal(x) for x in (e.condition.parts if isinstance(e.condition, m.And) else (e.condition,)))]
    if not whens:
        return [a]
    others = [e for e in a.effects if not any(e is w for w in whens)]
    options = []
    for w in whens:
        options.append([([w.condition], list(w.then))] + [(case, list(w.otherwise)) for case in _false_cases(w.condition)])
    if math.prod(len(o) for o in options) > limit:
        return [a]
    out = []
    for combo in itertools.product(*options):
        pre = [a.precondition if a.precondition is not None else m.Const(True)]
        effects = list(others)
        for literals, branch in combo:
            pre += literals
            effects += branch
        precondition = _and(pre)
        if isinstance(precondition, m.Const) and not precondition.value:
            continue
        out += split_conditional(replace(a, name=f"{a.name}/{len(out) + 1}", precondition=precondition,
                                         effects=tuple(effects)), limit)
    return out


def _rename(f, names: dict):
    """The formula with variables renamed (a quantifier's own variables shadow the mapping)."""
    t = lambda x: names.get(x, x)  # noqa: E731
    if isinstance(f, m.Atom):
        return m.Atom(f.pred, tuple(t(a) for a in f.args))
    if isinstance(f, m.Equal):
        return m.Equal(t(f.left), t(f.right))
    if isinstance(f, (m.And, m.Or)):
        return type(f)(tuple(_rename(x, names) for x in f.parts))
    if isinstance(f, m.Not):
        return m.Not(_rename(f.part, names))
    if isinstance(f, m.Imply):
        return m.Imply(_rename(f.condition, names), _rename(f.consequence, names))
    if isinstance(f, m.Quantified):
        inner = {k: v for k, v in names.items() if k not in {v for v, _ in f.params}}
        return m.Quantified(f.kind, f.params, _rename(f.body, inner))
    return f


def _prenex_exists(f, taken: list):
    """(variables, matrix): the existential quantifiers not under a negation, disjunction or
    universal pulled to the front, renamed apart, so that they can become an action's parameters."""
    if isinstance(f, m.Quantified) and f.kind == "exists":
        names, params = {}, []
        for v, ty in f.params:
            fresh = f"?gp-g{len(taken) + 1}"
            taken.append(fresh)
            names[v] = fresh
            params.append((fresh, ty))
        inner, body = _prenex_exists(_rename(f.body, names), taken)
        return params + inner, body
    if isinstance(f, m.And):
        params, parts = [], []
        for x in f.parts:
            ps, body = _prenex_exists(x, taken)
            params += ps
            parts.append(body)
        return params, _and(parts)
    return [], f


def goal_action(goal, extra=()) -> m.ActionSchema | None:
    """A goal that is not a conjunction of ground literals as an action of cost 0 that reaches
    `gp-goal-reached`: Fast Downward turns such a goal into axioms, which LM-cut does not read;
    as a precondition, its existential variables are parameters and a disjunction splits."""
    parts = goal.parts if isinstance(goal, m.And) else (goal,)
    if all(_literal(x) and not any(a.startswith("?") for a in getattr(x.part if isinstance(x, m.Not) else x, "args", ()))
           for x in parts):
        return None
    params, matrix = _prenex_exists(goal, [])
    return m.ActionSchema(GOAL_ACTION, tuple(params), _and([matrix, *extra]), (m.Add(m.Atom(GOAL_REACHED, ())),), m.Num(0), None)


# ---------------------------------------------------------------- timers
class _TimerLowering:
    def __init__(self, problem: m.Problem, timers: dict, slots: int):
        self.p, self.d = problem, problem.domain
        self.timers = timers
        self.slots = slots
        self.skip_rule = problem.tick_rule == "skip-after-done"
        self.durations = {}
        for name, t in timers.items():
            value = _constant(t.duration, problem.settings)
            if value is None:
                raise ExportError(f"the duration of timer '{name}'", f"domain /timers/{name}/duration",
                                  "only durations that are numbers or settings can be lowered")
            self.durations[name] = max(0, math.ceil(value))
        self.max_count = max(self.durations.values(), default=0) + 1  # a skipped new instance waits one more

    def at(self, timer: str, slot: str, args, count: str) -> m.Atom:
        return m.Atom(f"gp-{timer}-at", (slot, *args, count))

    def on(self, timer: str, args) -> m.Atom:
        return m.Atom(f"gp-{timer}-on", tuple(args))

    def predicates(self) -> dict:
        out = {}
        for name, ps in [(ACTING, ()), (SKIP, ()), (FINISHING, ()), (READ, ((K, SLOT),)), (WRITE, ((K, SLOT),)),
                         (END, ((K, SLOT),)), (NEW, ((K, SLOT),)), (NEXT, ((K, SLOT), (KN, SLOT))), (NOT_AFTER, ((W, SLOT), (K, SLOT))),
                         (SUCC, ((C, COUNT), (C2, COUNT))), (MORE, ((C, COUNT), (C2, COUNT))),
                         (POSITIVE, ((C, COUNT),)), (LAST, ((C, COUNT),)), (ZERO, ((C, COUNT),))]:
            out[name] = m.PredicateDef(name, ps, hidden=True)
        for name, t in self.timers.items():
            out[f"gp-{name}-at"] = m.PredicateDef(f"gp-{name}-at", ((K, SLOT), *t.params, (C, COUNT)), hidden=True)
            out[f"gp-{name}-on"] = m.PredicateDef(f"gp-{name}-on", t.params, hidden=True)
            out[f"gp-{name}-fin"] = m.PredicateDef(f"gp-{name}-fin", t.params, hidden=True)
        return out

    def objects(self) -> dict:
        out = {_slot(i): SLOT for i in range(1, self.slots + 2)}
        out.update({_count(i): COUNT for i in range(self.max_count + 1)})
        return out

    def init(self) -> list:
        facts = [(ACTING, ()), (END, (_slot(1),))]
        facts += [(NEXT, (_slot(i), _slot(i + 1))) for i in range(1, self.slots + 1)]
        facts += [(NOT_AFTER, (_slot(i), _slot(j))) for j in range(1, self.slots + 2) for i in range(1, j + 1)]
        facts += [(SUCC, (_count(i), _count(i + 1))) for i in range(self.max_count)]
        facts += [(MORE, (_count(i), _count(i - 1))) for i in range(2, self.max_count + 1)]
        facts += [(POSITIVE, (_count(i),)) for i in range(1, self.max_count + 1)]
        facts += [(LAST, (_count(0),)), (LAST, (_count(1),)), (ZERO, (_count(0),))]
        return facts

    # ------------------------------------------------------------ an original action, then the tick
    def main_actions(self, a: m.ActionSchema) -> list[m.ActionSchema]:
        """The action, only while acting, handing over to the tick. Appending at the queue's end
        depends on which started instances are already in the queue: one variant per pattern of
        'already in', with the end's slots as extra parameters after the action's own."""
        starts, rest = [], []
        for e in a.effects:
            (starts if isinstance(e, m.StartTimer) else rest).append(e)
        for e in m.iter_effects(rest):
            if isinstance(e, m.StartTimer):
                raise ExportError(f"starting timer '{e.timer}' inside a conditional or universal effect",
                                  f"domain /actions/{a.name}/effect", "start it at the top level of the effect list")
        names = [s.timer for s in starts]
        if len(set(names)) < len(names):
            raise ExportError(f"two starts of timer '{names[0]}' in one action", f"domain /actions/{a.name}/effect")
        effects = rest + [m.Delete(m.Atom(ACTING, ())), m.Add(m.Atom(READ, (_slot(1),))), m.Add(m.Atom(WRITE, (_slot(1),)))]
        for s in starts:  # "reset": an instance already in the queue counts again from its place
            if self.timers[s.timer].restart != "keep":
                full = _count(self.durations[s.timer])
                then = (m.Delete(self.at(s.timer, K, s.args, C)), m.Add(self.at(s.timer, K, s.args, full)),
                        m.Add(m.Atom(NEW, (K,))))
                effects.append(m.ForallEffect(((K, SLOT), (C, COUNT)), (m.When(self.at(s.timer, K, s.args, C), then),)))
        pre = [a.precondition if a.precondition is not None else m.Const(True), m.Atom(ACTING, ())]
        out = []
        for pattern in itertools.product((True, False), repeat=len(starts)):
            appended = [s for s, already in zip(starts, pattern) if not already]
            chain = [f"?gp-e{i}" for i in range(len(appended) + 1)] if appended else []
            cond = [self.on(s.timer, s.args) if already else m.Not(self.on(s.timer, s.args))
                    for s, already in zip(starts, pattern)]
            then = []
            if appended:
                cond += [m.Atom(END, (chain[0],))] + [m.Atom(NEXT, (chain[i], chain[i + 1])) for i in range(len(appended))]
                then = [m.Delete(m.Atom(END, (chain[0],))), m.Add(m.Atom(END, (chain[-1],)))]
            for i, s in enumerate(appended):
                then += [m.Add(self.at(s.timer, chain[i], s.args, _count(self.durations[s.timer]))),
                         m.Add(m.Atom(NEW, (chain[i],))), m.Add(self.on(s.timer, s.args))]
            name = a.name if not starts else f"{a.name}|{len(out) + 1}"
            out.append(replace(a, name=name, params=a.params + tuple((v, SLOT) for v in chain),
                               precondition=_and(pre + cond), effects=tuple(effects + then)))
        return out

    def tick_actions(self) -> list[m.ActionSchema]:
        out = []
        for name, t in self.timers.items():
            out += self.timer_actions(name, t)
        end_effects = [m.Delete(m.Atom(READ, (K,))), m.Delete(m.Atom(WRITE, (W,))), m.Delete(m.Atom(END, (K,))),
                       m.Add(m.Atom(END, (W,))), m.Add(m.Atom(ACTING, ()))]
        if self.skip_rule:
            end_effects.append(m.Delete(m.Atom(SKIP, ())))
        out.append(self.bookkeeping("gp-tick-end", ((K, SLOT), (W, SLOT)),
                                    [m.Atom(READ, (K,)), m.Atom(END, (K,)), m.Atom(WRITE, (W,)), m.Not(m.Atom(FINISHING, ()))],
                                    end_effects))
        return out

    @staticmethod
    def bookkeeping(name, params, pre, effects) -> m.ActionSchema:
        return m.ActionSchema(name, tuple(params), _and(pre), tuple(effects), m.Num(0), None)

    def timer_actions(self, name: str, t: m.TimerDef) -> list[m.ActionSchema]:
        args = tuple(v for v, _ in t.params)
        for e in m.iter_effects(t.running + t.paused + t.done):
            if isinstance(e, (m.StartTimer, m.StopTimer)):
                raise ExportError(f"a timer started or stopped by timer '{name}'", f"domain /timers/{name}")
        slots = ((K, SLOT), (KN, SLOT), (W, SLOT), (WN, SLOT))
        here = self.at(name, K, args, C)
        new = m.Atom(NEW, (K,))
        base = [m.Atom(READ, (K,)), m.Atom(NEXT, (K, KN)), m.Atom(WRITE, (W,)), m.Atom(NEXT, (W, WN)),
                m.Atom(NOT_AFTER, (W, K)), here,
                m.Not(m.Atom(FINISHING, ()))]
        read_on = [m.Delete(m.Atom(READ, (K,))), m.Add(m.Atom(READ, (KN,))), m.Delete(new)]

        def move(count):  # the instance keeps its place in the order, compacted to the write pointer
            return [m.Delete(here), m.Add(self.at(name, W, args, count)), m.Delete(m.Atom(WRITE, (W,))),
                    m.Add(m.Atom(WRITE, (WN,)))] + read_on

        removed = [m.Delete(here), m.Delete(self.on(name, args))] + read_on
        after_done = [m.Add(m.Atom(SKIP, ()))] if self.skip_rule else []
        one, two = t.params + slots + ((C, COUNT),), t.params + slots + ((C, COUNT), (C2, COUNT))
        cond = t.condition if t.condition is not None else m.Const(True)
        ticking = base + ([m.Not(m.Atom(SKIP, ()))] if self.skip_rule else [])
        out = []
        if self.skip_rule:  # the instance after one that completed: no tick at all this step
            skip = m.Delete(m.Atom(SKIP, ()))
            out.append(self.bookkeeping(f"gp-{name}-skip", one, base + [m.Atom(SKIP, ()), m.Not(new)], move(C) + [skip]))
            out.append(self.bookkeeping(f"gp-{name}-skip-new", two, base + [m.Atom(SKIP, ()), new, m.Atom(SUCC, (C, C2))],
                                        move(C2) + [skip]))
        if not (isinstance(cond, m.Const) and cond.value):
            for i, case in enumerate(_false_cases(cond), 1):
                out.append(self.bookkeeping(f"gp-{name}-pause{i}", one, ticking + case, list(t.paused) + move(C)))
        running = list(t.running)
        out.append(self.bookkeeping(f"gp-{name}-run", two, ticking + [cond, m.Not(new), m.Atom(MORE, (C, C2))],
                                    running + move(C2)))
        out.append(self.bookkeeping(f"gp-{name}-run-new", one, ticking + [cond, new, m.Atom(POSITIVE, (C,))],
                                    running + move(C)))
        for label, when in (("last", [m.Not(new), m.Atom(LAST, (C,))]), ("last-new", [new, m.Atom(ZERO, (C,))])):
            if running:  # the done effects see the running effects' result: a second step applies them
                fin = m.Atom(f"gp-{name}-fin", args)
                out.append(self.bookkeeping(f"gp-{name}-{label}", one, ticking + [cond] + when,
                                            running + removed + [m.Add(m.Atom(FINISHING, ())), m.Add(fin)]))
            else:
                out.append(self.bookkeeping(f"gp-{name}-{label}", one, ticking + [cond] + when,
                                            removed + list(t.done) + after_done))
        if running:
            fin = m.Atom(f"gp-{name}-fin", args)
            out.append(self.bookkeeping(f"gp-{name}-done", t.params, [fin],
                                        [m.Delete(fin), m.Delete(m.Atom(FINISHING, ()))] + list(t.done) + after_done))
        return out


# ---------------------------------------------------------------- numeric fluents
class _NumberLowering:
    def __init__(self, problem: m.Problem, fluents: list[str], max_values: int):
        self.p, self.d = problem, problem.domain
        self.fluents = fluents
        self.max_values = max_values
        self.settings = problem.settings

    def value_atom(self, term: m.FluentTerm, v) -> m.Atom:
        return m.Atom(f"{term.name}-value", (*term.args, _value_object(v)))

    # ------------------------------------------------------------ reading
    def terms(self, a: m.ActionSchema) -> list[m.FluentTerm]:
        params = {v for v, _ in a.params}
        found = []
        for node in m.walk_nodes((a.precondition, a.effects, a.cost)):
            if isinstance(node, m.FluentTerm) and node.name in self.fluents and node not in found:
                bad = [x for x in node.args if x.startswith("?") and x not in params]
                if bad:
                    raise ExportError(f"the fluent '{node.name}' read under a quantifier", f"domain /actions/{a.name}",
                                      "only fluents over the action's own parameters can be lowered")
                found.append(node)
        return sorted(found, key=lambda t: (t.name, t.args))

    def ev(self, e, val: dict, where: str):
        if isinstance(e, bool):
            raise ExportError("a truth value used as a number", where)
        if isinstance(e, (int, float)):
            return e
        if isinstance(e, m.Num):
            return e.value
        if isinstance(e, m.SettingValue):
            return float(self.settings[e.name])
        if isinstance(e, m.FluentTerm):
            if e not in val:
                raise ExportError(f"the fluent '{e.name}'", where, "it is not a stored fluent over the action's parameters")
            return val[e]
        if isinstance(e, m.Arith):
            xs = [self.ev(x, val, where) for x in e.parts]
            ops = {"+": lambda: sum(xs), "-": lambda: xs[0] - xs[1] if len(xs) > 1 else -xs[0],
                   "*": lambda: math.prod(xs), "/": lambda: xs[0] / xs[1], "mod": lambda: xs[0] % xs[1],
                   "min": lambda: min(xs), "max": lambda: max(xs), "abs": lambda: abs(xs[0])}
            if e.op in ops:
                return ops[e.op]()
        if isinstance(e, m.IfExpr):
            cond = self.pe(e.condition, val, where)
            if isinstance(cond, m.Const):
                return self.ev(e.then if cond.value else e.otherwise, val, where)
        raise ExportError(f"the expression '{getattr(e, 'op', type(e).__name__)}'", where,
                          "only arithmetic over numbers, settings and the action's fluents can be lowered")

    def pe(self, f, val: dict, where: str):
        """The formula with every comparison decided under the valuation."""
        if isinstance(f, m.Compare):
            a, b = self.ev(f.left, val, where), self.ev(f.right, val, where)
            ops = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b, "!=": a != b}
            return m.Const(ops[f.op])
        if isinstance(f, m.And):
            return _and([self.pe(x, val, where) for x in f.parts])
        if isinstance(f, m.Or):
            parts = [self.pe(x, val, where) for x in f.parts]
            if any(isinstance(p, m.Const) and p.value for p in parts):
                return m.Const(True)
            parts = [p for p in parts if not isinstance(p, m.Const)]
            return m.Const(False) if not parts else parts[0] if len(parts) == 1 else m.Or(tuple(parts))
        if isinstance(f, m.Not):
            x = self.pe(f.part, val, where)
            return m.Const(not x.value) if isinstance(x, m.Const) else m.Not(x)
        if isinstance(f, m.Imply):
            return self.pe(m.Or((m.Not(f.condition), f.consequence)), val, where)
        if isinstance(f, m.Quantified):
            for node in m.walk_nodes(f.body):
                if isinstance(node, m.FluentTerm) and node.name in self.fluents:
                    raise ExportError(f"the fluent '{node.name}' read under a quantifier", where)
            return f
        if isinstance(f, m.SettingTest):
            return m.Const(bool(self.settings.get(f.name)))
        return f

    # ------------------------------------------------------------ one variant's effects
    def effects(self, effects, val: dict, where: str):
        """(effects with updates removed and conditions decided, [(conditions, update), ...]) in written order."""
        updates = []

        def walk(effs, conds):
            out = []
            for e in effs:
                if isinstance(e, m.Update):
                    if e.target.name not in self.fluents:
                        raise ExportError(f"the fluent '{e.target.name}'", where)
                    updates.append((conds, e))
                elif isinstance(e, m.When):
                    c = self.pe(e.condition, val, where)
                    if isinstance(c, m.Const):
                        out += walk(e.then if c.value else e.otherwise, conds)
                    else:
                        then, other = walk(e.then, conds + ((c, True),)), walk(e.otherwise, conds + ((c, False),))
                        if then or other:
                            out.append(m.When(c, tuple(then), tuple(other)))
                elif isinstance(e, m.ForallEffect):
                    if any(isinstance(x, m.Update) for x in m.iter_effects(e.effects)):
                        raise ExportError("a numeric update inside a universal effect", where)
                    out.append(m.ForallEffect(e.params, tuple(walk(e.effects, conds))))
                else:
                    out.append(e)
            return out

        plain = walk(effects, ())
        return plain, updates

    def outcomes(self, updates, val: dict, where: str):
        """Every (truth values of the undecided conditions, final values) of the updates: each
        update's amount is read in the state before the step, and they apply in written order."""
        undecided = []
        for conds, _ in updates:
            for c, _ in conds:
                if c not in undecided:
                    undecided.append(c)
        if len(undecided) > 6:
            raise ExportError("more than 6 conditions on numeric updates in one action", where)
        for truth in itertools.product((True, False), repeat=len(undecided)):
            holds = dict(zip(undecided, truth))
            final = {}
            for conds, u in updates:
                if all(holds[c] == want for c, want in conds):
                    amount = self.ev(u.value, val, where)
                    old = final.get(u.target, val[u.target])
                    final[u.target] = amount if u.op == "assign" else old + amount if u.op == "increase" else old - amount
            for target, v in final.items():
                if not math.isfinite(v):
                    raise ExportError(f"an update of '{target.name}' that leaves the finite numbers", where)
            yield holds, final

    # ------------------------------------------------------------ the whole problem
    def domains(self, actions) -> dict:
        """Each fluent's reachable values (a fixpoint that ignores fact preconditions)."""
        values = {f: {float(self.d.fluents[f].default)} for f in self.fluents}
        for (name, _), v in self.p.values:
            if name in values:
                values[name].add(float(v))
        plans = [(a, self.terms(a)) for a in actions]
        changed = True
        while changed:
            changed = False
            for a, terms in plans:
                if not terms:
                    continue
                where = f"domain /actions/{a.name}"
                for val, _ in self.possible(a, terms, values, where):
                    _, updates = self.effects(a.effects, val, where)
                    for _, final in self.outcomes(updates, val, where):
                        for target, v in final.items():
                            if v not in values[target.name]:
                                values[target.name].add(v)
                                changed = True
                                if len(values[target.name]) > self.max_values:
                                    raise ExportError(f"the fluent '{target.name}' takes more than {self.max_values} values",
                                                      where, "only fluents with a small finite range can be lowered")
        return {f: sorted(vs) for f, vs in values.items()}

    def possible(self, a: m.ActionSchema, terms, values, where):
        """(valuation, decided precondition) for each combination of the terms' values under
        which the action's precondition is not already false."""
        sizes = math.prod(len(values[t.name]) for t in terms)
        if sizes > 100_000:
            raise ExportError(f"{sizes} combinations of fluent values in one action", where)
        for combo in itertools.product(*[sorted(values[t.name]) for t in terms]):
            val = dict(zip(terms, combo))
            pre = self.pe(a.precondition if a.precondition is not None else m.Const(True), val, where)
            if not (isinstance(pre, m.Const) and not pre.value):
                yield val, pre

    def variants(self, a: m.ActionSchema, values: dict) -> list[m.ActionSchema]:
        terms = self.terms(a)
        if not terms:
            return [a]
        where = f"domain /actions/{a.name}"
        out = []
        for val, pre in self.possible(a, terms, values, where):
            plain, updates = self.effects(a.effects, val, where)
            for holds, final in self.outcomes(updates, val, where):
                changes = []
                for target, v in final.items():
                    if v != val[target]:
                        changes += [m.Delete(self.value_atom(target, val[target])), m.Add(self.value_atom(target, v))]
                if not changes:
                    continue
                literals = [c if want else m.Not(c) for c, want in holds.items()]
                plain.append(m.When(_and(literals), tuple(changes)) if literals else changes)
            flat = []
            for e in plain:
                flat += e if isinstance(e, list) else [e]
            cost = a.cost
            if any(isinstance(n, m.FluentTerm) for n in m.walk_nodes(cost)):
                cost = m.Num(self.ev(cost, val, where))
            pre = _and([self.value_atom(t, val[t]) for t in terms] + [pre])
            out.append(replace(a, name=f"{a.name}#{len(out) + 1}", precondition=pre, effects=tuple(flat), cost=cost))
        return out

    def goal(self, f, values: dict):
        """A comparison over ground fluents becomes the disjunction of the value combinations that satisfy it."""
        if isinstance(f, m.Compare):
            terms = [n for n in m.walk_nodes(f) if isinstance(n, m.FluentTerm) and n.name in self.fluents]
            terms = sorted(set(terms), key=lambda t: (t.name, t.args))
            if any(x.startswith("?") for t in terms for x in t.args):
                raise ExportError("a fluent read under a quantifier", "problem /goal")
            options = []
            for combo in itertools.product(*[values[t.name] for t in terms]):
                val = dict(zip(terms, combo))
                if self.pe(f, val, "problem /goal").value:
                    options.append(_and([self.value_atom(t, val[t]) for t in terms]))
            return m.Const(False) if not options else options[0] if len(options) == 1 else m.Or(tuple(options))
        if isinstance(f, (m.And, m.Or)):
            return type(f)(tuple(self.goal(x, values) for x in f.parts))
        if isinstance(f, m.Not):
            return m.Not(self.goal(f.part, values))
        if isinstance(f, m.Imply):
            return m.Imply(self.goal(f.condition, values), self.goal(f.consequence, values))
        if isinstance(f, m.Quantified):
            return self.pe(f, {}, "problem /goal")
        return f

    def init(self, values: dict) -> list:
        given = {(name, tuple(args)): float(v) for (name, args), v in self.p.values}
        facts = []
        for name in self.fluents:
            fd = self.d.fluents[name]
            for combo in itertools.product(*[self.p.objects_of(t) for _, t in fd.params]):
                v = given.get((name, combo), float(fd.default))
                facts.append((f"{name}-value", (*combo, _value_object(v))))
        return facts


# ---------------------------------------------------------------- entry point
def needs_lowering(problem: m.Problem, numbers: bool = True) -> bool:
    d = problem.domain
    return bool(d.timers) or (numbers and any(f.value is None for f in d.fluents.values()))


def lower(problem: m.Problem, numbers: bool = True, max_values: int = 64, timer_instances: int | None = None,
          goal_as_action: bool = False) -> Lowered:
    """The problem without timers (and, with `numbers`, without stored numeric fluents; with
    `goal_as_action`, with a goal that is a conjunction of ground literals).

    `timer_instances` bounds how many timer instances can be in the queue at once; by default
    the ground instances the actions can start, counted by the interpreter's grounding."""
    d = problem.domain
    if isinstance(problem.goal, TEMPORAL_GOALS):  # before the goal hides inside an action
        raise ExportError("a temporal goal", "problem /goal", "PDDL 2.1 has no goals over the trajectory")
    actions, timers = list(d.actions.values()), dict(d.timers)
    if d.timers or d.creates_objects():  # what the grounded actions can never do is left out
        from ..task import Task
        task = Task(problem)
        u = task.universe()
        if u.actions is not None:
            live = {a.schema.name for a in u.actions}
            started = task.reachable_timers(u)
            actions = [a for a in actions if a.name in live]
            timers = {n: t for n, t in timers.items() if n in {task.timer_keys[tid][0] for tid in started}}
            if timer_instances is None:
                timer_instances = len(started)
    effects = [e for a in actions for e in m.iter_effects(a.effects)]
    effects += [e for t in timers.values() for e in m.iter_effects(t.running + t.paused + t.done)]
    for e in effects:
        if isinstance(e, m.Create):
            raise ExportError("object creation", "domain", "a pool of objects made in advance is not written yet")
        if isinstance(e, m.StopTimer):
            raise ExportError(f"stopping timer '{e.timer}'", "domain", "only timers that run out can be lowered")
    if d.tables:
        raise ExportError("lookup tables", "domain /tables")
    lowered = Lowered(problem, source=problem)
    predicates = dict(d.predicates)
    types = dict(d.types)
    objects = dict(problem.objects)
    init = list(problem.init)
    goal = problem.goal
    fluents = dict(d.fluents)
    for a in actions:
        lowered.origin[a.name] = a.name
    if timers:
        if timer_instances is None:
            timer_instances = sum(math.prod(len(problem.objects_of(ty)) for _, ty in t.params) for t in timers.values())
        lowering = _TimerLowering(problem, timers, max(1, timer_instances))
        types.update({SLOT: "object", COUNT: "object"})
        predicates.update(lowering.predicates())
        objects.update(lowering.objects())
        init += lowering.init()
        mains = []
        for a in actions:
            for v in lowering.main_actions(a):
                lowered.origin[v.name] = a.name
                mains.append(v)
        actions = mains
        for a in lowering.tick_actions():
            lowered.origin[a.name] = None
            actions.append(a)
        goal = _and([goal, m.Atom(ACTING, ())])
        lowered.slots = lowering.slots
        lowered.notes.append(f"timers ({', '.join(timers)}) compiled into a queue of {lowering.slots} slots "
                             f"ticked by bookkeeping actions of cost 0")
    every = [name for name, f in d.fluents.items() if f.value is None]
    stored = [name for name in every if any(isinstance(n, m.FluentTerm) and n.name == name
                                             for a in actions for n in m.walk_nodes((a.precondition, a.effects, a.cost)))
              or any(isinstance(n, m.FluentTerm) and n.name == name for n in m.walk_nodes(problem.goal))]
    if numbers:
        for name in set(every) - set(stored):  # read by nothing that is left
            del fluents[name]
    if numbers and stored:
        if any(f.value is not None for f in d.fluents.values()):
            raise ExportError("computed fluents", "domain /fluents")
        for dp in d.derived.values():
            if any(isinstance(n, m.FluentTerm) for n in m.walk_nodes(dp.formula)):
                raise ExportError(f"the derived predicate '{dp.name}' reading a fluent", f"domain /derived/{dp.name}")
        nums = _NumberLowering(problem, stored, max_values)
        values = nums.domains(actions)
        variants = []
        for a in actions:
            for v in nums.variants(a, values):
                lowered.origin[v.name] = lowered.origin.get(a.name, a.name)
                variants.append(v)
        actions = variants
        types[NUMBER] = "object"
        for name in stored:
            fd = d.fluents[name]
            predicates[f"{name}-value"] = m.PredicateDef(f"{name}-value", (*fd.params, ("?gp-v", NUMBER)), hidden=True)
            del fluents[name]
        for vs in values.values():
            objects.update({_value_object(v): NUMBER for v in vs})
        init += nums.init(values)
        goal = nums.goal(goal, values)
        lowered.values = values
        lowered.notes.append("numeric fluents compiled into value facts: " +
                             ", ".join(f"{f} in {{{', '.join(_number_text(v) for v in vs)}}}" for f, vs in values.items()))
    if goal_as_action:
        reach = goal_action(goal)
        if reach is not None:
            actions.append(reach)
            lowered.origin[reach.name] = None
            predicates[GOAL_REACHED] = m.PredicateDef(GOAL_REACHED, (), hidden=True)
            goal = m.Atom(GOAL_REACHED, ())
            lowered.notes.append("the goal reached by an action of cost 0 whose parameters are its existential variables")
    split = []
    for a in actions:
        for v in split_conditional(a):
            lowered.origin[v.name] = lowered.origin.get(a.name, a.name)
            split.append(v)
    actions = split
    clash = [o for o in objects if o.startswith("gp-") and o not in problem.objects and o in d.constants]
    if clash:
        raise ExportError(f"the object names {clash}", "problem /objects", "names starting with 'gp-' are the lowering's own")
    constants = dict(d.constants)  # the lowering's objects appear in its actions: PDDL wants them declared as constants
    constants.update({o: t for o, t in objects.items() if o not in problem.objects})
    for node in m.walk_nodes([(a.precondition, a.effects) for a in actions]):  # the goal action names problem objects
        names = node.args if isinstance(node, (m.Atom, m.FluentTerm)) else (node.left, node.right) if isinstance(node, m.Equal) else ()
        constants.update({x: objects[x] for x in names if not x.startswith("?") and x in objects})
    domain = replace(d, types=types, constants=constants, predicates=predicates, fluents=fluents, timers={},
                     actions={a.name: a for a in actions}, invariants=[], heuristics={}, plugin_world=None,
                     tick_rule="all", raw={}, warnings=[])
    lowered.problem = replace(problem, domain=domain, objects=objects, init=init,
                              values=[] if numbers else problem.values, goal=goal, tick_rule="all",
                              max_steps=None, optimal=None, routing=None, raw={}, warnings=[])
    return lowered


def _number_text(v: float) -> str:
    return str(int(v)) if float(v) == int(v) else str(v)
