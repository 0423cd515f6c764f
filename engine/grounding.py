"""Finding the bindings of an action schema without enumerating the full Cartesian product.

The positive atoms of a precondition's top-level conjunction are joins: once some variables
are bound, an index of known facts gives the few values the next variable can take. At
grounding time the index holds the static facts; in lifted mode (when full grounding would be
too large) it also holds the facts of the current state, so each state's applicable actions are
found directly. Equalities and inequalities between parameters prune as early as possible.

Listing the actions applicable in one state of a world too large to ground (Plancraft's 256,320
moves) needs more than joins: its preconditions are numeric comparisons and disjunctions over
fluents, which no fact index holds. A binder made `tested` hands each such conjunct to the
caller as soon as its parameters are bound, to be decided in the state, and binds first the
variables that let it do so: a few tens of thousands of partial bindings are tried instead of
every ground action.
"""
from __future__ import annotations

from collections import defaultdict

from . import model as m
from .parse import is_var


class FactIndex:
    """Facts grouped by predicate, with lazily built lookups by bound argument positions."""

    def __init__(self, facts):
        self.by_pred: dict[str, list[tuple]] = defaultdict(list)
        for pred, args in facts:
            self.by_pred[pred].append(args)
        self._lookups: dict[tuple, dict] = {}

    def values(self, pred: str, bound: tuple[tuple[int, str], ...], position: int) -> set | None:
        """Values at `position` among facts of `pred` matching the bound (position, value) pairs."""
        key = (pred, tuple(p for p, _ in bound), position)
        table = self._lookups.get(key)
        if table is None:
            table = defaultdict(set)
            for args in self.by_pred.get(pred, ()):
                table[tuple(args[p] for p, _ in bound)].add(args[position])
            self._lookups[key] = table
        return table.get(tuple(v for _, v in bound), set())


def top_conjuncts(formula) -> list:
    """The conjuncts of a formula's top-level 'and' (the formula itself otherwise)."""
    if isinstance(formula, m.And):
        out = []
        for part in formula.parts:
            out.extend(top_conjuncts(part))
        return out
    return [formula]


def variables(tree) -> set[str]:
    """Every ?variable named anywhere in a lifted tree (formulas, expressions, effects)."""
    found, stack = set(), [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if is_var(x):
                found.add(x)
        elif hasattr(x, "__dataclass_fields__"):
            stack.extend(getattr(x, name) for name in x.__dataclass_fields__)
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
    return found


class Binder:
    """Enumerates the bindings of `params` that satisfy the join atoms over a FactIndex.

    `tested`: every other conjunct of the precondition becomes a test (`tests`: the conjunct and
    the parameters it names), passed to `bindings`' `passes` once those parameters are bound."""

    def __init__(self, params: m.Params, precondition, join_preds: set[str], tested: bool = False):
        self.params = params
        conjuncts = top_conjuncts(precondition)
        self.atoms = [c for c in conjuncts if isinstance(c, m.Atom) and c.pred in join_preds]
        self.distinct = []  # pairs of terms that must differ
        self.equal = []
        for c in conjuncts:
            if isinstance(c, m.Not) and isinstance(c.part, m.Equal):
                self.distinct.append((c.part.left, c.part.right))
            elif isinstance(c, m.Equal):
                self.equal.append((c.left, c.right))
        self.tests = self._tests(conjuncts) if tested else []
        self.order = self._order()

    def _tests(self, conjuncts) -> list[tuple]:
        """The conjuncts the joins and (in)equality checks leave undecided, with their parameters
        in parameter order. A join atom or an (in)equality is checked by `bindings` only when it
        names a parameter (`(handempty)` is a test)."""
        names = [v for v, _ in self.params]
        tests = []
        for c in conjuncts:
            terms = c.args if c in self.atoms else (c.left, c.right) if isinstance(c, m.Equal) else \
                (c.part.left, c.part.right) if isinstance(c, m.Not) and isinstance(c.part, m.Equal) else ()
            if any(t in names for t in terms):
                continue
            named = variables(c)
            tests.append((c, tuple(v for v in names if v in named)))
        return tests

    def _order(self) -> list[str]:
        """Bind first the variables most constrained by atoms over already bound variables."""
        remaining = [v for v, _ in self.params]
        order: list[str] = []
        while remaining:
            bound = set(order)

            def score(var):
                links = sum(1 for a in self.atoms if var in a.args and all(not is_var(x) or x in bound or x == var for x in a.args))
                touches = sum(1 for a in self.atoms if var in a.args)
                decides = sum(1 for _, named in self.tests if var in named and all(v in bound or v == var for v in named))
                return (-links, -decides, -touches, remaining.index(var))
            best = min(remaining, key=score)
            order.append(best)
            remaining.remove(best)
        return order

    def bindings(self, index: FactIndex, domains: dict[str, list[str]], limit: int | None = None, passes=None):
        """Yield dicts var -> object. `domains` gives each variable's candidate objects by type.
        `passes(conjunct, binding) -> bool` decides the tests (a `tested` binder), each as soon as
        the parameters it names are bound; a binding is yielded only if it passes them all."""
        order = self.order
        position = {var: i for i, var in enumerate(order)}
        # each variable is filtered by every join atom that mentions it, using whatever other
        # terms of the atom are bound by then (constants, or variables bound earlier)
        atoms_for = {var: [a for a in self.atoms if var in a.args] for var in order}

        def bound_before(term, var):
            return not is_var(term) or (term in position and position[term] < position[var])
        checks_for = {var: [(x, y) for x, y in self.distinct if var in (x, y) and all(bound_before(t, var) or t == var for t in (x, y))]
                      for var in order}
        eq_for = {var: [(x, y) for x, y in self.equal if var in (x, y) and all(bound_before(t, var) or t == var for t in (x, y))]
                  for var in order}
        tests_for = {var: [] for var in order}  # each test, at the last of its parameters to be bound
        first = []  # tests that name no parameter
        for conjunct, named in (self.tests if passes is not None else ()):
            (tests_for[max(named, key=position.get)] if named else first).append(conjunct)
        count = 0
        binding: dict[str, str] = {}

        def candidates(var):
            allowed = domains[var]
            best = None
            for atom in atoms_for[var]:
                positions = [p for p, x in enumerate(atom.args) if x == var]
                bound = tuple((p, binding.get(x, x)) for p, x in enumerate(atom.args)
                              if x != var and bound_before(x, var))
                values = index.values(atom.pred, bound, positions[0])
                if len(positions) > 1:  # the same variable twice in one atom: scan (rare)
                    values = {args[positions[0]] for args in index.by_pred.get(atom.pred, ())
                              if all(args[p] == args[positions[0]] for p in positions)
                              and all(args[p] == val for p, val in bound)}
                best = values if best is None else best & values
                if not best:
                    return ()
            if best is None:
                return allowed
            allowed_set = domains.get(("set", var))
            return [o for o in allowed if o in best] if len(best) * 4 > len(allowed) else sorted(o for o in best if o in allowed_set)

        def extend(i):
            nonlocal count
            if i == len(order):
                count += 1
                yield dict(binding)
                return
            var = order[i]
            for obj in candidates(var):
                binding[var] = obj
                if any(binding.get(x, x) == binding.get(y, y) for x, y in checks_for[var]):
                    continue
                if any(binding.get(x, x) != binding.get(y, y) for x, y in eq_for[var]):
                    continue
                if tests_for[var] and not all(passes(c, binding) for c in tests_for[var]):
                    continue
                yield from extend(i + 1)
                if limit is not None and count >= limit:
                    return
            binding.pop(var, None)

        if all(passes(c, binding) for c in first):
            yield from extend(0)


def candidate_domains(params: m.Params, objects_of) -> dict:
    domains = {}
    for var, typ in params:
        objs = objects_of(typ)
        domains[var] = objs
        domains[("set", var)] = set(objs)
    return domains
