"""The delete relaxation of a grounded task, for h_max, h_add and h_FF.

Relaxed actions keep only positive preconditions and add effects. Everything a relaxation may
drop is dropped (negative and numeric conditions), which keeps h_max admissible. Goals are kept
as a disjunction of positive fact sets, so an existential goal ("some bread at the bottom") is
not relaxed to nothing. Derived facts are reached through zero-cost axioms, and derived atoms in
the goal are read as their definitions (planners/heuristics/axioms.py).

Timers: starting a timer adds a pseudo-fact that enables the timer's running and completion
effects. When every action costs 1 (cost = steps = time), completion costs the timer's
duration, and a running timer's completion is scheduled at its remaining ticks: the earliest
step a fact can appear is then still a lower bound. Otherwise timers cost 0.

Created objects: one placeholder object per ground creating effect ("water~1" for filling this
pot at this sink) stands for whatever that effect creates; merging every object one effect could
create into one placeholder only makes the relaxation more optimistic.

Temporal goals: every part the goal still waits for ('eventually', 'later', a step of a
sequence) must be reached at some point, in any order; 'always' parts are dropped (they only
forbid states on the way, and dropping a constraint is a relaxation). Each part is a pseudo-fact
a state starts with once its progress latched the part.

Lifted (ungrounded) tasks are not relaxed: `unsupported()` says why.
"""
from __future__ import annotations

from groundplan.engine.budget import poll
from groundplan.engine.compile import Condition, GroundEffect, set_bits
from groundplan.engine.successors import build_tree

from .axioms import DerivedFacts
from .goal_landmarks import goal_landmark_facts


class RelaxedAction:
    __slots__ = ("pre_pos", "add", "cost", "index", "source", "level")

    def __init__(self, pre, add, cost, index, source, level=None):
        self.pre_pos = pre
        self.add = add
        self.cost = cost
        self.index = index
        self.source = source  # the ground action (None for timer relaxations)
        self.level = level  # the counter value a real application starts from (None: no counter)


def unsupported(task) -> str | None:
    if not task.is_grounded:
        return "the task is too large to ground (lifted mode)"
    return None


PLACEHOLDER = "~"  # created-object placeholders are named prefix~k: never a valid object name in a file
MAX_DISJUNCTS = 4096  # while expanding the goal
MAX_GOAL_DISJUNCTS = 1024  # kept as disjunct masks; beyond it, one goal part (a relaxed action each)
MAX_PART_DISJUNCTS = 8192  # per goal part; beyond it, the facts common to all its disjuncts


class Relaxation:
    """The relaxed task for the objects of one state (its universe), plus placeholder objects
    standing for what effects could still create (one per ground creating effect)."""

    def __init__(self, task, created: tuple = (), time_aware: bool | None = None):
        reason = unsupported(task)
        if reason:
            raise ValueError(reason)
        self.task = task
        self.placeholder_of: dict[tuple, str] = {}
        u = self._universe_with_placeholders(task, created)
        self.universe = u
        # timers count as their duration when every action costs 1, so cost = steps = time
        costs = [a.cost for a in u.actions]
        self.time_aware = (all(c == 1 for c in costs) if time_aware is None else time_aware)
        self.derived_facts = DerivedFacts(task, u.compiler, _dnf) if task.domain.derived else None
        self.disjuncts = self._cached_goal_dnf(u, created)
        self.goal_unreachable = not self.disjuncts
        self.goal = self.disjuncts[0] if len(self.disjuncts) == 1 else 0
        self.actions: list[RelaxedAction] = []
        for part_fact, masks in self._goal_parts:  # goal parts: each reached by any of its disjuncts
            for mask in masks:
                self.actions.append(RelaxedAction(mask, part_fact, 0, len(self.actions), None))
        self._timer_fact: dict[int, int] = {}
        self.timer_due: dict[int, int] = {}  # tid -> its 'due' pseudo-fact (scheduled for running timers)
        pending = []
        self.counters = self._find_counters(u.actions)
        for n, action in enumerate(u.actions):
            if not n & 1023:
                poll()
            if action.actor is not None and action.actor in task.idle:
                continue  # an idle agent never acts: its actions would only mislead the estimates
            cost = action.cost if not callable(action.cost) else 0  # state-dependent cost: 0 keeps it admissible
            self._relax_action(action, cost, pending)
        seen = set()
        while pending:
            tid = pending.pop()
            if tid in seen:
                continue
            seen.add(tid)
            timer = task.compiled_timer(u, tid)
            started = self.timer_fact(tid)
            condition = started
            if isinstance(timer.condition, Condition):
                condition |= timer.condition.pos | self._requirements(timer.condition)
            duration = timer.duration if not callable(timer.duration) else 0
            ticks = max(0, int(duration)) if self.time_aware else 0  # int(): rounding down stays optimistic
            due = self.pseudo_fact("due", tid)
            if timer.condition is not False:
                self._add_effect(condition, timer.running, 0, None, pending)
                # a timer started at step t whose condition first holds after step c >= t fires at
                # the end of step max(t + d, c + d - 1): "armed" one step after the start, then d - 1
                # steps with the condition holding
                if ticks >= 1:
                    armed = self.pseudo_fact("armed", tid)
                    self.actions.append(RelaxedAction(started, armed, 1, len(self.actions), None))
                    self.actions.append(RelaxedAction(armed | (condition & ~started), due, ticks - 1, len(self.actions), None))
                else:
                    self.actions.append(RelaxedAction(condition, due, 0, len(self.actions), None))
                self.timer_due[tid] = due
                self._add_effect(due, timer.done, 0, None, pending)  # every completion effect waits for 'due'
            self._add_effect(started, timer.paused, 0, None, pending)
        self.derived_mask = 0
        if self.derived_facts is not None:
            wanted = self.goal_landmarks
            for d in self.disjuncts:
                wanted |= d
            for a in self.actions:
                wanted |= a.pre_pos
            for pre, add in self.derived_facts.axioms(wanted):
                self.actions.append(RelaxedAction(pre, add, 0, len(self.actions), None))
            for fid, (pred, _) in enumerate(task.facts.atoms):
                if pred in task.domain.derived:
                    self.derived_mask |= 1 << fid
        self.tree = build_tree(self.actions)
        self.integral = all(isinstance(a.cost, int) or float(a.cost).is_integer() for a in self.actions)
        self.unit = all(a.cost in (0, 1) for a in self.actions)
        self.pre_lists = [set_bits(a.pre_pos) for a in self.actions]
        self.add_lists = [set_bits(a.add) for a in self.actions]
        self.achievers: dict[int, list[int]] = {}
        self.consumers: dict[int, list[int]] = {}
        for i, a in enumerate(self.actions):
            for f in self.pre_lists[i]:
                self.consumers.setdefault(f, []).append(i)
            for f in self.add_lists[i]:
                self.achievers.setdefault(f, []).append(i)
        # h_add and h_FF bind goal parts themselves (part_choices): they skip the parts' actions
        n_parts = sum(len(masks) for _, masks in self._goal_parts) if self.part_choices else 0
        self.sum_consumers = self.consumers if not n_parts else {
            f: [i for i in c if i >= n_parts] for f, c in self.consumers.items()}

    # ------------------------------------------------------------ actions, counters, conditional effects
    def _find_counters(self, actions) -> dict[int, int]:
        """Repetition counters: numeric fluents whose every update is either a top-level increase by a
        whole positive constant in an action that raises no other counter, or a lowering (decrease,
        assign of a constant <= 0), and that conditions compare with thresholds. Returns fluent index
        -> the highest level any condition asks for. Anything else is not modelled (left relaxed)."""
        raised, bad, wanted = set(), set(), {}

        def lowering(op, value):
            return (op == "decrease" and not callable(value) and value >= 0) or (
                op == "assign" and not callable(value) and value <= 0)

        def scan(effect, top, conditions, per_action):
            for kind, *item in effect.ordered:
                if kind == "update":
                    op, index, value = item
                    if top and op == "increase" and not callable(value) and value >= 1 and float(value).is_integer():
                        raised.add(index)
                        per_action.add(index)
                    elif not lowering(op, value):
                        bad.add(index)
                elif kind == "when":
                    conditions.append(item[0])
                    scan(item[1], False, conditions, per_action)
                    scan(item[2], False, conditions, per_action)
                elif kind == "create":
                    bad.update(range(len(self.task.fluent_keys)))  # created objects' updates: not modelled
        conditions = []
        for a in actions:
            conditions.append(a.pre)
            mine = set()
            scan(a.effect, True, conditions, mine)
            if len(mine) > 1:
                bad.update(mine)
        for effect in self._timer_effects():
            scan(effect, False, conditions, set())
        for cond in conditions:
            for op, index, value in getattr(cond, "thresholds", ()):
                level = _level(op, value)
                if level is not None and level > 0:
                    wanted[index] = max(wanted.get(index, 0), level)
        return {i: k for i, k in wanted.items() if i in raised and i not in bad and k <= 64}

    def _timer_effects(self):
        """The phase effects of every timer the actions can start, directly or through other timers."""
        out = []
        for tid in self.task.reachable_timers(self.universe):
            timer = self.task.compiled_timer(self.universe, tid)
            out += [timer.running, timer.paused, timer.done]
        return out

    def counter_fact(self, index: int, level: int) -> int:
        return 0 if level <= 0 else 1 << self.task.facts.id("counter:" + str(index), (level,))

    def _requirements(self, cond) -> int:
        """Counter pseudo-facts a condition's thresholds require (other thresholds are relaxed away)."""
        mask = 0
        for op, index, value in getattr(cond, "thresholds", ()):
            level = _level(op, value)
            if index in self.counters and level:
                mask |= self.counter_fact(index, min(level, self.counters[index]))
        return mask

    def _relax_action(self, action, cost, pending) -> None:
        """One relaxed action per counter level and per subset of conditional effects that can fire
        together, each with all its adds, so one real application is one relaxed action."""
        effect = action.effect
        pre = action.pre_pos | self._requirements(action.pre)
        main = self._add_effect(pre, effect, cost, action, pending, conditionals=False)
        whens = []
        for kind, *item in effect.ordered:
            if kind == "when":
                cond, then, other = item
                pos = (cond.pos | self._requirements(cond)) if isinstance(cond, Condition) else 0
                whens.append((pos, self._collect_adds(then, pending)))
                whens.append((0, self._collect_adds(other, pending)))  # else-branch: its condition is relaxed away
        whens = [(p, a) for p, a in whens if a]
        increments = [(item[1], item[2]) for kind, *item in effect.ordered
                      if kind == "update" and item[0] == "increase" and item[1] in self.counters]
        levels = [None]
        if len(increments) == 1:
            index, step = increments[0]
            levels = [(index, j, int(step)) for j in range(self.counters[index])]
        for level in levels:
            base_pre, base_add = pre, main
            if level is not None:
                index, j, step = level
                base_pre |= self.counter_fact(index, j)
                for k in range(j + 1, min(j + step, self.counters[index]) + 1):
                    base_add |= self.counter_fact(index, k)
            j = None if level is None else level[1]
            self.actions.append(RelaxedAction(base_pre, base_add, cost, len(self.actions), action, j))
            if len(whens) <= 8:
                for mask in range(1, 1 << len(whens)):
                    chosen = [whens[b] for b in range(len(whens)) if mask >> b & 1]
                    extra_pre = 0
                    extra_add = 0
                    for p, a in chosen:
                        extra_pre |= p
                        extra_add |= a
                    self.actions.append(RelaxedAction(base_pre | extra_pre, base_add | extra_add, cost, len(self.actions), action, j))
            else:  # too many to combine: conditional effects come for free, which stays optimistic
                for p, a in whens:
                    self.actions.append(RelaxedAction(base_pre | p, a, 0, len(self.actions), action, j))

    def adds_of(self, effect) -> int:
        """Everything an effect may add (branches, started timers' pseudo-facts, created placeholders)."""
        return self._collect_adds(effect, [])

    def _collect_adds(self, effect, pending) -> int:
        """Adds of an effect, with its nested conditions relaxed away (an optimistic union)."""
        adds = effect.add
        for kind, *item in effect.ordered:
            if kind == "start":
                adds |= self.timer_fact(item[0])
                pending.append(item[0])
            elif kind == "when":
                adds |= self._collect_adds(item[1], pending) | self._collect_adds(item[2], pending)
            elif kind == "create":
                adds |= self._create_adds(item[0], item[1], pending)
        return adds

    def _create_adds(self, create, binding, pending) -> int:
        adds = 0
        for name in self.placeholder_of.get((create.prefix, create.variable, tuple(sorted(binding.items()))), ()):
            inner = self.universe.compiler.effect(create.effects, {**binding, create.variable: name})
            adds |= self._collect_adds(inner, pending)
        return adds

    # ------------------------------------------------------------ construction
    def _universe_with_placeholders(self, task, created):
        """Ground the state's universe plus one placeholder per ground creating effect (to a fixpoint)."""
        extra: list[tuple[str, str]] = []
        for _ in range(4):
            u = task.universe(created + tuple(extra))
            found = False
            for key, create in self._creations(task, u):
                if key not in self.placeholder_of:
                    # as many stand-ins as any formula can ask for distinct objects of that type
                    names = []
                    for _ in range(_distinct_needed(task.domain, task.goal.goal, create.type)):
                        names.append(f"{create.prefix}{PLACEHOLDER}{sum(map(len, self.placeholder_of.values())) + len(names) + 1}")
                    self.placeholder_of[key] = names
                    extra.extend((name, create.type) for name in names)
                    found = True
            if not found:
                return u
        raise ValueError("object creation does not reach a fixpoint within four rounds of placeholders")

    @staticmethod
    def _creations(task, u):
        """(key, Create) for every creating effect of a ground action or a reachable timer."""
        effects = [action.effect for action in u.actions]
        for tid in task.reachable_timers(u):
            timer = task.compiled_timer(u, tid)
            effects += [timer.running, timer.paused, timer.done]
        for effect in effects:
            for item in effect.items():
                if item[0] == "create":
                    _, create, binding = item
                    yield (create.prefix, create.variable, tuple(sorted(binding.items()))), create

    def _cached_goal_dnf(self, u, created) -> list[int]:
        """_goal_dnf, remembered per task (and its with_goal copies, which share the fact table)
        for each goal and universe: expanding an order's goal binds every candidate object, which
        takes a minute on the largest multi-agent kitchens, and every search rebuilds its relaxation."""
        cache = self.task.__dict__.setdefault("_relaxed_goal_cache", {})
        key = (self.task.goal.goal, created)
        hit = cache.get(key)
        if hit is None:
            self.goal_landmarks = 0
            self.latches = []
            disjuncts = self._goal_dnf(u)
            hit = cache[key] = (disjuncts, self._goal_parts, self.part_choices, self.goal_landmarks, self.latches)
        disjuncts, self._goal_parts, self.part_choices, self.goal_landmarks, self.latches = hit
        return disjuncts

    def _ground_dnf(self, node):
        """_dnf, with the goal's derived atoms read as their definitions (planners/heuristics/axioms.py)."""
        return _dnf(node, self.derived_facts.inline if self.derived_facts is not None else None)

    def _goal_dnf(self, u) -> list[int]:
        """The goal as positive fact masks, one per disjunct (negative parts and tests are relaxed away)."""
        self._goal_parts = []
        self.part_choices = []  # per goal part: (disjunct mask, the objects it names), for h_add and h_FF
        if self.task.goal.temporal:
            return self._temporal_goal(u)
        parts = self._goal_components(u)
        if parts is not None:
            size = 1
            for _, masks in self._goal_parts:
                size *= len(masks)
            if not parts:
                return parts
            if size > MAX_GOAL_DISJUNCTS:  # too many disjuncts to list: the parts stand for them
                # plus what the dropped inequalities imply (planners/heuristics/goal_landmarks.py): two
                # sandwiches of an order with two lettuces cut both
                landmarks = goal_landmark_facts(u.compiler, *goal_groups(self.task.goal.goal), self._ground_dnf, PLACEHOLDER)
                if landmarks is None:
                    return []  # no choice of bindings meets the inequalities: no goal state exists
                self.goal_landmarks = landmarks
                return [parts[0] | landmarks]
            self._goal_parts, self.part_choices = [], []
        node = u.compiler.ground(self.task.goal.goal, {})
        dnf = self._ground_dnf(node)
        if dnf is False:
            return []
        if len(dnf) > MAX_GOAL_DISJUNCTS:
            # one soup of a large kitchen has 1,280 bindings and no fact common to all: the facts
            # they share would be an empty goal (h = 0 short of the goal). As one goal part, each
            # binding is a zero-cost relaxed action to a pseudo-fact: exact, and cheap to propagate
            return [self._goal_part(0, dnf)]
        return dnf

    def _temporal_goal(self, u) -> list[int]:
        """A temporal goal as one conjunction of goal parts, one per formula it still waits for
        (see the module docstring); `latches` pairs each part's pseudo-fact with the progress
        bits that mean it is done. A part no state can satisfy gets no relaxed action, so it is
        reachable only once latched."""
        goal = 0
        for k, (done, formula) in enumerate(_awaited(self.task.goal.tree)):
            dnf = self._ground_dnf(u.compiler.ground(formula, {}))
            fact = self._goal_part(f"latch{k}", dnf or [])
            self.latches.append((done, fact))
            goal |= fact
        self.part_choices = []  # h_add and h_FF bind parts without knowing latches: plain disjuncts
        return [goal]

    def propagation_data(self):
        """Per-action arrays the cost propagation of h_max/h_add/h_FF reuses on every call."""
        data = getattr(self, "_propagation", None)
        if data is None:
            from types import SimpleNamespace

            goal_facts = set()
            for d in self.disjuncts:
                goal_facts.update(set_bits(d))
            for choices in self.part_choices:
                for _, facts, _ in choices:
                    goal_facts.update(facts)
            data = self._propagation = SimpleNamespace(
                pre_counts=[len(p) for p in self.pre_lists], costs=[a.cost for a in self.actions],
                free=[i for i, p in enumerate(self.pre_lists) if not p], goal_facts=frozenset(goal_facts))
        return data

    def _goal_components(self, u) -> list[int] | None:
        """An existential goal too large to expand, split into independent parts.

        The conjuncts of `exists(vars, and(...))` fall into groups that share no variable except
        through inequalities (two dishes of one order). Each group is expanded on its own and
        becomes a pseudo-fact reached by a zero-cost relaxed action per disjunct; the goal is the
        conjunction of the parts. Inequalities between groups are dropped from the parts, which
        only makes the relaxation more optimistic (two parts may pick the same object), so
        admissible heuristics stay admissible; what they imply is added back as goal landmarks
        (_goal_dnf). None when the goal has no such shape or does not split."""
        groups, cross, params, find = goal_groups(self.task.goal.goal)
        if groups is None:
            return None
        from groundplan.engine import model as m

        if len(groups) < 2:
            return None
        for k, (group, conjuncts) in enumerate(sorted(groups.items(), key=lambda x: str(x[0]))):
            formula = m.And(tuple(conjuncts))
            if group is not None:
                formula = m.Quantified("exists", tuple((v, t) for v, t in params if find(v) == group), formula)
            dnf = self._ground_dnf(u.compiler.ground(formula, {}))
            if dnf is False:
                return []
            self._goal_part(k, dnf)
        goal = 0
        for fact, _ in self._goal_parts:
            goal |= fact
        return [goal]

    def _goal_part(self, k: int, dnf: list[int]) -> int:
        """Register goal part k, reached by any of its disjuncts; returns its pseudo-fact."""
        if len(dnf) > MAX_PART_DISJUNCTS:
            dnf = [_common(dnf)]
        fact = 1 << self.task.facts.id(f"goal-part:{k}", ())
        self._goal_parts.append((fact, dnf))
        atoms = self.task.facts.atoms
        self.part_choices.append([(mask, set_bits(mask), frozenset(x for f in set_bits(mask) for x in atoms[f][1]))
                                  for mask in dnf])
        return fact

    def timer_fact(self, tid: int) -> int:
        """The pseudo-fact 'timer tid has been started'."""
        bit = self._timer_fact.get(tid)
        if bit is None:
            bit = self._timer_fact[tid] = 1 << self.task.facts.id("timer:" + str(tid), ())
        return bit

    def pseudo_fact(self, kind: str, tid: int) -> int:
        return 1 << self.task.facts.id(f"timer-{kind}:{tid}", ())

    def _add_effect(self, pre: int, effect: GroundEffect, cost, source, pending, conditionals: bool = True) -> int:
        """A relaxed action for an effect's unconditional part; returns its adds.

        With `conditionals`, each conditional branch becomes a further relaxed action (used for
        timers, whose phases are free in time-unaware relaxations)."""
        adds = effect.add
        for kind, *item in effect.ordered:
            if kind == "start":
                adds |= self.timer_fact(item[0])
                pending.append(item[0])
            elif kind == "when" and conditionals:
                cond, then, other = item
                extra = (cond.pos | self._requirements(cond)) if isinstance(cond, Condition) else 0
                self._add_effect(pre | extra, then, cost, source, pending)
                self._add_effect(pre, other, cost, source, pending)
            elif kind == "create":
                adds |= self._create_adds(item[0], item[1], pending)
        if conditionals:
            self.actions.append(RelaxedAction(pre, adds, cost, len(self.actions), source))
        return adds

    # ------------------------------------------------------------ per state
    def initial_facts(self, state) -> int:
        bits = self.task.bits(state)
        if self.latches:
            progress = state.progress
            for done, fact in self.latches:
                if progress & done:
                    bits |= fact
        for tid, _ in state.timers:
            bits |= self.timer_fact(tid)
        values = state.values
        for index, top in self.counters.items():
            value = values[index] if index < len(values) else self.task.fluent_defaults[index]
            for level in range(1, min(int(value), top) + 1):
                bits |= self.counter_fact(index, level)
        return bits

    def schedule(self, state, paused: bool = True) -> dict[int, int]:
        """Facts running timers will add, by the step they can complete at the earliest.

        paused=False leaves out the timers whose condition does not hold now (a patty lifted off
        the stove): their completion then needs the condition again, as the relaxed timer
        actions say, so a relaxed plan puts the patty back instead of counting it as cooking.
        That charges the full duration rather than what remains, so it is for the inadmissible
        estimates (h_add, h_FF); the admissible ones keep every started timer scheduled."""
        out: dict[int, int] = {}
        if not self.time_aware:
            return out
        bits = None
        for tid, remaining in state.timers:
            due = self.timer_due.get(tid)
            if not due:
                continue
            if not paused:
                if bits is None:
                    bits = self.task.bits(state)
                condition = self.task.compiled_timer(self.universe, tid).condition
                if condition is False or (isinstance(condition, Condition) and not condition.holds(state, bits)):
                    continue
            # pauses can only delay it: due after `remaining` more steps at the earliest
            out[remaining] = out.get(remaining, 0) | due
        return out

    def goal_reached(self, reached: int) -> bool:
        for d in self.disjuncts:
            if d & ~reached == 0:
                return True
        return False



def _common(masks: list[int]) -> int:
    """What every disjunct shares: every goal state satisfies it, a weaker but admissible goal."""
    common = masks[0]
    for mask in masks[1:]:
        common &= mask
    return common


def goal_groups(goal):
    """Split `exists(vars, and(...))` into groups of conjuncts that share no variable except
    through inequalities (the dishes of an order). Returns (groups: root -> conjuncts, the
    inequalities between groups as (node, roots), the quantified params, root-of-variable),
    or (None, ...) when the goal has no such shape."""
    from groundplan.engine import model as m

    params, parts = [], []
    stack = [goal]
    while stack:
        node = stack.pop()
        if isinstance(node, m.Quantified) and node.kind == "exists":
            params.extend(node.params)
            stack.append(node.body)
        elif isinstance(node, m.And):
            stack.extend(reversed(node.parts))
        else:
            parts.append(node)
    variables = {v for v, _ in params}
    if not variables:
        return None, [], params, None
    if len(variables) < len(params):
        # a name bound twice (exists ?x ... exists ?x ...) means two variables: flattening them
        # into one would ask one object to be both, which is not a relaxation
        return None, [], params, None
    root = {v: v for v in variables}

    def find(v):
        while root[v] != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    def mentioned(node):
        found = set()
        for x in m.walk_nodes(node):
            if isinstance(x, (m.Atom, m.FluentTerm)):
                found.update(a for a in x.args if a in variables)
            elif isinstance(x, m.Equal):
                found.update(a for a in (x.left, x.right) if a in variables)
        return found

    for node in parts:
        if not (isinstance(node, m.Not) and isinstance(node.part, m.Equal)):
            vs = sorted(mentioned(node))
            for a in vs[1:]:
                root[find(a)] = find(vs[0])
    groups: dict = {}
    cross = []
    for node in parts:
        vs = {find(v) for v in mentioned(node)}
        if len(vs) > 1:
            cross.append((node, vs))  # an inequality between two groups
            continue
        groups.setdefault(next(iter(vs)) if vs else None, []).append(node)
    if len(groups) < 2:
        return None, cross, params, find
    return groups, cross, params, find

def _distinct_needed(domain, goal, type_name) -> int:
    """The most variables of a type (or a supertype) that one parameter list or quantifier binds:
    that many distinct created objects a formula may ask for at once (at least 1, at most 8)."""
    from groundplan.engine import model as m

    def count(params):
        return sum(1 for _, t in params if domain.is_subtype(type_name, t))

    lists = [a.params for a in domain.actions.values()] + [d.params for d in domain.derived.values()]
    trees = [a.precondition for a in domain.actions.values()] + [d.formula for d in domain.derived.values()] + [goal]
    lists += [node.params for node in m.walk_nodes(trees) if isinstance(node, (m.Quantified, m.ForallEffect, m.Count, m.Sum))]
    return min(max([1] + [count(p) for p in lists]), 8)


def _level(op, value):
    """The counter level a threshold condition needs (None: a condition a relaxation may ignore)."""
    if op in (">=", "="):
        return int(-(-value // 1))
    if op == ">":
        return int(value // 1) + 1
    return None


def _dnf(node, expand=None):
    """A ground goal node as a list of positive masks (False: unsatisfiable, [0]: trivially true).

    expand(fact id): the masks a positive literal stands for (a derived atom's definition), or
    None to keep the literal."""
    if node is True:
        return [0]
    if node is False:
        return False
    kind = node[0]
    if kind == "lit":
        if not node[2]:
            return [0]
        if expand is not None:
            masks = expand(node[1])
            if masks is not None:
                return masks
        return [1 << node[1]]
    if kind == "test":
        return [0]
    if kind == "or":
        out = []
        for part in node[1]:
            sub = _dnf(part, expand)
            if sub is not False:
                out.extend(sub)
        return _minimal(out) if out else False
    # and: distribute, relaxing to the positive literals alone if it grows too large
    result = [0]
    for part in node[1]:
        sub = _dnf(part, expand)
        if sub is False:
            return False
        if len(result) * len(sub) > MAX_DISJUNCTS:
            if expand is None or part[0] != "lit" or not part[2]:
                continue  # dropping a conjunct is a relaxation
            sub = [1 << part[1]]  # an expanded atom too large to distribute: kept, its axioms reach it
        result = [a | b for a in result for b in sub]
    return _minimal(result)


def _awaited(node, done: int = 0) -> list[tuple[int, object]]:
    """The formulas a temporal goal (engine/goals.py's numbered tree) waits for, each with the
    progress bits that mark it achieved (its own latch or an enclosing one's); 'always' parts
    are left out."""
    kind, mark, body = node
    if kind == "holds":
        return [(done, body)]
    if kind == "always":
        return []
    if kind == "eventually":
        return _awaited(body, done | mark)
    if kind == "later":
        return _awaited(body, done | mark[1])
    if kind == "all":
        return [x for part in body for x in _awaited(part, done)]
    return [x for bit, part in zip(mark, body) for x in _awaited(part, done | bit)]  # sequence


def _minimal(masks):
    """Drop duplicates and masks that include another (their disjunct can never be cheaper)."""
    unique = sorted(set(masks), key=int.bit_count)
    if len(unique) > MAX_GOAL_DISJUNCTS:
        return unique  # minimising is quadratic; a long list is summarised by the caller anyway
    kept = []
    for m in unique:
        if not any(k & m == k for k in kept):
            kept.append(m)
    return kept
