"""Which ground actions a STRIPS search can ignore: those that change nothing the goal depends on.

Grounding keeps every action some reachable state can apply (engine/task.py), because a plan may
legally use any of them: the validator, the step loop and an LLM's list of valid actions must
all accept them. A search for the goal needs fewer. Fast Downward's translator drops two more
kinds, and so does this module, for the bitset search alone (planners/search/strips.py):

* no-ops: every add effect already holds by the preconditions, and every delete effect is either
  re-added or already false (`drive truck0 depot0 depot0`, 12 of depot pfile10's 900 actions);
* irrelevant actions: the goal's facts are relevant, and so is every precondition fact (positive or
  negative) of an action whose effects change a relevant fact; an action changing no relevant
  fact is irrelevant (satellite's `take_image` of a direction no goal asks for: 31 of p02's 110).

Dropping them keeps every optimal plan: irrelevant actions change only facts that no goal and no
relevant action's precondition mentions, so removing them from a plan leaves a valid plan that
costs no more. States keep their irrelevant facts, frozen at their initial values.
"""
from __future__ import annotations

from groundplan.engine.compile import set_bits as _bits


def changes(op_pre_pos: int, op_pre_neg: int, add: int, delete: int) -> int:
    """The facts an action can change in a state that satisfies its preconditions."""
    return (add & ~op_pre_pos) | (delete & ~add & ~op_pre_neg)


def relevant_actions(actions, goal_pos: int, goal_neg: int) -> list:
    """The actions (with `pre_pos`, `pre_neg`, `effect.add`, `effect.delete`) that can change a fact
    the goal depends on, in their original order: a backward worklist over facts, linear in the
    total size of the actions."""
    changers: dict[int, list[int]] = {}
    for i, a in enumerate(actions):
        for f in _bits(changes(a.pre_pos, a.pre_neg, a.effect.add, a.effect.delete)):
            changers.setdefault(f, []).append(i)
    relevant = goal_pos | goal_neg
    work = list(_bits(relevant))
    chosen = [False] * len(actions)
    while work:
        for i in changers.get(work.pop(), ()):
            if not chosen[i]:
                chosen[i] = True
                a = actions[i]
                new = (a.pre_pos | a.pre_neg) & ~relevant
                if new:
                    relevant |= new
                    work.extend(_bits(new))
    return [a for a, keep in zip(actions, chosen) if keep]
