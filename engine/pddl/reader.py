"""PDDL to groundplan JSON: `import_pddl(domain file, problem files)` -> (domain, problems).

The fragment is PDDL 2.1 level 1 plus derived predicates and action costs: typing (with
`either`), constants, negative and disjunctive preconditions, equality, `exists`/`forall`,
conditional and universal effects, `:derived`, numeric fluents with `increase`/`decrease`/
`assign`/`scale-up`/`scale-down` and comparisons, and `total-cost` as the plan's cost. What lies
outside (durative actions, processes and events, preferences, trajectory constraints, timed
initial literals, another metric) is refused before parsing, naming the construct and its line.

The two semantics agree where it matters: a PDDL step decides every effect on the state before
it, and an atom both added and deleted ends true; so does ours. An action that never increases
`total-cost` costs 0 when the domain has a `total-cost` function, 1 otherwise, as Fast Downward
counts it. Requirements are read leniently, as planners do: IPC files often leave out one they
use. The `pddl` package reads no negative number literals (`(= (x b0) -7)`): such a file is
refused at that line. A name declared twice (an action, predicate, function, type, constant or
object) is refused at its second line, as the JSON loader refuses a key written twice: the `pddl`
package would keep one silently. `either` has no counterpart in a type tree: a parameter typed `(either a b)` gets the
nearest common ancestor of a and b and a precondition over hidden static predicates
`either-a`/`either-b`, true of every object of those types. Two things Fast Downward reads and
the `pddl` package does not are read as it does (issue 35): keywords and names in upper case
(IPC-2000's `(:INIT`; PDDL is case-insensitive, and names are lowercased), and a predicate or
function declared with one variable name twice (`(in ?obj ?obj)` in IPC-2000 logistics).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import Diagnostic, ModelError

UNSUPPORTED = [  # (pattern, what it is, hint): scanned in the text, so the refusal names the line
    (r"\(\s*:durative-action\b", "durative actions (PDDL 2.1 level 3)", "only instantaneous actions are imported"),
    (r"\(\s*:process\b", "processes (PDDL+)", None),
    (r"\(\s*:event\b", "events (PDDL+)", None),
    (r"\(\s*preference\b", "preferences (PDDL 3)", None),
    (r"\(\s*:constraints\b", "trajectory constraints (PDDL 3)", None),
    (r"\(\s*at\s+[0-9.]+\s", "timed initial literals (PDDL 2.2)", None),
    (r":(?:durative-actions|timed-initial-literals|preferences|constraints|time|continuous-effects|duration-inequalities)\b",
     "a requirement outside the fragment", "groundplan imports PDDL 2.1 level 1 with derived predicates and action costs"),
]
TYPE_CHECK = "either-"


def _fail(file: str, message: str, line: int | None = None, hint: str | None = None):
    where = f"{file}:{line}" if line else file
    raise ModelError([Diagnostic(where, "", message, hint)], malformed=True)


def _strip_comments(text: str) -> str:
    return re.sub(r";[^\n]*", "", text)


def _refuse_unsupported(text: str, file: str) -> None:
    clean = _strip_comments(text)
    hits = [(found.start(), found, what, hint) for pattern, what, hint in UNSUPPORTED
            for found in [re.search(pattern, clean, re.IGNORECASE)] if found]
    if hits:  # the first in the file: usually the requirement that announces the construct
        start, found, what, hint = min(hits, key=lambda h: h[0])
        line = clean.count("\n", 0, start) + 1
        _fail(file, f"'{found.group(0).strip('( ')}' is not supported: {what}", line,
              hint or "groundplan imports PDDL 2.1 level 1 with derived predicates and action costs")


def _sexprs(text: str) -> list:
    """The file as nested lists of (token, line) leaves, comments dropped; unbalanced
    parentheses are left to the parser, which names the line."""
    stack: list = [[]]
    line = 1
    for found in re.finditer(r";[^\n]*|\n|\(|\)|[^\s()]+", text):
        token = found.group(0)
        if token == "\n":
            line += 1
        elif token.startswith(";"):
            continue
        elif token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) > 1:
                done = stack.pop()
                stack[-1].append(done)
        else:
            stack[-1].append((token.lower(), line))
    return stack[0]


def _head(node) -> str | None:
    return node[0][0] if isinstance(node, list) and node and isinstance(node[0], tuple) else None


def _typed_names(items) -> list:
    """The declared (name, line) of a typed list `a b - t c`: the type after each `-` is not one
    (nor an `(either ...)`)."""
    out, skip = [], False
    for item in items:
        if skip:
            skip = False
        elif isinstance(item, tuple) and item[0] == "-":
            skip = True
        elif isinstance(item, tuple):
            out.append(item)
    return out


DECLARED = {  # section -> (what it declares, how its entries are read)
    ":action": ("action", lambda rest: rest[:1] if rest and isinstance(rest[0], tuple) else []),
    ":derived": ("derived predicate", lambda rest: [rest[0][0]] if rest and _head(rest[0]) else []),
    ":predicates": ("predicate", lambda rest: [x[0] for x in rest if _head(x)]),
    ":functions": ("function", lambda rest: [x[0] for x in rest if _head(x)]),
    ":types": ("type", _typed_names),
    ":constants": ("constant", _typed_names),
    ":objects": ("object", _typed_names),
}


def _refuse_duplicates(text: str, file: str) -> None:
    """An action, predicate, function, type, constant or object declared twice is refused at the
    second declaration, as the JSON loader refuses a key written twice: the `pddl` package keeps
    one of them silently (a second `move` dropped, the task then unsolvable)."""
    for define in _sexprs(text):
        if _head(define) != "define":
            continue
        seen: dict = {}
        for section in define[1:]:
            key = _head(section)
            if key not in DECLARED:
                continue
            what, names = DECLARED[key]
            for name, line in names(section[1:]):
                if (what, name) in seen:  # read, and wrong: exit status 1, as a JSON key written twice
                    raise ModelError([Diagnostic(f"{file}:{line}", "", f"the {what} '{name}' is declared twice "
                                                 f"(first at line {seen[what, name]})",
                                                 "remove or rename one of them: groundplan keeps neither silently")])
                seen[what, name] = line


FRAGMENT = (":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
            ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
            ":conditional-effects", ":adl", ":derived-predicates", ":numeric-fluents", ":action-costs")


def _lenient(text: str, kind: str) -> str:
    """The text as the `pddl` package will read it: a domain declares every requirement of the
    fragment (planners such as Fast Downward ignore the list, and IPC files leave out what they
    use: `:typing` in sailing, `:action-costs` in tpp), `:fluents` is `:numeric-fluents`, and an
    empty goal `()` is `(and)`. Line numbers are kept, so errors still point at the right line."""
    if kind == "domain":
        found = re.search(r"\(\s*:requirements\b([^)]*)\)", text, re.IGNORECASE)
        if found:
            declared = found.group(1).lower().replace(":fluents", ":numeric-fluents").split()
            merged = " ".join(dict.fromkeys(declared + list(FRAGMENT)))
            newlines = found.group(0).count("\n")
            text = text[:found.start()] + f"(:requirements {merged})" + "\n" * newlines + text[found.end():]
        else:
            head = re.search(r"\(\s*domain\s+[^\s()]+\s*\)", text, re.IGNORECASE)
            if head:
                text = text[:head.end()] + f" (:requirements {' '.join(FRAGMENT)})" + text[head.end():]
    text = _repeated_variables(_untyped_objects(text))
    return re.sub(r"\(\s*:goal\s*\(\s*\)\s*\)", "(:goal (and))", text, flags=re.IGNORECASE)


def _lowercase(text: str) -> str:
    """The text with every keyword and name in lower case, comments left as written: PDDL is
    case-insensitive (IPC-2000 writes `(:INIT`, `(:OBJECTS`, `(AND`), the `pddl` package's grammar
    reads lower-case keywords only, and every name is read in lower case anyway (`_Reader.name`),
    as Fast Downward's translator does. PDDL has no string literals, so outside comments nothing's
    meaning depends on case. Lengths and line numbers are unchanged."""
    return re.sub(r";[^\n]*|[^;]+", lambda m: m.group(0) if m.group(0).startswith(";") else m.group(0).lower(), text)


def _repeated_variables(text: str) -> str:
    """A predicate or function declared with one variable name twice (`(in ?obj ?obj)` in IPC-2000
    logistics) with the repeats renamed (`?obj ?obj-2`): the names in a declaration only count the
    arguments and give their types, Fast Downward reads such a file, and the `pddl` package refuses
    it ("parameter ?obj is declared twice"). An action's or quantifier's repeated parameter is
    still refused: there the name is used. Line numbers are unchanged."""
    edits = []  # (start, end, new name)
    for block in re.finditer(r"\(\s*:(?:predicates|functions)\b", text, re.IGNORECASE):
        depth, seen = 1, {}
        for token in re.finditer(r";[^\n]*|\(|\)|[^\s()]+", text[block.end():]):
            word, start = token.group(0), block.end() + token.start()
            if word.startswith(";"):
                continue
            if word in "()":
                depth += 1 if word == "(" else -1
                if depth == 0:
                    break
                if depth == 2 and word == "(":
                    seen = {}  # a new declaration
            elif depth == 2 and word.startswith("?"):
                if word in seen:
                    fresh, k = word, 1
                    while fresh in seen:
                        k += 1
                        fresh = f"{word}-{k}"
                    edits.append((start, start + len(word), fresh))
                    word = fresh
                seen[word] = True
    for start, end, fresh in reversed(edits):
        text = text[:start] + fresh + text[end:]
    return text


ANY = "groundplan-any-object"  # stands for `object` where the `pddl` package refuses that name


def _untyped_objects(text: str) -> str:
    """`- object` outside `(:types ...)` as `- groundplan-any-object`, declared in the types block
    and read back as `object`: the `pddl` package refuses the type `object` where a domain
    declares types of its own (dropping `- object` would retype the names before it)."""
    block = re.search(r"\(\s*:types\b([^)]*)\)", text, re.IGNORECASE)
    pattern = re.compile(r"(\s-\s*)object\b", re.IGNORECASE)
    if block is None:
        if "(define (domain" in text.lower().replace("  ", " "):
            return text
        return pattern.sub(r"\1" + ANY, text)  # a problem: its domain's types are not checked here
    head, body, tail = text[:block.start()], block.group(0), text[block.end():]
    if not pattern.search(head + tail):
        return text
    body = body[:-1] + f" {ANY})"
    return pattern.sub(r"\1" + ANY, head) + body + pattern.sub(r"\1" + ANY, tail)


def _parse(kind: str, text: str, file: str, requirements=None):
    """The `pddl` package's parse, its syntax errors turned into ours (file and line)."""
    from lark.exceptions import LarkError

    from pddl.exceptions import PDDLError
    text = _lenient(_lowercase(text), kind)
    try:
        if kind == "domain":
            from pddl.parser.domain import DomainParser
            return DomainParser()(text)
        return _problem_parser(requirements)(text)
    except LarkError as exc:
        line = getattr(exc, "line", None)
        message = str(exc).strip().splitlines()[0]
        _fail(file, f"cannot read the {kind}: {message}", line if isinstance(line, int) and line > 0 else None)
    except PDDLError as exc:
        _fail(file, f"cannot read the {kind}: {exc}")
    except Exception as exc:  # the parser's own failure on input it should refuse: still no traceback
        _fail(file, f"cannot read the {kind}: the PDDL parser failed ({type(exc).__name__}: {exc})",
              hint="please report this file; planners such as Fast Downward may still read it")


def _problem_parser(requirements):
    """The `pddl` package reads a problem's goal with no knowledge of its domain's requirements
    (so a goal with `forall` fails unless the problem repeats them, which IPC problems do not)
    and leaves a goal quantifier's variables unread: this parser starts from the domain's
    requirements and reads them (tests/test_pddl.py holds both cases)."""
    from pddl.parser.problem import ProblemParser, ProblemTransformer
    from pddl.requirements import _extend_domain_requirements

    class Transformer(ProblemTransformer):
        def __init__(self):
            super().__init__()
            inner = self._domain_transformer
            inner._requirements = set(requirements or ())
            inner._extended_requirements = _extend_domain_requirements(inner._requirements)

        def __getattr__(self, rule):  # goal rules the problem transformer lacks (quantified variables)
            if rule.startswith("_"):
                raise AttributeError(rule)
            return getattr(self._domain_transformer, rule)

    class Parser(ProblemParser):
        transformer_cls = Transformer

    return Parser()


class _Reader:
    """Walks the `pddl` package's objects and writes ours."""

    def __init__(self, domain, file: str):
        self.d = domain
        self.file = file
        # action costs are in use when the domain has a total-cost (Fast Downward's rule: then an
        # action that does not increase it costs 0); the requirement list is not evidence, every
        # domain is read with the whole fragment's (_lenient)
        self.action_costs = any(str(f.name).lower() == "total-cost" for f in domain.functions)
        self.types = {self.name(t): (self.name(p) if p else "object") for t, p in domain.types.items()}
        for parent in list(self.types.values()):  # `(:types truck van - vehicle)` declares vehicle too
            if parent != "object" and parent not in self.types:
                self.types[parent] = "object"
        self.types.pop("object", None)
        self.either_types: set[str] = set()  # types some parameter's `either` checks
        self.fractional = False  # a literal number that is not whole: fluents become floats

    # ------------------------------------------------------------ names and types
    @staticmethod
    def name(x) -> str:
        text = str(x).lower()
        return "object" if text == ANY else text

    def ancestors(self, t: str) -> list[str]:
        chain = [t]
        while chain[-1] != "object":
            chain.append(self.types.get(chain[-1], "object"))
        return chain

    def param_type(self, tags) -> tuple[str, list[str]]:
        """(our type, the `either` members to check, or [])."""
        tags = sorted(self.name(t) for t in tags)
        if not tags:
            return "object", []
        if len(tags) == 1:
            return tags[0], []
        common = [t for t in self.ancestors(tags[0]) if all(t in self.ancestors(o) for o in tags[1:])]
        return common[0], tags

    def params(self, variables, check: bool = True) -> tuple[list, list]:
        """Our parameters, and for `either` types the preconditions that check them (`check`:
        for actions and quantifiers; a predicate's or function's loose typing needs none)."""
        out, checks = [], []
        for v in variables:
            typ, either = self.param_type(v.type_tags)
            out.append([f"?{self.name(v.name)}", typ])
            if either and check:
                self.either_types.update(either)
                checks.append({"or": [[TYPE_CHECK + t, f"?{self.name(v.name)}"] for t in either]})
        return out, checks

    def term(self, t) -> str:
        from pddl.logic.terms import Variable

        return f"?{self.name(t.name)}" if isinstance(t, Variable) else self.name(t.name)

    # ------------------------------------------------------------ formulas and expressions
    def formula(self, f):
        from pddl.logic import base as B
        from pddl.logic import functions as F
        from pddl.logic import predicates as P

        if f is None:
            return True
        if isinstance(f, P.DerivedPredicate):
            f = f.predicate
        if isinstance(f, P.Predicate):
            return [self.name(f.name), *[self.term(t) for t in f.terms]]
        if isinstance(f, P.EqualTo):
            return {"=": [self.term(f.left), self.term(f.right)]}
        if isinstance(f, B.And):
            return {"and": [self.formula(x) for x in f.operands]}
        if isinstance(f, B.Or):
            return {"or": [self.formula(x) for x in f.operands]}
        if isinstance(f, B.Not):
            return {"not": self.formula(f.argument)}
        if isinstance(f, B.Imply):
            first, *rest = f.operands
            then = rest[0] if len(rest) == 1 else B.Imply(*rest)
            return {"imply": [self.formula(first), self.formula(then)]}
        if isinstance(f, (B.ExistsCondition, B.ForallCondition)):
            params, checks = self.params(sorted(f.variables, key=lambda v: v.name))
            body = self.formula(f.condition)
            key = "exists" if isinstance(f, B.ExistsCondition) else "forall"
            if checks:
                body = {"and": checks + [body]} if key == "exists" else {"imply": [{"and": checks}, body]}
            return {key: params, "formula": body}
        comparisons = {F.EqualTo: "=", F.LesserThan: "<", F.LesserEqualThan: "<=", F.GreaterThan: ">",
                       F.GreaterEqualThan: ">="}
        for cls, op in comparisons.items():
            if type(f) is cls:
                left, right = f.operands
                return {op: [self.expr(left), self.expr(right)]}
        if isinstance(f, B.OneOf):
            _fail(self.file, "'oneof' (non-deterministic effects) is not supported")
        _fail(self.file, f"'{f}' is not supported in a formula")

    def expr(self, e):
        from pddl.logic import functions as F

        if isinstance(e, F.NumericValue):
            v = e.value
            if float(v) != int(float(v)):
                self.fractional = True
                return float(v)
            return int(float(v))
        if isinstance(e, F.NumericFunction):
            return [self.name(e.name), *[self.term(t) for t in e.terms]]
        if isinstance(e, F.UnaryMinus):
            return {"-": [0, self.expr(e.operand)]}
        ops = {F.Plus: "+", F.Times: "*", F.Minus: "-", F.Divide: "/"}
        for cls, op in ops.items():
            if type(e) is cls:
                parts = [self.expr(x) for x in e.operands]
                if op in ("-", "/") and len(parts) > 2:  # left-associative
                    out = parts[0]
                    for p in parts[1:]:
                        out = {op: [out, p]}
                    return out
                return {op: parts}
        _fail(self.file, f"'{e}' is not supported in a numeric expression")

    # ------------------------------------------------------------ effects
    def effects(self, e, costs: list) -> list:
        """Our effect list; increases of total-cost are collected in `costs` instead."""
        from pddl.logic import base as B
        from pddl.logic import effects as E
        from pddl.logic import functions as F
        from pddl.logic import predicates as P

        if e is None:
            return []
        if isinstance(e, B.And):
            return [x for part in e.operands for x in self.effects(part, costs)]
        if isinstance(e, P.Predicate):
            return [{"add": self.formula(e)}]
        if isinstance(e, B.Not) and isinstance(e.argument, P.Predicate):
            return [{"del": self.formula(e.argument)}]
        if isinstance(e, E.When):
            inner_costs: list = []
            then = self.effects(e.effect, inner_costs)
            if inner_costs:
                costs.append({"if": self.formula(e.condition), "then": {"+": inner_costs}, "else": 0})
            return [{"when": self.formula(e.condition), "then": then}] if then else []
        if isinstance(e, E.Forall):
            params, checks = self.params(sorted(e.variables, key=lambda v: v.name))
            inner_costs = []
            body = self.effects(e.effect, inner_costs)
            if inner_costs:
                _fail(self.file, "a total-cost increase inside 'forall' is not supported")
            if checks:
                body = [{"when": {"and": checks}, "then": body}]
            return [{"forall": params, "effect": body}]
        numeric = {F.Increase: "increase", F.Decrease: "decrease", F.Assign: "assign"}
        for cls, op in numeric.items():
            if type(e) is cls:
                target, value = e.operands
                if self.name(target.name) == "total-cost":
                    if op != "increase":
                        _fail(self.file, f"'{op}' of total-cost is not supported", hint="action costs only increase it")
                    costs.append(self.expr(value))
                    return []
                return [{op: [self.expr(target), self.expr(value)]}]
        if type(e) in (F.ScaleUp, F.ScaleDown):
            target, value = e.operands
            op = "*" if type(e) is F.ScaleUp else "/"
            return [{"assign": [self.expr(target), {op: [self.expr(target), self.expr(value)]}]}]
        _fail(self.file, f"'{e}' is not supported as an effect")

    # ------------------------------------------------------------ the domain
    def domain(self) -> dict:
        d = self.d
        predicates = {}
        for p in sorted(d.predicates, key=lambda p: p.name):
            params, _ = self.params(p.terms, check=False)
            predicates[self.name(p.name)] = {"parameters": params} if params else {}
        derived = {}
        for dp in sorted(d.derived_predicates, key=lambda x: x.predicate.name):
            params, checks = self.params(dp.predicate.terms)
            body = self.formula(dp.condition)
            derived[self.name(dp.predicate.name)] = {"parameters": params,
                                                     "formula": {"and": checks + [body]} if checks else body}
            predicates.pop(self.name(dp.predicate.name), None)
        fluents = {}
        for f in sorted(d.functions, key=lambda f: f.name):
            if self.name(f.name) == "total-cost":
                continue
            params, _ = self.params(f.terms, check=False)
            fluents[self.name(f.name)] = {"parameters": params} if params else {}
        actions = {}
        for a in sorted(d.actions, key=lambda a: a.name):
            params, checks = self.params(a.parameters)
            pre = self.formula(a.precondition)
            if checks:
                pre = {"and": checks + ([pre] if pre is not True else [])}
            costs: list = []
            effect = self.effects(a.effect, costs)
            action = {"parameters": params}
            if pre is not True:
                action["precondition"] = pre
            action["effect"] = effect
            if self.action_costs:  # else unit costs: total-cost increases do not count (no metric)
                action["cost"] = (costs[0] if len(costs) == 1 else {"+": costs}) if costs else 0
            actions[self.name(a.name)] = action
        for t in sorted(self.either_types):
            predicates[TYPE_CHECK + t] = {"parameters": [["?x", "object"]], "hidden": True}
        constants = {self.name(c.name): self.name(c.type_tag) if c.type_tag else "object"
                     for c in sorted(d.constants, key=lambda c: c.name)}
        out = {"groundplan": "1", "name": self.name(d.name),
               "description": f"Imported from PDDL ({Path(self.file).name}) by groundplan import-pddl."}
        if self.types:
            out["types"] = self.types
        if constants:
            out["constants"] = constants
            facts = self.type_facts(constants)
            if facts:
                out["init"] = facts
        out["predicates"] = predicates
        if fluents:
            for f in fluents.values():
                f["kind"] = "float" if self.fractional else "int"
            out["fluents"] = fluents
        if derived:
            out["derived"] = derived
        out["actions"] = actions
        return out

    def type_facts(self, objects: dict) -> list:
        """The hidden `either-t` facts of objects whose type is (a subtype of) a checked t."""
        return [[TYPE_CHECK + t, name] for name, typ in objects.items() for t in sorted(self.either_types)
                if t in self.ancestors(typ)]

    # ------------------------------------------------------------ problems
    def problem(self, p, file: str, domain_ref: str) -> dict:
        from pddl.logic import functions as F
        from pddl.logic import predicates as P

        self.file = file
        objects = {self.name(o.name): self.name(o.type_tag) if o.type_tag else "object"
                   for o in sorted(p.objects, key=lambda o: o.name)}
        init, values = [], []
        for fact in sorted(p.init, key=str):
            if isinstance(fact, P.Predicate):
                init.append(self.formula(fact))
            elif isinstance(fact, F.EqualTo):
                target, value = fact.operands
                if self.name(target.name) == "total-cost":
                    continue
                values.append([self.expr(target), self.expr(value)])
            else:
                _fail(file, f"'{fact}' is not supported in :init")
        metric = p.metric
        if metric is not None:
            expression = metric.expression
            if not (metric.optimization == "minimize" and isinstance(expression, F.NumericFunction)
                    and self.name(expression.name) == "total-cost"):
                _fail(file, f"the metric '{metric}' is not supported", hint="only (:metric minimize (total-cost))")
        out = {"groundplan": "1", "name": self.name(p.name), "domain": domain_ref, "objects": objects, "init": init}
        if values:
            out["values"] = values
        out["goal"] = self.formula(p.goal)
        return out


def import_pddl(domain_file: str, problem_files=(), domain_ref: str = "domain.json") -> tuple[dict, list[dict]]:
    """Read a PDDL domain and its problems; return our domain and problem dicts (each problem
    names its domain by `domain_ref`). Raises ModelError (file and line) for what we refuse."""
    text = Path(domain_file).read_text()
    _refuse_unsupported(text, domain_file)
    _refuse_duplicates(text, domain_file)
    domain = _parse("domain", text, domain_file)
    reader = _Reader(domain, domain_file)
    parsed = []
    for file in problem_files:
        ptext = Path(file).read_text()
        _refuse_unsupported(ptext, file)
        _refuse_duplicates(ptext, file)
        problem = _parse("problem", ptext, file, domain.requirements)
        if problem.domain_name is not None and reader.name(problem.domain_name) != reader.name(domain.name):
            _fail(file, f"the problem is for domain '{problem.domain_name}', not '{domain.name}'")
        parsed.append((file, problem))
    if parsed:  # Fast Downward counts action costs only under (:metric minimize (total-cost))
        metrics = {p.metric is not None for _, p in parsed}
        if len(metrics) > 1:
            _fail(parsed[0][0], "some problems minimise total-cost and others have no metric",
                  hint="import them separately: their action costs differ")
        reader.action_costs = reader.action_costs and metrics == {True}
    problems = [reader.problem(problem, file, domain_ref) for file, problem in parsed]  # their goals' `either` types
    reader.file = domain_file
    out = reader.domain()  # its actions' `either` types
    for data in problems:  # the hidden type facts, once every `either` is known
        data["init"] += reader.type_facts(data["objects"])
    if reader.either_types:
        for t in sorted(reader.either_types):
            out["predicates"].setdefault(TYPE_CHECK + t, {"parameters": [["?x", "object"]], "hidden": True})
    if reader.fractional:  # a value that is not whole, in the domain or a problem: every fluent holds floats
        for fluent in out.get("fluents", {}).values():
            fluent["kind"] = "float"
    return out, problems
