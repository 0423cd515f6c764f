"""Loading domains and problems: schema validation, then the semantic parse, then the model.

`load_domain` and `load_problem` accept a path (JSON or YAML) or already-parsed data. Problems
name their domain by a path relative to the problem file or by the name of a shipped domain
(`resolve_domain_reference`; never relative to the working directory, whose stray files must
not replace the world a problem names). Domains are cached per file, so a run over hundreds of problems
parses its domain once. A domain's Python plug-ins belong to the installed world whose folder
holds its file, never to whatever name the file claims (`plugin_world`, `world_module`).
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from . import model as m
from . import problemsets
from .errors import Collector, Diagnostic, ModelError, did_you_mean, pointer
from .files import check_plain_data, read_data, strip_comments
from .grounding import variables
from .parse import Parser, _Scope, _signature, is_var, quantity_errors, template_fields
from .paths import DOMAINS_DIR

SCHEMA_DIR = Path(__file__).parent / "schema"
LANGUAGE_VERSION = "1"


@functools.lru_cache(maxsize=None)
def _validators():
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = {name: json.loads((SCHEMA_DIR / name).read_text()) for name in ("domain.schema.json", "problem.schema.json")}
    registry = Registry()
    for name, schema in schemas.items():
        resource = Resource.from_contents(schema)
        registry = registry.with_resources([(schema["$id"], resource), (name, resource)])
    return {name.split(".")[0]: Draft202012Validator(schema, registry=registry) for name, schema in schemas.items()}


def schema_errors(data: Any, kind: str, file: str) -> list[Diagnostic]:
    """Structural errors against the shipped JSON Schema, one per offending place."""
    validator = _validators()[kind]
    out = []
    found = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    while found:
        error = found.pop(0)
        if error.validator == "oneOf" and error.schema.get("title") == "colour" and not isinstance(error.instance, str):
            # a choice of colours with a wrong case: report that case (its pointer), not the whole choice
            inner = [e for e in error.context if e.validator != "type" and e.relative_schema_path[0] == 1]
            if inner:
                found[:0] = sorted(inner, key=lambda e: list(map(str, e.absolute_path)))
                continue
        if error.validator == "oneOf" and isinstance(error.instance, dict) and error.context:
            # a tagged choice ({"compute": [...]}, {"fluent": [...]}): the branch its key names says what is wrong
            branches = [i for i, s in enumerate(error.validator_value)
                        if s.get("required") and all(k in error.instance for k in s["required"])]
            inner = [e for e in error.context if len(branches) == 1 and e.relative_schema_path[0] == branches[0]]
            if inner:
                found[:0] = sorted(inner, key=lambda e: list(map(str, e.absolute_path)))
                continue
        where = pointer(error.absolute_path)
        hint = None
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = list(error.schema.get("properties", {}))
            extras = [k for k in error.instance if k not in allowed]
            if extras:
                hint = did_you_mean(extras[0], allowed) or f"allowed keys: {', '.join(allowed)}"
                out.append(Diagnostic(file, pointer(list(error.absolute_path) + [extras[0]]), f"unknown key '{extras[0]}'", hint))
                continue
        if error.validator == "const" and list(error.absolute_path) == ["groundplan"]:
            hint = f'this version reads language version "{LANGUAGE_VERSION}": set "groundplan": "{LANGUAGE_VERSION}"'
        if error.validator == "required":
            hint = "add the missing key"
        if error.validator == "maximum" and list(error.absolute_path) == ["max_steps"]:
            hint = (f"a step cap is at most {error.validator_value}: on a goal the agent never reaches, a larger one runs "
                    "an episode for days; lower it, or leave it out for the world's cap from the reference cost")
        if error.validator in ("pattern", "oneOf") and error.schema.get("title") == "colour" and isinstance(error.instance, str):
            from .picture import colour_problem  # the schema's colour pattern failed: say what a colour is

            message, hint = colour_problem(error.instance) or (f"'{error.instance}' is not a colour", None)
            out.append(Diagnostic(file, where, message, hint))
            continue
        out.append(Diagnostic(file, where, error.message if len(error.message) < 200 else error.message[:197] + "...", hint))
    return out


def _read(source, kind: str) -> tuple[Any, str, Path | None]:
    if kind == "problem" and isinstance(source, str):
        source = _shipped(source)
    if kind == "problem" and problemsets.is_set_reference(source):
        data, where = problemsets.read_problem(source)
        return data, where, Path(problemsets.split_reference(source)[0])
    if isinstance(source, (str, Path)):
        path = Path(source)
        return read_data(path), str(path), path
    check_plain_data(source, f"<{kind}>")
    return source, f"<{kind}>", None


def _shipped(source: str) -> str:
    """A problem named through a shipped set (ppnl/single_5x5#3, kitchen/async/01_...) as its
    path; a path that does not exist and is no such name is refused with the nearest name."""
    from . import catalog

    located = catalog.locate(source)
    if located:
        return located
    try:
        missing = not Path(source.split("#", 1)[0]).exists()
    except (OSError, ValueError):
        return source  # read_data says what is wrong with it
    hint = catalog.did_you_mean(source) if missing else None
    if hint:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(source, "", "file not found, and no shipped set of that name", hint)])
    return source


# ============================================================== domains
def load_domain(source) -> m.Domain:
    """A validated Domain from a path or from data; raises ModelError listing every problem."""
    if isinstance(source, str):
        from .catalog import locate

        source = locate(source) or source  # domains/WORLD/domain.json after a plain install
    if isinstance(source, (str, Path)):
        try:
            path = Path(source).resolve()
        except (OSError, ValueError):  # a path the OS cannot take: read_data reports it
            return _build_domain(read_data(source), str(source))
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = None
        return _load_domain_cached(str(path), stamp, str(source))
    data, file, _ = _read(source, "domain")
    return _build_domain(data, file)


@functools.lru_cache(maxsize=64)
def _load_domain_cached(path: str, stamp, shown: str) -> m.Domain:
    data = read_data(path, name=shown)
    return _build_domain(data, shown, plugin_world(Path(path)))


def _build_domain(data, file: str, world: str | None = None) -> m.Domain:
    # A problem may name any readable file as its domain: until the file shows it is a groundplan
    # domain, nothing of its content (keys, values) goes into a message.
    if not isinstance(data, dict) or "groundplan" not in data:
        raise ModelError([Diagnostic(file, "", "not a groundplan domain (a domain is a JSON object with a \"groundplan\" key)",
                                     'start from {"groundplan": "1", "name": ...}')])
    if "domain" in data and "goal" in data:
        raise ModelError([Diagnostic(file, "", "a groundplan problem, not a domain", "name the domain file this problem uses")])
    data = strip_comments(data)
    errors = schema_errors(data, "domain", file)
    if errors:
        raise ModelError(errors)
    c = Collector(file)
    p = Parser(c)
    p.in_domain = True
    _parse_types(data.get("types", {}), p, c)
    constants = {}
    for name, typ in data.get("constants", {}).items():
        p.check_type(["constants", name], typ)
        constants[name] = typ
    for name, spec in data.get("settings", {}).items():
        p.settings[name] = spec["default"]
        if "allowed" in spec and spec["default"] not in spec["allowed"]:
            c.error(["settings", name, "default"], "default is not among the allowed values")
    scope0 = _Scope({}, constants)
    p.tables = _parse_tables(data.get("tables", {}), c)

    for name, spec in data.get("predicates", {}).items():
        path = ["predicates", name]
        params = p.params(spec.get("parameters"), path + ["parameters"])
        names = [v for v, _ in params]
        text = p.text(spec.get("text"), path + ["text"], names)
        describe = {}
        for var, t in spec.get("describe", {}).items():
            if var not in names:
                c.unknown(path + ["describe", var], "parameter", var, names)
            describe[var] = p.text(t, path + ["describe", var], names)
        p.predicates[name] = m.PredicateDef(name, params, text, describe, spec.get("hidden", False))
    for name, spec in data.get("fluents", {}).items():
        path = ["fluents", name]
        if name in p.predicates:
            c.error(path, f"'{name}' is already a predicate", "give the fluent another name")
        params = p.params(spec.get("parameters"), path + ["parameters"])
        default = spec.get("default", 0)
        if spec.get("kind", "int") == "int" and default != int(default):
            c.error(path + ["default"], f"an int fluent cannot default to {default}", 'use "kind": "float" or a whole number')
        text = p.text(spec.get("text"), path + ["text"], [v for v, _ in params] + ["value"])
        p.fluents[name] = m.FluentDef(name, params, spec.get("kind", "int"), spec.get("default", 0), text, spec.get("hidden", False))
    for name, spec in data.get("fluents", {}).items():  # computed values may read any fluent, so all are registered first
        if "value" in spec:
            f = p.fluents[name]
            value = p.expression(spec["value"], ["fluents", name, "value"], scope0.extend(f.params))
            p.fluents[name] = m.FluentDef(f.name, f.params, f.kind, f.default, f.text, f.hidden, value)
    _check_computed_cycles(p.fluents, c)
    raw_derived = data.get("derived", {})
    for name, spec in raw_derived.items():  # register first: derived predicates may refer to each other
        path = ["derived", name]
        if name in p.predicates or name in p.fluents:
            c.error(path, f"'{name}' is already declared as a predicate or fluent")
        params = p.params(spec.get("parameters"), path + ["parameters"])
        p.derived[name] = m.DerivedDef(name, params, m.Const(False), spec.get("text"), spec.get("hidden", False))
    for name, spec in data.get("timers", {}).items():
        p.timers_params[name] = p.params(spec.get("parameters"), ["timers", name, "parameters"])
    for name, spec in raw_derived.items():
        path = ["derived", name]
        d = p.derived[name]
        formula = p.formula(spec["formula"], path + ["formula"], scope0.extend(d.params))
        text = p.text(spec.get("text"), path + ["text"], [v for v, _ in d.params])
        p.derived[name] = m.DerivedDef(name, d.params, formula, text, d.hidden)

    agents = None
    if "agents" in data:
        agents = _parse_agents(data["agents"], ["agents"], p, c, constants)

    actions = {}
    for name, spec in data.get("actions", {}).items():
        path = ["actions", name]
        params = p.params(spec.get("parameters"), path + ["parameters"])
        scope = scope0.extend(params)
        names = [v for v, _ in params]
        actor = spec.get("actor")
        if actor is not None and actor not in names:
            c.unknown(path + ["actor"], "parameter", actor, names, "the actor must be one of the action's parameters")
        elif actor is not None and agents and not p.compatible(dict(params)[actor], agents.type):
            c.error(path + ["actor"], f"the actor {actor} is a {dict(params)[actor]}, not an agent of type {agents.type}")
        precondition = p.formula(spec.get("precondition", True), path + ["precondition"], scope)
        effects = p.effects(spec.get("effect"), path + ["effect"], scope)
        cost = p.expression(spec.get("cost", 1), path + ["cost"], scope)
        text = p.text(spec.get("text"), path + ["text"], names)
        aliases = tuple(p.text(x, path + ["aliases", i], names) for i, x in enumerate(spec.get("aliases", ())))
        actions[name] = m.ActionSchema(name, params, precondition, effects, cost, text, actor, aliases)
        _warn_unused_parameters(actions[name], path, c)

    timers = {}
    for name, spec in data.get("timers", {}).items():
        path = ["timers", name]
        params = p.timers_params[name]
        scope = scope0.extend(params)
        timers[name] = m.TimerDef(
            name, params,
            duration=p.expression(spec["duration"], path + ["duration"], scope),
            condition=p.formula(spec.get("while", True), path + ["while"], scope),
            running=p.effects(spec.get("running"), path + ["running"], scope),
            paused=p.effects(spec.get("paused"), path + ["paused"], scope),
            done=p.effects(spec.get("done"), path + ["done"], scope),
            restart=spec.get("restart", "keep"),
            text=p.text(spec.get("text"), path + ["text"], [v for v, _ in params] + list(TIMER_FIELDS)),
            shown=spec.get("shown", False),
        )
        if timers[name].shown and not timers[name].text:
            c.error(path + ["shown"], f"timer '{name}' is shown but has no 'text'",
                    'give it a text, e.g. "text": "{remaining} steps to go"')

    invariants = []
    p.initially_allowed = True  # only invariants may look back at the initial state
    for i, spec in enumerate(data.get("invariants", [])):
        invariants.append(m.Invariant(spec["name"], p.formula(spec["formula"], ["invariants", i, "formula"], scope0), spec.get("text")))
    p.initially_allowed = False

    heuristics = {}
    for name, spec in data.get("heuristics", {}).items():
        heuristics[name] = m.HeuristicDef(name, p.expression(spec["expression"], ["heuristics", name, "expression"], scope0),
                                          spec.get("admissible", False), spec.get("description", ""))
    static_init = _ground_atoms(data.get("init", []), ["init"], p, c, scope0, constants)
    domain_values = _parse_values(data.get("values", []), p, c, scope0, p.fluents)
    domain_labels = _parse_labels(data.get("labels", {}), c, constants)
    strata = _stratify(p.derived, c)
    render = dict(data.get("render", {}))
    for typ in render.get("type_names", {}):
        p.check_type(["render", "type_names", typ], typ)
    for i, typ in enumerate(render.get("type_order", [])):
        p.check_type(["render", "type_order", i], typ)
    if "picture" in render:
        from .picture import picture_errors

        for where, message, hint in picture_errors(render["picture"], {**p.predicates, **p.derived}, p.fluents):
            c.error(where, message, hint)
    noop_cost = p.expression(data["noop_cost"], ["noop_cost"], scope0) if "noop_cost" in data else None
    for where, message, hint in quantity_errors(actions, timers, noop_cost, p.settings):  # e.g. a duration of -7
        c.error(where, message, hint)
    c.raise_if_any()
    return m.Domain(
        name=data["name"], file=file, types=dict(p.types), constants=constants, settings=dict(p.settings),
        predicates=p.predicates, fluents=p.fluents, derived=p.derived, actions=actions, timers=timers,
        invariants=invariants, agents=agents, on_inapplicable=data.get("on_inapplicable", "reject"),
        tick_rule=data.get("tick_rule", "all"),
        render=render, description=data.get("description", ""), metadata=data.get("metadata", {}),
        heuristics=heuristics, derived_strata=strata, init=static_init, raw=data, noop_cost=noop_cost,
        values=domain_values, labels=domain_labels, tables=p.tables, plugin_world=world, warnings=list(c.warnings),
    )


# the fields a timer's text may use besides its parameters (engine.render.timer_text fills them)
TIMER_FIELDS = ("remaining",)


def _warn_unused_parameters(action: m.ActionSchema, path, c: Collector) -> None:
    """A parameter that neither the precondition, the effects, the cost, the actor nor the text
    mentions only multiplies the action: each of its values makes another copy of the same move
    ("fly a1 to apt2" three times). The domain still means something, so this is a warning."""
    used = variables((action.precondition, action.effects, action.cost))
    for text in (action.text, *action.aliases):
        used |= {"?" + name for name in template_fields(text or "")}
    if action.actor is not None:
        used.add(action.actor)
    for i, (var, typ) in enumerate(action.params):
        if var not in used:
            c.warn(path + ["parameters", i], f"parameter {var} of action '{action.name}' is used nowhere "
                   "(not in its precondition, effect, cost or text)",
                   f"remove it, or use it: every {typ} it can stand for makes one more copy of the same action")


def _parse_tables(raw: dict, c: Collector) -> dict:
    """The domain's lookup tables (engine/tables.py), every row checked against the table's shape."""
    from .tables import Row, Table, placements

    tables = {}
    for name, spec in raw.items():
        path = ["tables", name]
        keys, results = spec["keys"], tuple(spec["results"])
        blank = spec.get("blank", 0)
        grid = tuple(spec["grid"]) if "grid" in spec else None
        if grid is not None and grid[0] * grid[1] != keys:
            c.error(path + ["grid"], f"a {grid[0]}x{grid[1]} grid has {grid[0] * grid[1]} cells, but the table has {keys} keys",
                    "make rows x columns equal to 'keys'")
            continue
        default = tuple(spec.get("default", [0] * len(results)))
        if len(default) != len(results):
            c.error(path + ["default"], f"the default gives {len(default)} value(s) for {len(results)} result(s)")
            continue
        if len(set(results)) != len(results):
            c.error(path + ["results"], "result names must be distinct")
            continue
        rows = []
        for i, row in enumerate(spec["rows"]):
            rp = path + ["rows", i]
            kind = next(k for k in ("match", "pattern", "unordered") if k in row)
            result = tuple(row["result"])
            if len(result) != len(results):
                c.error(rp + ["result"], f"{len(result)} value(s) for {len(results)} result(s) ({', '.join(results)})")
                continue

            def cell(x):
                return frozenset(x) if isinstance(x, list) else frozenset((x,))
            if kind == "pattern":
                lines = row["pattern"]
                width = len(lines[0]) if lines else 0
                if grid is None:
                    c.error(rp + ["pattern"], "a pattern row needs the table's 'grid'", 'declare e.g. "grid": [3, 3]')
                    continue
                if not lines or any(len(line) != width for line in lines) or len(lines) > grid[0] or width > grid[1] or width == 0:
                    c.error(rp + ["pattern"], f"a pattern is a non-empty rectangle of at most {grid[0]} rows of at most {grid[1]} cells")
                    continue
                rows.append(Row("pattern", tuple(cell(x) for line in lines for x in line), result,
                                placements(len(lines), width, grid)))
            else:
                cells = row[kind]
                if kind == "match" and len(cells) != keys or kind == "unordered" and len(cells) > keys:
                    c.error(rp + [kind], f"{len(cells)} cells for a table of {keys} keys",
                            "one cell per key" if kind == "match" else f"at most {keys} cells")
                    continue
                rows.append(Row(kind, tuple(cell(x) for x in cells), result))
        tables[name] = Table(name, keys, results, default, rows, blank, grid)
    return tables


def _check_computed_cycles(fluents: dict, c: Collector) -> None:
    """A computed fluent may read other computed fluents, but never (through them) itself."""
    reads = {name: {n.name for n in m.walk_nodes(f.value) if isinstance(n, m.FluentTerm) and fluents.get(n.name) and fluents[n.name].value is not None}
             for name, f in fluents.items() if f.value is not None}
    for start in reads:
        stack, seen = list(reads[start]), set()
        while stack:
            x = stack.pop()
            if x == start:
                c.error(["fluents", start, "value"], f"the value of '{start}' depends on itself", "compute it from stored fluents")
                break
            if x not in seen:
                seen.add(x)
                stack.extend(reads.get(x, ()))


def _parse_values(raws, p: Parser, c: Collector, scope, fluents) -> list:
    """Initial fluent values `[[[fluent, object...], number], ...]` (a problem's, or a domain's over its constants)."""
    values = []
    for i, (term, value) in enumerate(raws):
        e = p.expression(term, ["values", i, 0], scope)
        if isinstance(e, m.FluentTerm):
            if any(is_var(a) for a in e.args):
                c.error(["values", i, 0], "values are ground: no ?variables")
            if fluents[e.name].value is not None:
                c.error(["values", i, 0], f"'{e.name}' is a computed fluent: its value cannot be set",
                        "set the fluents it is computed from")
            if fluents[e.name].kind == "int" and value != int(value):
                c.error(["values", i, 1], f"{e.name} is an int fluent, got {value}")
            values.append(((e.name, e.args), value))
    return values


def _ground_atoms(raws, path, p: Parser, c: Collector, scope, objects) -> list:
    """The distinct ground atoms of an `init` list (a problem's, or a domain's over its constants)."""
    domain_preds = p.predicates
    out, seen = [], set()
    for i, raw in enumerate(raws):
        atom = p.atom(raw, path + [i], scope)
        if atom.pred in p.derived:
            c.error(path + [i, 0], f"'{atom.pred}' is derived: it cannot be set in init", "set the predicates it is derived from")
        if any(is_var(a) for a in atom.args):
            c.error(path + [i], "init facts are ground: no ?variables")
        _check_ground_types(atom.args, domain_preds.get(atom.pred), objects, p, c, path + [i])
        key = (atom.pred, atom.args)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _parse_types(raw: dict, p: Parser, c: Collector) -> None:
    for name, parent in raw.items():
        if name == "object":
            c.error(["types", name], "'object' is the root type and has no parent", "remove this entry")
            continue
        p.types[name] = parent
    for name, parent in raw.items():
        if name != "object" and parent not in p.types:
            c.unknown(["types", name], "parent type", parent, p.types, "declare it under 'types' or use 'object'")
    for name in raw:
        seen = []
        t = name
        while t is not None and t in p.types:
            if t in seen:
                c.error(["types", name], f"cyclic type hierarchy: {' -> '.join(seen + [t])}", "make one of them a child of 'object'")
                p.types[name] = "object"
                break
            seen.append(t)
            t = p.types.get(t)


def _parse_agents(raw, path, p: Parser, c: Collector, objects) -> m.Agents | None:
    typ = raw.get("type")
    if typ is None:
        c.error(path, "agents need a 'type': the type whose objects are the players")
        return None
    p.check_type(path + ["type"], typ)
    order = tuple(raw.get("order", ()))
    for i, name in enumerate(order):
        if name not in objects:
            c.unknown(path + ["order", i], "agent", name, objects)
    return m.Agents(typ, raw.get("mode", "turns"), order)


def _stratify(derived: dict[str, m.DerivedDef], c: Collector) -> list[list[str]]:
    """Strata for derived predicates: negation only on lower strata (recursion through 'and' is fine)."""
    deps: dict[str, list[tuple[str, bool]]] = {name: [] for name in derived}

    def walk(f, name, positive):
        if isinstance(f, m.Atom):
            if f.pred in derived:
                deps[name].append((f.pred, positive))
        elif isinstance(f, (m.And, m.Or)):
            for x in f.parts:
                walk(x, name, positive)
        elif isinstance(f, m.Not):
            walk(f.part, name, not positive)
        elif isinstance(f, m.Imply):
            walk(f.condition, name, not positive)
            walk(f.consequence, name, positive)
        elif isinstance(f, m.Quantified):
            walk(f.body, name, positive)
        elif isinstance(f, m.Compare):
            for x in (f.left, f.right):
                _walk_expr(x, lambda g: walk(g, name, False))

    for name, d in derived.items():
        walk(d.formula, name, True)
    level = {name: 0 for name in derived}
    for _ in range(len(derived) + 1):
        changed = False
        for name, edges in deps.items():
            for dep, positive in edges:
                need = level[dep] + (0 if positive else 1)
                if need > level[name]:
                    level[name] = need
                    changed = True
        if not changed:
            break
    else:
        bad = sorted(n for n in derived if level[n] > len(derived))
        c.error(["derived", bad[0] if bad else ""], "derived predicates depend on themselves through negation",
                "rewrite so a predicate never depends negatively on itself")
        return [sorted(derived)]
    strata: dict[int, list[str]] = {}
    for name, lv in level.items():
        strata.setdefault(lv, []).append(name)
    return [sorted(strata[k]) for k in sorted(strata)]


def _walk_expr(e, on_formula):
    if isinstance(e, m.Arith):
        for x in e.parts:
            _walk_expr(x, on_formula)
    elif isinstance(e, m.IfExpr):
        on_formula(e.condition)
        _walk_expr(e.then, on_formula)
        _walk_expr(e.otherwise, on_formula)
    elif isinstance(e, m.Count):
        on_formula(e.body)
    elif isinstance(e, m.Sum):
        on_formula(e.condition)
        _walk_expr(e.value, on_formula)


# ============================================================== problems
def resolve_domain_reference(reference: str, problem_path: Path | None) -> Path | None:
    """The domain file a problem's "domain" names, or None. Tried in this order (docs/language.md):

    1. a path relative to the problem file's folder (`..` and absolute paths included: a user's
       problems may live beside, below or away from their domain), a file or a folder holding
       `domain.json`; a problem given as data, without a file, only by an absolute path;
    2. the name of an installed world, `domains/<name>/domain.json` (a bare name, no path).

    Never relative to the working directory: a `./blocksworld/domain.json` that happens to be
    there must not replace the shipped world a problem names."""
    candidates = []
    if problem_path is not None:
        candidates.append(problem_path.parent / reference)
    elif Path(reference).is_absolute():
        candidates.append(Path(reference))
    if _is_world_name(reference):
        candidates.append(DOMAINS_DIR / reference / "domain.json")
    for path in candidates:
        try:
            if path.is_file():
                return path
            if path.is_dir() and (path / "domain.json").is_file():
                return path / "domain.json"
        except OSError:  # e.g. a name too long for the file system: not a domain there
            continue
    return None


def shipped_domains() -> list[str]:
    return sorted(d.name for d in DOMAINS_DIR.iterdir() if (d / "domain.json").is_file()) if DOMAINS_DIR.is_dir() else []


def _is_world_name(name) -> bool:
    """An installed world's folder name: a plain identifier (so also a module name) that is a
    folder of domains/ with a domain.json; never a path, '..' or a name a file merely claims."""
    if not isinstance(name, str) or not name.isidentifier():
        return False
    try:
        return (DOMAINS_DIR / name / "domain.json").is_file()
    except OSError:
        return False


def plugin_world(domain_file: Path) -> str | None:
    """The installed world whose Python plug-ins serve the domain in this (resolved) file: the
    world whose folder under domains/ holds it, at any depth (a generated variant kept inside
    the world is still that world's). A file anywhere else gets none, even beside .py files:
    naming a domain file in a problem must never make us import code from a folder of its choice.
    A world author who wants plug-ins installs the world as a folder of domains/."""
    try:
        names = [d.name for d in DOMAINS_DIR.iterdir()] if DOMAINS_DIR.is_dir() else []
        for name in sorted(names):
            if _is_world_name(name) and domain_file.is_relative_to((DOMAINS_DIR / name).resolve()):
                return name
    except OSError:
        pass
    return None


def world_module(world, name: str):
    """A plug-in module of a domain's world (metrics, baselines, questions, replies, text,
    prompting), or None when it has none. `world` is a loaded Domain (its file's installed world,
    `plugin_world`: a domain from data, or from a file outside domains/, has none) or the folder
    name of an installed world. An error inside an existing module is raised, not hidden."""
    folder = world.plugin_world if isinstance(world, m.Domain) else world
    return _world_module(folder, name) if folder is not None else None


@functools.lru_cache(maxsize=None)
def _world_module(world: str, name: str):
    # Remembered: the step loop asks for every answer, and a miss costs an import search.
    import importlib
    import importlib.util

    if not _is_world_name(world) or not name.isidentifier():
        return None
    module = f"groundplan.domains.{world}.{name}"
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None
    folder = (DOMAINS_DIR / world).resolve()
    if spec is None or spec.origin is None or not Path(spec.origin).resolve().is_relative_to(folder):
        return None  # no such module, or one another `domains` folder on sys.path would supply
    return importlib.import_module(module)


def read_problem_source(source) -> tuple[Any, str, Path | None]:
    """(a problem's data, the name its messages use, the path its domain is relative to), read
    as `load_problem` reads it: for a caller that sends the problem elsewhere to be built."""
    return _read(source, "problem")


def load_problem(source, domain: m.Domain | None = None) -> m.Problem:
    """A validated Problem (with its Domain) from a path or from data."""
    data, file, path = _read(source, "problem")
    return build_problem(data, file, path, domain)


def build_problem(data, file: str, path: Path | None, domain: m.Domain | None = None) -> m.Problem:
    if not isinstance(data, dict):
        raise ModelError([Diagnostic(file, "", "a problem is a JSON object", 'start from {"groundplan": "1", "name": ..., "domain": ...}')])
    data = strip_comments(data)
    errors = schema_errors(data, "problem", file)
    if errors:
        raise ModelError(errors)
    if domain is None:
        domain_path = resolve_domain_reference(data["domain"], path)
        if domain_path is None:
            where = "a path relative to the problem file" if path is not None else \
                "an absolute path (a problem given as data has no folder to be relative to)"
            hint = did_you_mean(data["domain"], shipped_domains()) or f"give {where}, or one of: " + ", ".join(shipped_domains())
            raise ModelError([Diagnostic(file, "/domain", f"domain '{data['domain']}' not found", hint)])
        domain = load_domain(domain_path)
    c = Collector(file)
    p = Parser(c)
    p.types = dict(domain.types)
    p.predicates = dict(domain.predicates)
    p.fluents = dict(domain.fluents)
    p.derived = dict(domain.derived)
    p.settings = dict(domain.settings)
    objects = dict(domain.constants)
    for name, typ in data.get("objects", {}).items():
        if name in domain.constants:
            c.error(["objects", name], f"'{name}' is already a constant of the domain", "remove it from 'objects'")
        p.check_type(["objects", name], typ)
        objects[name] = typ
    scope = _Scope({}, objects)
    own = _ground_atoms(data.get("init", []), ["init"], p, c, scope, objects)
    init = list(domain.init)  # the domain's facts over its constants hold in every problem
    known = set(init)
    init += [key for key in own if key not in known]
    p.tables = domain.tables
    values = list(domain.values) + _parse_values(data.get("values", []), p, c, scope, domain.fluents)
    settings = dict(domain.settings)
    for name, value in data.get("settings", {}).items():
        if name not in domain.settings:
            c.unknown(["settings", name], "setting", name, domain.settings, "settings must be declared by the domain")
            continue
        default = domain.settings[name]
        if isinstance(default, bool) != isinstance(value, bool):
            c.error(["settings", name], f"setting '{name}' is {'a boolean' if isinstance(default, bool) else 'a number'}")
        allowed = domain.raw.get("settings", {}).get(name, {}).get("allowed")
        if allowed is not None and value not in allowed:
            c.error(["settings", name], f"{value!r} is not allowed for '{name}'", f"allowed: {allowed}")
        settings[name] = value
    labels = {**domain.labels, **_parse_labels(data.get("labels", {}), c, objects)}
    goal = p.goal(data["goal"], ["goal"], scope)
    routing = _parse_routing(data.get("routing"), p, c, scope)
    agents = domain.agents
    if "agents" in data:
        if domain.agents is None:
            c.error(["agents"], "the domain declares no agents", "declare 'agents' in the domain first")
        else:
            raw = {"type": domain.agents.type, **data["agents"]}
            agents = _parse_agents(raw, ["agents"], p, c, objects)
    if agents is not None:
        for i, name in enumerate(agents.order):
            if name in objects and not domain.is_subtype(objects[name], agents.type):
                c.error(["agents", "order", i], f"'{name}' is a {objects[name]}, not a {agents.type}")
    overridden = set(data.get("settings", {}))
    if overridden:  # the domain's own values were checked with it; here those the problem changes
        for where, message, hint in quantity_errors(domain.actions, domain.timers, domain.noop_cost, settings, overridden):
            c.error(where, message, hint)
    if "optimal" in data:  # the stored reference on its face; engine.validate.check_references replays it
        from .validate import optimal_entry_errors

        c.diagnostics.extend(optimal_entry_errors(data["optimal"], file))
    c.raise_if_any()
    from .render import fill_settings

    return m.Problem(
        name=data["name"], file=file, domain=domain, objects=objects, init=init, values=values,
        settings=settings, goal=goal, goal_text=fill_settings(data.get("goal_text", ""), settings), agents=agents,
        tick_rule=data.get("tick_rule", domain.tick_rule), max_steps=data.get("max_steps"), optimal=data.get("optimal"), description=data.get("description", ""),
        metadata=data.get("metadata", {}), routing=routing, labels=labels, raw=data, warnings=list(c.warnings),
    )


def _parse_labels(raw: dict, c: Collector, objects: dict) -> dict:
    """Display names of objects: each names a known object, and no two objects share one
    (an answer that uses a label must name exactly one object)."""
    labels = {}
    seen: dict[str, str] = {}
    for name, label in raw.items():
        if name not in objects:
            c.unknown(["labels", name], "object", name, objects, "labels may only name the problem's objects and constants")
            continue
        if label in seen:
            c.error(["labels", name], f"the label '{label}' is already used for '{seen[label]}'", "give every object its own label")
            continue
        if label in objects and label != name:
            c.error(["labels", name], f"the label '{label}' is the name of another object", "choose a label that is no object's name")
            continue
        seen[label] = name
        labels[name] = label
    return labels


def _parse_routing(raw, p: Parser, c: Collector, scope) -> dict | None:
    if raw is None:
        return None
    targets = {name: p.goal(f, ["routing", "targets", name], scope) for name, f in raw["targets"].items()}
    tour = raw.get("tour", "open")
    if tour == "closed" and "return" not in raw:
        c.error(["routing"], "a closed tour needs 'return': the formula that holds back at the end", 'e.g. "return": ["at", "start"]')
    for i, rule in enumerate(raw.get("precedence", [])):
        for side in ("before", "after"):
            for j, name in enumerate(rule[side]):
                if name not in targets:
                    c.unknown(["routing", "precedence", i, side, j], "target", name, targets)
    for name in raw.get("prizes", {}):
        if name not in targets:
            c.unknown(["routing", "prizes", name], "target", name, targets)
    return {"targets": targets, "tour": tour,
            "return": p.goal(raw["return"], ["routing", "return"], scope) if "return" in raw else None,
            "precedence": [(list(r["before"]), list(r["after"])) for r in raw.get("precedence", [])],
            "prizes": dict(raw["prizes"]) if "prizes" in raw else None, "budget": raw.get("budget"),
            "exact": bool(raw.get("exact", False))}


def _check_ground_types(args, pred: m.PredicateDef | None, objects, p: Parser, c: Collector, path) -> None:
    if pred is None or len(args) != len(pred.params):
        return
    for i, (arg, (_, typ)) in enumerate(zip(args, pred.params)):
        # Parser.term already reported disjoint types; here only a supertype where a subtype is needed
        if arg in objects and not p.is_subtype(objects[arg], typ) and p.compatible(objects[arg], typ):
            c.error(path + [i + 1], f"type mismatch: {arg} is of type '{objects[arg]}', argument {i + 1} of {_signature(pred.name, pred.params)} needs type '{typ}'")
