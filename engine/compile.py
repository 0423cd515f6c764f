"""Compiling lifted formulas, expressions and effects under a binding into fast ground forms.

A ground condition is `True`, `False` or a `Condition`: bit masks of facts that must be true
(`pos`) and false (`neg`), plus an optional residual test for what masks cannot say (disjunction,
numeric comparison). Static facts and settings are decided here, once, so the search loop only
does integer arithmetic on states. Ground effects are compiled the same way.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Callable

from . import model as m
from .errors import GroundplanError


class NumericError(GroundplanError, ArithmeticError):
    """A numeric expression has no finite value (division by zero, overflow)."""


class FactTable:
    """Interns ground atoms (pred, args) as consecutive integers; a fact's mask is 1 << id."""

    def __init__(self):
        self.ids: dict[tuple, int] = {}
        self.atoms: list[tuple] = []

    def id(self, pred: str, args: tuple) -> int:
        key = (pred, args)
        fid = self.ids.get(key)
        if fid is None:
            fid = self.ids[key] = len(self.atoms)
            self.atoms.append(key)
        return fid

    def decode(self, bits: int):
        """The atoms whose bits are set, in id order."""
        atoms = self.atoms
        while bits:
            low = bits & -bits
            yield atoms[low.bit_length() - 1]
            bits ^= low


def set_bits(mask: int) -> list[int]:
    """The indices of the set bits of `mask`, lowest first (hot loops inline this walk instead)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(slots=True)
class Condition:
    pos: int = 0
    neg: int = 0
    test: Callable | None = None  # test(state, bits) -> bool
    thresholds: tuple = ()  # (op, fluent index, constant) of top-level numeric comparisons

    def holds(self, state, bits) -> bool:
        return bits & self.pos == self.pos and not bits & self.neg and (self.test is None or self.test(state, bits))


@dataclass(slots=True)
class GroundEffect:
    """What applying one ground action (or a timer phase) changes, decided on the pre-state."""

    add: int = 0
    delete: int = 0
    # everything else, in the order written: ("when", Condition, then, else), ("update", op,
    # fluent index, value fn or number), ("start", timer id), ("stop", timer id), ("create", Create, binding)
    ordered: list = field(default_factory=list)

    @property
    def simple(self) -> bool:
        return not self.ordered

    def items(self):
        """Every ordered item, those inside 'when' branches included."""
        for item in self.ordered:
            yield item
            if item[0] == "when":
                yield from item[2].items()
                yield from item[3].items()

    def started_timers(self) -> list[int]:
        return [item[1] for item in self.items() if item[0] == "start"]


class Compiler:
    """Grounds lifted trees for one task universe (its objects, static facts and settings)."""

    def __init__(self, task, objects: dict[str, str]):
        self.task = task
        self.domain: m.Domain = task.domain
        self.facts: FactTable = task.facts
        self.objects = objects
        self.static_preds = task.static_preds
        self.static_facts = task.static_facts
        self.static_values = task.static_values
        self.settings = task.settings
        self._by_type: dict[str, list[str]] = {}
        self._static_index = None

    def objects_of(self, type_name: str) -> list[str]:
        found = self._by_type.get(type_name)
        if found is None:
            found = self._by_type[type_name] = [o for o, t in self.objects.items() if self.domain.is_subtype(t, type_name)]
        return found

    # ------------------------------------------------------------ formulas -> normal form
    def ground(self, f, b: dict):
        """Ground and simplify: bool | ('lit', id, positive) | ('and'|'or', [..]) | ('test', fn)."""
        if isinstance(f, m.Atom):
            args = tuple(b.get(a, a) for a in f.args)
            if f.pred in self.static_preds:
                return (f.pred, args) in self.static_facts
            return ("lit", self.facts.id(f.pred, args), True)
        if isinstance(f, m.And):
            return self._junction("and", [self.ground(x, b) for x in f.parts])
        if isinstance(f, m.Or):
            return self._junction("or", [self.ground(x, b) for x in f.parts])
        if isinstance(f, m.Not):
            return negate(self.ground(f.part, b))
        if isinstance(f, m.Imply):
            return self._junction("or", [negate(self.ground(f.condition, b)), self.ground(f.consequence, b)])
        if isinstance(f, m.Quantified):
            names = [v for v, _ in f.params]
            if f.kind == "exists":
                # only bindings that satisfy the body's static atoms can make it true: join them
                combos = self.static_bindings(f.params, f.body, b)
            else:
                combos = self.combos(f.params)
            parts = []
            unit, zero = (True, False) if f.kind == "forall" else (False, True)
            for combo in combos:
                part = self.ground(f.body, {**b, **dict(zip(names, combo))})
                if part is zero:
                    return zero
                parts.append(part)
            return self._junction("and" if f.kind == "forall" else "or", parts)
        if isinstance(f, m.Equal):
            return b.get(f.left, f.left) == b.get(f.right, f.right)
        if isinstance(f, m.Const):
            return f.value
        if isinstance(f, m.SettingTest):
            return bool(self.settings[f.name])
        if isinstance(f, m.Initially):  # a constant of the problem: decided here, once per binding
            return self.task.holds(f.formula, self.task.initial_state(), b)
        if isinstance(f, m.Compare):
            left, right = self.expr(f.left, b), self.expr(f.right, b)
            compare = COMPARE[f.op]
            if not callable(left) and not callable(right):
                return compare(left, right)
            lf = left if callable(left) else (lambda s, bits, v=left: v)
            rf = right if callable(right) else (lambda s, bits, v=right: v)
            meta = None  # (op, fluent index, constant): lets relaxations count repetitions
            if callable(left) and not callable(right) and hasattr(left, "fluent_index"):
                meta = (f.op, left.fluent_index, right)
            return ("test", lambda s, bits: compare(lf(s, bits), rf(s, bits)), meta)
        raise TypeError(f"cannot ground {f!r}")

    def static_bindings(self, params, body, outer: dict):
        """Tuples for `params` meeting the static atoms and (in)equalities of body's top-level conjunction."""
        from .grounding import Binder, FactIndex, candidate_domains, top_conjuncts

        def bind(term):
            return outer.get(term, term)
        conjuncts = []
        for c in top_conjuncts(body):
            if isinstance(c, m.Atom):
                conjuncts.append(m.Atom(c.pred, tuple(map(bind, c.args))))
            elif isinstance(c, m.Equal):
                conjuncts.append(m.Equal(bind(c.left), bind(c.right)))
            elif isinstance(c, m.Not) and isinstance(c.part, m.Equal):
                conjuncts.append(m.Not(m.Equal(bind(c.part.left), bind(c.part.right))))
        binder = Binder(params, m.And(tuple(conjuncts)), self.static_preds)
        if self._static_index is None:
            self._static_index = FactIndex(self.static_facts)
        names = [v for v, _ in params]
        return [tuple(found[v] for v in names)
                for found in binder.bindings(self._static_index, candidate_domains(params, self.objects_of))]

    def combos(self, params):
        combos = [()]
        for _, typ in params:
            combos = [c + (o,) for c in combos for o in self.objects_of(typ)]
        return combos

    @staticmethod
    def _junction(kind, parts):
        unit, zero = (True, False) if kind == "and" else (False, True)
        out = []
        for p in parts:
            if p is zero:
                return zero
            if p is unit:
                continue
            if isinstance(p, tuple) and p[0] == kind:
                out.extend(p[1])
            else:
                out.append(p)
        if not out:
            return unit
        if len(out) == 1:
            return out[0]
        return (kind, out)

    # ------------------------------------------------------------ normal form -> Condition
    def condition(self, f, b: dict):
        """A lifted formula under binding b as True, False or a Condition."""
        return to_condition(self.ground(f, b))

    # ------------------------------------------------------------ expressions
    def expr(self, e, b):
        """A number when decidable now, else a function (state, bits) -> number."""
        if isinstance(e, m.Num):
            return e.value
        if isinstance(e, m.SettingValue):
            value = self.settings[e.name]
            return int(value) if isinstance(value, bool) else value
        if isinstance(e, m.FluentTerm):
            args = tuple(b.get(a, a) for a in e.args)
            definition = self.domain.fluents[e.name]
            if definition.value is not None:  # computed: its expression, with its parameters bound to the arguments
                return self.expr(definition.value, dict(zip([v for v, _ in definition.params], args)))
            key = (e.name, args)
            if e.name in self.task.static_fluent_names:
                return self.static_values.get(key, self.domain.fluents[e.name].default)
            index = self.task.fluent_index(key)
            default = self.domain.fluents[e.name].default

            def value(s, bits, i=index, d=default):
                v = s.values
                return v[i] if i < len(v) else d
            value.fluent_index = index
            return value
        if isinstance(e, m.Arith):
            parts = [self.expr(x, b) for x in e.parts]
            fn = ARITH[e.op]
            if not any(callable(p) for p in parts):
                return fn(parts)
            fns = [p if callable(p) else (lambda s, bits, v=p: v) for p in parts]
            return lambda s, bits: fn([g(s, bits) for g in fns])
        if isinstance(e, m.Lookup):
            table = self.domain.tables[e.table]
            keys = [self.expr(k, b) for k in e.keys]
            column = e.result
            if not any(callable(k) for k in keys):
                return table.find(tuple(keys))[column]
            fns = [k if callable(k) else (lambda s, bits, v=k: v) for k in keys]
            find = table.find
            return lambda s, bits: find(tuple([g(s, bits) for g in fns]))[column]
        if isinstance(e, m.IfExpr):
            cond = self.condition(e.condition, b)
            then, other = self.expr(e.then, b), self.expr(e.otherwise, b)
            if cond is True or cond is False:
                return then if cond else other
            tf = then if callable(then) else (lambda s, bits, v=then: v)
            of = other if callable(other) else (lambda s, bits, v=other: v)
            return lambda s, bits: tf(s, bits) if cond.holds(s, bits) else of(s, bits)
        if isinstance(e, m.Count):
            conds = []
            total = 0
            for combo in self.combos(e.params):
                c = self.condition(e.body, {**b, **dict(zip([v for v, _ in e.params], combo))})
                if c is True:
                    total += 1
                elif c is not False:
                    conds.append(c)
            if not conds:
                return total
            return lambda s, bits: total + sum(1 for c in conds if c.holds(s, bits))
        if isinstance(e, m.Sum):
            names = [v for v, _ in e.params]
            constant = 0
            terms = []
            for combo in self.combos(e.params):
                inner = {**b, **dict(zip(names, combo))}
                c = self.condition(e.condition, inner)
                if c is False:
                    continue
                value = self.expr(e.value, inner)
                if c is True and not callable(value):
                    constant += value
                else:
                    terms.append((c, value))
            if not terms:
                return constant

            def total(s, bits):
                out = constant
                for c, value in terms:
                    if c is True or c.holds(s, bits):
                        out += value(s, bits) if callable(value) else value
                return out
            return total
        raise TypeError(f"cannot compile expression {e!r}")

    # ------------------------------------------------------------ effects
    def effect(self, effects, b: dict) -> GroundEffect:
        out = GroundEffect()
        self._effects_into(out, effects, b)
        return out

    def _effects_into(self, out: GroundEffect, effects, b):
        for e in effects:
            if isinstance(e, (m.Add, m.Delete)):
                args = tuple(b.get(a, a) for a in e.atom.args)
                mask = 1 << self.facts.id(e.atom.pred, args)
                if isinstance(e, m.Add):
                    out.add |= mask
                else:
                    out.delete |= mask
            elif isinstance(e, m.Update):
                args = tuple(b.get(a, a) for a in e.target.args)
                out.ordered.append(("update", e.op, self.task.fluent_index((e.target.name, args)), self.expr(e.value, b)))
            elif isinstance(e, m.When):
                cond = self.condition(e.condition, b)
                if cond is True:
                    self._effects_into(out, e.then, b)
                elif cond is False:
                    self._effects_into(out, e.otherwise, b)
                else:
                    out.ordered.append(("when", cond, self.effect(e.then, b), self.effect(e.otherwise, b)))
            elif isinstance(e, m.ForallEffect):
                names = [v for v, _ in e.params]
                for combo in self.combos(e.params):
                    self._effects_into(out, e.effects, {**b, **dict(zip(names, combo))})
            elif isinstance(e, (m.StartTimer, m.StopTimer)):
                tid = self.task.timer_id(e.timer, tuple(b.get(a, a) for a in e.args))
                out.ordered.append(("start" if isinstance(e, m.StartTimer) else "stop", tid))
            elif isinstance(e, m.Create):
                out.ordered.append(("create", e, dict(b)))
            else:
                raise TypeError(f"cannot compile effect {e!r}")


def negate(node):
    if node is True:
        return False
    if node is False:
        return True
    kind = node[0]
    if kind == "lit":
        return ("lit", node[1], not node[2])
    if kind == "and":
        return ("or", [negate(x) for x in node[1]])
    if kind == "or":
        return ("and", [negate(x) for x in node[1]])
    if kind == "test":
        fn = node[1]
        return ("test", lambda s, bits: not fn(s, bits), None)
    raise TypeError(node)


def to_condition(node):
    if node is True or node is False:
        return node
    parts = node[1] if node[0] == "and" else [node]
    cond = Condition()
    rest = []
    for p in parts:
        if p[0] == "lit":
            if p[2]:
                cond.pos |= 1 << p[1]
            else:
                cond.neg |= 1 << p[1]
        else:
            rest.append(p)
    if cond.pos & cond.neg:
        return False
    cond.thresholds = tuple(p[2] for p in rest if p[0] == "test" and len(p) > 2 and p[2] is not None)
    if rest:
        fns = [as_test(p) for p in rest]
        cond.test = fns[0] if len(fns) == 1 else (lambda s, bits: all(f(s, bits) for f in fns))
    return cond


def as_test(node) -> Callable:
    kind = node[0]
    if kind == "lit":
        mask, positive = 1 << node[1], node[2]
        return (lambda s, bits: bits & mask != 0) if positive else (lambda s, bits: bits & mask == 0)
    if kind == "test":
        return node[1]
    if kind == "and":
        cond = to_condition(node)
        if cond is True or cond is False:
            return lambda s, bits, c=cond: c
        return cond.holds
    if kind == "or":
        fns = [as_test(x) for x in node[1]]
        return lambda s, bits: any(f(s, bits) for f in fns)
    raise TypeError(node)


COMPARE = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def _mod(xs):
    if xs[1] == 0:
        raise NumericError("modulo by zero in a numeric expression")
    return xs[0] % xs[1]


def _div(xs):
    if xs[1] == 0:
        raise NumericError("division by zero in a numeric expression")
    return xs[0] / xs[1]


def finite(x) -> bool:
    """x is a number a float can hold (not inf, not NaN, not an int beyond float range)."""
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _checked(op, fn):
    def apply(xs):
        try:
            value = fn(xs)
        except OverflowError:
            value = math.inf
        if not finite(value):
            raise NumericError(f"the numeric expression '{op}' overflows (beyond ±{sys.float_info.max:.1e})")
        return value
    return apply


ARITH = {
    op: _checked(op, fn) for op, fn in {
        "+": sum, "-": lambda xs: xs[0] - xs[1], "*": lambda xs: _product(xs), "/": _div, "mod": _mod,
        "min": min, "max": max, "abs": lambda xs: abs(xs[0]),
    }.items()
}


def _product(xs):
    out = 1
    for x in xs:
        out *= x
    return out
