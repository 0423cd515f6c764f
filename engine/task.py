"""The interpreter: a problem made executable.

`Task` gives the initial state, the applicable actions of a state, a pure `apply`, the goal
test, and diagnostics in natural language. States are immutable tuples over interned facts
(an integer bitset), numeric fluent values, running timers, the turn, the progress of temporal
goals and the objects created so far; they hash quickly and cost tens of bytes each, so search
can hold millions.

One step: the action's effects are decided on the state before it (add wins over delete), then
every running timer ticks once in the order the timers were started (running or paused effects,
completion; under the tick rule "skip-after-done" the instance after one that completes waits),
then the turn passes, then temporal goals are updated. See docs/language.md for the exact rules.
"""
from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from . import model as m
from .budget import poll
from .compile import Compiler, Condition, FactTable, GroundEffect, NumericError, finite
from .errors import GroundplanError, did_you_mean
from .goals import GoalTracker
from .grounding import Binder, FactIndex, candidate_domains, top_conjuncts, variables
from .successors import build_tree, candidates

GROUNDING_LIMIT = 300_000


class State(NamedTuple):
    facts: int
    values: tuple = ()
    timers: tuple = ()  # ((timer instance id, ticks remaining), ...) in the order they were started
    turn: int = 0
    progress: int = 0  # latched parts of temporal goals
    created: tuple = ()  # ((name, type), ...) objects made by effects, in order


class GroundAction:
    """One action schema with its arguments bound, compiled for fast tests and application."""

    __slots__ = ("index", "schema", "args", "binding", "name", "text", "pre", "pre_pos", "pre_neg", "pre_test",
                 "effect", "cost", "actor", "reasons")

    def __init__(self, index, schema: m.ActionSchema, args, binding, pre, effect, cost, text):
        self.index = index
        self.schema = schema
        self.args = args
        self.binding = binding
        self.name = "(" + " ".join((schema.name,) + args) + ")"
        self.text = text
        self.pre = pre
        self.pre_pos = pre.pos
        self.pre_neg = pre.neg
        self.pre_test = pre.test
        self.effect: GroundEffect = effect
        self.cost = cost
        self.actor = binding.get(schema.actor) if schema.actor else None
        self.reasons = None  # set only on stand-ins for texts that name no possible action

    def __repr__(self):
        return f"<{self.name}>"

    def __str__(self):
        return self.text


class InapplicableAction(GroundplanError):
    def __init__(self, action, reasons: list[str]):
        self.action = action
        self.reasons = reasons
        super().__init__(f"'{action}' is not applicable: " + "; ".join(reasons))


class UnknownAction(GroundplanError):
    def __init__(self, text: str, hint: str | None):
        self.text = text
        self.hint = hint
        super().__init__(f"unknown action '{text}'" + (f" ({hint})" if hint else ""))


@dataclass
class StepResult:
    """What one step did: the next state, whether the action was valid, and why not."""

    state: State
    valid: bool
    counted: bool
    cost: float
    message: str = ""
    reasons: list[str] = field(default_factory=list)


class _Timer:
    __slots__ = ("condition", "running", "paused", "done", "duration", "restart")


_PENDING = object()


class _Universe:
    """Everything compiled for one set of objects (a problem's, plus objects created so far).

    The ground actions are built on first use, not with the universe: a world whose actions
    number in the hundreds of thousands (Plancraft's moves of 1..64 items between 45 slots) can
    then still replay and check texts, which ground only the actions they name."""

    def __init__(self, task: "Task", created: tuple):
        self.task = task
        self.objects = dict(task.problem.objects)
        self.objects.update(dict(created))
        self.compiler = Compiler(task, self.objects)
        self._actions = _PENDING
        self._tree = None
        self.cache: dict[tuple, GroundAction | None] = {}
        self.computed: dict[tuple, object] = {}  # (fluent, args) -> compiled value of a computed fluent
        self.timers: dict[int, _Timer] = {}
        self.goal = None
        self.derived_rules = None
        self.tests: _Tests | None = None  # what Task.applicable_texts keeps between states

    @property
    def actions(self) -> list[GroundAction] | None:
        """Every ground action, or None when there are too many (the universe stays lifted)."""
        if self._actions is _PENDING:
            self.task._ground(self)
        return self._actions

    @property
    def tree(self):
        return self._tree if self.actions is not None else None


class _Tests:
    """Decides parts of preconditions in states of one universe, for `Task.applicable_texts`.

    A part is compiled for each binding of its parameters, and the compiled form does not depend
    on the state: a part whose parameters take few values (`(count ?to) = 0`, one per slot) keeps
    it for every later state, one over many (a slot, slot and quantity triple: 135,424) is
    compiled each time it is asked, so what is kept stays bounded. A disjunction is decided part
    by part, as its first true part decides it (most of Plancraft's targets are empty)."""

    KEEP = 10_000  # a part is kept compiled when its parameters take at most this many values

    def __init__(self, u: _Universe):
        self.u = u
        self.kept: dict[tuple, object] = {}
        self.named: dict[int, tuple] = {}  # id(part) -> (its parameters, whether to keep it compiled)

    def holds(self, part, binding: dict, sizes: dict, state: State, bits: int) -> bool:
        if isinstance(part, (m.Or, m.And)):
            parts = (self.holds(p, binding, sizes, state, bits) for p in part.parts)
            return any(parts) if isinstance(part, m.Or) else all(parts)
        poll()
        params, keep = self._named(part, sizes)
        if not keep:
            found = self.u.compiler.condition(part, binding)
        else:
            key = (id(part),) + tuple(binding[v] for v in params)
            found = self.kept.get(key)
            if found is None:
                found = self.kept[key] = self.u.compiler.condition(part, binding)
        return found if isinstance(found, bool) else found.holds(state, bits)

    def _named(self, part, sizes: dict) -> tuple:
        found = self.named.get(id(part))
        if found is None:
            params = tuple(sorted(v for v in variables(part) if v in sizes))
            found = self.named[id(part)] = (params, math.prod(sizes[v] for v in params) <= self.KEEP)
        return found


class Task:
    """An executable problem. Construct with `Task(problem)` or `Task.load(path)`."""

    def __init__(self, problem: m.Problem, grounding_limit: int = GROUNDING_LIMIT, prune: bool = True):
        """`prune`: drop the ground actions no state reachable from the initial one can apply
        (`_relaxed_reachable`); off only to compare with, as tests/test_grounding_pruning.py does."""
        self.problem = problem
        self.prune = prune
        self.domain = problem.domain
        self.settings = dict(problem.settings)
        self.facts = FactTable()
        self.static_preds = self.domain.static_predicates()
        self.static_facts = {a for a in problem.init if a[0] in self.static_preds}
        self.static_fluent_names = self.domain.static_fluents()
        self.static_values = {k: v for k, v in problem.values if k[0] in self.static_fluent_names}
        self._fluent_ids: dict[tuple, int] = {}
        self.fluent_keys: list[tuple] = []
        self.fluent_defaults: list[float] = []
        self._timer_ids: dict[tuple, int] = {}
        self.timer_keys: list[tuple] = []
        self.grounding_limit = grounding_limit
        self._universes: dict[tuple, _Universe] = {}
        self._binders = {name: Binder(a.params, a.precondition, self.static_preds)
                         for name, a in self.domain.actions.items()}
        self._lifted_binders = {name: Binder(a.params, a.precondition, set(self.domain.predicates))
                                for name, a in self.domain.actions.items()}
        self._listing_binders = {}  # made on first use (applicable_texts): only a large universe lists through them
        self._derived_cache: dict[int, int] = {}
        self._action_count = 0
        self.pruned = 0  # ground actions of the initial universe dropped as unreachable (relaxed)
        self.has_derived = bool(self.domain.derived)
        self.goal = GoalTracker(problem.goal)
        agents = problem.agents
        self.idle: frozenset = frozenset()  # objects of the agent type the order leaves out: they never act
        if agents is not None:
            self.agents = list(agents.order) or sorted(problem.objects_of(agents.type))
            self.agent_mode = agents.mode
            self.idle = frozenset(problem.objects_of(agents.type)) - set(self.agents)
        else:
            self.agents, self.agent_mode = [], "turns"
        self.turn_based = self.agent_mode == "turns" and len(self.agents) > 1
        self.on_inapplicable = self.domain.on_inapplicable
        self.skip_after_done = problem.tick_rule == "skip-after-done"
        # Timers with no effects and no text exist only to hold a place in the tick order (the
        # kitchen's bookkeeping for the reference's list of effects). Under every other tick rule
        # nothing can observe them, so they are never started: states that differ only by them
        # would be told apart for nothing (async 04's prover saw millions more states).
        self.inert_timers = frozenset() if self.skip_after_done else frozenset(
            name for name, t in self.domain.timers.items() if not (t.running or t.paused or t.done or t.shown))
        self._initial = None

    @classmethod
    def load(cls, path, **kwargs) -> "Task":
        from .loader import load_problem

        return cls(load_problem(path), **kwargs)

    def with_goal(self, goal) -> "Task":
        """The same task (sharing its grounding) with another goal: for legs between targets."""
        import copy

        other = copy.copy(self)
        other.goal = GoalTracker(goal)
        other._universes = {}
        for key, u in self._universes.items():
            clone = copy.copy(u)
            clone.goal = None
            other._universes[key] = clone
        other._initial = None
        return other

    # ------------------------------------------------------------ interning
    def fluent_index(self, key: tuple) -> int:
        i = self._fluent_ids.get(key)
        if i is None:
            i = self._fluent_ids[key] = len(self.fluent_keys)
            self.fluent_keys.append(key)
            self.fluent_defaults.append(self.domain.fluents[key[0]].default)
        return i

    def timer_id(self, name: str, args: tuple) -> int:
        key = (name, args)
        i = self._timer_ids.get(key)
        if i is None:
            i = self._timer_ids[key] = len(self.timer_keys)
            self.timer_keys.append(key)
        return i

    def universe(self, created: tuple = ()) -> _Universe:
        u = self._universes.get(created)
        if u is None:
            u = self._universes[created] = _Universe(self, created)
            if self.large_action_space:
                self._intern_fluents(u)
            else:
                self._ground(u)
        return u

    def _intern_fluents(self, u: _Universe) -> None:
        """Give every changing fluent of the universe its place in the state now, in a fixed order.

        Grounding used to intern them; when actions are grounded one by one on demand, a fluent
        first met late would lengthen the value tuples, and the same state could then have two
        tuples (and two hashes)."""
        for name, f in self.domain.fluents.items():
            if f.value is not None or name in self.static_fluent_names:
                continue
            for combo in itertools.product(*(u.compiler.objects_of(t) for _, t in f.params)):
                self.fluent_index((name, combo))

    # ------------------------------------------------------------ grounding
    def _ground(self, u: _Universe) -> None:
        """Ground every schema against static facts, or leave the universe lifted if too large."""
        index = FactIndex(self.static_facts)
        actions = []
        for name, schema in self.domain.actions.items():
            domains = candidate_domains(schema.params, u.compiler.objects_of)
            for binding in self._binders[name].bindings(index, domains, limit=self.grounding_limit + 1):
                action = self._make_action(u, schema, binding)
                if action is not None:
                    actions.append(action)
                if len(actions) > self.grounding_limit:
                    u._actions = None
                    return
        unreachable = []
        if self.prune and not u.objects.keys() - self.problem.objects.keys():  # the problem's own universe: its states start at init
            actions, unreachable = self._relaxed_reachable(u, actions)
            self.pruned = len(unreachable)
        for i, action in enumerate(actions):  # grounding order, even if some were built earlier on demand
            action.index = i
        for i, action in enumerate(unreachable, len(actions)):  # still named, parsed and explained, never applicable
            action.index = i
        tree = build_tree(actions)  # first: a budget that runs out inside it leaves the universe ungrounded, not half
        u._actions, u._tree = actions, tree

    def _relaxed_reachable(self, u: _Universe, actions: list) -> tuple[list, list]:
        """The actions split into those whose preconditions some state reachable from the initial
        state may satisfy, and the rest, as Fast Downward's translator prunes (2,806 ground actions
        of IPC elevators p10 for 780 reachable ones): a fixpoint of the delete relaxation, which
        only over-approximates what can become true, so no action that applies in a reachable
        state is ever dropped. Only the positive facts every state must hold (`pre_pos`) are
        required; negative, numeric and disjunctive conditions are taken as satisfiable, derived
        facts as reachable, every branch of a conditional effect as taken, and a timer an action
        may start as adding all its phases' facts. A domain that creates objects is left whole
        (its facts come from other universes). Dropped actions keep their place in `u.cache`:
        an agent can still name one, and is told why it does not apply."""
        atoms = self.facts.atoms
        derived = self.domain.derived
        reached = 0  # derived facts are decided per state: never a reason to prune
        for fid, (pred, _) in enumerate(atoms):
            if pred in derived:
                reached |= 1 << fid
        ids = self.facts.ids
        for atom in self.problem.init:  # facts no precondition names need no bit
            fid = ids.get(atom)
            if fid is not None:
                reached |= 1 << fid
        timer_adds: dict[int, int | None] = {}

        def adds(effect: GroundEffect) -> int | None:
            """Every fact the effect may add, its conditional branches and timers included (None: it creates objects)."""
            out = effect.add
            for item in effect.items():
                if item[0] == "when":
                    out |= item[2].add | item[3].add
                elif item[0] == "create":
                    return None
                elif item[0] == "start":
                    more = timer(item[1])
                    if more is None:
                        return None
                    out |= more
            return out

        def timer(tid: int) -> int | None:
            if tid not in timer_adds:
                timer_adds[tid] = 0  # a timer that (re)starts itself: its own facts are counted once
                t = self.compiled_timer(u, tid)
                found = 0
                for effect in (t.running, t.paused, t.done):
                    more = adds(effect)
                    if more is None:
                        found = None
                        break
                    found |= more
                timer_adds[tid] = found
            return timer_adds[tid]

        effects = []
        for action in actions:
            more = adds(action.effect)
            if more is None:
                return actions, []
            effects.append(more)
        waiting = list(range(len(actions)))
        keep = [False] * len(actions)
        changed = True
        while changed:
            changed, still = False, []
            for i in waiting:
                pos = actions[i].pre_pos
                if pos & reached == pos:
                    keep[i] = True
                    if effects[i] & ~reached:
                        reached |= effects[i]
                        changed = True
                else:
                    still.append(i)
            waiting = still
        if not waiting:
            return actions, []
        return [a for a, k in zip(actions, keep) if k], [a for a, k in zip(actions, keep) if not k]

    def _make_action(self, u: _Universe, schema: m.ActionSchema, binding: dict) -> GroundAction | None:
        args = tuple(binding[v] for v, _ in schema.params)
        key = (schema.name, args)
        if key in u.cache:
            return u.cache[key]
        poll()  # grounding is where a huge problem spends its time and memory before any search starts
        pre = u.compiler.condition(schema.precondition, binding)
        action = None
        if pre is not False:
            if pre is True:
                pre = Condition()
            effect = u.compiler.effect(schema.effects, binding)
            cost = u.compiler.expr(schema.cost, binding)
            text = self._text(schema, binding, args)
            action = GroundAction(self._action_count, schema, args, binding, pre, effect, cost, text)
            self._action_count += 1
        u.cache[key] = action
        return action

    def ground_action(self, name: str, args: tuple, state: State | None = None) -> GroundAction | None:
        """The ground action `name(args)` in the universe of `state`, or None if its precondition can never hold."""
        schema = self.domain.actions[name]
        u = self.universe(state.created if state is not None else ())
        return self._make_action(u, schema, dict(zip([v for v, _ in schema.params], args)))

    @property
    def is_grounded(self) -> bool:
        return self.universe().actions is not None

    # ------------------------------------------------------------ states
    def initial_state(self) -> State:
        if self._initial is None:
            if self.large_action_space:
                self.universe()  # every fluent interned before the first state is built
            facts = 0
            for pred, args in self.problem.init:
                if pred not in self.static_preds:
                    facts |= 1 << self.facts.id(pred, args)
            values = []
            for key, value in self.problem.values:
                if key[0] not in self.static_fluent_names:
                    i = self.fluent_index(key)
                    values.extend(self.fluent_defaults[len(values):i + 1] if len(values) <= i else [])
                    values[i] = value
            state = State(facts, self._canonical_values(tuple(values)))
            self._initial = state._replace(progress=self._progress(state, 0))
        return self._initial

    def _canonical_values(self, values: tuple) -> tuple:
        """The values with their trailing defaults dropped, so that one state has one tuple (and one
        hash) however many fluents had been interned when it was built: padding to the fluents
        known so far made the initial state, built before a search interned more, differ from
        the same state reached later."""
        defaults = self.fluent_defaults
        n = len(values)
        while n and values[n - 1] == defaults[n - 1]:
            n -= 1
        return values if n == len(values) else values[:n]

    def bits(self, state: State) -> int:
        """The state's facts plus its derived facts (computed once per distinct fact set)."""
        if not self.has_derived:
            return state.facts
        return self._with_derived(state)

    # ------------------------------------------------------------ applicable actions
    def applicable(self, state: State) -> list[GroundAction]:
        """The ground actions applicable in `state` (for the player whose turn it is), in a fixed order."""
        u = self.universe(state.created)
        bits = self.bits(state)
        tree = u._tree if u._actions is not _PENDING else u.tree
        if tree is not None:
            found = [a for a in candidates(tree, bits)
                     if not bits & a.pre_neg and (a.pre_test is None or a.pre_test(state, bits))]
        else:
            found = self._lifted_applicable(u, state, bits)
        if self.turn_based:
            player = self.agents[state.turn]
            found = [a for a in found if a.actor is None or a.actor == player]
        elif self.idle:
            found = [a for a in found if a.actor not in self.idle]
        found.sort(key=_by_index)
        return found

    def _lifted_applicable(self, u: _Universe, state: State, bits: int) -> list[GroundAction]:
        facts = list(self.static_facts) + list(self.facts.decode(bits))
        index = FactIndex(facts)
        found = []
        for name, schema in self.domain.actions.items():
            domains = candidate_domains(schema.params, u.compiler.objects_of)
            for binding in self._lifted_binders[name].bindings(index, domains):
                a = self._make_action(u, schema, binding)
                if a is not None and a.pre.holds(state, bits):
                    found.append(a)
        return found

    def applicable_texts(self, state: State) -> list[str]:
        """The texts of the actions applicable in `state`, for showing them to an agent.

        They are `applicable`'s, in its order, except where the actions are too many to ground
        (as `parse_action` judges it) and nothing has grounded them yet: grounding every action to
        list the few that apply took minutes and gigabytes there (Plancraft: 256,320 actions to
        list about 10,000), so they are listed in the state instead."""
        u = self.universe(state.created)
        if u._actions is not _PENDING or not self.large_action_space or not self._too_many_to_list():
            return [a.text for a in self.applicable(state)]
        return self._listed_texts(u, state)

    def _listed_texts(self, u: _Universe, state: State) -> list[str]:
        """The schemas' bindings enumerated in `state`, each conjunct of the precondition decided
        as soon as its parameters are bound, and only their texts built (no ground action); by
        schema, then by the objects' order in the problem."""
        bits = self.bits(state)
        index = FactIndex(list(self.static_facts) + list(self.facts.decode(bits)))
        order = {name: i for i, name in enumerate(u.objects)}
        if u.tests is None:
            u.tests = _Tests(u)
        listed = []
        for rank, (name, schema) in enumerate(self.domain.actions.items()):
            binder = self._listing_binders.get(name)
            if binder is None:
                binder = self._listing_binders[name] = Binder(schema.params, schema.precondition, set(self.domain.predicates), tested=True)
            domains = candidate_domains(schema.params, u.compiler.objects_of)
            sizes = {var: len(domains[var]) for var, _ in schema.params}
            passes = functools.partial(u.tests.holds, sizes=sizes, state=state, bits=bits)
            for binding in binder.bindings(index, domains, passes=passes):
                if self._may_act(state, binding.get(schema.actor) if schema.actor else None):
                    args = tuple(binding[v] for v, _ in schema.params)
                    listed.append(((rank, tuple(order[a] for a in args)), self._text(schema, binding, args)))
        listed.sort(key=lambda pair: pair[0])
        return [text for _, text in listed]

    def _may_act(self, state: State, actor: str | None) -> bool:
        """Whether an action of `actor` may be taken now (as `applicable` filters: the player whose turn it is, no idle agent)."""
        if self.turn_based:
            return actor is None or actor == self.agents[state.turn]
        return not self.idle or actor not in self.idle

    def _text(self, schema: m.ActionSchema, binding: dict, args: tuple) -> str:
        return fill_template(schema.text, self._shown(binding)) if schema.text else "(" + " ".join((schema.name,) + args) + ")"

    def is_applicable(self, state: State, action: GroundAction) -> bool:
        bits = self.bits(state)
        if self.turn_based and action.actor is not None and action.actor != self.agents[state.turn]:
            return False
        if self.idle and action.actor in self.idle:
            return False
        return action.pre.holds(state, bits)

    def turn_indicator(self, state: State, steps: int = 0) -> str | None:
        """Whose turn it is, for display: in `turns` mode the agent who must act; in `any` mode the
        agent the reference's indicator names after `steps` steps (it passes on every step that
        does not reach the goal, yet never restricts who acts, so it is not part of the state);
        None with one agent or in simultaneous rounds."""
        if self.turn_based:
            return self.agents[state.turn]
        if self.agent_mode == "any" and len(self.agents) > 1:
            if steps and self.is_goal(state):
                steps -= 1  # the reference passes the turn only on steps that do not reach the goal
            return self.agents[steps % len(self.agents)]
        return None

    # ------------------------------------------------------------ applying
    def apply(self, state: State, action: GroundAction) -> State:
        """The state after `action`; raises InapplicableAction (with reasons) if it is not applicable."""
        if not self.is_applicable(state, action):
            raise InapplicableAction(action, self.explain(state, action))
        return self._advance(state, action.effect)

    def successor(self, state: State, action: GroundAction) -> State:
        """`apply` without the applicability check, for search over actions from `applicable`."""
        return self._advance(state, action.effect)

    def step(self, state: State, action: GroundAction) -> StepResult:
        """One environment step under the domain's policy for inapplicable actions."""
        if self.is_applicable(state, action):
            return StepResult(self._advance(state, action.effect), True, True, self.action_cost(state, action))
        reasons = self.explain(state, action)
        message = f"'{action.text}' cannot be done now: " + "; ".join(reasons)
        if self.on_inapplicable == "noop":
            return StepResult(self._advance(state, None), False, True, self.action_cost(state, action), message, reasons)
        return StepResult(state, False, False, 0, message, reasons)

    def wait_step(self, state: State) -> State:
        """Let one step pass with no action (timers tick, the turn passes)."""
        return self._advance(state, None)

    def noop_cost(self, state: State) -> float:
        """What a step passed without any action costs (`noop_cost` of the domain, default 0):
        charged by the agent loop when an answer that names no action still uses the step."""
        expr = self.domain.noop_cost
        if expr is None:
            return 0
        cost = self.universe(state.created).compiler.expr(expr, {})
        return cost(state, self.bits(state)) if callable(cost) else cost

    def action_cost(self, state: State, action: GroundAction) -> float:
        cost = action.cost
        return cost(state, self.bits(state)) if callable(cost) else cost

    def _advance(self, state: State, effect: GroundEffect | None) -> State:
        if effect is not None and effect.simple and not state.timers and not self.turn_based and not self.goal.temporal:
            return State((state.facts & ~effect.delete) | effect.add, state.values, (), state.turn, state.progress, state.created)
        b = _Builder(self, state)
        if effect is not None:
            b.apply(effect, state, self.bits(state), started_now=True)
        if b.timers:
            b.tick()
        turn = state.turn
        if self.turn_based:
            turn = (turn + 1) % len(self.agents)
        nxt = State(b.facts, self._canonical_values(tuple(b.values)), tuple(b.timers.items()), turn, state.progress, tuple(b.created))
        if self.goal.temporal:
            nxt = nxt._replace(progress=self._progress(nxt, state.progress))
        return nxt

    def apply_joint(self, state: State, actions: list[GroundAction]) -> State:
        """Simultaneous mode: each agent's action in agent order within one step (one tick).

        Each action must be applicable in the state its predecessors in the round left; timers
        tick once for the whole round.
        """
        b = self._round(state, actions)
        if b.timers:
            b.tick()
        nxt = State(b.facts, self._canonical_values(tuple(b.values)), tuple(b.timers.items()), state.turn, state.progress, tuple(b.created))
        if self.goal.temporal:
            nxt = nxt._replace(progress=self._progress(nxt, state.progress))
        return nxt

    def _round(self, state: State, actions) -> "_Builder":
        """Apply a round's actions in order (each checked where its predecessors left it), no tick yet."""
        current = state
        b = _Builder(self, state)
        for action in actions:
            if not action.pre.holds(current, self.bits(current)):
                raise InapplicableAction(action, self.explain(current, action))
            b.apply(action.effect, current, self.bits(current), started_now=True)
            current = State(b.facts, self._canonical_values(tuple(b.values)), tuple(b.timers.items()), state.turn,
                            state.progress, tuple(b.created))
        return b

    def joint_successors(self, state: State):
        """Every round in simultaneous mode: (actions in agent order, next state).

        Agent k chooses among the actions applicable where agents 0..k-1 left the round, so an
        agent may use what an earlier agent's action in the same round made possible.
        """
        agents = self.agents

        def choices(k, current):
            return [a for a in self.applicable(current) if a.actor == agents[k] or a.actor is None]

        def extend(k, chosen, current):
            if k == len(agents):
                yield tuple(chosen), self.apply_joint(state, chosen)
                return
            for action in choices(k, current):
                b = self._round(current, [action])
                nxt = State(b.facts, self._canonical_values(tuple(b.values)), tuple(b.timers.items()), state.turn,
                            state.progress, tuple(b.created))
                yield from extend(k + 1, chosen + [action], nxt)

        yield from extend(0, [], state)

    # ------------------------------------------------------------ timers
    def compiled_timer(self, u: _Universe, tid: int) -> _Timer:
        t = u.timers.get(tid)
        if t is None:
            name, args = self.timer_keys[tid]
            d = self.domain.timers[name]
            binding = dict(zip([v for v, _ in d.params], args))
            t = _Timer()
            t.condition = u.compiler.condition(d.condition, binding)
            t.running = u.compiler.effect(d.running, binding)
            t.paused = u.compiler.effect(d.paused, binding)
            t.done = u.compiler.effect(d.done, binding)
            t.duration = u.compiler.expr(d.duration, binding)
            t.restart = d.restart
            u.timers[tid] = t
        return t

    def reachable_timers(self, u: "_Universe") -> list[int]:
        """Every timer instance the universe's ground actions can start, directly or through timers."""
        starts = [tid for action in u.actions or () for tid in action.effect.started_timers()]
        seen: list[int] = []
        while starts:
            tid = starts.pop()
            if tid in seen:
                continue
            seen.append(tid)
            timer = self.compiled_timer(u, tid)
            for effect in (timer.running, timer.paused, timer.done):
                starts += effect.started_timers()
        return seen

    # ------------------------------------------------------------ goals
    def _goal_for(self, u: _Universe):
        if u.goal is None:
            u.goal = self.goal.compile(u.compiler)
        return u.goal

    def _progress(self, state: State, progress: int) -> int:
        if not self.goal.temporal:
            return 0
        compiled = self._goal_for(self.universe(state.created))
        progress, _ = self.goal.update(compiled, state, self.bits(state), progress)
        return progress

    def is_goal(self, state: State) -> bool:
        if self.goal.temporal:
            return self.goal.achieved(state.progress)
        compiled = self._goal_for(self.universe(state.created))
        _, satisfied = self.goal.update(compiled, state, self.bits(state), state.progress)
        return satisfied

    def is_dead(self, state: State) -> bool:
        """True when a temporal goal can no longer be satisfied (an 'always' part was violated)."""
        return self.goal.violated(state.progress)

    # ------------------------------------------------------------ evaluation helpers
    def holds(self, formula, state: State, binding: dict | None = None) -> bool:
        """Evaluate any lifted formula of this domain in `state`."""
        u = self.universe(state.created)
        cond = u.compiler.condition(formula, binding or {})
        if cond is True or cond is False:
            return cond
        return cond.holds(state, self.bits(state))

    def atom_holds(self, state: State, pred: str, args: tuple) -> bool:
        if pred in self.static_preds:
            return (pred, args) in self.static_facts
        bits = self.bits(state)  # first: computing derived facts interns their ids
        fid = self.facts.ids.get((pred, args))
        return fid is not None and bool(bits >> fid & 1)

    def value(self, state: State, fluent: str, args: tuple):
        if self.domain.fluents[fluent].value is not None:
            u = self.universe(state.created)
            found = u.computed.get((fluent, args))
            if found is None:
                found = u.computed[(fluent, args)] = u.compiler.expr(m.FluentTerm(fluent, args), {})
            return found(state, self.bits(state)) if callable(found) else found
        key = (fluent, args)
        if fluent in self.static_fluent_names:
            return self.static_values.get(key, self.domain.fluents[fluent].default)
        i = self._fluent_ids.get(key)
        if i is None or i >= len(state.values):
            return self.domain.fluents[fluent].default
        return state.values[i]

    def true_atoms(self, state: State, include_static: bool = True, include_derived: bool = True) -> list[tuple]:
        """Every true atom, static ones first in problem order, then by interning order."""
        out = [a for a in self.problem.init if a[0] in self.static_preds] if include_static else []
        out += list(self.facts.decode(self.bits(state) if include_derived else state.facts))
        return out

    def objects(self, state: State) -> dict[str, str]:
        return self.universe(state.created).objects

    def explain(self, state: State, action: GroundAction) -> list[str]:
        """Why `action` is not applicable in `state`, as sentences built from the domain's texts."""
        from .explain import explain_failure

        if action.reasons is not None:
            return list(action.reasons)
        reasons = []
        if self.turn_based and action.actor is not None and action.actor != self.agents[state.turn]:
            reasons.append(f"it is {self.agents[state.turn]}'s turn, not {action.actor}'s")
        if action.actor in self.idle:
            reasons.append(f"{action.actor} is not one of the problem's agents ({', '.join(self.agents)})")
        return reasons + explain_failure(self, state, action.schema.precondition, action.binding)

    # ------------------------------------------------------------ action lookup
    def parse_plan(self, texts, state: State | None = None) -> list[GroundAction]:
        """A plan's steps as ground actions, each resolved and applied in the state the previous
        ones lead to (objects created on the way are found). Raises UnknownAction for a step that
        names nothing, InapplicableAction for one that does not apply (use validate_plan for a
        report instead of an exception)."""
        state = state if state is not None else self.initial_state()
        actions = []
        for text in texts:
            action = self.parse_action(text, state)
            state = self.apply(state, action)
            actions.append(action)
        return actions

    LARGE_ACTION_SPACE = 100_000

    @property
    def large_action_space(self) -> bool:
        """Whether the schemas could ground to more than LARGE_ACTION_SPACE actions (the product
        of their parameters' object counts): then texts are resolved through the action templates
        first, grounding only the action named, instead of grounding every action to compare."""
        found = self.__dict__.get("_large")
        if found is None:
            found = self._large = ground_action_bound(self.domain, self.problem.objects_of) > self.LARGE_ACTION_SPACE
        return found

    def _too_many_to_list(self) -> bool:
        """Whether the actions the static facts allow exceed LARGE_ACTION_SPACE (counted once,
        stopping there). The naive bound is far too loose for grids (gridnav's 32x32 room: 4
        million by the bound, 4,000 once adjacency is known), which tolerant reading must list."""
        found = self.__dict__.get("_too_many")
        if found is None:
            index = FactIndex(self.static_facts)
            u = self.universe()
            count = 0
            for name, schema in self.domain.actions.items():
                domains = candidate_domains(schema.params, u.compiler.objects_of)
                for _ in self._binders[name].bindings(index, domains, limit=self.LARGE_ACTION_SPACE + 1 - count):
                    count += 1
                if count > self.LARGE_ACTION_SPACE:
                    break
            found = self._too_many = count > self.LARGE_ACTION_SPACE
        return found

    def _resolve_by_template(self, state: State) -> bool:
        """Resolve texts through the templates while the actions are not grounded and may be too many to ground."""
        return self.universe(state.created)._actions is _PENDING and self.large_action_space

    def action_by_text(self, text: str, state: State | None = None) -> GroundAction | None:
        """The ground action written exactly `text` (applicable or not), or None: the strict
        reading that the reference benchmarks use."""
        state = state if state is not None else self.initial_state()
        if self._resolve_by_template(state):
            found = self._parse_structured(text, state, complete=False)
            return found if found is not None and found.text == text else None
        return next((a for a in self.applicable(state) if a.text == text), None)

    def parse_action(self, text: str, state: State | None = None) -> GroundAction:
        """Resolve an action written as its text, '(name args)' or 'name args'.

        Raises UnknownAction with a 'did you mean' hint when nothing matches. The action may be
        inapplicable in `state`; check with `is_applicable` or use `step`.
        """
        state = state if state is not None else self.initial_state()
        raw = text.strip()
        if self._resolve_by_template(state):
            exact = self.action_by_text(raw, state)
            if exact is not None:
                return exact
            if self._too_many_to_list():
                # listing the applicable actions to compare would ground them all (Plancraft:
                # 256,320 actions, about a minute): read the text through the schemas only
                found = self._parse_structured(raw, state, complete=False) or self._parse_tidied(raw, state, complete=False)
                if found is not None:
                    return found
                shapes = [s.text or f"({s.name} {' '.join(v for v, _ in s.params)})" for s in self.domain.actions.values()]
                raise UnknownAction(raw, "actions are written like: " + "; ".join(shapes[:6]) + (" ..." if len(shapes) > 6 else ""))
        applicable = self.applicable(state)
        for a in applicable:
            if raw == a.text or raw == a.name:
                return a
        folded = normalise(raw)
        matches = [a for a in applicable if folded in (normalise(a.text), normalise(a.name)) or
                   folded in (normalise(fill_template(x, self._shown(a.binding))) for x in a.schema.aliases)]
        if len(matches) == 1:
            return matches[0]
        found = self._parse_structured(raw, state) or self._parse_tidied(raw, state)
        if found is not None:
            return found
        hint = did_you_mean(raw, [a.text for a in applicable])
        if hint is None and applicable:
            hint = "applicable now: " + ", ".join(a.text for a in applicable[:6]) + (" ..." if len(applicable) > 6 else "")
        raise UnknownAction(raw, hint)

    def _parse_tidied(self, raw: str, state: State, complete: bool = True) -> GroundAction | None:
        """The structured reading of the answer with its spacing and trailing punctuation tidied
        ('Drive T1 to APT1.'). The tolerant match above compares only the applicable actions, so
        without this an inapplicable action written as a sentence was 'unknown' instead of
        explained: parse first, then say why it cannot be done."""
        tidied = tidy(raw)
        return self._parse_structured(tidied, state, complete) if tidied and tidied != raw else None

    def _parse_structured(self, raw: str, state: State, complete: bool = True) -> GroundAction | None:
        objects = self.objects(state)
        words = raw.strip("()").split()
        if words and words[0] not in self.domain.actions:
            words[0] = _by_lower_case((n, n) for n in self.domain.actions).get(words[0].lower(), words[0])
        if words and words[0] in self.domain.actions:
            schema = self.domain.actions[words[0]]
            args = tuple(self._object_word(w, objects) for w in words[1:])
            if self._args_fit(schema, args, objects):
                return self.ground_action(schema.name, args, state) or self._unsatisfiable(schema, args, state)
        for schema in self.domain.actions.values():
            if not schema.text:
                continue
            pattern, names = template_regex(schema.text)
            match = pattern.fullmatch(raw) or re.fullmatch(pattern.pattern, raw, re.IGNORECASE)
            if match:
                binding = dict(zip(names, (self._object_word(g, objects) for g in match.groups())))
                args = tuple(binding.get(v.lstrip("?")) for v, _ in schema.params)
                if any(a is not None and not (a in objects and self.domain.is_subtype(objects[a], t))
                       for a, (_, t) in zip(args, schema.params)):
                    continue  # a word that names no object of the field's type: another text may fit
                if None in args:
                    if not complete:
                        continue
                    completed = self._complete(schema, args, state)
                    if isinstance(completed, GroundAction):
                        completed.text = raw
                        return completed
                    args = completed
                if args is not None and self._args_fit(schema, args, objects):
                    return self.ground_action(schema.name, args, state) or self._unsatisfiable(schema, args, state)
        return None

    def _complete(self, schema, partial, state, limit: int = 50_000):
        """Fill the parameters an action's text leaves out ('move south' names no cells).

        Among all completions, the one whose precondition conjuncts hold the longest in the order
        written is what the text most plausibly meant (the robot's own cell first, then the
        neighbour, then whether it is free). Returns None unless exactly one completion is best.
        """
        u = self.universe(state.created)
        pools = [[a] if a is not None else u.compiler.objects_of(t) for a, (_, t) in zip(partial, schema.params)]
        size = 1
        for pool in pools:
            size *= len(pool)
        if size > limit:
            return None
        conjuncts = top_conjuncts(schema.precondition)
        names = [v for v, _ in schema.params]
        best, best_key = [], None
        for combo in itertools.product(*pools):
            binding = dict(zip(names, combo))
            key = []
            for c in conjuncts:
                ok = self.holds(c, state, binding)
                key.append(ok)
                if not ok:
                    break
            key = (len(key) - (0 if key[-1] else 1)) if key else 0
            if best_key is None or key > best_key:
                best, best_key = [combo], key
            elif key == best_key:
                best.append(combo)
        if len(best) == 1:
            return tuple(best[0])
        if best and best_key < len(conjuncts):
            # no completion gets past conjunct `best_key`: say so, with the named parameters filled in
            from .render import atom_text

            known = {v: best[0][i] for i, v in enumerate(names) if all(c[i] == best[0][i] for c in best)}
            blocking = conjuncts[best_key]
            if isinstance(blocking, m.Atom):
                args = tuple(known.get(a, "some " + a.lstrip("?")) if a.startswith("?") else a for a in blocking.args)
                reason = f"there is no way to make it true that {atom_text(self.domain, blocking.pred, args, labels=self.problem.labels)}"
            else:
                reason = "no choice of the unnamed parameters satisfies its precondition"
            stand_in = self._unsatisfiable(schema, tuple(a or "?" for a in partial), state)
            stand_in.reasons = [reason]
            return stand_in
        return None

    def _shown(self, binding: dict) -> dict:
        """The binding with objects replaced by their labels, for texts shown to agents."""
        labels = self.problem.labels
        return {k: labels.get(v, v) for k, v in binding.items()} if labels else binding

    def _unlabel(self, word: str) -> str:
        """The object a label in an answer stands for (the word itself when it is no label)."""
        if not self.problem.labels:
            return word
        inverse = self.__dict__.get("_inverse_labels")
        if inverse is None:
            inverse = self._inverse_labels = {v: k for k, v in self.problem.labels.items()}
        return inverse.get(word, word)

    def _object_word(self, word: str, objects: dict) -> str:
        """The object a word of an answer names: by its name or label, else by either written in
        another case ('T1' for t1) when that names one object only; else the word itself."""
        name = self._unlabel(word)
        if name in objects:
            return name
        folded = self.__dict__.get("_folded_objects")
        if folded is None or folded[0] is not objects:  # one universe's objects (and the labels) at a time
            pairs = [(obj, obj) for obj in objects]
            pairs += [(label, obj) for obj, label in (self.problem.labels or {}).items() if obj in objects]
            folded = self._folded_objects = (objects, _by_lower_case(pairs))
        return folded[1].get(name.lower(), name)

    def _args_fit(self, schema, args, objects) -> bool:
        return len(args) == len(schema.params) and all(
            a in objects and self.domain.is_subtype(objects[a], t) for a, (_, t) in zip(args, schema.params))

    def _unsatisfiable(self, schema, args, state) -> GroundAction:
        """A stand-in for a ground action whose precondition is statically false, so it can be explained."""
        binding = dict(zip([v for v, _ in schema.params], args))
        text = self._text(schema, binding, args)
        never = Condition(test=lambda s, bits: False)
        cost = 0
        if "?" not in args or isinstance(schema.cost, (m.Num, m.SettingValue)):
            # a `noop` step still pays what the action would cost (e.g. a per-step cost setting)
            cost = self.universe(state.created).compiler.expr(schema.cost, binding)
        return GroundAction(-1, schema, args, binding, never, GroundEffect(), cost, text)

    # ------------------------------------------------------------ derived predicates
    def _with_derived(self, state: State) -> int:
        facts = state.facts
        key = (facts, state.values, state.created)  # derived formulas may compare numeric fluents
        cached = self._derived_cache.get(key)
        if cached is not None:
            return cached
        u = self.universe(state.created)
        if u.derived_rules is None:
            u.derived_rules = self._ground_derived(u)
        bits = facts
        for rules in u.derived_rules:
            changed = True
            while changed:
                changed = False
                for head, cond in rules:
                    if not bits & head and (cond is True or cond.holds(state, bits)):
                        bits |= head
                        changed = True
        if len(self._derived_cache) > 200_000:
            self._derived_cache.clear()
        self._derived_cache[key] = bits
        return bits

    def _ground_derived(self, u: _Universe):
        strata = []
        for names in self.domain.derived_strata:
            rules = []
            for name in names:
                d = self.domain.derived[name]
                for combo in u.compiler.combos(d.params):
                    binding = dict(zip([v for v, _ in d.params], combo))
                    cond = u.compiler.condition(d.formula, binding)
                    if cond is not False:
                        rules.append((1 << self.facts.id(name, combo), cond))
            strata.append(rules)
        return strata


class _Builder:
    """Mutable scratch space for one step: effects decided on a given state, then timers tick."""

    def __init__(self, task: Task, state: State):
        self.task = task
        self.facts = state.facts
        self.values = list(state.values)
        self.timers = dict(state.timers)
        self.created = list(state.created)
        self.new_timers: set[int] = set()

    def snapshot(self) -> State:
        t = self.task
        return State(self.facts, t._canonical_values(tuple(self.values)), tuple(self.timers.items()), 0, 0, tuple(self.created))

    def apply(self, effect: GroundEffect, state: State, bits: int, started_now: bool) -> None:
        adds, dels, updates, starts, stops, creates = 0, 0, [], [], [], []

        def collect(e: GroundEffect):
            nonlocal adds, dels
            adds |= e.add
            dels |= e.delete
            for kind, *item in e.ordered:  # numeric updates, timers and creations in written order
                if kind == "when":
                    cond, then, other = item
                    collect(then if cond.holds(state, bits) else other)
                elif kind == "update":
                    op, index, value = item
                    updates.append((op, index, value(state, bits) if callable(value) else value))
                elif kind == "start":
                    starts.append(item[0])
                elif kind == "stop":
                    stops.append(item[0])
                else:
                    creates.append(tuple(item))

        collect(effect)
        while creates:  # a created object's own effects are part of the same step
            create, binding = creates.pop(0)
            name = self._new_name(create.prefix)
            self.created.append((name, create.type))
            u = self.task.universe(tuple(self.created))
            collect(u.compiler.effect(create.effects, {**binding, create.variable: name}))
        self.facts = (self.facts & ~dels) | adds
        for op, index, value in updates:
            while len(self.values) <= index:
                self.values.append(self.task.fluent_defaults[len(self.values)])
            if op == "assign":
                self.values[index] = value
            elif op == "increase":
                self.values[index] += value
            else:
                self.values[index] -= value
            if not finite(self.values[index]):
                name, args = self.task.fluent_keys[index]
                raise NumericError(f"'{op}' makes {name}({', '.join(args)}) overflow (beyond ±1.8e+308)")
        for tid in stops:
            self.timers.pop(tid, None)
        if starts:
            u = self.task.universe(tuple(self.created))
            inert = self.task.inert_timers
            for tid in starts:
                if inert and self.task.timer_keys[tid][0] in inert:
                    continue
                timer = self.task.compiled_timer(u, tid)
                if tid in self.timers and timer.restart == "keep":
                    continue
                duration = timer.duration(state, bits) if callable(timer.duration) else timer.duration
                self.timers[tid] = max(0, math.ceil(duration))  # whole steps, rounded up
                if started_now:
                    self.new_timers.add(tid)

    def _new_name(self, prefix: str) -> str:
        """prefix + (1 + the largest number already used after that prefix): water1, water2, ..."""
        taken = list(self.task.problem.objects) + [n for n, _ in self.created]
        k = 1 + max((int(n[len(prefix):]) for n in taken if n.startswith(prefix) and n[len(prefix):].isdigit()), default=0)
        return f"{prefix}{k}"

    def tick(self) -> None:
        """Every running timer advances one step, in the order they were started, each seeing its
        predecessors' effects.

        Start order, not an internal one, because a paused instance's effects can undo a running
        one's (lifting chicken off one stove while it cooks on another): whoever ticks last wins,
        and the order in which they were started is the one an author (and the reference kitchen,
        whose effects sit in a list) can see. Under "skip-after-done" the instance that follows
        one that completes does not tick in that step at all: the reference kitchen removes a
        finished effect from the list it is iterating over, which steps over the next one.
        """
        task = self.task
        skip_next = False
        for tid in list(self.timers):
            if tid not in self.timers:  # stopped by an earlier instance's effects
                continue
            if skip_next:
                skip_next = False
                if tid in self.new_timers:  # its first step did not count: it completes a step later
                    self.timers[tid] += 1
                    self.new_timers.discard(tid)
                continue
            u = task.universe(tuple(self.created))
            timer = task.compiled_timer(u, tid)
            current = self.snapshot()
            bits = task.bits(current)
            cond = timer.condition
            running = cond is True or (cond is not False and cond.holds(current, bits))
            self.apply(timer.running if running else timer.paused, current, bits, started_now=False)
            if not running:
                continue
            if tid in self.new_timers:
                if self.timers[tid] > 0:
                    continue
            else:
                self.timers[tid] -= 1
            if self.timers[tid] <= 0:
                del self.timers[tid]
                current = self.snapshot()
                self.apply(timer.done, current, task.bits(current), started_now=False)
                skip_next = task.skip_after_done


def ground_action_bound(domain: m.Domain, objects_of) -> int:
    """How many ground actions the schemas could have: the product of their parameters' object counts."""
    total = 0
    for schema in domain.actions.values():
        size = 1
        for _, typ in schema.params:
            size *= len(objects_of(typ))
        total += size
    return total


def _by_index(a: GroundAction) -> int:
    return a.index


_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_\-]*)\}(?!\})")


def fill_template(text: str, binding: dict) -> str:
    """Fill {x} fields from a binding of ?x (or x) to object names."""
    def sub(match):
        key = match.group(1)
        return str(binding.get("?" + key, binding.get(key, match.group(0))))
    return _PLACEHOLDER.sub(sub, text).replace("{{", "{").replace("}}", "}")


def template_regex(text: str):
    names = []
    parts = []
    last = 0
    for match in _PLACEHOLDER.finditer(text):
        parts.append(re.escape(text[last:match.start()]))
        parts.append(r"(\S+?)")
        names.append(match.group(1))
        last = match.end()
    parts.append(re.escape(text[last:]))
    return re.compile("".join(parts)), names


def _by_lower_case(pairs) -> dict:
    """{written in lower case: what it names} for (word, name) pairs, leaving out the words that
    differ only in case yet name different things (no guess between 'A' and 'a')."""
    out: dict = {}
    for word, name in pairs:
        low = word.lower()
        out[low] = name if out.get(low, name) == name else None
    return {k: v for k, v in out.items() if v is not None}


def tidy(text: str) -> str:
    """An answer with its runs of whitespace made single spaces and its trailing sentence
    punctuation dropped ('Drive T1  to APT1.' -> 'Drive T1 to APT1'); case is left to the reader."""
    return " ".join(text.split()).rstrip(".,;:!?").rstrip()


def normalise(text: str) -> str:
    """Case, whitespace and punctuation folded away, for tolerant matching of answers."""
    return " ".join(re.sub(r"[^\w\s?-]", " ", text.lower()).split())
