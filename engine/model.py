"""The lifted model: what a domain and a problem mean once loaded, independent of JSON.

Formulas, expressions and effects are small immutable trees. Terms are strings: a variable
starts with '?', anything else names an object. The grounder (grounding.py) turns these trees
into closures and bit masks over interned facts; nothing here knows about states.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Params = tuple[tuple[str, str], ...]  # ((variable, type), ...)


# ---------------------------------------------------------------- formulas
@dataclass(frozen=True, slots=True)
class Atom:
    pred: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Const:
    value: bool


@dataclass(frozen=True, slots=True)
class And:
    parts: tuple


@dataclass(frozen=True, slots=True)
class Or:
    parts: tuple


@dataclass(frozen=True, slots=True)
class Not:
    part: Any


@dataclass(frozen=True, slots=True)
class Imply:
    condition: Any
    consequence: Any


@dataclass(frozen=True, slots=True)
class Quantified:
    kind: str  # "exists" | "forall"
    params: Params
    body: Any


@dataclass(frozen=True, slots=True)
class Equal:
    left: str
    right: str


@dataclass(frozen=True, slots=True)
class Compare:
    op: str  # "<" "<=" ">" ">=" "=" "!="
    left: Any
    right: Any


@dataclass(frozen=True, slots=True)
class SettingTest:
    name: str


@dataclass(frozen=True, slots=True)
class Initially:
    """A formula evaluated in the problem's initial state, not the current one: lets an invariant
    compare a state with where it started ("a truck stays in its starting city"). Allowed in
    invariants only, so the planners, which reason about actions and goals, never meet it."""
    formula: Any


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True, slots=True)
class Num:
    value: float


@dataclass(frozen=True, slots=True)
class FluentTerm:
    name: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Arith:
    op: str  # "+" "-" "*" "/" "mod" "min" "max" "abs"
    parts: tuple


@dataclass(frozen=True, slots=True)
class SettingValue:
    name: str


@dataclass(frozen=True, slots=True)
class IfExpr:
    condition: Any
    then: Any
    otherwise: Any


@dataclass(frozen=True, slots=True)
class Count:
    params: Params
    body: Any


@dataclass(frozen=True, slots=True)
class Lookup:
    """A result column of a domain table at the given keys (engine/tables.py)."""

    table: str
    keys: tuple
    result: int


@dataclass(frozen=True, slots=True)
class Sum:
    """The sum of `value` over the bindings of `params` where `condition` holds."""

    params: Params
    condition: Any
    value: Any


# ---------------------------------------------------------------- effects
@dataclass(frozen=True, slots=True)
class Add:
    atom: Atom


@dataclass(frozen=True, slots=True)
class Delete:
    atom: Atom


@dataclass(frozen=True, slots=True)
class Update:
    op: str  # "assign" | "increase" | "decrease"
    target: FluentTerm
    value: Any


@dataclass(frozen=True, slots=True)
class When:
    condition: Any
    then: tuple
    otherwise: tuple = ()


@dataclass(frozen=True, slots=True)
class ForallEffect:
    params: Params
    effects: tuple


@dataclass(frozen=True, slots=True)
class StartTimer:
    timer: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StopTimer:
    timer: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Create:
    variable: str
    type: str
    prefix: str
    effects: tuple


# ---------------------------------------------------------------- temporal goals
@dataclass(frozen=True, slots=True)
class AllOf:
    """Every part must be achieved; each part latches once achieved."""

    parts: tuple


@dataclass(frozen=True, slots=True)
class Sequence:
    """Parts achieved in order; part k counts from the state where part k-1 latched."""

    parts: tuple


@dataclass(frozen=True, slots=True)
class Eventually:
    part: Any


@dataclass(frozen=True, slots=True)
class Always:
    formula: Any


@dataclass(frozen=True, slots=True)
class Later:
    """Achieved in a state after the one in which the part is first checked (latches, like
    `eventually`). BabyAI's verifier needs it: a "put next to" clause that starts being checked
    in the step that completes the clause before it cannot count that step's drop."""

    part: Any


TEMPORAL = (AllOf, Sequence, Eventually, Later, Always)


# ---------------------------------------------------------------- definitions
@dataclass(frozen=True)
class PredicateDef:
    name: str
    params: Params
    text: str | None = None
    describe: dict = field(default_factory=dict)  # variable -> text when rendered under that object
    hidden: bool = False


@dataclass(frozen=True)
class FluentDef:
    name: str
    params: Params
    kind: str = "int"
    default: float = 0
    text: str | None = None
    hidden: bool = False
    value: Any = None  # a computed fluent's expression: never stored, recomputed wherever it is read


@dataclass(frozen=True)
class DerivedDef:
    name: str
    params: Params
    formula: Any
    text: str | None = None
    hidden: bool = False


@dataclass(frozen=True)
class ActionSchema:
    name: str
    params: Params
    precondition: Any
    effects: tuple
    cost: Any
    text: str | None
    actor: str | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class TimerDef:
    name: str
    params: Params
    duration: Any
    condition: Any
    running: tuple
    paused: tuple
    done: tuple
    restart: str = "keep"
    text: str | None = None
    shown: bool = False  # the text (with {remaining}) appears in rendered states while it runs


@dataclass(frozen=True)
class Invariant:
    name: str
    formula: Any
    text: str | None = None


@dataclass(frozen=True)
class HeuristicDef:
    name: str
    expression: Any
    admissible: bool = False
    description: str = ""


@dataclass(frozen=True)
class Agents:
    type: str
    mode: str = "turns"
    order: tuple[str, ...] = ()


@dataclass
class Domain:
    name: str
    file: str
    types: dict[str, str]  # type -> parent ("object" has parent None)
    constants: dict[str, str]
    settings: dict[str, Any]
    predicates: dict[str, PredicateDef]
    fluents: dict[str, FluentDef]
    derived: dict[str, DerivedDef]
    actions: dict[str, ActionSchema]
    timers: dict[str, TimerDef]
    invariants: list[Invariant]
    agents: Agents | None
    on_inapplicable: str
    render: dict
    description: str = ""
    tick_rule: str = "all"  # "skip-after-done": the instance after one that completes waits a step (engine.task._Builder.tick)
    metadata: dict = field(default_factory=dict)
    heuristics: dict = field(default_factory=dict)
    derived_strata: list[list[str]] = field(default_factory=list)
    noop_cost: Any = None  # what a step passed without any action costs (an answer naming none)
    init: list = field(default_factory=list)  # facts over constants true in every problem's initial state
    values: list = field(default_factory=list)  # fluent values over constants shared by every problem
    labels: dict = field(default_factory=dict)  # constant -> how texts show it, in every problem
    tables: dict = field(default_factory=dict)  # name -> engine.tables.Table
    plugin_world: str | None = None  # the installed world whose Python plug-ins serve this domain (engine.loader.world_module)
    raw: dict = field(default_factory=dict, repr=False)
    warnings: list = field(default_factory=list, repr=False)  # Diagnostics of likely mistakes that still load

    def ancestors(self, type_name: str) -> list[str]:
        """The type and its ancestors up to 'object'."""
        chain = []
        while type_name is not None and type_name not in chain:
            chain.append(type_name)
            type_name = self.types.get(type_name)
        return chain

    def is_subtype(self, child: str, parent: str) -> bool:
        return parent in self.ancestors(child)

    def all_effects(self):
        """Every effect of every action and timer, nested ones included."""
        roots = [a.effects for a in self.actions.values()]
        for timer in self.timers.values():
            roots += [timer.running, timer.paused, timer.done]
        for effects in roots:
            yield from iter_effects(effects)

    def static_predicates(self) -> set[str]:
        """Predicates no action or timer ever changes: they can be decided at grounding time."""
        changed = {e.atom.pred for e in self.all_effects() if isinstance(e, (Add, Delete))}
        return set(self.predicates) - changed

    def static_fluents(self) -> set[str]:
        changed = {e.target.name for e in self.all_effects() if isinstance(e, Update)}
        return {name for name, f in self.fluents.items() if f.value is None} - changed

    def computed_fluents(self) -> set[str]:
        return {name for name, f in self.fluents.items() if f.value is not None}

    def creates_objects(self) -> bool:
        return any(isinstance(e, Create) for e in self.all_effects())


def walk_nodes(tree):
    """Every dataclass node in a lifted tree (formulas, expressions, effects, tuples of them), depth first."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if hasattr(x, "__dataclass_fields__"):
            yield x
            stack.extend(getattr(x, name) for name in x.__dataclass_fields__)
        elif isinstance(x, (tuple, list)):
            stack.extend(x)


def iter_effects(effects):
    """Depth-first walk over effects and the effects nested in when/forall/create."""
    for effect in effects:
        yield effect
        if isinstance(effect, When):
            yield from iter_effects(effect.then)
            yield from iter_effects(effect.otherwise)
        elif isinstance(effect, (ForallEffect, Create)):
            yield from iter_effects(effect.effects)


@dataclass
class Problem:
    name: str
    file: str
    domain: Domain
    objects: dict[str, str]  # includes the domain's constants
    init: list[tuple[str, tuple[str, ...]]]
    values: list[tuple[tuple[str, tuple[str, ...]], float]]
    settings: dict[str, Any]
    goal: Any
    goal_text: str = ""
    agents: Agents | None = None
    tick_rule: str = "all"  # the domain's, unless the problem overrides it
    max_steps: int | None = None
    optimal: dict | None = None
    description: str = ""
    metadata: dict = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # object -> how texts show it ("c2_1" -> "(2,1)")
    routing: dict | None = None  # {"targets": {name: formula}, "tour", "return", "precedence", "prizes", "budget"}
    raw: dict = field(default_factory=dict, repr=False)
    warnings: list = field(default_factory=list, repr=False)  # the problem file's own; its domain's are on the domain

    def objects_of(self, type_name: str) -> list[str]:
        return [o for o, t in self.objects.items() if self.domain.is_subtype(t, type_name)]
