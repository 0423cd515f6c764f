"""Symmetry reduction: interchangeable objects make many states the same up to renaming.

Two objects are interchangeable when swapping them maps the task onto itself: the same type,
the same static facts (with the object itself abstracted), and neither named by the goal, the
domain's formulas, a routing section or the agent order. Every kitchen has several empty tables,
extra stoves, identical buns; renaming them changes nothing about the cost to the goal.

Search then keys its duplicate detection by a canonical form of each state: within each class,
objects are relabelled in the order of what holds of them (their facts, values and timers with
the object abstracted). A state and its renamed twin get the same key, so only one is expanded.
The canonical form need not be perfect (ties are broken by name) to be sound: two states with
the same key are always renamings of each other, so costs to the goal agree. Parents keep the
actual states, so the returned plan is a real plan of the task.
"""
from __future__ import annotations

from groundplan.engine import model as m


def _named_objects(task) -> set[str]:
    """Objects a formula, effect or goal names directly (symmetry must keep them fixed)."""
    named: set[str] = set(task.agents)
    domain = task.domain

    def term(t):
        if isinstance(t, str) and not t.startswith("?"):
            named.add(t)

    def walk(tree):
        for x in m.walk_nodes(tree):
            if isinstance(x, (m.Atom, m.FluentTerm, m.StartTimer, m.StopTimer)):
                for a in x.args:
                    term(a)
            elif isinstance(x, m.Equal):
                term(x.left)
                term(x.right)

    for action in domain.actions.values():
        walk(action.precondition)
        walk(action.effects)
        walk(action.cost)
    for timer in domain.timers.values():
        walk((timer.condition, timer.running, timer.paused, timer.done, timer.duration))
    for d in domain.derived.values():
        walk(d.formula)
    for h in domain.heuristics.values():
        walk(h.expression)
    walk(task.goal.goal)
    if task.problem.routing:
        walk(list(task.problem.routing["targets"].values()))
    return named


def _timer_order_objects(task) -> set[str]:
    """Objects whose renaming could change the order in which colliding timers tick.

    Timers tick in instance order. Two instances of one timer can only interfere through facts
    that do not mention all of its parameters (cook(item, stove) writes iscooking(item) whatever
    the stove), so the objects that can fill such an unmentioned position in a startable
    instance must stay fixed. Without a grounding to tell which instances can start, every
    object of such a parameter's type is fixed.
    """
    fixed: set[str] = set()
    free_positions: dict[str, list[int]] = {}
    for name, timer in task.domain.timers.items():
        names = [v for v, _ in timer.params]
        mentioned = set(names)
        for effect in m.iter_effects(timer.running + timer.paused + timer.done):
            if isinstance(effect, (m.Add, m.Delete)):
                mentioned &= set(effect.atom.args)
            elif isinstance(effect, m.Update):
                mentioned &= set(effect.target.args)
            elif isinstance(effect, (m.StartTimer, m.StopTimer, m.Create)):
                mentioned = set()
        free_positions[name] = [i for i, v in enumerate(names) if v not in mentioned]
    if not any(free_positions.values()):
        return fixed
    u = task.universe()
    if u.actions is None:
        for name, positions in free_positions.items():
            for i in positions:
                fixed.update(u.compiler.objects_of(task.domain.timers[name].params[i][1]))
        return fixed
    for tid in task.reachable_timers(u):
        name, args = task.timer_keys[tid]
        fixed.update(args[i] for i in free_positions[name])
    return fixed


class Symmetry:
    def __init__(self, task, classes: list[list[str]]):
        self.task = task
        self.classes = classes
        self.member = {o: i for i, c in enumerate(classes) for o in c}
        self._cache: dict[int, list] = {}  # fact id -> [(member, entry id)]
        self._entry_ids: dict[tuple, int] = {}
        self._member_mask = 0  # facts seen so far that mention a member of a class
        self._plain_mask = 0  # facts seen so far that mention none
        self._renamed: dict[tuple, int] = {}
        self._object_masks: dict[str, int] = {}  # member -> the facts seen so far that mention it

    @classmethod
    def detect(cls, task) -> "Symmetry | None":
        """The interchangeable object classes of a task, or None when there are none."""
        named = _named_objects(task) | _timer_order_objects(task)
        signature: dict[str, list] = {o: [] for o in task.problem.objects}
        for pred, args in task.static_facts:
            for i, a in enumerate(args):
                if a in signature:
                    signature[a].append((pred, i, tuple("*" if x == a else x for x in args)))
        for (name, args), value in task.static_values.items():
            for i, a in enumerate(args):
                if a in signature:
                    signature[a].append((name, i, tuple("*" if x == a else x for x in args), value))
        groups: dict[tuple, list[str]] = {}
        for obj, typ in task.problem.objects.items():
            if obj in named:
                continue
            sig = signature[obj]
            # static facts relating two objects tie them down: only self-contained signatures qualify
            if any(any(x != "*" and x in signature for x in entry[2]) for entry in sig):
                continue
            groups.setdefault((typ, tuple(sorted(sig))), []).append(obj)
        classes = [sorted(g) for g in groups.values() if len(g) > 1]
        return cls(task, classes) if classes else None

    def _entries(self, kind: int, name: str, args: tuple, extra=None) -> list:
        """(member, what it says of that member) for each interchangeable object in args."""
        member = self.member
        out = []
        for me in args:
            if me in member:
                abstract = tuple("*" if x == me else ("#%d" % member[x] if x in member else x) for x in args)
                out.append((me, (kind, name, abstract, extra)))
        return out

    def _fact_entries(self, fid: int) -> list:
        """(member, interned description of the fact with that member abstracted), cached per fact."""
        entries = self._cache.get(fid)
        if entries is None:
            pred, args = self.task.facts.atoms[fid]
            entries = self._cache[fid] = [(obj, self._intern(entry)) for obj, entry in self._entries(0, pred, args)]
            if entries:
                self._member_mask |= 1 << fid
                for obj, _ in entries:
                    self._object_masks[obj] = self._object_masks.get(obj, 0) | 1 << fid
            else:
                self._plain_mask |= 1 << fid
        return entries

    def _intern(self, entry) -> int:
        found = self._entry_ids.get(entry)
        if found is None:
            found = self._entry_ids[entry] = len(self._entry_ids)
        return found

    def key(self, state):
        """A canonical representative of the state's renamings (as a hashable tuple).

        Only facts that mention a member of a class can tell members apart, so only those are
        read (the masks of facts seen so far; facts are classified once, on first sight)."""
        task = self.task
        facts = state.facts
        unseen = facts & ~(self._member_mask | self._plain_mask)
        while unseen:
            low = unseen & -unseen
            self._fact_entries(low.bit_length() - 1)
            unseen ^= low
        cache = self._cache
        profile: dict[str, list] = {}
        mentioned = facts & self._member_mask
        while mentioned:
            low = mentioned & -mentioned
            mentioned ^= low
            for obj, entry in cache[low.bit_length() - 1]:
                found = profile.get(obj)
                if found is None:
                    profile[obj] = [entry]
                else:
                    found.append(entry)
        values = [(i, v) for i, v in enumerate(state.values) if v != task.fluent_defaults[i]]
        for i, v in values:
            name, args = task.fluent_keys[i]
            for obj, entry in self._entries(1, name, args, v):
                profile.setdefault(obj, []).append(self._intern(entry))
        for tid, r in state.timers:
            name, args = task.timer_keys[tid]
            for obj, entry in self._entries(2, name, args, r):
                profile.setdefault(obj, []).append(self._intern(entry))
        rename = {}
        empty = ()
        for members in self.classes:
            ordered = sorted(members, key=lambda o: (sorted(profile.get(o, empty)), o))
            if ordered != members:
                for new, old in zip(members, ordered):
                    if new != old:
                        rename[old] = new
        if not rename:
            return (facts, tuple(values), state.timers, state.turn, state.progress, state.created)
        renamed = 0
        for obj in rename:
            renamed |= self._object_masks.get(obj, 0)
        bits = facts & ~renamed
        moved = facts & renamed
        how = tuple(sorted(rename.items()))
        memo = self._renamed
        while moved:
            low = moved & -moved
            moved ^= low
            fid = low.bit_length() - 1
            target = memo.get((fid, how))
            if target is None:
                pred, args = task.facts.atoms[fid]
                target = memo[(fid, how)] = task.facts.id(pred, tuple(rename.get(x, x) for x in args))
            bits |= 1 << target
        canon_values = tuple(sorted((task.fluent_index((task.fluent_keys[i][0], tuple(rename.get(x, x) for x in task.fluent_keys[i][1]))), v)
                                    for i, v in values))
        canon_timers = tuple((task.timer_id(task.timer_keys[tid][0], tuple(rename.get(x, x) for x in task.timer_keys[tid][1])), r)
                             for tid, r in state.timers)  # start order is part of the state: kept
        return (bits, canon_values, canon_timers, state.turn, state.progress, state.created)
