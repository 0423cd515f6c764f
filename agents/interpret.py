"""Turning an agent's answer into a grounded action, a declaration, or a reasoned refusal.

Exact match against the valid actions comes first (the reference benchmarks accept only that);
then, where the world allows it, the engine's tolerant parser (case, spacing, punctuation,
aliases, omitted parameters). An ambiguous or unknown answer is never guessed: it becomes an
invalid answer whose reason goes back to the agent as feedback.

The answer is read before it is judged: 'Drive T1 to APT1.' names its action whether or not the
action applies, and an inapplicable one is answered with the precondition that fails, not with
"unknown action, did you mean ..." (which sent an agent to guess at its spelling instead).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from groundplan.engine.task import UnknownAction

ACTION = "action"
DECLARE = "declare"
INVALID = "invalid"
TOOL = "tool"  # a reply handled outside the world (a thought, a recipe search): `reason` holds what the agent is told


@dataclass
class Decision:
    kind: str
    actions: list | None = None  # ground actions: one, or one per agent in a simultaneous round
    applicable: bool = True
    declaration: str | None = None  # finish | impossible | unreachable
    reason: str | None = None
    text: str = ""  # the action as the world writes it (for the trajectory)
    invalid: bool = False  # a TOOL reply that was really a malformed answer (counted as invalid)


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def declaration(text: str, declarations: dict, exact: bool = False) -> str | None:
    """The declaration `text` makes, if any: compared with case and punctuation folded, or, for
    a world that reads only exact texts (tolerant_parsing: false), exactly (Robotouille's 'Finish')."""
    said = text.strip() if exact else _fold(text)
    for kind, phrases in declarations.items():
        if any(said == (p if exact else _folded(p)) for p in phrases or ()):
            return kind
    return None


@functools.lru_cache(maxsize=256)
def _folded(phrase: str) -> str:
    """A declaration phrase folded once, not on every answer the loop reads."""
    return _fold(phrase)


def interpret(task, state, text: str, loop: dict) -> Decision:
    """The decision an answer stands for. A world may read answers itself
    (`domains/<world>/replies.py: interpret(task, state, text, loop) -> Decision`), as Plancraft
    does with its reference's own grammar, tools and error messages."""
    from groundplan.engine.loader import world_module

    own = world_module(task.domain, "replies")
    if own is not None:
        return own.interpret(task, state, text, loop)
    raw = (text or "").strip()
    if not raw:
        return Decision(INVALID, reason="the answer names no action")
    kind = declaration(raw, loop.get("declarations", {}), exact=not loop.get("tolerant_parsing", True))
    if kind is not None:
        return Decision(DECLARE, declaration=kind, text=raw)
    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return _joint(task, state, raw, loop)
    return _single(task, state, raw, loop)


def _single(task, state, raw: str, loop: dict) -> Decision:
    exact = task.action_by_text(raw, state)
    if exact is not None and task.is_applicable(state, exact):
        return Decision(ACTION, [exact], text=exact.text)
    if not loop.get("tolerant_parsing", True):
        from groundplan.engine.errors import did_you_mean

        hint = did_you_mean(raw, [a.text for a in task.applicable(state)])
        return Decision(INVALID, reason="it is not one of the valid actions, written exactly" + (f" ({hint})" if hint else ""))
    try:
        action = task.parse_action(raw, state)
    except UnknownAction as exc:
        return Decision(INVALID, reason="it is not an action of this world" + (f" ({exc.hint})" if exc.hint else ""))
    if task.is_applicable(state, action):
        return Decision(ACTION, [action], text=action.text)
    reasons = task.explain(state, action)
    return Decision(ACTION, [action], applicable=False, text=action.text,
                    reason=f"'{action.text}' cannot be done now: " + "; ".join(reasons))


def _joint(task, state, raw: str, loop: dict) -> Decision:
    parts = [p.strip() for p in raw.split("|")]
    if len(parts) != len(task.agents):
        return Decision(INVALID, reason=f"name one action per agent ({', '.join(task.agents)}), separated by '|'")
    actions = []
    for part in parts:
        single = _single(task, state, part, loop)
        if single.kind == INVALID:
            return Decision(INVALID, reason=f"'{part}': {single.reason}")
        actions.append(single.actions[0])
    from groundplan.engine.validate import _joint_step

    outcome = _joint_step(task, state, " | ".join(a.text for a in actions))
    text = " | ".join(a.text for a in actions)
    if isinstance(outcome, tuple):
        return Decision(ACTION, actions, text=text)
    return Decision(ACTION, actions, applicable=False, text=text,
                    reason=f"'{outcome.action}' cannot be done in this round: " + "; ".join(outcome.reasons))
