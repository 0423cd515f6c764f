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

from engine import model as m
from engine.compile import set_bits


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
        self._cache: dict[int, list] = {}

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

    def key(self, state):
        """A canonical representative of the state's renamings (as a hashable tuple)."""
        task = self.task
        atoms = task.facts.atoms
        cache = self._cache
        profile: dict[str, list] = {}
        fids = set_bits(state.facts)
        for fid in fids:
            entries = cache.get(fid)
            if entries is None:
                pred, args = atoms[fid]
                entries = cache[fid] = self._entries(0, pred, args)
            for obj, entry in entries:
                profile.setdefault(obj, []).append(entry)
        values = [(i, v) for i, v in enumerate(state.values) if v != task.fluent_defaults[i]]
        for i, v in values:
            name, args = task.fluent_keys[i]
            for obj, entry in self._entries(1, name, args, v):
                profile.setdefault(obj, []).append(entry)
        for tid, r in state.timers:
            name, args = task.timer_keys[tid]
            for obj, entry in self._entries(2, name, args, r):
                profile.setdefault(obj, []).append(entry)
        rename = {}
        for members in self.classes:
            ordered = sorted(members, key=lambda o: (sorted(profile.get(o, ())), o))
            if ordered != members:
                for new, old in zip(members, ordered):
                    if new != old:
                        rename[old] = new
        if not rename:
            return (state.facts, tuple(values), state.timers, state.turn, state.progress, state.created)
        facts = task.facts
        bits = 0
        for fid in fids:
            pred, args = atoms[fid]
            if any(x in rename for x in args):
                fid = facts.id(pred, tuple(rename.get(x, x) for x in args))
            bits |= 1 << fid
        canon_values = tuple(sorted((task.fluent_index((task.fluent_keys[i][0], tuple(rename.get(x, x) for x in task.fluent_keys[i][1]))), v)
                                    for i, v in values))
        canon_timers = tuple(sorted((task.timer_id(task.timer_keys[tid][0], tuple(rename.get(x, x) for x in task.timer_keys[tid][1])), r)
                                    for tid, r in state.timers))
        return (bits, canon_values, canon_timers, state.turn, state.progress, state.created)
