"""Operator counting: an admissible heuristic from a linear program over action counts.

The delete relaxation (h_max, LM-cut) lets the robot stand at every station it has visited at
once, so it charges one move per station where a real plan walks back and forth: on the
kitchen's sandwich tasks it is 10 steps short of the optimum. Counting fixes what the relaxation
forgets (Pommerening, Röger, Helmert and Bonet, "LP-based heuristics for cost-optimal planning",
ICAPS 2014). One LP variable counts how often each action occurs; constraints that every plan
satisfies bound the counts from below; the LP's optimum is a lower bound on the plan's cost.

The constraints (all generic, built from the ground task and the domain's declared invariants):

- **State equation, per fact.** A fact the goal needs and the state lacks must be added more
  often than it is surely deleted: sum(adders) - sum(sure consumers) >= goal - now. A sure
  consumer requires the fact and deletes it.
- **State equation over pairs of exactly-one groups.** An invariant "each player is at exactly
  one station" is a state variable; so is "each player holds exactly one thing or nothing". The
  equation over the product of two such variables is a flow: picking up at A and placing at B
  needs moves from A to B *with the item in hand*, which no equation over single facts says.
  An action that changes one variable and does not mention the other is split by the other's
  value (a move happens with some hand content); the split counts add up to the action's count.
- **Counters.** A fluent raised by a constant and compared with thresholds ("the third cut
  makes it cut") becomes a variable of its values; actions that update it are split by the value
  they see, which decides their threshold-gated effects.
- **Timers.** A timer's completion is a free pseudo-action that needs the timer started (one
  start, one completion) and adds its done-effects. Time itself is not counted here: combine
  with the time-aware h_max (`max(hmax,opcount)`).
- **Existential goals.** A choice variable per goal disjunct, per independent goal part, with
  the goal facts' demand z_f >= choice, so an LP may mix the two breads as bottom slice but
  must still build one sandwich.

Per state only right-hand sides change, so the model is built once per universe and GLOP
re-solves it from the previous basis.
"""
from __future__ import annotations

import math

from groundplan.engine import model as m
from groundplan.engine.compile import Condition, set_bits

from .relaxation import Relaxation, unsupported

MAX_SPLIT_VARIABLES = 3000  # budget for pair splitting (a move split by hand content is one per value)
EPSILON = 1e-6


class _Piece:
    """One LP column: an action (or a timer's completion) under a known context."""

    __slots__ = ("source", "cost", "pre", "adds", "dels", "counter", "column")

    def __init__(self, source, cost, pre, adds, dels, counter=None):
        self.source = source  # index of the ground action, or ("timer", tid)
        self.cost = cost
        self.pre = pre
        self.adds = adds  # facts it may add
        self.dels = dels  # facts it surely deletes (required, deleted, not re-added)
        self.counter = counter  # (fluent index, value before, value after) or None
        self.column = None


def _condition_adds_dels(effect, relax):
    """(possible adds, possible deletes) of an effect's conditional branches (both branches)."""
    adds = dels = 0
    for item in effect.items():
        if item[0] == "when":
            for branch in (item[2], item[3]):
                adds |= relax.adds_of(branch)
                dels |= _all_deletes(branch)
    return adds, dels


def _all_deletes(effect):
    dels = effect.delete
    for item in effect.items():
        if item[0] == "when":
            dels |= item[2].delete | item[3].delete
    return dels


class OperatorCountingModel:
    """The LP of one universe (a state's created objects), built once and re-solved per state."""

    def __init__(self, task, created=()):
        from ortools.linear_solver import pywraplp  # imported here: start-up stays fast

        self.task = task
        relax = self.relax = Relaxation(task, created, time_aware=False)
        self.unreachable = relax.goal_unreachable
        u = relax.universe
        self.pieces: list[_Piece] = []
        self.uncontrolled = 0  # facts timer phases may add at no cost: no equation for them
        self.timer_started: dict[int, int] = {}  # tid -> its pseudo-fact bit
        counters = dict(relax.counters)
        timer_effects = []
        for tid in task.reachable_timers(u):
            timer = task.compiled_timer(u, tid)
            timer_effects.append((tid, timer))
            for effect in (timer.running, timer.paused, timer.done):
                for item in effect.items():
                    if item[0] == "update":
                        counters.pop(item[2], None)  # raised by time, not by actions: not modelled
        self.counters = counters
        for index, action in enumerate(u.actions):
            self._action_pieces(index, action)
        for tid, timer in timer_effects:
            started = relax.timer_fact(tid)
            self.timer_started[tid] = started
            cond = timer.condition
            pre = started | (cond.pos if isinstance(cond, Condition) else 0)
            if cond is False:
                continue
            adds = relax.adds_of(timer.done)
            dels = timer.done.delete & pre & ~adds
            self.pieces.append(_Piece(("timer", tid), 0, pre, adds, dels | started))
            for phase in (timer.running, timer.paused):
                self.uncontrolled |= relax.adds_of(phase)
        self.pseudo = {bit.bit_length() - 1 for bit in self.timer_started.values()}
        self.groups = self._groups(u, timer_effects)
        self.group_masks = [_mask(members) for members in self.groups]
        self.pieces_of: dict[int, list[_Piece]] = {}  # ground action index -> its columns' pieces
        for piece in self.pieces:
            if isinstance(piece.source, int):
                self.pieces_of.setdefault(piece.source, []).append(piece)
        self.pairs = self._choose_pairs()
        self._build(pywraplp)

    # ------------------------------------------------------------ pieces
    def _action_pieces(self, index, action):
        relax = self.relax
        cost = action.cost if not callable(action.cost) else 0
        effect = action.effect
        base_adds = relax.adds_of(effect) if not effect.simple else effect.add
        updated = [item[2] for item in effect.items() if item[0] == "update" and item[2] in self.counters]
        if len(set(updated)) != 1:
            adds = base_adds
            dels = effect.delete & action.pre_pos & ~adds
            self.pieces.append(_Piece(index, cost, action.pre_pos, adds, dels))
            return
        counter = updated[0]
        top = self.counters[counter]
        for before in range(top + 1):
            for after, adds in self._counter_outcomes(effect, counter, before, top):
                dels = effect.delete & action.pre_pos & ~adds
                self.pieces.append(_Piece(index, cost, action.pre_pos, adds, dels, (counter, before, after)))

    def _counter_outcomes(self, effect, counter, before, top):
        """Every (value after, possible adds) of an effect applied with the counter at `before`:
        threshold-gated branches are decided by the value; other branches may go either way."""
        outcomes = [(before, effect.add)]
        for item in effect.ordered:
            kind = item[0]
            if kind == "update":
                _, op, index, amount = item
                if index != counter:
                    continue
                outcomes = [(_apply(op, value, amount, top), adds) for value, adds in outcomes]
            elif kind == "when":
                _, cond, then, other = item
                verdict = _branch_verdict(cond, counter, before, top)
                nxt = []
                for value, adds in outcomes:
                    for fires, branch in ((True, then), (False, other)):
                        if verdict is not None and verdict != fires:
                            continue
                        v = value
                        for sub in branch.items():
                            if sub[0] == "update" and sub[2] == counter:
                                v = _apply(sub[1], v, sub[3], top)
                        nxt.append((v, adds | self.relax.adds_of(branch)))
                outcomes = nxt
            elif kind in ("start", "create"):
                extra = self.relax.adds_of(_Only(item))
                outcomes = [(value, adds | extra) for value, adds in outcomes]
        merged: dict[int, int] = {}
        for value, adds in outcomes:
            merged[value] = merged.get(value, 0) | adds
        return sorted(merged.items())

    # ------------------------------------------------------------ exactly-one groups
    def _groups(self, u, timer_effects) -> list[list[int]]:
        """The domain's exactly-one invariants, ground, kept where every action respects them as a
        state variable (an action that adds a value requires and deletes the old one)."""
        task = self.task
        groups = []
        for inv in task.domain.invariants:
            for members in _ground_exactly_one(inv.formula, u.compiler, task):
                if members:
                    groups.append(members)
        bits0 = task.bits(task.initial_state())
        timer_touched = 0
        for _, timer in timer_effects:
            for effect in (timer.running, timer.paused, timer.done):
                timer_touched |= self.relax.adds_of(effect) | _all_deletes(effect)
        kept = []
        for members in groups:
            mask = _mask(members)
            if (bits0 & mask).bit_count() != 1 or mask & timer_touched:
                continue
            if all(_respects(action, mask, self.relax) for action in u.actions):
                kept.append(members)
        return kept

    def _choose_pairs(self):
        """Pairs of groups whose product says more than the two alone: one variable changes while
        the other is required as it is (pick up *at* a station), and the other changes without
        mentioning the first (a move, whatever is in hand). Cheapest splits first, within a budget."""
        u = self.relax.universe
        masks = self.group_masks
        candidates = []
        for i in range(len(masks)):
            for j in range(i + 1, len(masks)):
                gi, gj = masks[i], masks[j]
                prevail = split = 0
                for action in u.actions:
                    changes_i = bool(action.effect.add & gi)
                    changes_j = bool(action.effect.add & gj)
                    needs_i = bool(action.pre_pos & gi)
                    needs_j = bool(action.pre_pos & gj)
                    if (changes_i and needs_j and not changes_j) or (changes_j and needs_i and not changes_i):
                        prevail += 1
                    if changes_i and not needs_j:
                        split += len(self.groups[j])
                    elif changes_j and not needs_i:
                        split += len(self.groups[i])
                if prevail and split:
                    candidates.append((-prevail / split, split, i, j))
        candidates.sort()
        chosen, budget = [], MAX_SPLIT_VARIABLES
        for _, split, i, j in candidates:
            if split <= budget:
                chosen.append((i, j))
                budget -= split
        return chosen

    # ------------------------------------------------------------ the LP
    def _build(self, pywraplp):
        solver = self.solver = pywraplp.Solver.CreateSolver("GLOP")
        inf = solver.infinity()
        for k, piece in enumerate(self.pieces):
            piece.column = solver.NumVar(0, inf, f"x{k}")
        objective = solver.Objective()
        for piece in self.pieces:
            if piece.cost:
                objective.SetCoefficient(piece.column, piece.cost)
        objective.SetMinimization()
        # goal: per part a choice among its disjuncts; z_f >= the part's choices that need f (in a
        # plan exactly one disjunct per part holds, so z_f is 1 exactly when f is needed)
        parts = self.relax._goal_parts
        # no action adds a derived fact (only the relaxation's axioms do, and they are no columns
        # here): demanding one would be infeasible. Derived goal atoms are mostly inlined anyway
        derived = self.relax.derived_mask
        part_masks = [[mask & ~derived for mask in masks] for _, masks in parts] if parts else [
            [d & ~derived for d in self.relax.disjuncts]]
        if parts and self.relax.goal_landmarks & ~derived:  # what the inequalities between parts imply
            part_masks.append([self.relax.goal_landmarks & ~derived])
        self.demand = {}
        for p, masks in enumerate(part_masks):
            choose = solver.Constraint(1, 1)
            needs: dict[int, list] = {}
            for b, mask in enumerate(masks):
                y = solver.NumVar(0, 1, f"y{p}_{b}")
                choose.SetCoefficient(y, 1)
                for f in set_bits(mask):
                    needs.setdefault(f, []).append(y)
            for f, ys in needs.items():
                z = self.demand.get(f)
                if z is None:
                    z = self.demand[f] = solver.NumVar(0, 1, f"z{f}")
                c = solver.Constraint(0, inf)
                c.SetCoefficient(z, 1)
                for y in ys:
                    c.SetCoefficient(y, -1)
        # state equation per fact: rhs = -now
        relevant = set(self.demand)
        for piece in self.pieces:
            relevant.update(set_bits(piece.pre))
        self.fact_rows = {}
        for f in relevant:
            bit = 1 << f
            if bit & self.uncontrolled:
                continue
            row = solver.Constraint(-inf, inf)
            useful = f in self.demand
            for piece in self.pieces:
                if piece.adds & bit:
                    row.SetCoefficient(piece.column, 1)
                elif piece.dels & bit:
                    row.SetCoefficient(piece.column, -1)
                    useful = True
            if f in self.demand:
                row.SetCoefficient(self.demand[f], -1)
            if useful:
                self.fact_rows[f] = row
        # counters: one variable per counted fluent, its values 0..top
        self.counter_rows = {}
        for index, top in self.counters.items():
            for value in range(top + 1):
                row = solver.Constraint(-inf, inf)
                for piece in self.pieces:
                    if piece.counter and piece.counter[0] == index:
                        _, before, after = piece.counter
                        coefficient = (after == value) - (before == value)
                        if coefficient:
                            row.SetCoefficient(piece.column, coefficient)
                self.counter_rows[(index, value)] = row
        self._build_pairs(solver, inf)
        self.rows_now = {}
        # landmarks of LM-cut, per state: rows reused from a pool (sum of a cut's counts >= 1)
        from .lmcut import LMCutData

        self.lm_data = LMCutData(self.relax)
        actions = self.relax.universe.actions  # landmarks name ground actions: by identity, as indices are per universe
        self.columns_of = {actions[index]: [p.column for p in pieces] for index, pieces in self.pieces_of.items()}
        self.landmark_rows = []
        self.landmarks_used = 0

    def _build_pairs(self, solver, inf):
        """The state equation over the product of two exactly-one groups, with split columns."""
        u = self.relax.universe
        self.pair_rows = {}
        for gi, gj in self.pairs:
            first, second = self.groups[gi], self.groups[gj]
            mask_i, mask_j = self.group_masks[gi], self.group_masks[gj]
            rows = {}
            for f in first:
                for g in second:
                    row = solver.Constraint(-inf, inf)
                    rows[(f, g)] = row
                    if f in self.demand and g in self.demand:
                        z = solver.NumVar(0, 1, f"z{f}_{g}")
                        c = solver.Constraint(-1, inf)  # z_fg >= z_f + z_g - 1
                        c.SetCoefficient(z, 1)
                        c.SetCoefficient(self.demand[f], -1)
                        c.SetCoefficient(self.demand[g], -1)
                        row.SetCoefficient(z, -1)
            for index, action in enumerate(u.actions):
                moves_i = bool(action.effect.add & mask_i & ~action.pre_pos)
                moves_j = bool(action.effect.add & mask_j & ~action.pre_pos)
                if not (moves_i or moves_j):
                    continue
                before_i = _value(action.pre_pos & mask_i)
                before_j = _value(action.pre_pos & mask_j)
                after_i = _value(action.effect.add & mask_i) if moves_i else before_i
                after_j = _value(action.effect.add & mask_j) if moves_j else before_j
                choices = [(a, b) for a in ([before_i] if before_i is not None else first)
                           for b in ([before_j] if before_j is not None else second)]
                link = solver.Constraint(0, 0)  # split counts add up to the action's count
                for piece in self.pieces_of[index]:
                    link.SetCoefficient(piece.column, 1)
                for a, b in choices:
                    x = solver.NumVar(0, inf, "")
                    link.SetCoefficient(x, -1)
                    after = (after_i if after_i is not None else a, after_j if after_j is not None else b)
                    if (a, b) != after:
                        rows[(a, b)].SetCoefficient(x, -1)
                        rows[after].SetCoefficient(x, 1)
            self.pair_rows[(gi, gj)] = rows

    # ------------------------------------------------------------ per state
    def __call__(self, state) -> float:
        if self.unreachable:
            return math.inf
        task = self.task
        bits = task.bits(state)
        rows = self.rows_now
        updates = []
        for f, row in self.fact_rows.items():
            if f not in self.pseudo:
                updates.append((row, -float(bits >> f & 1)))
        values = state.values
        for (index, value), row in self.counter_rows.items():
            now = values[index] if index < len(values) else task.fluent_defaults[index]
            now = min(int(now), self.counters[index])
            updates.append((row, -float(now == value)))
        running = {tid for tid, _ in state.timers}
        for tid, bit in self.timer_started.items():
            row = self.fact_rows.get(bit.bit_length() - 1)
            if row is not None:
                updates.append((row, -float(tid in running)))
        for rows_of_pair in self.pair_rows.values():
            for (f, g), row in rows_of_pair.items():
                updates.append((row, -float((bits >> f & 1) and (bits >> g & 1))))
        for row, lb in updates:
            if rows.get(row) != lb:
                row.SetLb(lb)
                rows[row] = lb
        bound = self._set_landmarks(state)
        if bound == math.inf:
            return bound
        status = self.solver.Solve()
        if status == self.solver.INFEASIBLE:
            return math.inf
        if status != self.solver.OPTIMAL:
            return 0  # a solver hiccup must not prune: 0 is always a lower bound
        value = self.solver.Objective().Value()
        return max(bound, math.ceil(value - EPSILON))

    def _set_landmarks(self, state):
        """Put the state's LM-cut landmarks into the LP; returns h^LM-cut (a bound on its own)."""
        from .lmcut import lmcut

        cuts = []
        value = lmcut(self.lm_data, self.relax.initial_facts(state), cuts)
        if value == math.inf:
            return value
        relaxed = self.relax.actions
        used = 0
        for cut, _ in cuts:
            sources = {relaxed[a].source for a in cut}
            if None in sources:
                continue  # a cut through a pseudo-action: not expressible in counts, leave it out
            if used == len(self.landmark_rows):
                self.landmark_rows.append(self.solver.Constraint(0, self.solver.infinity()))
            row = self.landmark_rows[used]
            row.Clear()
            for source in sources:
                for column in self.columns_of.get(source, ()):
                    row.SetCoefficient(column, 1)
            row.SetLb(1)
            used += 1
        for row in self.landmark_rows[used:self.landmarks_used]:
            row.Clear()
            row.SetLb(0)
        self.landmarks_used = used
        return value


class _Only:
    """A one-item effect, to collect the adds of a single ordered item."""

    def __init__(self, item):
        self.add = 0
        self.delete = 0
        self.ordered = [item]

    def items(self):
        return iter(self.ordered)

    @property
    def simple(self):
        return False


def _apply(op, value, amount, top):
    if callable(amount):
        return top  # unknown amount: the least informative value
    if op == "increase":
        value += amount
    elif op == "decrease":
        value -= amount
    elif op == "assign":
        value = amount
    return int(min(max(value, 0), top))


def _branch_verdict(cond, counter, value, top):
    """Whether a branch fires at this counter value: True, False, or None when other facts decide."""
    if cond is True or cond is False:
        return cond
    if not isinstance(cond, Condition):
        return None
    thresholds = [t for t in getattr(cond, "thresholds", ()) if t[1] == counter]
    for op, _, limit in thresholds:
        if value >= top and op in (">=", ">"):
            if (value >= limit) if op == ">=" else (value > limit):
                continue
            return False
        if value >= top:
            continue
        holds = {">=": value >= limit, ">": value > limit, "<=": value <= limit, "<": value < limit,
                 "=": value == limit}.get(op)
        if holds is False:
            return False
    return None  # thresholds pass, but the compiled test may ask more: either way is possible


def _mask(facts) -> int:
    mask = 0
    for f in facts:
        mask |= 1 << f
    return mask


def _value(mask):
    return mask.bit_length() - 1 if mask else None


def _respects(action, mask, relax) -> bool:
    """The action treats the group as one variable: it leaves it alone, requires a value, or
    replaces the value it requires by exactly one other, unconditionally."""
    effect = action.effect
    adds = effect.add & mask
    dels = effect.delete & mask
    cond_adds, cond_dels = _condition_adds_dels(effect, relax)
    if (cond_adds | cond_dels) & mask:
        return False
    for item in effect.items():
        if item[0] == "create" and relax.adds_of(_Only(item)) & mask:
            return False
    pre = action.pre_pos & mask
    if not adds and not dels:
        return pre.bit_count() <= 1
    return pre.bit_count() == 1 and adds.bit_count() == 1 and dels == pre and adds != pre


def _ground_exactly_one(formula, compiler, task):
    """Ground an invariant `forall(params, count(...) + ... + if(atom, 1, 0) = 1)` into its groups
    of fact ids; other shapes give nothing (they are still checked by `groundplan check`)."""
    params = []
    node = formula
    while isinstance(node, m.Quantified) and node.kind == "forall":
        params.extend(node.params)
        node = node.body
    if not (isinstance(node, m.Compare) and node.op == "=" and isinstance(node.right, m.Num) and node.right.value == 1):
        return []
    terms = node.left.parts if isinstance(node.left, m.Arith) and node.left.op == "+" else (node.left,)
    shaped = []
    for term in terms:
        if isinstance(term, m.Count) and isinstance(term.body, m.Atom):
            shaped.append((term.params, term.body))
        elif (isinstance(term, m.IfExpr) and isinstance(term.condition, m.Atom) and isinstance(term.then, m.Num)
              and term.then.value == 1 and isinstance(term.otherwise, m.Num) and term.otherwise.value == 0):
            shaped.append(((), term.condition))
        else:
            return []
    out = []
    for binding in _bindings(params, compiler, {}):
        members = []
        for inner, atom in shaped:
            for full in _bindings(inner, compiler, binding):
                lit = compiler.ground(atom, full)
                if lit is True:
                    members = None
                    break
                if isinstance(lit, tuple) and lit[0] == "lit" and lit[2]:
                    members.append(lit[1])
            if members is None:
                break
        if members:
            out.append(sorted(set(members)))
    return out


def _bindings(params, compiler, base):
    if not params:
        yield dict(base)
        return
    (var, type_name), rest = params[0], params[1:]
    for obj in compiler.objects_of(type_name):
        yield from _bindings(rest, compiler, {**base, var: obj})


class OperatorCounting:
    """The heuristic: one LP per universe (states that created different objects differ)."""

    name = "opcount"
    admissible = True

    def __init__(self, task):
        reason = unsupported(task)
        if reason:
            raise ValueError(reason)
        if task.goal.temporal:  # a part achieved once and undone later breaks the state equation
            raise ValueError("temporally extended goals are not supported: the state equation counts "
                             "what holds at the end, not what held at some point")
        if task.agent_mode == "simultaneous" and len(task.agents) > 1:
            raise ValueError("a joint step applies several actions at once; operator counting counts single actions")
        self.task = task
        self._models: dict[tuple, OperatorCountingModel] = {}

    def model(self, state) -> OperatorCountingModel:
        found = self._models.get(state.created)
        if found is None:
            found = self._models[state.created] = OperatorCountingModel(self.task, state.created)
        return found

    def __call__(self, state):
        return self.model(state)(state)
