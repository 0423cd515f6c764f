"""Turn-based multi-agent tasks solved through their serial version, then scheduled into turns.

A turn-based task with k agents is about k times deeper than the same work done in sequence,
and every turn of an agent with nothing useful to do is a branch point, so searching it directly
often finds nothing. The serial task has the same agents and facts but no turns: any agent may
act at any step. A plan of the serial task is then scheduled into turns: on an agent's turn it
performs its next action of the plan if that can be moved forward past the pending actions of
the others (the rest of the plan still replays from there to the goal), and waits (its no-op)
otherwise. Timers tick each turn in the turn-based task, so waiting only lets them finish
sooner; every schedule is replayed by the interpreter. An upper bound, never a claim of
optimality.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools

from groundplan.engine import Task


def serial_task(task: Task) -> Task:
    """The task without turns: one action per step, by any agent."""
    problem = dataclasses.replace(task.problem, agents=None, max_steps=None, optimal=None)
    return Task(problem)


def solo_task(task: Task, agent: str) -> Task:
    """The task where only `agent` acts (the others stay where they are, as obstacles).

    Its plans schedule into the turn-based task with the others waiting on their turns: a plan
    about k times longer than needed, but one that exists whenever one agent can do the work
    alone, which is what the turn-based search and the serial task fail to find for long orders."""
    agents = dataclasses.replace(task.problem.agents, order=(agent,))
    problem = dataclasses.replace(task.problem, agents=agents, max_steps=None, optimal=None)
    return Task(problem)


def acting_only(task: Task, agent: str, agents) -> Task:
    """A view of `task` (sharing its grounding, so its states too) in which only `agent` of
    `agents` acts: the others are idle, and relaxation heuristics leave their actions out."""
    view = copy.copy(task)
    view.idle = frozenset(agents) - {agent}
    return view


def relay(task: Task, search, time_limit: float | None = None, order=None):
    """Turn-based tasks whose goal splits into parts (dishes): the parts are planned one after
    another on the serial task (planners/decompose/agenda.py), in the given order, the k-th leg by agent
    k mod n alone, and the whole is scheduled into turns, where an agent's part moves forward
    into the others' waits wherever the rest still replays. One agent per leg keeps each leg a
    single-agent search; changing agents between legs lets a part use stations the previous
    agent's work left free.

    search(task, start, seconds) -> PlanResult solves one leg. Returns the agenda's PlanResult
    (its plan is serial) and the scheduled ground actions, or None when it cannot be scheduled."""
    from .agenda import solve_agenda

    serial = serial_task(task)
    agents = list(task.agents)
    leg_number = itertools.count()

    def leg(sub, start, left):
        return search(acting_only(sub, agents[next(leg_number) % len(agents)], agents), start, left)

    result = solve_agenda(serial, leg, time_limit=time_limit, planner="relay", order=order)
    return result, (schedule(task, result.plan) if result.solved else None)


def _noop(task: Task, state, agent: str):
    """An applicable action of `agent` (or of no one in particular) that changes nothing (the
    domain's wait), or None."""
    for action in task.applicable(state):
        if action.actor in (agent, None) and action.effect.simple and not action.effect.add and not action.effect.delete:
            return action
    return None


def _reaches_goal(task: Task, state, actions) -> bool:
    """Whether `actions` replay from `state` to the goal, each agent acting on its own turns."""
    pending = list(actions)
    for _ in range(len(task.agents) * (len(pending) + 1)):
        if not pending:
            return task.is_goal(state)
        agent = task.agents[state.turn]
        if pending[0].actor in (agent, None):  # an action that names no agent is anyone's
            action = pending.pop(0)
            if not task.is_applicable(state, action):
                return False
        else:
            action = _noop(task, state, agent)
            if action is None:
                return False
        state = task.successor(state, action)
        if task.is_goal(state):
            return True
    return task.is_goal(state)


def schedule(task: Task, serial_plan: list[str]) -> list | None:
    """The serial plan as ground actions of the turn-based task, or None if it cannot be scheduled."""
    serial = serial_task(task)
    state0 = serial.initial_state()
    actions = []
    for text in serial_plan:
        try:
            a = serial.parse_action(text, state0)
        except Exception:
            return None
        actions.append(a)
        state0 = serial.successor(state0, a)
    pending = [task.ground_action(a.schema.name, a.args) for a in actions]
    if any(a is None for a in pending):
        return None
    state, out = task.initial_state(), []
    limit = len(task.agents) * (len(pending) + 1)
    while not task.is_goal(state) and len(out) < limit:
        agent = task.agents[state.turn]
        chosen = None
        mine = next((i for i, a in enumerate(pending) if a.actor in (agent, None)), None)
        if mine is not None and task.is_applicable(state, pending[mine]):
            rest = pending[:mine] + pending[mine + 1:]
            if mine == 0 or _reaches_goal(task, task.successor(state, pending[mine]), rest):
                chosen = pending.pop(mine)
        if chosen is None:
            chosen = _noop(task, state, agent)
            if chosen is None:
                return None
        out.append(chosen)
        state = task.successor(state, chosen)
    return out if task.is_goal(state) else None
