"""Re-proving a stored optimum that comes without a plan.

Scores divide by a problem's reference cost. `engine.validate.check_references` replays a stored
plan and compares its cost with the stored one, but an `optimal.cost` stored with no plan
(gripper's and gridnav's optima, written by hand or by a generator) has nothing to replay: set
gripper prob01's 11 to 9 and the oracle "beats a proven optimum", optimality 1.18, silently.

`reprove(task)` decides per problem. It runs the optimal uniform-cost search (`bfs`, in-process
and deterministic but for its time budget) for at most `REPROVE_SECONDS`:
- it proves the stored cost: the reference is `re-proven`;
- it proves another optimum, proves the problem unsolvable, finds a cheaper plan or a lower
  bound above the stored cost: the reference is `wrong`, with Diagnostics at /optimal/cost;
- it runs out of time (or cannot read the task): the reference is `unverified`, and says why;
  plan-eval then marks every episode scored against it (`reference_unverified`) and the summary
  counts them.
The shipped optima without a plan (gripper 4, gridnav 2) are re-proven in 0.3 s at most.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

REPROVE_SECONDS = 2.0
REPROVEN = "re-proven"
UNVERIFIED = "unverified"
WRONG = "wrong"


@dataclass(frozen=True)
class Reproof:
    status: str  # REPROVEN, UNVERIFIED or WRONG
    message: str  # in words, for a warning, an episode line and the summary
    errors: list = field(default_factory=list)  # Diagnostics when WRONG


def reprove_or_refuse(task) -> Reproof | None:
    """`reprove(task)`, raising the ModelError of a disproved optimum: what `groundplan validate`
    and plan-eval's loading both do before trusting a stored optimum."""
    verdict = reprove(task)
    if verdict is not None and verdict.status == WRONG:
        from groundplan.engine.errors import ModelError

        raise ModelError(verdict.errors)
    return verdict


def reprove(task, seconds: float | None = None) -> Reproof | None:
    """The verdict on the problem's stored optimum when it has no plan to replay, else None
    (`engine.validate.stored_cost_unchecked` says which); `seconds` defaults to REPROVE_SECONDS."""
    from groundplan.engine.errors import Diagnostic, pointer
    from groundplan.engine.validate import _num, _same, stored_cost_unchecked

    if not stored_cost_unchecked(task):
        return None
    from . import SOLVED_OPTIMAL, UNSOLVABLE_PROVEN

    seconds = REPROVE_SECONDS if seconds is None else seconds
    stored = float(task.problem.optimal["cost"])
    file = task.problem.file
    shown = _num(stored)
    began = time.perf_counter()
    try:
        result = _search(task, seconds)
    except Exception as exc:  # a planner bug costs the proof, not the load
        return Reproof(UNVERIFIED, f"optimal.cost {shown} is stored without a plan and could not be re-proven "
                                   f"({type(exc).__name__}: {exc})")
    took = f"{time.perf_counter() - began:.2f} s"

    def wrong(message, hint):
        return Reproof(WRONG, message, [Diagnostic(file, pointer(["optimal", "cost"]), message, hint)])

    if result.status == SOLVED_OPTIMAL and result.cost is not None:
        if _same(result.cost, stored):
            return Reproof(REPROVEN, f"optimal.cost {shown} (stored without a plan) re-proven by the {result.planner} "
                                     f"planner in {took}")
        return wrong(f"optimal.cost is {shown}, but the {result.planner} planner proves the optimum is "
                     f"{_num(result.cost)} (a plan of {len(result.plan)} steps)",
                     f"set it to {_num(result.cost)}, or store the plan with groundplan plan FILE --store")
    if result.status == UNSOLVABLE_PROVEN:
        return wrong(f"optimal.cost is {shown}, but the {result.planner} planner proves the problem unsolvable",
                     'store "solvable": false and "cost": null, or fix the problem')
    if result.cost is not None and result.plan and result.cost < stored and not _same(result.cost, stored):
        return wrong(f"optimal.cost is {shown}, but the {result.planner} planner finds a plan costing {_num(result.cost)}",
                     "store the cheaper plan (groundplan plan FILE --store)")
    lower = result.lower_bound
    if lower is not None and lower > stored and not _same(lower, stored):
        return wrong(f"optimal.cost is {shown}, but the {result.planner} planner proves every plan costs at least "
                     f"{_num(lower)}", "re-prove the optimum (groundplan plan FILE --planner prove --store)")
    why = f"{result.status}: {result.reason}" if result.reason else result.status
    return Reproof(UNVERIFIED, f"optimal.cost {shown} is stored without a plan and was not re-proven within {seconds:g} s "
                               f"(the {result.planner} planner: {why})")


def _search(task, seconds: float):
    """The quick optimal search: uniform-cost (breadth-first under unit costs), in-process."""
    from . import solve

    return solve(task, "bfs", time_limit=seconds)

