"""One result type for every planner, with a fixed status vocabulary (after unified-planning).

`solved-optimal` is only claimed when the algorithm proves it (BFS with unit costs, uniform-cost
search, A* with an admissible heuristic, exact routing). A planner that cannot handle a feature
says `unsupported` with the reason instead of returning a plan it cannot vouch for.

`seconds` is wall time (`time.perf_counter`), `cpu_seconds` the process's CPU time
(`time.process_time`, with a child process's such as Fast Downward's added) over the same span
where the planner times itself (the searches, through planners/limits.py), else over the whole
`solve` call: Fast Downward and pyperplan report CPU time, and on a busy machine wall time made
groundplan look three times slower than it is, so comparisons use `cpu_seconds` (issue 35).
"""
from __future__ import annotations

from dataclasses import dataclass, field

SOLVED_OPTIMAL = "solved-optimal"
SOLVED_SATISFICING = "solved-satisficing"
UNSOLVABLE_PROVEN = "unsolvable-proven"
TIMEOUT = "timeout"
MEMOUT = "memout"
UNSUPPORTED = "unsupported"
NO_PLAN_WITHIN_BOUND = "no-plan-within-bound"  # a bounded search finished: the optimum exceeds its bound
STATUSES = (SOLVED_OPTIMAL, SOLVED_SATISFICING, UNSOLVABLE_PROVEN, NO_PLAN_WITHIN_BOUND, TIMEOUT, MEMOUT, UNSUPPORTED)


@dataclass
class PlanResult:
    status: str
    planner: str
    plan: list[str] = field(default_factory=list)  # action texts
    actions: list = field(default_factory=list, repr=False)  # GroundActions (or joint tuples)
    cost: float | None = None
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0
    cpu_seconds: float | None = None  # None until measured: `solve` fills it in for the planners that do not
    peak_memory_mb: float = 0.0
    bound: float | None = None  # proven suboptimality factor for satisficing plans, when known
    lower_bound: float | None = None  # proven lower bound on the optimal cost, when known
    heuristic: str | None = None
    reason: str = ""
    value: float | None = None  # objective other than cost (the prize of an orienteering route)

    @property
    def solved(self) -> bool:
        return self.status in (SOLVED_OPTIMAL, SOLVED_SATISFICING)

    def to_json(self) -> dict:
        cost = self.cost
        if isinstance(cost, float) and cost.is_integer():
            cost = int(cost)
        return {
            "status": self.status, "planner": self.planner, "heuristic": self.heuristic, "plan": self.plan,
            "cost": cost, "expanded": self.expanded, "generated": self.generated,
            "seconds": round(self.seconds, 4),
            "cpu_seconds": None if self.cpu_seconds is None else round(self.cpu_seconds, 4), "peak_memory_mb": round(self.peak_memory_mb, 1),
            "bound": self.bound, "lower_bound": self.lower_bound, "value": self.value, "reason": self.reason,
        }
