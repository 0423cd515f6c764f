"""How the step loop reads a Plancraft reply: the reference's grammar, tools and messages.

The generic interpreter (agents/interpret.py) matches answers against action texts; Plancraft's
evaluator instead reads the first line of a reply with its own handlers, answers `think:` with
`Ok` and `search:` with a recipe, ends the episode on `impossible:`, and replies to anything else
with its own error messages, all without using an environment action (text.py holds that
grammar). This module turns those readings into the loop's decisions, and gives the loop the two
other things the paper's rules need: the stuck measure (item counts outside [0]) and a random
answer for the random baseline, which cannot list the world's 256,000 ground actions.
"""
from __future__ import annotations

from collections import Counter

from groundplan.agents.interpret import ACTION, DECLARE, TOOL, Decision

from . import text as T
from .world import SLOTS, inventory


def interpret(task, state, reply: str, loop: dict) -> Decision:
    tools = tuple(loop.get("tools") or ("move", "smelt", "think", "search", "impossible"))
    reading = T.read_reply(reply or "", tools, task)
    if reading.kind == "action":
        action = reading.ground(task, state)
        if action is None:  # accepted by the reference's grammar, ignored by its environment
            return Decision(ACTION, [], text=reading.text)
        return Decision(ACTION, [action], applicable=task.is_applicable(state, action), text=action.text,
                        reason="the environment leaves the inventory unchanged")
    if reading.kind == "stop":
        return Decision(DECLARE, declaration="impossible", text=f"impossible: {reading.text}")
    if reading.kind == "tool":
        return Decision(TOOL, reason=reading.text, text=reading.verb)
    return Decision(TOOL, reason=reading.text, text="invalid", invalid=True)


def progress_key(task, state) -> tuple:
    """The paper's stuck test compares item totals outside [0]: moves leave them alone, crafts and smelts change them."""
    totals: Counter = Counter()
    for index, entry in inventory(task, state).items():
        if index:
            totals[entry["type"]] += entry["quantity"]
    return tuple(sorted(totals.items()))


def random_answer(task, state, rng) -> str:
    """A uniformly random well-formed move or smelt: a random occupied source ([0] included when
    it holds something), a random other slot, a random quantity up to what the source holds;
    smelting with probability 0.1 when the source's item can be smelted. Many such actions do
    nothing (the target is occupied), as for an agent that knows the grammar but not the game."""
    sources = [(slot, task.value(state, "count", (slot,))) for slot in SLOTS]
    sources = [(f"[{slot}]", count, task.value(state, "item", (slot,))) for slot, count in sources if count]
    crafted = task.value(state, "crafted-count", ())
    if crafted:
        sources.append(("[0]", crafted, task.value(state, "crafted-item", ())))
    if not sources:
        return "impossible: the inventory is empty"
    source, count, item = rng.choice(sources)
    target = rng.choice([f"[{slot}]" for slot in SLOTS if f"[{slot}]" != source])
    quantity = rng.randint(1, count)
    smeltable = source != "[0]" and task.domain.tables["smelting"].find((item,))[0] != 0
    verb = "smelt" if smeltable and rng.random() < 0.1 else "move"
    return f"{verb}: from {source} to {target} with quantity {quantity}"
