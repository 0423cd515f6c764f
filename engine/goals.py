"""Goals, including temporally extended ones, checked after every step.

A plain formula is achieved in a state where it holds. Temporal goals keep latches in the
state (`State.progress`, a bitmask), so a planner sees them as ordinary state:
- `all`: every part must be achieved, each part latching once achieved (BabyAI's "A and B");
- `sequence`: parts achieved in order, part k counting from the state where part k-1 latched
  (the same state may complete several parts: BabyAI's "A, then B");
- `eventually`: latches its part once achieved;
- `later`: like `eventually`, but never in the state where it is first checked (BabyAI's "put A
  next to B" clause after another: the verifier's memory of what was carried is stale there);
- `always`: a formula that must hold in every state; once violated the goal is lost for good
  (PPNL's "every goal of group A before any of group B").
"""
from __future__ import annotations

from . import model as m


VIOLATED = 1  # bit 0: an 'always' part was violated
ACHIEVED = 2  # bit 1: the goal was achieved in this state (decided once, when the state was reached)


class GoalTracker:
    def __init__(self, goal):
        self.goal = goal
        self.temporal = _is_temporal(goal)
        self._next_bit = 2  # bits 0 and 1 are VIOLATED and ACHIEVED
        self.tree = self._number(goal) if self.temporal else None

    def _number(self, g):
        """Give every temporal node its latch bits: ('kind', bits, children...)."""
        if isinstance(g, m.AllOf):
            parts = [self._number(p if isinstance(p, m.TEMPORAL) else m.Eventually(p)) for p in g.parts]
            return ("all", 0, parts)
        if isinstance(g, m.Sequence):
            bits = []
            parts = []
            for p in g.parts:
                bits.append(self._bit())
                parts.append(self._number(p))
            return ("sequence", bits, parts)
        if isinstance(g, m.Eventually):
            return ("eventually", self._bit(), self._number(g.part))
        if isinstance(g, m.Later):
            armed = self._bit()
            return ("later", (armed, self._bit()), self._number(g.part))
        if isinstance(g, m.Always):
            return ("always", 1, g.formula)
        return ("holds", 0, g)

    def _bit(self) -> int:
        bit = 1 << self._next_bit
        self._next_bit += 1
        return bit

    def compile(self, compiler):
        """Formulas of the goal compiled for one universe of objects."""
        if not self.temporal:
            return compiler.condition(self.goal, {})

        def walk(node):
            kind, bits, body = node
            if kind in ("holds", "always"):
                return (kind, bits, compiler.condition(body, {}))
            if kind in ("eventually", "later"):
                return (kind, bits, walk(body))
            return (kind, bits, [walk(p) for p in body])
        return walk(self.tree)

    def update(self, compiled, state, bits: int, progress: int) -> tuple[int, bool]:
        """(new progress, whether the goal is achieved) on reaching `state` from a state whose
        progress was `progress`. Whether the goal is achieved is stored in the new progress:
        a 'later' part answers differently when asked twice about the state that armed it."""
        if not self.temporal:
            return 0, _holds(compiled, state, bits)
        progress, ok = _update(compiled, state, bits, progress & ~ACHIEVED)
        return (progress | ACHIEVED if ok else progress), ok

    def achieved(self, progress: int) -> bool:
        """Whether a temporal goal was achieved in the state carrying `progress`."""
        return bool(progress & ACHIEVED) and not progress & VIOLATED

    def violated(self, progress: int) -> bool:
        """Only a temporal goal reads latches: a state may carry another goal's progress (routing legs)."""
        return self.temporal and bool(progress & 1)


def _holds(cond, state, bits) -> bool:
    if cond is True or cond is False:
        return cond
    return cond.holds(state, bits)


def _update(node, state, bits, progress) -> tuple[int, bool]:
    kind, mark, body = node
    if kind == "holds":
        return progress, _holds(body, state, bits)
    if kind == "always":
        if progress & 1:
            return progress, False
        if not _holds(body, state, bits):
            return progress | 1, False
        return progress, True
    if kind == "eventually":
        if progress & mark:
            return progress, True
        progress, ok = _update(body, state, bits, progress)
        return (progress | mark if ok else progress), ok
    if kind == "later":
        armed, done = mark
        if progress & done:
            return progress, True
        if not progress & armed:
            return progress | armed, False
        progress, ok = _update(body, state, bits, progress)
        return (progress | done if ok else progress), ok
    if kind == "all":
        ok_all = True
        for part in body:
            progress, ok = _update(part, state, bits, progress)
            ok_all = ok_all and ok
        return progress, ok_all and not progress & 1
    # sequence
    for mark_k, part in zip(mark, body):
        if progress & mark_k:
            continue
        progress, ok = _update(part, state, bits, progress)
        if not ok:
            return progress, False
        progress |= mark_k
    return progress, not progress & 1


def _is_temporal(g) -> bool:
    return isinstance(g, m.TEMPORAL)
