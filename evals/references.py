"""What an episode's score rests on, when it is not a confirmed reference.

A problem's reference cost is trusted by every score of it (optimality, steps-to-go, the step
cap). `engine.validate.check_references` replays what can be replayed (a stored plan, a world's
answer keys) before a problem's first episode; this module adds the two things plan-eval can
still say about the rest:

- an `optimal.cost` stored without a plan is re-proven when a quick optimal search proves it
  (`planners.reference.reprove`, at most 2 s, once per problem and worker, on the task the
  episodes then use): a disproved one is the problem's load error; one not re-proven in time is
  `unverified`, and every episode scored against it says so (`reference_unverified`, with why);
- an episode that reaches the goal at a cost below a proven optimum proves that optimum wrong
  (or the world's costs): its line says so (`beats_reference`, with a message), the summary names
  the problems, and plan-eval exits with status 1. This check costs nothing and runs always.
"""
from __future__ import annotations

_VERDICT = "_groundplan_reference_verdict"  # where check_loaded keeps its verdict on the task


def check_loaded(task) -> None:
    """Re-prove the problem's stored optimum when it has no plan (see the module docstring);
    raises ModelError when the optimum is disproved, and keeps the verdict on the task."""
    from groundplan.planners.reference import reprove_or_refuse

    task.__dict__[_VERDICT] = reprove_or_refuse(task)


def flags(task, row: dict) -> dict:
    """The fields an episode line gets beyond its scores: `reference_unverified` (why) when it was
    scored against a stored optimum nothing confirmed, and `beats_reference` (with
    `beats_reference_message`) when it beat a proven optimum."""
    from groundplan.planners.reference import UNVERIFIED

    out = {}
    verdict = task.__dict__.get(_VERDICT)
    if verdict is not None and verdict.status == UNVERIFIED and row.get("reference_from") == "stored optimum":
        out["reference_unverified"] = verdict.message
    out.update(beats(row))
    return out


def beats(row: dict) -> dict:
    """{'beats_reference': True, 'beats_reference_message': ...} for an episode that reached the
    goal at a cost below its proven reference cost; {} otherwise."""
    outcome = row.get("agent_outcome") or row.get("outcome")
    ref, cost = row.get("reference_cost"), row.get("cost")
    from groundplan.agents.loop import GOAL

    if outcome != GOAL or not row.get("reference_proven") or ref is None or cost is None:
        return {}
    if cost >= ref - 1e-9 * max(1.0, abs(ref)):
        return {}
    where = row.get("reference_from") or "the reference"
    problem = row.get("problem_ref") or row.get("file") or row.get("problem")
    return {"beats_reference": True,
            "beats_reference_message": f"reached the goal at cost {_num(cost)}, below the proven optimum {_num(ref)} "
                                       f"({where}) of {problem}: that optimum is wrong (or the world's costs are); "
                                       f"re-prove it (groundplan plan PROBLEM --store) and check the episode's plan"}


def _num(x):
    return int(x) if float(x).is_integer() else round(x, 6)
