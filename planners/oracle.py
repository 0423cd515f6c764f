"""The optimal cost to the goal from an arbitrary state, with caching.

Robotouille's steps-to-go metric needs this for the final state of every failed episode. Every
state on an optimal plan gets its remaining cost cached too (a suffix of an optimal plan is
optimal), so later queries along the same route are free.
"""
from __future__ import annotations

import math

from .result import SOLVED_OPTIMAL, UNSOLVABLE_PROVEN


class Oracle:
    def __init__(self, task, planner: str = "auto", heuristic: str | None = None, time_limit: float | None = None):
        self.task = task
        self.planner = planner
        self.heuristic = heuristic
        self.time_limit = time_limit
        self._cost: dict = {}
        self._plan: dict = {}
        self.searches = 0

    def cost(self, state) -> float | None:
        """Optimal cost from `state`; math.inf when the goal is unreachable; None when not proven in time."""
        if state in self._cost:
            return self._cost[state]
        result = self._search(state)
        return self._cost.get(state) if result is not None else None

    def known_cost(self, state) -> float | None:
        """The cost from `state` if a search has already settled it (no new search)."""
        return self._cost.get(state)

    def plan(self, state) -> list | None:
        """An optimal plan (ground actions) from `state`, or None."""
        if state not in self._plan and self._search(state) is None:
            return None
        return self._plan.get(state)

    def _search(self, state):
        from . import solve

        task = self.task
        if task.is_goal(state):
            self._cost[state], self._plan[state] = 0, []
            return True
        self.searches += 1
        result = solve(task, planner=self.planner, heuristic=self.heuristic, time_limit=self.time_limit, start=state)
        if result.status == UNSOLVABLE_PROVEN:
            self._cost[state], self._plan[state] = math.inf, None
            return True
        if result.status != SOLVED_OPTIMAL:
            return None
        return self.remember(state, result.cost, list(result.actions))

    def remember(self, state, cost: float, actions: list) -> bool:
        """Cache an optimal plan found elsewhere (a problem's stored, proven plan) and every
        suffix of it: each is an optimal plan from its own state."""
        task = self.task
        current, remaining = state, cost
        for i, label in enumerate(actions):
            self._cost.setdefault(current, remaining)
            self._plan.setdefault(current, actions[i:])
            step_cost = sum(task.action_cost(current, a) for a in label) if isinstance(label, tuple) else task.action_cost(current, label)
            current = task.apply_joint(current, list(label)) if isinstance(label, tuple) else task.successor(current, label)
            remaining -= step_cost
        self._cost.setdefault(current, 0)
        self._plan.setdefault(current, [])
        return True
