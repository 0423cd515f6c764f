"""The successor function planners search over: the engine's own, nothing re-modelled.

Sequential and turn-based tasks step with one action; in simultaneous multi-agent mode a
transition is a joint action (one action per agent, applied in agent order within one tick).
Waiting is whatever the domain calls its no-op action; timers are part of the state.
"""
from __future__ import annotations

from groundplan.engine.task import Task


class Transitions:
    def __init__(self, task: Task):
        self.task = task
        self.joint = task.agent_mode == "simultaneous" and len(task.agents) > 1

    def __call__(self, state):
        """Yield (label, next_state, cost) for every transition from `state`."""
        task = self.task
        if not self.joint:
            for action in task.applicable(state):
                cost = action.cost
                if callable(cost):
                    cost = cost(state, task.bits(state))
                yield action, task.successor(state, action), cost
            return
        for combo, nxt in task.joint_successors(state):
            yield combo, nxt, sum(task.action_cost(state, a) for a in combo)


def label_text(label) -> str:
    if isinstance(label, tuple):
        return " | ".join(a.text for a in label)
    return label.text
