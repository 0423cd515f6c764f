"""Derived predicates in the delete relaxation: zero-cost axioms, and goals read through them.

A derived fact holds exactly when its formula does, so the relaxation can reach it as Fast
Downward reaches derived variables: one zero-cost relaxed action (an axiom) per disjunct of the
formula's DNF, adding the fact. Negative literals and numeric tests are dropped from the
disjuncts, which only makes the relaxation more optimistic, so admissible estimates stay
admissible. Without axioms a derived fact in a goal or a precondition had to be dropped, and
every relaxed estimate went blind on goals written through one (the Sokoban's `on-goal`: h_max
0 everywhere, more nodes expanded than blind search).

In the goal, a derived atom is better replaced by its definition: the goal's disjuncts then
name basic facts, which landmark counting and operator counting need (an axiom costs nothing,
so neither can count it). A recursive definition, or one whose expansion grows too large,
keeps the atom, and the axioms reach it.
"""
from __future__ import annotations

from groundplan.engine.compile import set_bits

MAX_AXIOMS = 8192  # disjuncts per derived fact; beyond it, one axiom needing what they all share
MAX_INLINE = 1024  # disjuncts an inlined definition may bring into the goal
MAX_NESTING = 32  # derived atoms inlined inside one another; deeper ones are kept as atoms


class DerivedFacts:
    """Definitions of one universe's derived facts as DNFs over fact ids, computed on demand."""

    def __init__(self, task, compiler, dnf):
        self.task = task
        self.compiler = compiler
        self.derived = task.domain.derived
        self.dnf = dnf  # dnf(ground node, expand=None) -> masks or False (relaxation._dnf)
        self._definitions: dict[int, list | bool] = {}
        self._inlined: dict[int, list | bool | None] = {}
        self._open: set[int] = set()

    def is_derived(self, fact: int) -> bool:
        return self.task.facts.atoms[fact][0] in self.derived

    def _ground(self, fact: int):
        pred, args = self.task.facts.atoms[fact]
        definition = self.derived[pred]
        return self.compiler.ground(definition.formula, dict(zip([v for v, _ in definition.params], args)))

    def definition(self, fact: int):
        """The fact's formula as positive masks, derived atoms kept (False: it never holds)."""
        found = self._definitions.get(fact)
        if found is None:
            found = self.dnf(self._ground(fact))
            if found is not False and len(found) > MAX_AXIOMS:
                common = found[0]
                for mask in found[1:]:
                    common &= mask
                found = [common]
            self._definitions[fact] = found
        return found

    def axioms(self, wanted: int) -> list[tuple[int, int]]:
        """(precondition mask, derived fact bit) for every derived fact in `wanted` and every
        derived fact their definitions need in turn."""
        out = []
        seen = set()
        stack = [f for f in set_bits(wanted) if self.is_derived(f)]
        while stack:
            fact = stack.pop()
            if fact in seen:
                continue
            seen.add(fact)
            dnf = self.definition(fact)
            if dnf is False:
                continue  # never true: no axiom, so nothing that needs it is reachable
            for mask in dnf:
                out.append((mask, 1 << fact))
                stack.extend(f for f in set_bits(mask) if f not in seen and self.is_derived(f))
        return out

    def inline(self, fact: int):
        """For a goal: a derived fact's definition with derived atoms inlined in turn, as masks
        (False: it never holds); None keeps the atom (not derived, recursive, or too large)."""
        if fact in self._inlined:
            return self._inlined[fact]
        if fact in self._open or len(self._open) >= MAX_NESTING or not self.is_derived(fact):
            return None  # recursion (or a long chain): the axioms reach it
        self._open.add(fact)
        try:
            found = self.dnf(self._ground(fact), self.inline)
        finally:
            self._open.discard(fact)
        if found is not False and len(found) > MAX_INLINE:
            found = None
        self._inlined[fact] = found
        return found
