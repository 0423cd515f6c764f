"""groundplan to PDDL: `export_pddl(problem)` -> the domain and problem texts and the name maps.

The fragment written is the one the reader reads: types, constants, predicates, derived
predicates, numeric fluents, actions with any formula as precondition, add/delete, conditional,
universal and numeric effects, action costs as `total-cost`. Settings are written as their
values. Timers (and, for planners with no numbers, numeric fluents) are first compiled away by
an exact lowering (lower.py). What is left that PDDL 2.1 level 1 cannot say is refused with the
construct named (object creation, temporal goals, turn-taking or simultaneous agents, tables and
computed fluents, counting expressions): an export that silently dropped a rule would make a
PDDL planner's optimum a lie.

Names: PDDL is case-insensitive and allows no '.', ours is case-sensitive; every name is
written lower-case with '.' as '_' (and a suffix where two would meet), and `Export.names`
maps the PDDL names of actions and objects back, so a plan from Fast Downward reads as ours.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from .. import model as m
from ..errors import GroundplanError

TEMPORAL_GOALS = (m.AllOf, m.Sequence, m.Eventually, m.Always, m.Later)  # PDDL 2.1 has no trajectory goals


class ExportError(GroundplanError):
    """The world uses something the PDDL fragment cannot express; `construct` names it."""

    def __init__(self, construct: str, where: str, hint: str | None = None):
        self.construct, self.where = construct, where
        text = f"cannot export to PDDL: {construct} ({where})"
        super().__init__(f"{text}; {hint}" if hint else text)


@dataclass
class Export:
    domain: str
    problem: str
    actions: dict = field(default_factory=dict)  # PDDL action name -> our schema name
    objects: dict = field(default_factory=dict)  # PDDL object name -> our object name
    unit_cost: bool = True  # no :action-costs: every action costs 1
    numeric: list = field(default_factory=list)  # the numeric fluents written (Fast Downward takes none)
    cost_expressions: bool = False  # an action cost that is neither a number nor one fluent
    axioms: bool = False  # derived predicates, or conditions Fast Downward's translator turns into axioms
    conditional: bool = False  # conditional effects written (LM-cut refuses them)
    lowered: object = None  # engine.pddl.lower.Lowered when timers or numbers were compiled away
    notes: list = field(default_factory=list)  # the compilations applied, for the user

    def plan_to_ours(self, line: str) -> str | None:
        """'(move rooma roomb)' as our '(move roomA roomB)' (names mapped back), for parse_action;
        None for a bookkeeping step of a lowered problem (a timer's tick), which has no counterpart."""
        words = line.strip().strip("()").split()
        if not words:
            raise GroundplanError(f"empty plan step '{line}'")
        name = self.actions.get(words[0].lower())
        if name is None:
            raise GroundplanError(f"'{words[0]}' is not an action of the exported domain")
        if self.lowered is not None:
            step = self.lowered.original_step(name, [self.objects.get(w.lower(), w) for w in words[1:]])
            return None if step is None else "(" + " ".join([step[0], *step[1]]) + ")"
        return "(" + " ".join([name] + [self.objects.get(w.lower(), w) for w in words[1:]]) + ")"

    def plan_texts(self, lines) -> list[str]:
        """A PDDL planner's plan as our action texts, bookkeeping steps left out."""
        return [t for t in (self.plan_to_ours(ln) for ln in lines) if t is not None]


def _number(v) -> str:
    """A number as PDDL reads it: no exponent (1e-05 is not a PDDL number)."""
    v = float(v)
    if v == int(v):
        return str(int(v))
    return f"{v:.15f}".rstrip("0").rstrip(".")


def _constant(e, settings):
    """The value of an expression with no fluent in it (costs such as setting + 1), else None:
    Fast Downward reads an action cost only as a number or a function term."""
    if isinstance(e, (int, float)) and not isinstance(e, bool):
        return float(e)
    if isinstance(e, m.Num):
        return float(e.value)
    if isinstance(e, m.SettingValue):
        return float(settings[e.name])
    if isinstance(e, m.Arith) and e.op in ("+", "-", "*", "/", "min", "max"):
        parts = [_constant(x, settings) for x in e.parts]
        if any(p is None for p in parts):
            return None
        if e.op == "+":
            return sum(parts)
        if e.op == "*":
            out = 1.0
            for p in parts:
                out *= p
            return out
        if e.op == "-":
            return parts[0] - parts[1]
        if e.op == "/":
            return parts[0] / parts[1] if parts[1] else None
        return min(parts) if e.op == "min" else max(parts)
    return None


class _Names:
    """Our names to PDDL names, one-to-one within a kind."""

    def __init__(self):
        self.kinds: dict[str, dict[str, str]] = {}

    def get(self, kind: str, name: str) -> str:
        if kind == "type" and name == "object":
            return "object"
        table = self.kinds.setdefault(kind, {})
        if name in table:
            return table[name]
        base = re.sub(r"[^a-z0-9_-]", "_", name.lower())
        if not base or not base[0].isalpha():
            base = "n" + base
        taken = set(table.values())
        out, k = base, 1
        while out in taken or out in _RESERVED:
            k += 1
            out = f"{base}-{k}"
        table[name] = out
        return out


_RESERVED = {"object", "either", "and", "or", "not", "imply", "exists", "forall", "when", "increase", "decrease",
             "assign", "scale-up", "scale-down", "total-cost", "number", "define", "domain", "problem", "oneof",
             "minimize", "maximize", "preference", "at", "over", "start", "end", "all", "sometime", "always"}


class _Writer:
    def __init__(self, problem: m.Problem):
        self.p = problem
        self.d = problem.domain
        self.names = _Names()
        self.requirements = {":strips", ":typing"}
        self.settings = problem.settings
        self.cost_expressions = False

    def refuse(self, construct, where, hint=None):
        raise ExportError(construct, where, hint)

    # ------------------------------------------------------------ names
    def obj(self, name: str) -> str:
        return self.names.get("object", name)

    def term(self, t: str) -> str:
        return "?" + self.names.get("var", t[1:]) if t.startswith("?") else self.obj(t)

    def typed(self, params) -> str:
        return " ".join(f"{self.term(v)} - {self.names.get('type', t)}" for v, t in params)

    # ------------------------------------------------------------ formulas and expressions
    def formula(self, f, where: str) -> str:
        if isinstance(f, m.Atom):
            pred = self.names.get("pred", f.pred)
            return f"({' '.join([pred] + [self.term(a) for a in f.args])})"
        if isinstance(f, m.Const):
            return "(and)" if f.value else "(or)"
        if isinstance(f, m.And):
            return "(and " + " ".join(self.formula(x, where) for x in f.parts) + ")"
        if isinstance(f, m.Or):
            self.requirements.add(":disjunctive-preconditions")
            return "(or " + " ".join(self.formula(x, where) for x in f.parts) + ")"
        if isinstance(f, m.Not):
            self.requirements.add(":negative-preconditions")
            return f"(not {self.formula(f.part, where)})"
        if isinstance(f, m.Imply):
            self.requirements.add(":disjunctive-preconditions")
            return f"(imply {self.formula(f.condition, where)} {self.formula(f.consequence, where)})"
        if isinstance(f, m.Quantified):
            self.requirements.add(":existential-preconditions" if f.kind == "exists" else ":universal-preconditions")
            return f"({f.kind} ({self.typed(f.params)}) {self.formula(f.body, where)})"
        if isinstance(f, m.Equal):
            self.requirements.add(":equality")
            return f"(= {self.term(f.left)} {self.term(f.right)})"
        if isinstance(f, m.Compare):
            self.requirements.add(":numeric-fluents")
            left, right = self.expr(f.left, where), self.expr(f.right, where)
            if f.op == "!=":
                return f"(not (= {left} {right}))"
            return f"({f.op} {left} {right})"
        if isinstance(f, m.SettingTest):
            return "(and)" if self.settings.get(f.name) else "(or)"
        self.refuse(f"the formula '{type(f).__name__}'", where)

    def expr(self, e, where: str) -> str:
        if isinstance(e, m.Num):
            return _number(e.value)
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            return self.expr(m.Num(e), where)
        if isinstance(e, m.SettingValue):
            return self.expr(m.Num(float(self.settings[e.name])), where)
        if isinstance(e, m.FluentTerm):
            if self.d.fluents[e.name].value is not None:
                self.refuse(f"the computed fluent '{e.name}'", where)
            self.requirements.add(":numeric-fluents")
            return f"({' '.join([self.names.get('pred', e.name)] + [self.term(a) for a in e.args])})"
        if isinstance(e, m.Arith) and e.op in ("+", "*", "-", "/"):
            parts = [self.expr(x, where) for x in e.parts]
            out = parts[0]
            for p in parts[1:]:  # PDDL's operators take two operands
                out = f"({e.op} {out} {p})"
            return out
        self.refuse(f"the expression '{getattr(e, 'op', type(e).__name__)}'", where,
                    "PDDL 2.1 has +, -, * and / over numbers and fluents")

    # ------------------------------------------------------------ effects
    def effects(self, effects, where: str) -> list[str]:
        """PDDL effects. PDDL allows no `when` or `forall` inside a `when`, so nested ones are
        flattened: each simple effect under its `forall` variables and the conjunction of the
        conditions above it, grouped back where they share both."""
        groups: dict[tuple, list[str]] = {}
        for params, conditions, text in self._flat(effects, (), (), where):
            groups.setdefault((params, conditions), []).append(text)
        out = []
        for (params, conditions), texts in groups.items():
            if not params and not conditions:
                out += texts
                continue
            body = texts[0] if len(texts) == 1 else f"(and {' '.join(texts)})"
            if conditions:
                self.requirements.add(":conditional-effects")
                cond = conditions[0] if len(conditions) == 1 else f"(and {' '.join(conditions)})"
                body = f"(when {cond} {body})"
            if params:
                self.requirements.add(":conditional-effects")
                body = f"(forall ({' '.join(params)}) {body})"
            out.append(body)
        return out

    def _flat(self, effects, params: tuple, conditions: tuple, where: str):
        for e in effects:
            if isinstance(e, m.Add):
                yield params, conditions, self.formula(e.atom, where)
            elif isinstance(e, m.Delete):
                yield params, conditions, f"(not {self.formula(e.atom, where)})"
            elif isinstance(e, m.Update):
                self.requirements.add(":numeric-fluents")
                yield params, conditions, f"({e.op} {self.expr(e.target, where)} {self.expr(e.value, where)})"
            elif isinstance(e, m.When):
                cond = self.formula(e.condition, where)
                yield from self._flat(e.then, params, conditions + (cond,), where)
                if e.otherwise:
                    self.requirements.add(":negative-preconditions")
                    yield from self._flat(e.otherwise, params, conditions + (f"(not {cond})",), where)
            elif isinstance(e, m.ForallEffect):
                typed = tuple(f"{self.term(v)} - {self.names.get('type', t)}" for v, t in e.params)
                yield from self._flat(e.effects, params + typed, conditions, where)
            elif isinstance(e, (m.StartTimer, m.StopTimer)):
                self.refuse(f"the timer '{e.timer}'", where, "timers have no PDDL 2.1 level 1 counterpart")
            elif isinstance(e, m.Create):
                self.refuse("object creation", where)
            else:
                self.refuse(f"the effect '{type(e).__name__}'", where)

    # ------------------------------------------------------------ whole files
    def check_world(self) -> None:
        d, p = self.d, self.p
        if d.tables:
            self.refuse("lookup tables", "domain /tables")
        agents = p.agents
        if agents is not None and agents.mode in ("turns", "simultaneous"):
            n = len(agents.order) or len(p.objects_of(agents.type))
            if n > 1:
                self.refuse(f"'{agents.mode}' agents", "agents /mode", "mode 'any' exports as plain actions")
        if isinstance(p.goal, TEMPORAL_GOALS):
            self.refuse("a temporal goal", "problem /goal")

    def domain_text(self) -> str:
        d = self.d
        lines = []
        types = [t for t in d.types if t != "object"]
        if types:
            lines.append("  (:types " + " ".join(f"{self.names.get('type', t)} - {self.names.get('type', d.types[t] or 'object')}"
                                                 for t in types) + ")")
        if d.constants:
            lines.append("  (:constants " + " ".join(f"{self.obj(c)} - {self.names.get('type', t)}"
                                                     for c, t in d.constants.items()) + ")")
        preds = [f"({self.names.get('pred', p.name)}{' ' if p.params else ''}{self.typed(p.params)})" for p in d.predicates.values()]
        preds += [f"({self.names.get('pred', p.name)}{' ' if p.params else ''}{self.typed(p.params)})" for p in d.derived.values()]
        lines.append("  (:predicates " + " ".join(preds) + ")")
        stored = [f for f in d.fluents.values() if f.value is None]
        costly = self.costly
        functions = [f"({self.names.get('pred', f.name)}{' ' if f.params else ''}{self.typed(f.params)})" for f in stored]
        if costly:
            functions.append("(total-cost)")
            self.requirements.add(":action-costs")
        if functions:
            lines.append("  (:functions " + " ".join(functions) + ")")
        for dp in d.derived.values():
            self.requirements.add(":derived-predicates")
            head = f"({self.names.get('pred', dp.name)}{' ' if dp.params else ''}{' '.join(self.term(v) for v, _ in dp.params)})"
            lines.append(f"  (:derived {head}\n    {self.formula(dp.formula, f'derived {dp.name}')})")
        for a in d.actions.values():
            where = f"action {a.name}"
            self.action_names[self.names.get("action", a.name)] = a.name
            effects = self.effects(a.effects, where)
            if costly:
                value = _constant(a.cost, self.settings)
                if value is None and not isinstance(a.cost, m.FluentTerm):
                    self.cost_expressions = True  # PDDL 2.1 allows it; Fast Downward reads no arithmetic there
                cost = _number(value) if value is not None else self.expr(a.cost, where)
                effects.append(f"(increase (total-cost) {cost})")
            pre = self.formula(a.precondition, where) if a.precondition is not None else "(and)"
            lines.append(f"  (:action {self.names.get('action', a.name)}\n"
                         f"    :parameters ({self.typed(a.params)})\n"
                         f"    :precondition {pre}\n"
                         f"    :effect (and {' '.join(effects)}))")
        head = [f"(define (domain {self.names.get('domain', d.name)})",
                f"  (:requirements {' '.join(sorted(self.requirements))})"]
        return "\n".join(head + lines) + ")\n"

    def problem_text(self) -> str:
        p, d = self.p, self.d
        own = {o: t for o, t in p.objects.items() if o not in d.constants}
        lines = [f"(define (problem {self.names.get('problem', p.name)})",
                 f"  (:domain {self.names.get('domain', d.name)})"]
        if own:
            lines.append("  (:objects " + " ".join(f"{self.obj(o)} - {self.names.get('type', t)}" for o, t in own.items()) + ")")
        init = [self.formula(m.Atom(pred, tuple(args)), "problem /init") for pred, args in p.init]
        given = {}
        for (name, args), value in p.values:
            given[(name, tuple(args))] = value
        for f in d.fluents.values():  # PDDL leaves an unlisted value undefined; ours is the default
            if f.value is not None:
                continue
            for combo in itertools.product(*[p.objects_of(t) for _, t in f.params]):
                given.setdefault((f.name, combo), f.default)
        for (name, args), value in given.items():
            init.append(f"(= {self.expr(m.FluentTerm(name, args), 'problem /values')} {self.expr(m.Num(value), 'problem /values')})")
        if self.costly:
            init.append("(= (total-cost) 0)")
        lines.append("  (:init " + "\n    ".join(init) + ")")
        lines.append(f"  (:goal {self.formula(p.goal, 'problem /goal')})")
        if self.costly:
            lines.append("  (:metric minimize (total-cost))")
        return "\n".join(lines) + ")\n"


def export_pddl(problem: m.Problem, classical: bool = False) -> Export:
    """The PDDL domain and problem of a loaded problem; raises ExportError naming what PDDL
    cannot express.

    Timers are compiled away (engine/pddl/lower.py). With `classical`, for planners such as Fast
    Downward, numeric fluents are too (into value facts), and a goal with quantifiers or
    disjunctions becomes an action of cost 0: Fast Downward makes axioms of it, which LM-cut
    does not read."""
    lowered = None
    if problem.domain.timers or classical:
        from .lower import goal_action, lower

        numbers = classical and any(f.value is None for f in problem.domain.fluents.values())
        if problem.domain.timers or numbers or (classical and goal_action(problem.goal) is not None):
            lowered = lower(problem, numbers=classical, goal_as_action=classical)
            problem = lowered.problem
    w = _Writer(problem)
    w.check_world()
    w.action_names = {}
    w.costly = any(not (isinstance(a.cost, m.Num) and a.cost.value == 1) for a in problem.domain.actions.values())
    for o in problem.objects:  # objects first, so their PDDL names do not depend on the formulas
        w.obj(o)
    text = w.problem_text()  # first: its goal may need requirements the domain's header lists
    domain = w.domain_text()
    objects = {pddl: ours for ours, pddl in w.names.kinds.get("object", {}).items()}
    numeric = [f.name for f in problem.domain.fluents.values() if f.value is None]
    axiomatic = {":derived-predicates", ":disjunctive-preconditions", ":existential-preconditions",
                 ":universal-preconditions"}
    return Export(domain, text, dict(w.action_names), objects, unit_cost=not w.costly, numeric=numeric,
                  cost_expressions=w.cost_expressions,
                  axioms=bool(axiomatic & w.requirements), conditional=":conditional-effects" in w.requirements,
                  lowered=lowered, notes=list(lowered.notes) if lowered else [])
