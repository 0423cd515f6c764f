"""The delete relaxation of a grounded task, for h_max, h_add and h_FF.

Relaxed actions keep only positive preconditions and add effects. Everything a relaxation may
drop is dropped (negative and numeric conditions, derived atoms in preconditions and goals),
which keeps h_max admissible. Timers are relaxed too: starting a timer adds a pseudo-fact, and
the timer's running and completion effects become a zero-cost relaxed action enabled by it, so
facts only timers produce (a cooked patty) stay reachable. Conditional effects become extra
relaxed actions with the condition's positive part added to the precondition.

What cannot be relaxed soundly here (created objects, temporal goals) makes `unsupported()`
return the reason, so planners refuse instead of pruning states that are not dead ends.
"""
from __future__ import annotations

from engine.compile import Condition, GroundEffect, set_bits

from engine.successors import build_tree


class RelaxedAction:
    __slots__ = ("pre_pos", "add", "cost", "index", "source")

    def __init__(self, pre, add, cost, index, source):
        self.pre_pos = pre
        self.add = add
        self.cost = cost
        self.index = index
        self.source = source  # the ground action (None for timer relaxations)


def unsupported(task) -> str | None:
    if task.domain.creates_objects():
        return "the domain creates objects at run time, which the delete relaxation does not model"
    if task.goal.temporal:
        return "temporally extended goals are not supported by relaxation heuristics"
    if not task.is_grounded:
        return "the task is too large to ground (lifted mode)"
    return None


class Relaxation:
    def __init__(self, task):
        reason = unsupported(task)
        if reason:
            raise ValueError(reason)
        self.task = task
        u = task.universe()
        self.universe = u
        goal = task._goal_for(u)
        self.goal_unreachable = goal is False
        self.goal = 0 if goal is True or goal is False else goal.pos
        self.actions: list[RelaxedAction] = []
        self._timer_fact: dict[int, int] = {}
        pending = []
        for action in u.actions:
            cost = action.cost if not callable(action.cost) else 0  # state-dependent cost: 0 keeps it admissible
            self._add_effect(action.pre_pos, action.effect, cost, action, pending)
        seen = set()
        while pending:
            tid = pending.pop()
            if tid in seen:
                continue
            seen.add(tid)
            timer = task.compiled_timer(u, tid)
            pre = self.timer_fact(tid)
            if isinstance(timer.condition, Condition):
                pre |= timer.condition.pos
            if timer.condition is not False:
                self._add_effect(pre, timer.running, 0, None, pending)
                self._add_effect(pre, timer.done, 0, None, pending)
            self._add_effect(self.timer_fact(tid), timer.paused, 0, None, pending)
        derived = 0
        for fid, (pred, _) in enumerate(task.facts.atoms):
            if pred in task.domain.derived:
                derived |= 1 << fid
        self.derived_mask = derived
        if derived:
            for a in self.actions:
                a.pre_pos &= ~derived
            self.goal &= ~derived
        self.tree = build_tree(self.actions)
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

    def timer_fact(self, tid: int) -> int:
        bit = self._timer_fact.get(tid)
        if bit is None:
            bit = self._timer_fact[tid] = 1 << self.task.facts.id("timer:" + str(tid), ())
        return bit

    def _add_effect(self, pre: int, effect: GroundEffect, cost, source, pending) -> None:
        adds = effect.add
        for kind, *item in effect.ordered:
            if kind == "start":
                adds |= self.timer_fact(item[0])
                pending.append(item[0])
            elif kind == "when":
                cond, then, other = item
                extra = cond.pos if isinstance(cond, Condition) else 0
                self._add_effect(pre | extra, then, cost, source, pending)
                self._add_effect(pre, other, cost, source, pending)
        self.actions.append(RelaxedAction(pre, adds, cost, len(self.actions), source))

    def initial_facts(self, state) -> int:
        bits = self.task.bits(state)
        for tid, _ in state.timers:
            bits |= self.timer_fact(tid)
        return bits
