"""Heuristics: blind, goal count, h_max, h_add, h_FF, and expressions declared by the domain.

Each heuristic is a callable `h(state) -> float` (math.inf for a proven dead end) with a
`name` and an `admissible` flag. `make(task, name)` builds one or raises Unsupported with the
reason, which planners turn into the `unsupported` status.

h_max with unit costs uses relaxed planning-graph layers over bitsets (the successor tree
finds each layer's applicable relaxed actions), which is where its speed comes from; other
cost functions use the generic cost-propagation algorithm.
"""
from __future__ import annotations

import heapq
import math

from groundplan.engine.compile import set_bits

from . import kernels
from .relaxation import Relaxation, unsupported

ADMISSIBLE = ("blind", "hmax", "lmcut", "lmcount", "opcount")
NAMES = ("blind", "goal-count", "hmax", "hadd", "hff", "lmcut", "lmcount", "opcount", "max(hmax,lmcut)")


class Unsupported(Exception):
    pass


def make(task, name: str):
    if name == "blind":
        return Blind(task)
    if name == "goal-count":
        return GoalCount(task)
    if name.startswith("max(") and name.endswith(")"):
        parts = [make(task, part.strip()) for part in name[4:-1].split(",")]
        return Maximum(parts)
    if name == "opcount":
        from .opcount import OperatorCounting  # imports OR-Tools: only when asked for

        try:
            return OperatorCounting(task)
        except ValueError as exc:
            raise Unsupported(f"opcount: {exc}") from None
    if name in ("hmax", "hadd", "hff", "lmcut", "lmcount"):
        reason = unsupported(task)
        if reason:
            raise Unsupported(f"{name}: {reason}")
        if name == "lmcut":
            return LMCut(Relaxation(task, time_aware=False))
        if name == "lmcount":
            return LandmarkCount(Relaxation(task, time_aware=False))
        relaxation = Relaxation(task)
        return {"hmax": HMax, "hadd": HAdd, "hff": HFF}[name](relaxation)
    if name in task.domain.heuristics:
        return DomainExpression(task, task.domain.heuristics[name])
    known = list(NAMES) + list(task.domain.heuristics)
    raise Unsupported(f"unknown heuristic '{name}' (known: {', '.join(known)})")


class Blind:
    name = "blind"
    admissible = True

    def __init__(self, task):
        self.task = task
        costs = [a.cost for a in task.universe().actions or ()]
        constant = costs and not any(callable(c) for c in costs) and not task.domain.creates_objects()
        self.min_cost = min(costs) if constant else 0  # every non-goal state needs at least one action
        self.switch = kernels.Switch()
        self._tables = None

    def compiled_tables(self):
        """(tables, 2) once the compiled kernels are loaded: the compiled A* then runs blind
        (search/_compiled_astar.py), which is uniform-cost search at a compiled pace. None while
        they are not, or where the cheapest cost is not a whole number (the kernel's g is an int)."""
        if not float(self.min_cost).is_integer() or not self.switch.compiled():
            return None
        if self._tables is None:
            import numpy as np
            from types import SimpleNamespace

            self._tables = SimpleNamespace(block=np.array([int(self.min_cost)], dtype=np.int64),
                                           head=np.full(1, -1, dtype=np.int64))
        return self._tables, 2

    def __call__(self, state):
        return 0 if self.task.is_goal(state) else self.min_cost

    def from_bits(self, bits: int):
        goal = self.task._goal_for(self.task.universe())
        return 0 if goal is True or (bits & goal.pos == goal.pos and not bits & goal.neg) else self.min_cost


class GoalCount:
    name = "goal-count"
    admissible = False

    def from_bits(self, bits: int):
        goal = self.task._goal_for(self.task.universe())
        if goal is True:
            return 0
        return (goal.pos & ~bits).bit_count() + (goal.neg & bits).bit_count()

    def __init__(self, task):
        if task.goal.temporal:
            raise Unsupported("goal-count: temporally extended goals are not supported")
        self.task = task

    def __call__(self, state):
        goal = self.task._goal_for(self.task.universe(state.created))
        if goal is True:
            return 0
        if goal is False:
            return math.inf
        bits = self.task.bits(state)
        missing = (goal.pos & ~bits).bit_count() + (goal.neg & bits).bit_count()
        if goal.test is not None and not goal.test(state, bits):
            missing += 1
        return missing


class DomainExpression:
    """A heuristic the domain declares as a numeric expression (admissible if the author says so)."""

    def __init__(self, task, definition):
        self.task = task
        self.name = definition.name
        self.admissible = definition.admissible
        self.expression = definition.expression

    def __call__(self, state):
        u = self.task.universe(state.created)
        key = ("heuristic", self.name)
        fn = u.cache.get(key)
        if fn is None:
            fn = u.cache[key] = u.compiler.expr(self.expression, {})
        return fn(state, self.task.bits(state)) if callable(fn) else fn


class _Relaxed:
    """Shared by the relaxation heuristics: one relaxation per universe (the state's created objects)."""

    admissible = False

    def __init__(self, relaxation: Relaxation):
        self.r = relaxation  # the initial universe's, used by the bitset fast path
        self._by_universe = {(): relaxation}

    def relaxation(self, state) -> Relaxation:
        r = self._by_universe.get(state.created)
        if r is None:
            r = self._by_universe[state.created] = Relaxation(self.r.task, state.created, time_aware=self.r.time_aware)
        return r

    def __call__(self, state):
        r = self.relaxation(state)
        if r.goal_unreachable:
            return math.inf
        return self.evaluate(r, r.initial_facts(state), r.schedule(state, paused=self.admissible))

    def from_bits(self, bits: int):
        if self.r.goal_unreachable:
            return math.inf
        return self.evaluate(self.r, bits, {})


class HMax(_Relaxed):
    """h_max: the cost of the most expensive goal fact in the relaxation (for unit costs: the
    relaxed planning-graph layer where a goal disjunct first holds). Timers count their
    remaining duration, so it is a lower bound on the steps to the goal in timed worlds."""

    name = "hmax"
    admissible = True

    def __init__(self, relaxation: Relaxation):
        super().__init__(relaxation)
        self.switch = kernels.Switch()  # to the compiled exploration (kernels.py) once a search runs long enough
        self._compiled = {}
        self._bits = None  # the compiled from_bits, once switched

    def from_bits(self, bits: int):
        if self._bits is not None:
            return self._bits(bits)
        return super().from_bits(bits)

    def compiled_tables(self):
        """(kernels.Tables, 0) once from_bits runs compiled (the compiled A* evaluates with them:
        search/_compiled_astar.py), else None."""
        return (self._compiled[id(self.r)], 0) if self._bits is not None else None

    def evaluate(self, r: Relaxation, reached: int, schedule: dict):
        if not r.integral:
            return _propagate(r, reached, max, schedule)[0]
        if self.switch.compiled():
            tables = self._compiled.get(id(r))
            if tables is None:
                from .lmcut import LMCutData

                tables = self._compiled[id(r)] = kernels.Tables(LMCutData(r))
                if r is self.r:
                    self._bits = kernels.bits_function(tables, "hmax")
            return kernels.hmax(tables, reached, schedule)
        return self.python(r, reached, schedule)

    def python(self, r: Relaxation, reached: int, schedule: dict):
        """The interpreted exploration (the fallback, and the reference the compiled one is tested against)."""
        if r.goal_reached(reached):
            return 0
        # Relaxed exploration over the successor trie in cost buckets: every node is activated
        # once, when the facts on its path are first reached; between buckets only frontier
        # children keyed by newly reached facts are visited. An action of cost c activated at
        # time t adds its facts at t + c (zero-cost ones within the current bucket).
        layer = 0
        buckets = dict(schedule)
        stack = [r.tree]
        frontier = []
        while True:
            zero_add = 0
            while stack:
                node = stack.pop()
                for a in node.actions:
                    c = a.cost
                    if c:
                        at = layer + int(c)
                        buckets[at] = buckets.get(at, 0) | a.add
                    else:
                        zero_add |= a.add
                mask = node.mask
                if mask:
                    if mask & ~reached:
                        frontier.append(node)
                    live = mask & reached
                    children = node.children
                    while live:
                        low = live & -live
                        stack.append(children[low.bit_length() - 1])
                        live ^= low
            new = zero_add & ~reached
            if not new:
                while True:
                    if not buckets:
                        return math.inf
                    layer = min(buckets)
                    new = buckets.pop(layer) & ~reached
                    if new:
                        break
            reached |= new
            if r.goal_reached(reached):
                return layer
            still = []
            for node in frontier:
                live = node.mask & new
                if live:
                    children = node.children
                    while live:
                        low = live & -live
                        stack.append(children[low.bit_length() - 1])
                        live ^= low
                if node.mask & ~reached:
                    still.append(node)
            frontier = still


class _PerRelaxation(_Relaxed):
    """A relaxed heuristic with per-relaxation tables, built on a relaxation's first use."""

    def __init__(self, relaxation: Relaxation):
        super().__init__(relaxation)
        self._data = {}

    def tables(self, r):
        data = self._data.get(id(r))
        if data is None:
            data = self._data[id(r)] = self.build(r)
        return data


class LMCut(_PerRelaxation):
    name = "lmcut"
    admissible = True

    def __init__(self, relaxation: Relaxation):
        super().__init__(relaxation)
        self.switch = kernels.Switch()  # to the compiled rounds (kernels.py) once a search runs long enough
        self._bits = None  # the compiled from_bits, once switched

    def from_bits(self, bits: int):
        if self._bits is not None:
            return self._bits(bits)
        return super().from_bits(bits)

    def compiled_tables(self):
        """(kernels.Tables, 1) once from_bits runs compiled (as HMax.compiled_tables), else None."""
        return (self.tables(self.r).compiled(), 1) if self._bits is not None else None

    def build(self, r):
        from .lmcut import LMCutData

        return LMCutData(r)

    def evaluate(self, r, reached, schedule):
        data = self.tables(r)
        if self.switch.compiled() and not r.goal_unreachable and data.integral:
            if r is self.r and self._bits is None:
                self._bits = kernels.bits_function(data.compiled(), "lmcut")
            return kernels.lmcut(data.compiled(), reached)
        from .lmcut import lmcut

        return lmcut(data, reached)


class LandmarkCount(_PerRelaxation):
    """Landmarks with pairwise-disjoint achievers, counted (planners/heuristics/landmarks.py)."""

    name = "lmcount"
    admissible = True

    def build(self, r):
        from .landmarks import LandmarkData

        return LandmarkData(r)

    def evaluate(self, r, reached, schedule):
        from .landmarks import landmark_count

        return landmark_count(self.tables(r), r, reached)


class Maximum:
    """The maximum of several heuristics: admissible when all of them are."""

    def __init__(self, parts):
        self.parts = parts
        self.name = "max(" + ",".join(p.name for p in parts) + ")"
        self.admissible = all(p.admissible for p in parts)
        if all(hasattr(p, "from_bits") for p in parts):
            self.from_bits = lambda bits: max(p.from_bits(bits) for p in parts)

    def __call__(self, state):
        best = 0
        for p in self.parts:
            value = p(state)
            if value == math.inf:
                return value
            best = max(best, value)
        return best


class HAdd(_Relaxed):
    name = "hadd"

    def evaluate(self, r, reached, schedule):
        return _propagate(r, reached, sum, schedule)[0]


class HFF(_Relaxed):
    """h_FF: the cost of a relaxed plan; its first actions are the state's preferred operators."""

    name = "hff"

    # what each goal fact the relaxed plan deletes and does not re-add costs on top of the plan (0:
    # plain h_FF). Restoring one means undoing a stack (several steps), so one is too little: with
    # 1 the two-dish kitchen tasks (async 08, 09) are not solved in 100 s, with 3 they are
    goal_deletion = 3

    def __init__(self, relaxation: Relaxation):
        super().__init__(relaxation)
        self.preferred: set = set()  # ground actions of the last relaxed plan applicable in its state
        self.switch = kernels.Switch()  # to the compiled exploration (_compiled_ff.py) once a search runs long enough
        self._ff = None  # the compiled tables of self.r, once switched (False: not compilable)

    def from_bits(self, bits: int):
        """The bitset fast path (no preferred operators: the bitset searches do not use them),
        compiled once the search has run long enough, for a conjunctive goal with integer costs."""
        if self._ff is None and self.switch.compiled():
            self._ff = _FFTables.build(self.r, self.goal_deletion) or False
        if self._ff:
            return self._ff.value(bits)
        return super().from_bits(bits)

    def evaluate(self, r, reached, schedule):
        self.preferred = set()
        value, cost, supporter, best = _propagate(r, reached, sum, schedule)
        if value == math.inf:
            return math.inf
        chosen = set()
        stack = [f for f in set_bits(best) if not reached >> f & 1]
        seen = set()
        while stack:
            fact = stack.pop()
            if fact in seen:
                continue
            seen.add(fact)
            action = supporter.get(fact)
            if action is None or action in chosen:
                continue
            chosen.add(action)
            stack.extend(f for f in r.pre_lists[action] if not reached >> f & 1)
        deleted = added = 0
        for i in chosen:
            relaxed = r.actions[i]
            added |= relaxed.add
            if relaxed.source is not None:
                deleted |= relaxed.source.effect.delete
                if relaxed.pre_pos & ~reached == 0:
                    self.preferred.add(relaxed.source.name)  # names: indices differ between universes
        value = sum(r.actions[i].cost for i in chosen)
        if self.goal_deletion:
            # a relaxed plan that must destroy a goal fact and never restores it (unstacking what
            # sits on the bread that has to end on top) is further off than its length says
            value += self.goal_deletion * (deleted & best & ~added).bit_count()
        return value


class _FFTables:
    """HFF.evaluate's exploration and extraction, compiled (_compiled_ff.hff_plan), over flat arrays
    of one relaxation; the same value as the Python path (tests/test_planners.py)."""

    @classmethod
    def build(cls, r: Relaxation, goal_deletion: int):
        if r.goal_unreachable or not r.integral or len(r.disjuncts) != 1 or r.part_choices or r.sum_consumers is not r.consumers:
            return None
        try:
            from . import _compiled_ff
        except ImportError:
            return None
        return cls(r, goal_deletion, _compiled_ff.hff_plan)

    def __init__(self, r: Relaxation, goal_deletion: int, kernel):
        import numpy as np

        data = r.propagation_data()
        n_actions = len(r.actions)
        n_bits = 1 + max([f for lst in r.add_lists for f in lst] + [f for lst in r.pre_lists for f in lst]
                         + set_bits(r.disjuncts[0]) + [0])

        from .kernels import csr
        i64 = lambda xs: np.asarray(xs, dtype=np.int64)
        add_start, add_idx = csr(r.add_lists)
        cons_start, cons_idx = csr([r.consumers.get(f, ()) for f in range(n_bits)])
        pre_start, pre_idx = csr(r.pre_lists)
        self.best = r.disjuncts[0]
        goal = i64(set_bits(self.best))
        self.args = (n_bits, i64(data.pre_counts), i64([int(c) for c in data.costs]), add_start, add_idx, cons_start,
                     cons_idx, pre_start, pre_idx, i64(data.free), goal, np.zeros(n_bits, dtype=np.int64),
                     np.zeros(n_bits, dtype=np.int64), np.zeros(n_bits, dtype=np.uint8), np.zeros(n_actions, dtype=np.int64),
                     np.zeros(n_actions, dtype=np.int64), np.zeros(n_bits, dtype=np.uint8),
                     np.zeros(n_actions, dtype=np.int64))
        self.chosen = self.args[-1]
        self.kernel = kernel
        self.costs = [int(c) for c in data.costs]
        self.goal_deletion = goal_deletion
        # per action: the goal facts it deletes, and what it adds (for HFF's goal-deletion term)
        self.deletes = [(a.source.effect.delete & self.best) if a.source is not None else 0 for a in r.actions]
        self.adds = [a.add for a in r.actions]

    def value(self, bits: int):
        n = self.kernel(bits.to_bytes((bits.bit_length() + 7) >> 3, "little"), *self.args)
        if n < 0:
            return math.inf
        costs = self.costs
        value = 0
        deleted = added = 0
        for i in self.chosen[:n].tolist():
            value += costs[i]
            deleted |= self.deletes[i]
            added |= self.adds[i]
        if self.goal_deletion:
            value += self.goal_deletion * (deleted & ~added).bit_count()
        return value


def _propagate(r: Relaxation, reached: int, combine, schedule=None):
    """Generic relaxed cost propagation (Dijkstra over facts); combine = max (h_max) or sum (h_add).

    Stops once every fact a goal disjunct (or goal part) mentions is settled: later facts cannot
    change the goal's value or the supporters a relaxed plan uses.
    Returns (value, fact costs, best supporters, the cheapest goal disjunct's mask)."""
    cost: dict[int, float] = {}
    heap = []
    for f in set_bits(reached):
        cost[f] = 0
        heap.append((0, f))
    get = cost.get
    inf = math.inf
    for at, mask in (schedule or {}).items():
        for f in set_bits(mask):
            if at < get(f, inf):
                cost[f] = at
                heap.append((at, f))
    data = r.propagation_data()
    remaining = list(data.pre_counts)
    costs, add_lists = data.costs, r.add_lists
    is_max = combine is max
    consumers = r.consumers if is_max else r.sum_consumers
    supporter: dict[int, int] = {}
    acc = [0] * len(remaining)
    for i in data.free:
        c = costs[i]
        for f in add_lists[i]:
            if c < get(f, inf):
                cost[f] = c
                supporter[f] = i
                heap.append((c, f))
    heapq.heapify(heap)
    done = set()
    pending = set(data.goal_facts)
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap:
        c, f = heappop(heap)
        if f in done or c > cost[f]:
            continue
        done.add(f)
        if f in pending:
            pending.discard(f)
            if not pending:
                break
        for i in consumers.get(f, ()):
            if is_max:
                if c > acc[i]:
                    acc[i] = c
            else:
                acc[i] += c
            remaining[i] -= 1
            if remaining[i] == 0:
                total = acc[i] + costs[i]
                for g in add_lists[i]:
                    if total < get(g, inf):
                        cost[g] = total
                        supporter[g] = i
                        heappush(heap, (total, g))
    if combine is not max and r.part_choices:
        value, mask = _choose_parts(r, cost)
        return value, cost, supporter, mask
    best_value, best_mask = math.inf, 0
    for d in r.disjuncts:
        values = [cost.get(f, math.inf) for f in set_bits(d)]
        value = 0 if not values else (max(values) if combine is max else sum(values))
        if value < best_value:
            best_value, best_mask = value, d
    return best_value, cost, supporter, best_mask


def _choose_parts(r: Relaxation, cost: dict):
    """Bind a goal split into parts (see Relaxation._goal_components) greedily, part by part: the
    cheapest disjunct (by summed fact costs) that names no object an earlier part took, so two
    like dishes are not both counted as one. Not admissible; used by h_add and h_FF only."""
    used: set = set()
    total, union = 0, 0
    for choices in r.part_choices:
        best = best_free = None
        get = cost.get
        for mask, facts, objects in choices:
            value = 0
            for f in facts:
                value += get(f, math.inf)
            if best is None or value < best[0]:
                best = (value, mask, objects)
            if (best_free is None or value < best_free[0]) and not objects & used:
                best_free = (value, mask, objects)
        value, mask, objects = best_free or best
        if value == math.inf:
            return math.inf, 0
        total += value
        union |= mask
        used |= objects
    extra = r.goal_landmarks & ~union  # what the inequalities between the parts imply (goal_landmarks.py)
    for f in set_bits(extra):
        total += cost.get(f, math.inf)
    if total == math.inf:
        return math.inf, 0
    return total, union | r.goal_landmarks
