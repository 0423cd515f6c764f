"""From plain JSON data to the lifted model, with every semantic check the schema cannot do.

The parser walks the data keeping the JSON path, so each diagnostic carries a pointer: unknown
predicates, types, objects, settings and timers (with "did you mean"), wrong arity, unbound
variables, type mismatches, cyclic type hierarchies and unstratified derived predicates, and
quantities with no meaning (a negative or fractional timer duration, a negative cost).
It never raises on bad input until the whole file is walked; then it raises one ModelError.
"""
from __future__ import annotations

import string
from typing import Any

from . import model as m
from .errors import Collector

COMPARISONS = {"<", "<=", ">", ">=", "!="}
ARITH = {"+", "-", "*", "/", "mod", "min", "max"}
FORMULA_KEYS = {"and", "or", "not", "imply", "exists", "forall", "=", "setting", "initially"} | COMPARISONS
EXPR_KEYS = ARITH | {"abs", "setting", "if", "count", "sum", "lookup"}
EFFECT_KEYS = {"add", "del", "assign", "increase", "decrease", "when", "forall", "start", "stop", "create"}
GOAL_KEYS = {"all", "sequence", "eventually", "later", "always"}


def is_var(term) -> bool:
    return isinstance(term, str) and term.startswith("?")


def template_fields(text: str) -> list[str]:
    """Names used as {name} in a text template ('{{' escapes a brace)."""
    try:
        return [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError:
        return ["{"]


class _Scope:
    """Variables in scope with their types, and the objects and constants a term may name."""

    def __init__(self, variables: dict[str, str], objects: dict[str, str]):
        self.variables = variables
        self.objects = objects

    def extend(self, params) -> "_Scope":
        return _Scope({**self.variables, **dict(params)}, self.objects)


class Parser:
    """Parses one domain (and then problems of it) reporting into a Collector."""

    def __init__(self, collector: Collector):
        self.c = collector
        self.types: dict[str, str | None] = {"object": None}
        self.predicates: dict[str, m.PredicateDef] = {}
        self.fluents: dict[str, m.FluentDef] = {}
        self.derived: dict[str, m.DerivedDef] = {}
        self.timers_params: dict[str, m.Params] = {}
        self.settings: dict[str, Any] = {}
        self.tables: dict = {}
        self.in_domain = False  # a domain names only its constants: hints for unknown objects differ
        self.initially_allowed = False  # set while an invariant is parsed ({"initially": ...})

    # ------------------------------------------------------------ helpers
    def is_subtype(self, child: str, parent: str) -> bool:
        seen = set()
        while child is not None and child not in seen:
            if child == parent:
                return True
            seen.add(child)
            child = self.types.get(child)
        return False

    def compatible(self, actual: str, expected: str) -> bool:
        """A term of type `actual` may fill a slot of type `expected` (may-match, not disjoint)."""
        return self.is_subtype(actual, expected) or self.is_subtype(expected, actual)

    def check_type(self, path, name) -> bool:
        if name not in self.types:
            self.c.unknown(path, "type", name, self.types, "declare it under 'types'")
            return False
        return True

    def params(self, raw, path) -> m.Params:
        if raw is None:
            return ()
        out = []
        seen = set()
        for i, pair in enumerate(raw):
            var, typ = pair
            if var in seen:
                self.c.error(path + [i, 0], f"parameter {var} is declared twice")
            seen.add(var)
            self.check_type(path + [i, 1], typ)
            out.append((var, typ))
        return tuple(out)

    def text(self, text, path, names):
        if text is None:
            return None
        known = {n.lstrip("?") for n in names}
        for field_name in template_fields(text):
            if field_name == "{":
                self.c.error(path, "unbalanced brace in text template", "write {{ or }} for a literal brace")
            elif field_name not in known:
                self.c.unknown(path, "template field", "{" + field_name + "}", ["{" + k + "}" for k in known],
                               f"the fields here are {', '.join('{'+k+'}' for k in sorted(known)) or 'none'}")
        return text

    # ------------------------------------------------------------ terms
    def term(self, term, path, scope: _Scope, expected: str | None, slot: tuple | None = None) -> str:
        """A ?variable in scope or a known object. `slot`, (name, params, index), says where it
        stands, so a type mismatch names the signature to meet ("argument 2 of at(?t - truck, ?c - city)")."""
        if not isinstance(term, str):
            self.c.error(path, f"expected an object or a ?variable, got {term!r}")
            return "?"
        if is_var(term):
            if term not in scope.variables:
                self.c.error(path, f"unbound variable {term}",
                             _hint_var(term, scope.variables))
                return term
            actual = scope.variables[term]
        else:
            if term not in scope.objects:
                self.c.unknown(path, "object", term, scope.objects, self._object_fix(path, term))
                return term
            actual = scope.objects[term]
        if expected and actual in self.types and expected in self.types and not self.compatible(actual, expected):
            where = "this place" if slot is None else f"argument {slot[2] + 1} of {_signature(slot[0], slot[1])}"
            self.c.error(path, f"type mismatch: {term} is of type '{actual}', {where} needs type '{expected}'")
        return term

    def _object_fix(self, path, term) -> str:
        """How to make an unknown object known: a problem declares it under 'objects'; a domain has
        no objects, only constants, and a fact about one problem's objects belongs in that problem."""
        if not self.in_domain:
            return "declare it under 'objects'"
        if path and path[0] in ("init", "values", "labels"):
            return f"declare '{term}' under 'constants', or move this {'fact' if path[0] == 'init' else 'entry'} to the problem's '{path[0]}'"
        return (f"a domain names only its constants: declare '{term}' under 'constants', "
                "or write a ?variable here and declare the object in the problem's 'objects'")

    def args(self, raw_args, path, scope, params: m.Params, what: str) -> tuple[str, ...]:
        if len(raw_args) != len(params):
            self.c.error(path, f"{what} takes {len(params)} argument(s), got {len(raw_args)}",
                         f"signature: {_signature(what, params)}")
            return tuple(a if isinstance(a, str) else "?" for a in raw_args)
        return tuple(self.term(a, path + [i + 1], scope, params[i][1], (what, params, i)) for i, a in enumerate(raw_args))

    # ------------------------------------------------------------ formulas
    def atom(self, raw, path, scope) -> m.Atom:
        if not raw or not isinstance(raw[0], str):
            self.c.error(path, "an atom is a list [predicate, arg, ...]")
            return m.Atom("?", ())
        name = raw[0]
        if name in self.predicates:
            params = self.predicates[name].params
        elif name in self.derived:
            params = self.derived[name].params
        else:
            known = list(self.predicates) + list(self.derived)
            hint = None
            if name in self.fluents:
                hint = f"'{name}' is a numeric fluent: compare it, e.g. {{\">=\": [[\"{name}\", ...], 1]}}"
            elif name in self.settings:  # the exact name: say so rather than guess a close predicate
                boolean = isinstance(self.settings[name], bool)
                self.c.error(path + [0], f"'{name}' is a setting, not a predicate",
                             f'write {{"setting": "{name}"}}' if boolean else f'compare it, e.g. {{">": [{{"setting": "{name}"}}, 0]}}')
                return m.Atom(name, ())
            self.c.unknown(path + [0], "predicate", name, known, hint)
            return m.Atom(name, tuple(a for a in raw[1:] if isinstance(a, str)))
        return m.Atom(name, self.args(raw[1:], path, scope, params, name))

    def formula(self, raw, path, scope: _Scope):
        if isinstance(raw, bool):
            return m.Const(raw)
        if isinstance(raw, list):
            return self.atom(raw, path, scope)
        if not isinstance(raw, dict) or not raw:
            self.c.error(path, f"expected a formula (an atom list, true/false or an operator object), got {_short(raw)}")
            return m.Const(False)
        keys = set(raw)
        op = next((k for k in raw if k in FORMULA_KEYS), None)
        if op is None:
            bad = next(iter(raw))
            self.c.unknown(path + [bad], "formula operator", bad, FORMULA_KEYS)
            return m.Const(False)
        if op in ("exists", "forall"):
            extra = keys - {op, "formula"}
            if extra or "formula" not in raw:
                self.c.error(path, f"'{op}' takes the keys '{op}' (parameters) and 'formula'",
                             'e.g. {"exists": [["?z", "block"]], "formula": ["on", "?z", "?x"]}')
                return m.Const(False)
            params = self._list_params(raw[op], path + [op])
            return m.Quantified(op, params, self.formula(raw["formula"], path + ["formula"], scope.extend(params)))
        if len(keys) != 1:
            self.c.error(path, f"an operator object has one key, found {sorted(keys)}")
            return m.Const(False)
        arg = raw[op]
        p = path + [op]
        if op in ("and", "or"):
            if not isinstance(arg, list):
                self.c.error(p, f"'{op}' takes a list of formulas")
                return m.Const(False)
            parts = tuple(self.formula(x, p + [i], scope) for i, x in enumerate(arg))
            return m.And(parts) if op == "and" else m.Or(parts)
        if op == "not":
            return m.Not(self.formula(arg, p, scope))
        if op == "imply":
            if not (isinstance(arg, list) and len(arg) == 2):
                self.c.error(p, "'imply' takes [condition, consequence]")
                return m.Const(False)
            return m.Imply(self.formula(arg[0], p + [0], scope), self.formula(arg[1], p + [1], scope))
        if op == "initially":
            if not self.initially_allowed:
                self.c.error(p, "'initially' is allowed only in an invariant's formula",
                             "compare with the initial state in 'invariants'; elsewhere write the formula itself")
                return m.Const(False)
            return m.Initially(self.formula(arg, p, scope))
        if op == "setting":
            self._setting(arg, p)
            if isinstance(arg, str) and arg in self.settings and not isinstance(self.settings[arg], bool):
                self.c.error(p, f"setting '{arg}' is a number, not a condition",
                             f'compare it, e.g. {{">": [{{"setting": "{arg}"}}, 0]}}')
            return m.SettingTest(arg if isinstance(arg, str) else "?")
        # "=" and comparisons
        if not (isinstance(arg, list) and len(arg) == 2):
            self.c.error(p, f"'{op}' takes two operands [left, right]")
            return m.Const(False)
        left, right = arg
        if op in ("=", "!=") and _is_object_term(left) and _is_object_term(right):
            lt = self.term(left, p + [0], scope, None)
            rt = self.term(right, p + [1], scope, None)
            eq = m.Equal(lt, rt)
            return eq if op == "=" else m.Not(eq)
        return m.Compare(op, self.expression(left, p + [0], scope), self.expression(right, p + [1], scope))

    def _list_params(self, raw, path) -> m.Params:
        if not (isinstance(raw, list) and all(isinstance(x, list) and len(x) == 2 and all(isinstance(y, str) for y in x) for x in raw)):
            self.c.error(path, 'parameters are a list of ["?var", "type"] pairs')
            return ()
        for i, (var, _) in enumerate(raw):
            if not is_var(var):
                self.c.error(path + [i, 0], f"a variable must start with '?': {var}", f"write ?{var}")
        return self.params(raw, path)

    def _setting(self, name, path):
        if not isinstance(name, str) or name not in self.settings:
            self.c.unknown(path, "setting", name, self.settings, "declare it under 'settings' in the domain")

    # ------------------------------------------------------------ expressions
    def expression(self, raw, path, scope):
        if isinstance(raw, bool):
            self.c.error(path, "expected a number or numeric expression, got a boolean")
            return m.Num(0)
        if isinstance(raw, (int, float)):
            return m.Num(raw)
        if isinstance(raw, list):
            if not raw or not isinstance(raw[0], str):
                self.c.error(path, "a fluent term is a list [fluent, arg, ...]")
                return m.Num(0)
            name = raw[0]
            if name not in self.fluents:
                hint = None
                if name in self.predicates:
                    hint = f"'{name}' is a predicate, not a numeric fluent"
                elif name in self.settings:  # the exact name: say so rather than guess a close fluent
                    fix = (f'a problem sets it under "settings": {{"{name}": ...}}' if path and path[0] == "values"
                           else f'write {{"setting": "{name}"}}')
                    self.c.error(path, f"'{name}' is a setting, not a fluent", fix)
                    return m.Num(0)
                self.c.unknown(path + [0], "fluent", name, self.fluents, hint)
                return m.Num(0)
            return m.FluentTerm(name, self.args(raw[1:], path, scope, self.fluents[name].params, name))
        if isinstance(raw, str):
            fix = (f'\'{raw}\' is a setting: write {{"setting": "{raw}"}}' if raw in self.settings
                   else f'a fluent is written as a list: ["{raw}", ...]')
            self.c.error(path, f"expected a number or numeric expression, got the string '{raw}'", fix)
            return m.Num(0)
        if not isinstance(raw, dict) or not raw:
            self.c.error(path, f"expected a numeric expression, got {_short(raw)}")
            return m.Num(0)
        op = next((k for k in raw if k in EXPR_KEYS), None)
        if op is None:
            bad = next(iter(raw))
            self.c.unknown(path + [bad], "expression operator", bad, EXPR_KEYS)
            return m.Num(0)
        p = path + [op]
        if op == "count":
            if set(raw) != {"count", "formula"}:
                self.c.error(path, "'count' takes the keys 'count' (parameters) and 'formula'")
                return m.Num(0)
            params = self._list_params(raw["count"], p)
            return m.Count(params, self.formula(raw["formula"], path + ["formula"], scope.extend(params)))
        if op == "sum":
            if not ({"sum", "value"} <= set(raw) <= {"sum", "where", "value"}):
                self.c.error(path, "'sum' takes the keys 'sum' (parameters), 'value' and optionally 'where'",
                             'e.g. {"sum": [["?c", "cell"]], "where": ["at", "?c"], "value": ["row", "?c"]}')
                return m.Num(0)
            params = self._list_params(raw["sum"], p)
            inner = scope.extend(params)
            return m.Sum(params, self.formula(raw.get("where", True), path + ["where"], inner),
                         self.expression(raw["value"], path + ["value"], inner))
        if op == "lookup":
            return self._lookup(raw, path, scope)
        if op == "if":
            if set(raw) != {"if", "then", "else"}:
                self.c.error(path, "'if' takes the keys 'if', 'then' and 'else'")
                return m.Num(0)
            return m.IfExpr(self.formula(raw["if"], p, scope), self.expression(raw["then"], path + ["then"], scope),
                            self.expression(raw["else"], path + ["else"], scope))
        if len(raw) != 1:
            self.c.error(path, f"an operator object has one key, found {sorted(raw)}")
            return m.Num(0)
        arg = raw[op]
        if op == "setting":
            self._setting(arg, p)
            return m.SettingValue(arg if isinstance(arg, str) else "?")
        if op == "abs":
            return m.Arith("abs", (self.expression(arg, p, scope),))
        if not isinstance(arg, list) or len(arg) < (1 if op in ("min", "max", "+", "*") else 2):
            self.c.error(p, f"'{op}' takes a list of operands")
            return m.Num(0)
        if op in ("-", "/", "mod") and len(arg) != 2:
            self.c.error(p, f"'{op}' takes exactly two operands")
            return m.Num(0)
        return m.Arith(op, tuple(self.expression(x, p + [i], scope) for i, x in enumerate(arg)))

    def _lookup(self, raw, path, scope):
        if not ({"lookup", "keys"} <= set(raw) <= {"lookup", "keys", "result"}):
            self.c.error(path, "'lookup' takes the keys 'lookup' (a table), 'keys' and optionally 'result'",
                         'e.g. {"lookup": "stack-size", "keys": [["item", "?s"]], "result": "size"}')
            return m.Num(0)
        name = raw["lookup"]
        table = self.tables.get(name) if isinstance(name, str) else None
        if table is None:
            self.c.unknown(path + ["lookup"], "table", str(name), self.tables, "declare it under 'tables' in the domain")
            return m.Num(0)
        keys = raw["keys"]
        if not isinstance(keys, list) or len(keys) != table.keys:
            self.c.error(path + ["keys"], f"table '{name}' takes {table.keys} key(s)", "give one expression per key")
            return m.Num(0)
        result = raw.get("result", table.results[0] if len(table.results) == 1 else None)
        if result not in table.results:
            hint = "name one of its results: " + ", ".join(table.results)
            self.c.error(path + ["result"] if "result" in raw else path, f"which result of table '{name}'?", hint)
            return m.Num(0)
        return m.Lookup(name, tuple(self.expression(k, path + ["keys", i], scope) for i, k in enumerate(keys)),
                        table.results.index(result))

    # ------------------------------------------------------------ effects
    def effects(self, raw, path, scope) -> tuple:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.c.error(path, "effects are a list of effect objects")
            return ()
        return tuple(e for i, x in enumerate(raw) if (e := self.effect(x, path + [i], scope)) is not None)

    def effect(self, raw, path, scope):
        if not isinstance(raw, dict) or not raw:
            self.c.error(path, f"expected an effect object, got {_short(raw)}")
            return None
        op = next((k for k in raw if k in EFFECT_KEYS), None)
        if op is None:
            bad = next(iter(raw))
            self.c.unknown(path + [bad], "effect", bad, EFFECT_KEYS)
            return None
        allowed = {"add": {"add"}, "del": {"del"}, "assign": {"assign"}, "increase": {"increase"},
                   "decrease": {"decrease"}, "when": {"when", "then", "else"}, "forall": {"forall", "effect"},
                   "start": {"start"}, "stop": {"stop"}, "create": {"create", "name", "effect"}}[op]
        extra = set(raw) - allowed
        if extra:
            bad = sorted(extra)[0]
            self.c.unknown(path + [bad], f"key in a '{op}' effect", bad, allowed)
            return None
        p = path + [op]
        arg = raw[op]
        if op in ("add", "del"):
            if not isinstance(arg, list):
                self.c.error(p, f"'{op}' takes an atom [predicate, args...]")
                return None
            name = arg[0] if arg and isinstance(arg[0], str) else None
            if name not in self.predicates and name not in self.derived and (name in self.fluents or name in self.settings):
                if name in self.fluents:
                    self.c.error(p + [0], f"'{name}' is a numeric fluent, not a predicate: '{op}' makes facts true or false",
                                 f'change a fluent with assign, increase or decrease, e.g. {{"assign": [["{name}", ...], 0]}}')
                else:
                    self.c.error(p + [0], f"'{name}' is a setting, not a predicate: no effect changes a setting",
                                 "a problem chooses its value under 'settings'; for state that changes declare a predicate or fluent")
                return None
            atom = self.atom(arg, p, scope)
            if atom.pred in self.derived:
                self.c.error(p + [0], f"'{atom.pred}' is derived and cannot be changed by an effect",
                             "change the predicates it is derived from")
            return m.Add(atom) if op == "add" else m.Delete(atom)
        if op in ("assign", "increase", "decrease"):
            if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], list)):
                self.c.error(p, f"'{op}' takes [[fluent, args...], expression]")
                return None
            target = self.expression(arg[0], p + [0], scope)
            if not isinstance(target, m.FluentTerm):
                return None
            if self.fluents[target.name].value is not None:
                self.c.error(p + [0, 0], f"'{target.name}' is a computed fluent and cannot be changed by an effect",
                             "change the fluents its value is computed from")
                return None
            return m.Update(op, target, self.expression(arg[1], p + [1], scope))
        if op == "when":
            if "then" not in raw:
                self.c.error(path, "'when' needs 'then' (and may have 'else')")
                return None
            return m.When(self.formula(arg, p, scope), self.effects(raw["then"], path + ["then"], scope),
                          self.effects(raw.get("else"), path + ["else"], scope))
        if op == "forall":
            if "effect" not in raw:
                self.c.error(path, "'forall' needs 'effect'")
                return None
            params = self._list_params(arg, p)
            return m.ForallEffect(params, self.effects(raw["effect"], path + ["effect"], scope.extend(params)))
        if op in ("start", "stop"):
            if not (isinstance(arg, list) and arg and isinstance(arg[0], str)):
                self.c.error(p, f"'{op}' takes [timer, args...]")
                return None
            name = arg[0]
            if name not in self.timers_params:
                self.c.unknown(p + [0], "timer", name, self.timers_params, "declare it under 'timers'")
                return None
            args = self.args(arg[1:], p, scope, self.timers_params[name], name)
            return m.StartTimer(name, args) if op == "start" else m.StopTimer(name, args)
        # create
        if not (isinstance(arg, list) and len(arg) == 2 and all(isinstance(x, str) for x in arg)):
            self.c.error(p, 'create takes ["?new", "type"]')
            return None
        var, typ = arg
        if not is_var(var):
            self.c.error(p + [0], f"a variable must start with '?': {var}")
        self.check_type(p + [1], typ)
        prefix = raw.get("name", typ)
        if not isinstance(prefix, str) or not prefix.isidentifier():
            self.c.error(path + ["name"], f"object name prefix must be an identifier, got {prefix!r}")
            prefix = typ
        inner = scope.extend([(var, typ)])
        return m.Create(var, typ, prefix, self.effects(raw.get("effect"), path + ["effect"], inner))

    # ------------------------------------------------------------ goals
    def goal(self, raw, path, scope):
        if isinstance(raw, dict) and len(raw) == 1 and next(iter(raw)) in GOAL_KEYS:
            op, arg = next(iter(raw.items()))
            p = path + [op]
            if op in ("all", "sequence"):
                if not isinstance(arg, list) or not arg:
                    self.c.error(p, f"'{op}' takes a non-empty list of goals")
                    return m.Const(False)
                parts = tuple(self.goal(x, p + [i], scope) for i, x in enumerate(arg))
                return m.AllOf(parts) if op == "all" else m.Sequence(parts)
            if op == "eventually":
                return m.Eventually(self.goal(arg, p, scope))
            if op == "later":
                return m.Later(self.goal(arg, p, scope))
            return m.Always(self.formula(arg, p, scope))
        return self.formula(raw, path, scope)


def _signature(name: str, params) -> str:
    """How diagnostics write a predicate's, fluent's or timer's parameters: at(?t - truck, ?c - city)."""
    return f"{name}({', '.join(v + ' - ' + t for v, t in params)})"


def _is_object_term(x) -> bool:
    return isinstance(x, str)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def _hint_var(var, variables):
    from .errors import did_you_mean

    hint = did_you_mean(var, variables)
    if hint:
        return hint
    if variables:
        return "variables in scope: " + ", ".join(sorted(variables))
    return "declare it in 'parameters'"


# ------------------------------------------------------------ quantities
def static_number(expr, settings: dict):
    """The value of an expression of numbers and settings alone, or None: it reads the state, or
    cannot be computed here (a division by zero, an overflow), which the interpreter reports when
    it runs. Uses the interpreter's own arithmetic, so the two never disagree."""
    from .compile import ARITH, NumericError, finite

    if isinstance(expr, m.Num):
        value = expr.value
    elif isinstance(expr, m.SettingValue):
        value = settings.get(expr.name)
        if value is None:
            return None
        value = int(value) if isinstance(value, bool) else value
    elif isinstance(expr, m.Arith):
        parts = [static_number(x, settings) for x in expr.parts]
        if any(x is None for x in parts):
            return None
        try:
            value = ARITH[expr.op](parts)
        except NumericError:
            return None
    else:
        return None
    return value if finite(value) else None


def _settings_read(expr) -> list[str]:
    """The settings a static expression (numbers, settings, arithmetic) reads, in order."""
    if isinstance(expr, m.SettingValue):
        return [expr.name]
    if isinstance(expr, m.Arith):
        return list(dict.fromkeys(name for x in expr.parts for name in _settings_read(x)))
    return []


def quantity_errors(actions: dict, timers: dict, noop_cost, settings: dict, overridden: set | None = None) -> list:
    """Timer durations and action costs that make no sense under `settings`: a duration that is
    negative or not a whole number of steps, a negative cost. Only values known before the task
    runs are judged (numbers, settings and arithmetic over them).

    Returns (path, message, hint) for the file being checked. For a domain (`overridden` None)
    the path is the setting's default, or the expression itself when it reads no setting; for a
    problem, only values made by the settings it overrides count, at the path of its setting."""
    checks = [(["timers", name, "duration"], t.duration, f"the duration of timer '{name}'") for name, t in timers.items()]
    checks += [(["actions", name, "cost"], a.cost, f"the cost of action '{name}'") for name, a in actions.items()]
    if noop_cost is not None:
        checks.append((["noop_cost"], noop_cost, "noop_cost"))
    out = []
    for path, expr, what in checks:
        value = static_number(expr, settings)
        if value is None:
            continue
        duration = path[0] == "timers"
        shown = int(value) if float(value).is_integer() else value
        if value < 0:
            problem = f"is negative ({shown})"
        elif duration and value != int(value):
            problem = f"is not a whole number of steps ({shown})"
        else:
            continue
        hint = ("a timer counts whole steps: use a whole number, 0 or more" if duration
                else "costs are 0 or more: planners and scores add them up")
        names = _settings_read(expr)
        if overridden is None:
            where = ["settings", names[0], "default"] if names else path
        else:
            mine = [name for name in names if name in overridden]
            if not mine:
                continue
            where = ["settings", mine[0]]
        source = f" (computed from the setting{'s' if len(names) > 1 else ''} {', '.join(names)})" if names else ""
        out.append((where, f"{what} {problem}{source}", hint))
    return out
