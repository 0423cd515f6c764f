"""A state as a picture, drawn from the domain's `render.picture` data.

Researchers read an agent's failures by watching its episode, and every reference benchmark
shipped a picture of its world. The drawing rules live in the world's JSON, not in the viewer:
this module turns a state into a *scene* (plain JSON: cells of a grid, stacks on places, or a
list of facts) that the browser draws without knowing which world it is. An author gets a
picture of a new world by writing data; the viewer never changes.

Three kinds (docs/language.md, "Pictures"):
- `grid`: cells addressed by (row, column), with marks placed by queries over the state (an
  obstacle, the agent and its heading, energy with its amount, a slot's item and count);
- `stacks`: places holding stacks of things, things inside things, and agents holding things
  (the kitchen's stations, the blocksworld table);
- `facts`: the visible facts as sentences, the fallback for a domain with no picture.

A query is a list of patterns joined on their shared variables: an atom `["at", "?r", "?c"]`
(static and derived facts included), a fluent `{"fluent": ["x", "?t"], "value": "?x"}`, the
objects of a type `{"type": ["?t", "door"]}`, an atom of the problem's goal `{"goal": ["at", "?c"]}`,
two filters of the bindings found so far, `{"not": atom}` and `{"compare": ["?v", ">", 0]}`, and a
value computed from them, `{"compute": ["?score", "?v", "-", "?cost"]}`. A picture's `status` lines
(the energy carried, the score) may start from `?cost` and `?steps`, what the episode has spent
so far, which the viewer knows and the state does not.

Colours go into the viewer's CSS, and a domain is data anyone may share, so a colour is accepted
only in a strict syntax (a CSS name, #hex, rgb()/rgba() of numbers): checked when the domain loads,
and again for a colour filled in from a state when it is drawn.
"""
from __future__ import annotations

import re

from .errors import GroundplanError, did_you_mean
from .parse import is_var
from .task import State

ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
              "/": lambda a, b: a / b if b else None, "min": min, "max": max}
COMPARE = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
           "<": lambda a, b: a < b, "<=": lambda a, b: a <= b}


class PictureError(GroundplanError):
    """A `render.picture` section the loader accepted but a problem cannot satisfy (a size read
    from metadata the problem lacks, a cell name the pattern cannot read)."""


# ------------------------------------------------------------------ queries
def _atoms_by_pred(task, state: State) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for pred, args in task.true_atoms(state):
        out.setdefault(pred, []).append(args)
    return out


def _unify(pattern: list, args: tuple, binding: dict) -> dict | None:
    if len(pattern) != len(args):
        return None
    out = dict(binding)
    for term, value in zip(pattern, args):
        if is_var(term):
            if term in out and out[term] != value:
                return None
            out[term] = value
        elif term != value:
            return None
    return out


class Query:
    """The bindings of a list of patterns in one state (a nested-loop join: pictures are small)."""

    def __init__(self, task, state: State, atoms: dict[str, list[tuple]]):
        self.task, self.state, self.atoms = task, state, atoms
        self._goal: dict | None = None

    def bindings(self, patterns: list, binding: dict | None = None) -> list[dict]:
        found = [dict(binding or {})]
        for pattern in patterns:
            found = [b2 for b in found for b2 in self._extend(pattern, b)]
            if not found:
                break
        return found

    def _extend(self, pattern, b: dict):
        if isinstance(pattern, list):
            for args in self.atoms.get(pattern[0], ()):
                out = _unify(pattern[1:], args, b)
                if out is not None:
                    yield out
        elif "not" in pattern:
            if not self.bindings([pattern["not"]], b):
                yield b
        elif "type" in pattern:
            var, typ = pattern["type"]
            for o, t in self.task.objects(self.state).items():
                if self.task.domain.is_subtype(t, typ) and b.get(var, o) == o:
                    yield {**b, var: o}
        elif "goal" in pattern:
            for args in self._goal_atoms().get(pattern["goal"][0], ()):
                out = _unify(pattern["goal"][1:], args, b)
                if out is not None:
                    yield out
        elif "compare" in pattern:
            left, op, right = (b.get(x, x) if isinstance(x, str) else x for x in pattern["compare"])
            if isinstance(left, (int, float)) and isinstance(right, (int, float)) and COMPARE[op](left, right):
                yield b
        elif "compute" in pattern:
            var, left, op, right = pattern["compute"]
            left, right = (b.get(x, x) if isinstance(x, str) else x for x in (left, right))
            if isinstance(left, (int, float)) and isinstance(right, (int, float)):
                value = ARITHMETIC[op](left, right)
                if value is not None:  # a division by zero binds nothing
                    yield {**b, var: round(value, 9) if isinstance(value, float) else value}
        else:
            name, *terms = pattern["fluent"]
            yield from self._fluent(name, terms, pattern.get("value"), b)

    def _goal_atoms(self) -> dict[str, list[tuple]]:
        if self._goal is None:
            from .model import Atom, walk_nodes

            self._goal = {}
            for node in walk_nodes(self.task.problem.goal):
                if isinstance(node, Atom):
                    self._goal.setdefault(node.pred, []).append(node.args)
        return self._goal

    def _fluent(self, name: str, terms: list, value_var: str | None, b: dict):
        task = self.task
        params = task.domain.fluents[name].params
        choices = [[b[t]] if is_var(t) and t in b else [t] if not is_var(t) else
                   [o for o, typ in task.objects(self.state).items() if task.domain.is_subtype(typ, params[i][1])]
                   for i, t in enumerate(terms)]
        combos = [()]
        for options in choices:
            combos = [c + (o,) for c in combos for o in options]
        for args in combos:
            out = _unify(terms, args, b)
            if out is None:
                continue
            value = task.value(self.state, name, args)
            if value_var is None:
                yield out
            elif value_var in out and out[value_var] != value:
                continue
            else:
                yield {**out, value_var: value}


# ------------------------------------------------------------------ colours
# A colour reaches the page's CSS, so only a strict syntax is accepted (a domain is data anyone may
# share: `#444;background-image:url(...)` would make the viewer fetch an outside address). The
# schema's pattern (the same text, `$defs/picture_colour`) refuses any other character; the loader
# then checks a name is a CSS colour; a colour filled in from a state (`"{k}"`) is checked when drawn.
_NUMBER = r"[0-9]+(\.[0-9]+)?%?"
COLOUR_PATTERN = (r"^(#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})"
                  rf"|rgb\( *{_NUMBER} *, *{_NUMBER} *, *{_NUMBER} *\)"
                  rf"|rgba\( *{_NUMBER} *, *{_NUMBER} *, *{_NUMBER} *, *([0-9]*\.)?[0-9]+%? *\)"
                  r"|[a-zA-Z]+)$")
_COLOUR = re.compile(COLOUR_PATTERN.rstrip("$") + r"\Z")
CSS_COLOUR_NAMES = frozenset("""
aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown
burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan
darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid
darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet
deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro
ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki
lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow
lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray
lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine
mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise
mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab
orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru
pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown
seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan
teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen transparent""".split())
COLOUR_HINT = ("write a CSS colour name ('steelblue'), #rgb, #rrggbb, #rrggbbaa, "
               "rgb(r, g, b) or rgba(r, g, b, a) with numbers")


def is_colour(text) -> bool:
    """Whether `text` is a colour in the accepted syntax (a name must be a CSS colour's)."""
    if not isinstance(text, str) or not _COLOUR.match(text):
        return False
    return text.startswith(("#", "rgb")) or text.lower() in CSS_COLOUR_NAMES


def colour_problem(text: str) -> tuple[str, str] | None:
    """(message, hint) when `text` is not an accepted colour, else None."""
    if is_colour(text):
        return None
    if isinstance(text, str) and re.fullmatch(r"[a-zA-Z]+", text):
        return f"'{text}' is not a CSS colour name", did_you_mean(text.lower(), CSS_COLOUR_NAMES) or COLOUR_HINT
    shown = text if len(text) <= 60 else text[:57] + "..."
    shown = f"'{shown}'" if shown.isprintable() else repr(shown)  # a newline shown as \\n
    return f"{shown} is not a colour", COLOUR_HINT


def _colour(text):
    """A colour filled in from a state, or None (not drawn) when it is not one."""
    return text if is_colour(text) else None


# ------------------------------------------------------------------ texts and styles
_FIELD = re.compile(r"\{(\w[\w-]*)\}")


def _number(x):
    return int(x) if isinstance(x, float) and x.is_integer() else x


def fill(template, b: dict, names: dict | None = None, domain=None, labels: dict | None = None):
    """A template ('{v}'), a choice by a variable ({"by": "?d", "cases": {...}}) or a constant.

    Objects are shown as the texts show them (the problem's labels: PPNL's `i3` is `3`)."""
    if isinstance(template, dict):
        key = b.get(template["by"])
        return template["cases"].get(str(_number(key)), template.get("else"))
    if not isinstance(template, str):
        return template

    def sub(match):
        var = "?" + match.group(1)
        if var not in b:
            return match.group(0)
        value = _number(b[var])
        listing = (names or {}).get(var)
        if listing is not None:
            value = _named(listing, value, domain)
        elif labels and isinstance(value, str):
            value = labels.get(value, value)
        return str(value)
    return _FIELD.sub(sub, template)


def _named(listing: dict, value, domain):
    """A value's name from a list in the domain's data ({"list": "/metadata/items", "first": 1})."""
    items = _pointer(domain, listing["list"])
    i = int(value) - int(listing.get("first", 0)) if isinstance(value, (int, float)) else None
    return items[i] if i is not None and 0 <= i < len(items) else value


def _pointer(domain, pointer: str):
    parts = [p for p in pointer.split("/") if p]
    node = {"metadata": domain.metadata, "constants": domain.constants}
    for p in parts:
        node = node[int(p)] if isinstance(node, list) else node[p]
    return node


# ------------------------------------------------------------------ sizes
def number(expr, task) -> int:
    """A size: a number, {"setting": s}, {"metadata": key} (the problem's), or +, -, * of those."""
    if isinstance(expr, (int, float)):
        return int(expr)
    if "setting" in expr:
        return int(task.settings[expr["setting"]])
    if "metadata" in expr:
        meta = task.problem.metadata or {}
        if expr["metadata"] not in meta:
            raise PictureError(f"{task.problem.file or task.problem.name}: the picture reads metadata "
                               f"'{expr['metadata']}', which this problem does not have (add it under /metadata)")
        return int(meta[expr["metadata"]])
    (op, parts), = expr.items()
    values = [number(p, task) for p in parts]
    if op == "+":
        return sum(values)
    if op == "*":
        out = 1
        for v in values:
            out *= v
        return out
    return values[0] - sum(values[1:])


# ------------------------------------------------------------------ grid
class _Cells:
    """Where a mark goes: a cell object's name read by a pattern or a positions table, or a
    (row, column) pair of index objects, numbers, or both."""

    def __init__(self, spec: dict):
        self.pattern = re.compile(spec["cells"]["pattern"]) if "pattern" in spec.get("cells", {}) else None
        self.positions = spec.get("cells", {}).get("positions", {})
        self.index = re.compile(spec["index"]) if "index" in spec else None

    def of_object(self, name: str):
        if name in self.positions:
            return tuple(self.positions[name])
        if self.pattern is not None:
            m = self.pattern.fullmatch(name)
            if m:
                return int(m.group("row")), int(m.group("col"))
        return None

    def coordinate(self, value):
        if isinstance(value, (int, float)):
            return int(value)
        if self.index is not None:
            m = self.index.fullmatch(str(value))
            if m:
                return int(m.group(1))
        return None

    def where(self, at, b: dict):
        if isinstance(at, str):
            return self.of_object(b.get(at, at))
        r, c = (self.coordinate(b.get(x, x) if isinstance(x, str) else x) for x in at)
        return None if r is None or c is None else (r, c)


def grid_scene(task, state: State, spec: dict, query: Query) -> dict:
    cells = _Cells(spec)
    if "rows" in spec and "cols" in spec:
        rows, cols = number(spec["rows"], task), number(spec["cols"], task)
        r0, c0 = spec.get("origin", [0, 0])
    else:  # the extent of the problem's cell objects
        found = [p for p in (cells.of_object(o) for o in task.objects(state)) if p is not None]
        if not found:
            raise PictureError(f"{task.problem.file or task.problem.name}: no object name matches the picture's "
                               "cell pattern, so the grid has no size (give 'rows' and 'cols')")
        r0, c0 = min(p[0] for p in found), min(p[1] for p in found)
        rows, cols = max(p[0] for p in found) - r0 + 1, max(p[1] for p in found) - c0 + 1
    marks = []
    labels = {**task.domain.labels, **task.problem.labels}
    rooms = spec.get("rooms")
    if rooms:
        every = number(rooms["every"], task)
        wall = rooms.get("fill", "#666")  # checked when the domain was loaded, like every fixed colour
        for r in range(rows):
            for c in range(cols):
                if every and ((r + r0) % every == 0 or (c + c0) % every == 0):
                    marks.append({"r": r, "c": c, "fill": wall, "title": rooms.get("title", "wall"), "layer": -1})
    for layer, mark in enumerate(spec.get("marks", [])):
        for b in query.bindings(mark["for"]):
            where = cells.where(mark["at"], b)
            if where is None:
                continue
            r, c = where[0] - r0, where[1] - c0
            if not (0 <= r < rows and 0 <= c < cols):
                continue  # off the grid: an item carried, a box that vanished
            out = {"r": r, "c": c, "layer": layer}
            for key in ("fill", "glyph", "color", "label", "corner", "title"):
                if key in mark:
                    text = fill(mark[key], b, mark.get("names"), task.domain, labels)
                    if key in ("fill", "color"):
                        text = _colour(text)  # "{k}" filled in by an object's name or label: only a colour is drawn
                    if text is not None:
                        out[key] = text
            marks.append(out)
    out = {"kind": "grid", "rows": rows, "cols": cols, "background": _colour(spec.get("background", "#fff")) or "#fff", "marks": marks}
    if "axes" in spec:  # numbered as the texts count: the drawn row 0 is the texts' row r0
        out["axes"] = {"rows": {"name": spec["axes"].get("rows", "row"), "first": r0},
                       "cols": {"name": spec["axes"].get("cols", "column"), "first": c0}}
    return out


# ------------------------------------------------------------------ stacks
def stacks_scene(task, state: State, spec: dict, query: Query) -> dict:
    places_spec = spec["places"]
    if "type" in places_spec:
        places = [o for o, t in task.objects(state).items() if task.domain.is_subtype(t, places_spec["type"])]
    else:
        places = list(places_spec["names"])
    styles = spec.get("styles", [])

    def style(name: str) -> dict:
        out: dict = {"name": name, "badges": []}
        for s in styles:
            if query.bindings(s["when"], {"?x": name}):
                if "badge" in s:
                    out["badges"].append(s["badge"])
                if "color" in s and _colour(s["color"]):
                    out.setdefault("color", s["color"])
        return out

    def pairs(patterns: list, a: str, b: str, default_a: str | None = None, default_b: str | None = None) -> list[tuple]:
        """(a, b) for each binding; a pattern without one of the two variables names the default
        (blocksworld's `ontable(?x)` is on the one table, `holding(?x)` is in the one hand)."""
        found = []
        for p in patterns:
            for bind in query.bindings([p]):
                pair = (bind.get(a, default_a), bind.get(b, default_b))
                if None not in pair:
                    found.append(pair)
        return found

    above = {lower: upper for upper, lower in pairs(spec.get("above", []), "?upper", "?lower")}
    inside: dict[str, list[str]] = {}
    for inner, outer in pairs(spec.get("inside", []), "?inner", "?outer"):
        inside.setdefault(outer, []).append(inner)

    def thing(name: str, depth: int = 0) -> dict:
        out = style(name)
        if depth < 8 and inside.get(name):
            out["inside"] = [thing(x, depth + 1) for x in inside[name]]
        return out

    def stack(bottom: str) -> list[dict]:
        column, seen = [], set()
        current = bottom
        while current is not None and current not in seen:
            seen.add(current)
            column.append(thing(current))
            current = above.get(current)
        return column

    first = places[0] if places else None
    on: dict[str, list[str]] = {}
    for t, place in pairs(spec.get("on", []), "?thing", "?place", default_b=first):
        on.setdefault(place, []).append(t)
    agents_at: dict[str, list[str]] = {}
    agent_spec = spec.get("agents", {})
    one = agent_spec.get("name", "hand")  # the agent of patterns that name none
    for agent, place in pairs(agent_spec.get("at", []), "?agent", "?place", default_a=one):
        agents_at.setdefault(place, []).append(agent)
    held_by: dict[str, list[str]] = {}
    for agent, t in pairs(agent_spec.get("holding", []), "?agent", "?thing", default_a=one):
        held_by.setdefault(agent, []).append(t)
    placed_agents = {a for agents in agents_at.values() for a in agents}
    loose = [a for a in held_by if a not in placed_agents]
    scene_places = []
    for place in places:
        entry = style(place)
        entry["stacks"] = [stack(t) for t in on.get(place, [])]
        entry["agents"] = [{**style(a), "holding": [stack(t) for t in held_by.get(a, [])]} for a in agents_at.get(place, [])]
        scene_places.append(entry)
    return {"kind": "stacks", "places": scene_places,
            "agents": [{**style(a), "holding": [stack(t) for t in held_by.get(a, [])]} for a in loose]}


# ------------------------------------------------------------------ facts (the fallback)
def facts_scene(task, state: State) -> dict:
    from .render import atom_text, fluent_text, visible_content

    content = visible_content(task, state)
    labels = task.problem.labels if hasattr(task.problem, "labels") else None
    lines = [atom_text(task.domain, pred, args, labels=labels) for pred, args in content["atoms"]]
    lines += [fluent_text(task.domain, name, args, value, labels=labels) for name, args, value in content["values"]]
    return {"kind": "facts", "facts": lines}


def status_lines(task, spec: dict, query: Query, context: dict) -> list[str]:
    """The picture's `status` texts, each for every binding of its query; a line whose query needs
    a value the viewer did not give (`?cost` of a state drawn alone) is left out."""
    labels = {**task.domain.labels, **task.problem.labels}
    lines = []
    for item in spec.get("status", []):
        for b in query.bindings(item["for"], context):
            text = fill(item["text"], b, item.get("names"), task.domain, labels)
            if isinstance(text, str) and not _FIELD.search(text):
                lines.append(text)
    return lines


def scene(task, state: State, context: dict | None = None) -> dict:
    """The picture of `state`: what the domain's `render.picture` declares, or its facts.
    `context` binds what the state does not hold (`?cost`, `?steps`: the episode so far)."""
    spec = (task.domain.render or {}).get("picture")
    if not spec or spec.get("kind") == "facts":
        return facts_scene(task, state)
    query = Query(task, state, _atoms_by_pred(task, state))
    out = grid_scene(task, state, spec, query) if spec["kind"] == "grid" else stacks_scene(task, state, spec, query)
    if spec.get("status"):
        out["status"] = status_lines(task, spec, query, context or {})
    return out


def needs_context(task) -> bool:
    """Whether the picture's status reads ?cost or ?steps (so the viewer sums the steps' costs)."""
    spec = (task.domain.render or {}).get("picture") or {}
    return any(_mentions(item["for"], ("?cost", "?steps")) for item in spec.get("status", []))


def _mentions(node, names) -> bool:
    if isinstance(node, str):
        return node in names
    if isinstance(node, dict):
        return any(_mentions(v, names) for v in node.values())
    if isinstance(node, list):
        return any(_mentions(v, names) for v in node)
    return False


# ------------------------------------------------------------------ checks at load time
def picture_errors(spec: dict, predicates: dict, fluents: dict) -> list[tuple[list, str, str | None]]:
    """(JSON path, message, hint) for each part of a picture the loader can already tell is wrong:
    an unknown predicate or fluent, a wrong number of arguments, a pattern that does not compile,
    a mark placed by a variable its query never binds. The schema has checked the shape."""
    errors: list[tuple[list, str, str | None]] = []
    base = ["render", "picture"]

    def query(patterns: list, path: list, bound: set) -> set:
        bound = set(bound)
        for i, pattern in enumerate(patterns):
            where = path + [i]
            if isinstance(pattern, dict) and "not" in pattern:
                atom(pattern["not"], where + ["not"])
                continue
            if isinstance(pattern, dict) and "goal" in pattern:
                atom(pattern["goal"], where + ["goal"])
                bound |= {t for t in pattern["goal"][1:] if is_var(t)}
                continue
            if isinstance(pattern, dict) and "type" in pattern:
                bound.add(pattern["type"][0])
                continue
            if isinstance(pattern, dict) and "compute" in pattern:
                var, *terms = pattern["compute"]
                for j, term in ((1, terms[0]), (3, terms[2])):
                    if is_var(term) and term not in bound:
                        errors.append((where + ["compute", j], f"'{term}' is used in a computation before a pattern binds it",
                                       "put the computation after the pattern that binds it"))
                bound.add(var)
                continue
            if isinstance(pattern, dict) and "compare" in pattern:
                for j, term in enumerate(pattern["compare"][::2]):
                    if is_var(term) and term not in bound:
                        errors.append((where + ["compare", 2 * j], f"'{term}' is compared before a pattern binds it",
                                       "put the comparison after the pattern that binds it"))
                continue
            if isinstance(pattern, dict):
                name, *terms = pattern["fluent"]
                if name not in fluents:
                    errors.append((where + ["fluent", 0], f"unknown fluent '{name}'", f"the domain's fluents: {', '.join(fluents) or 'none'}"))
                elif len(terms) != len(fluents[name].params):
                    errors.append((where + ["fluent"], f"fluent '{name}' takes {len(fluents[name].params)} arguments, not {len(terms)}", None))
                bound |= {t for t in terms if is_var(t)} | ({pattern["value"]} if "value" in pattern else set())
                continue
            atom(pattern, where)
            bound |= {t for t in pattern[1:] if is_var(t)}
        return bound

    def atom(pattern: list, where: list) -> None:
        name = pattern[0]
        if name not in predicates:
            hint = f"'{name}' is a fluent: write {{\"fluent\": [\"{name}\", ...], \"value\": \"?v\"}}" if name in fluents else \
                f"the domain's predicates: {', '.join(sorted(predicates))}"
            errors.append((where + [0], f"unknown predicate '{name}'", hint))
        elif len(pattern) - 1 != len(predicates[name].params):
            errors.append((where, f"predicate '{name}' takes {len(predicates[name].params)} arguments, not {len(pattern) - 1}", None))

    if "pattern" in spec.get("cells", {}):
        where = base + ["cells", "pattern"]
        try:
            if not {"row", "col"} <= set(re.compile(spec["cells"]["pattern"]).groupindex):
                errors.append((where, "the cell pattern names no (?P<row>...) and (?P<col>...) groups",
                               'e.g. "c(?P<row>\\\\d+)_(?P<col>\\\\d+)" for cells named c3_4'))
        except re.error as exc:
            errors.append((where, f"not a regular expression: {exc}", None))
    if "index" in spec:
        try:
            if re.compile(spec["index"]).groups < 1:
                errors.append((base + ["index"], "the index pattern has no group for the number", 'e.g. "i(-?\\\\d+)"'))
        except re.error as exc:
            errors.append((base + ["index"], f"not a regular expression: {exc}", None))
    for i, mark in enumerate(spec.get("marks", [])):
        bound = query(mark["for"], base + ["marks", i, "for"], set())
        at = mark["at"]
        used = [at] if isinstance(at, str) else [x for x in at if isinstance(x, str)]
        for var in used:
            if is_var(var) and var not in bound:
                errors.append((base + ["marks", i, "at"], f"'{var}' is not bound by the mark's 'for' patterns",
                               f"bound there: {', '.join(sorted(bound)) or 'nothing'}"))
    for i, item in enumerate(spec.get("status", [])):
        query(item["for"], base + ["status", i, "for"], {"?cost", "?steps"})
    for where, text in _colours(spec, base):
        problem = colour_problem(text)
        if problem:
            errors.append((where, *problem))
    for key in ("on", "above", "inside"):
        for i, pattern in enumerate(spec.get(key, [])):
            query([pattern], base + [key, i], set())
    for key in ("at", "holding"):
        for i, pattern in enumerate(spec.get("agents", {}).get(key, [])):
            query([pattern], base + ["agents", key, i], set())
    for i, style in enumerate(spec.get("styles", [])):
        query(style["when"], base + ["styles", i, "when"], {"?x"})
    return errors


def _colours(spec: dict, base: list):
    """(JSON path, text) of every colour the picture states (a lone field, "{k}", is filled in
    from a state and checked when drawn)."""
    if "background" in spec:
        yield base + ["background"], spec["background"]
    if "fill" in spec.get("rooms", {}):
        yield base + ["rooms", "fill"], spec["rooms"]["fill"]
    for i, mark in enumerate(spec.get("marks", [])):
        for key in ("fill", "color"):
            value, where = mark.get(key), base + ["marks", i, key]
            if isinstance(value, str) and not _FIELD.fullmatch(value):
                yield where, value
            elif isinstance(value, dict):
                for case, text in value.get("cases", {}).items():
                    yield where + ["cases", case], text
                if "else" in value:
                    yield where + ["else"], value["else"]
    for i, style in enumerate(spec.get("styles", [])):
        if "color" in style:
            yield base + ["styles", i, "color"], style["color"]
