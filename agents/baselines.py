"""The agents that need no model: the oracle, the seeded random baseline, plan replay and a
world's own baselines.

They answer in text like any other agent, so their episodes go through the same parser,
feedback and accounting as an LLM's and the numbers are comparable.

A world may publish baselines of its own (the reference heuristics of its paper) in
`domains/<world>/baselines.py`: a mapping `BASELINES` whose keys are the baselines' names, and
`baseline_plan(name, task, seed) -> list[str]`, the open-loop plan (action texts) of that
baseline for one problem. `WorldBaselineAgent` (`--agent baseline:NAME`) answers with that plan;
the seed is the episode's, derived from the run seed and the episode id, so the plans do not
depend on `--workers` or on the order episodes run in.
"""
from __future__ import annotations

import random
from pathlib import Path

from .base import Agent, Observation, Reply


def _label_text(label) -> str:
    return " | ".join(a.text for a in label) if isinstance(label, (tuple, list)) else label.text


class OracleAgent(Agent):
    """Follows the problem's stored optimal plan; off it (or without one) it asks the planners.

    Closed loop by default; `open_loop=True` answers once with the whole plan."""

    name = "oracle"

    def __init__(self, open_loop: bool = False, planner: str = "auto", time_limit: float | None = 60):
        self.mode = "open" if open_loop else "closed"
        self.planner, self.time_limit = planner, time_limit

    def reset(self, task, seed=None) -> None:
        super().reset(task, seed)
        self._route: dict = {}  # state -> the action text to take there
        self._oracle = None
        self._impossible = None
        entry = task.problem.optimal or {}
        if entry.get("solvable") is False:
            self._unsolvable = True
            return
        self._unsolvable = False
        plan = entry.get("plan")
        if plan:
            from groundplan.engine.validate import validate_plan

            result = validate_plan(task, plan)
            if result.valid:
                for state, text in zip(result.states, plan):
                    self._route.setdefault(state, text)

    def answer(self, question) -> Reply:
        return Reply(question.oracle_answer())

    def _declare(self) -> str:
        """How this world's agents say "impossible": its first phrase for it (Plancraft wants `impossible: <reason>`)."""
        if self._impossible is None:
            from .profile import profile_for

            phrases = (profile_for(self.task).loop.get("declarations") or {}).get("impossible") or ["impossible"]
            self._impossible = phrases[0]
        return self._impossible

    def _next(self, state) -> str:
        if self._unsolvable:
            return self._declare()
        if state in self._route:
            return self._route[state]
        if self._oracle is None:
            from groundplan.planners.oracle import Oracle

            self._oracle = Oracle(self.task, planner=self.planner, time_limit=self.time_limit)
        left = self.time_left(self.time_limit)  # the planner's search may not outlast the episode
        if left is not None and left <= 0:
            from groundplan.engine.errors import ResourceLimit

            raise ResourceLimit("timeout", "the episode's time ran out before the oracle could plan")
        self._oracle.time_limit = left
        plan = self._oracle.plan(state)
        if plan is None:
            if self._oracle.known_cost(state) == float("inf"):
                return self._declare()  # proven unsolvable
            if self.time_left() == 0:
                from groundplan.engine.errors import ResourceLimit

                raise ResourceLimit("timeout", "the episode's time ran out while the oracle was planning")
            return "finish"  # no plan within the oracle's own time limit
        current = state
        for label in plan:
            self._route.setdefault(current, _label_text(label))
            current = self.task.apply_joint(current, list(label)) if isinstance(label, tuple) else self.task.successor(current, label)
        return self._route.get(state, "finish")

    def act(self, observation: Observation) -> Reply:
        return Reply(self._next(observation.state))

    def plan(self, observation: Observation) -> Reply:
        lines, state, task = [], observation.state, self.task
        while not task.is_goal(state) and len(lines) < 10_000:
            text = self._next(state)
            lines.append(text)
            if text in (self._declare(), "finish"):
                break
            from groundplan.agents.interpret import interpret

            decision = interpret(task, state, text, {"tolerant_parsing": True})
            state = task.apply_joint(state, decision.actions) if len(decision.actions) > 1 else task.successor(state, decision.actions[0])
        return Reply("\n".join(lines), detail={"actions": lines})

    def config(self) -> dict:
        return {"agent": self.name, "mode": self.mode, "planner": self.planner}


class RandomAgent(Agent):
    """Uniform over the valid actions (joint rounds in simultaneous worlds), seeded per episode."""

    name = "random"
    mode = "closed"

    def reset(self, task, seed=None) -> None:
        super().reset(task, seed)
        self.rng = random.Random(seed)

    def answer(self, question) -> Reply:
        return Reply(question.random_answer(self.rng))

    def act(self, observation: Observation) -> Reply:
        task = self.task
        if task.agent_mode == "simultaneous" and len(task.agents) > 1:
            rounds = [" | ".join(a.text for a in combo) for combo, _ in task.joint_successors(observation.state)]
            return Reply(self.rng.choice(rounds) if rounds else "finish")
        from groundplan.engine.loader import world_module

        own = world_module(task.domain, "replies")
        if own is not None and hasattr(own, "random_answer"):  # a world too large to list its actions (Plancraft)
            return Reply(own.random_answer(task, observation.state, self.rng))
        actions = observation.actions
        return Reply(self.rng.choice(actions) if actions else "finish")


class ReplayAgent(Agent):
    """Replays a plan file (one action per line, '#' comments) as one open-loop answer.

    `plans` is a plan file, or a folder holding `<problem name>.plan` (or `.txt`) per problem,
    where a '/' in the problem name becomes a subfolder or '__'. Only files inside the folder are
    read (symbolic links resolved): a problem's name comes from its file, and a name such as
    '../../secret/x' must not make the agent read a file elsewhere, whose lines the episode records."""

    name = "replay"
    mode = "open"

    def __init__(self, plans: str):
        self.plans = Path(plans)

    def _file(self, task) -> Path:
        if self.plans.is_file():
            return self.plans
        from groundplan.engine.errors import Diagnostic, ModelError

        name = task.problem.name
        root, outside = self.plans.resolve(), False
        for candidate in (name, name.replace("/", "__"), name.split("/")[-1]):
            for suffix in (".plan", ".txt"):
                path = self.plans / (candidate + suffix)
                try:
                    if not path.resolve().is_relative_to(root):
                        outside = True
                        continue
                    if path.is_file():
                        return path
                except (OSError, ValueError):  # a name the file system cannot take: no plan there
                    continue
        if outside:
            raise ModelError([Diagnostic(str(self.plans), "", f"the plan of problem '{name}' would lie outside the plans folder",
                                         "plans are read only inside the --plans folder: rename the problem, "
                                         "or give its plan file itself as --plans")])
        raise ModelError([Diagnostic(str(self.plans), "", f"no plan file for problem '{name}'",
                                     f"write {self.plans / (name.replace('/', '__') + '.plan')}")])

    def plan(self, observation: Observation) -> Reply:
        from groundplan.engine.validate import read_plan

        lines = read_plan(self._file(self.task))
        return Reply("\n".join(lines), detail={"actions": lines})

    def config(self) -> dict:
        return {"agent": self.name, "mode": self.mode, "plans": str(self.plans)}


def world_baselines(world):
    """The baselines module of a loaded domain's world, or of an installed world named by its
    folder; None when it has none. Bound as the metrics plug-ins are (`engine.loader.world_module`):
    by the installed world that holds the domain file, not by the name the domain claims."""
    from groundplan.engine.loader import world_module

    module = world_module(world, "baselines")
    return module if isinstance(getattr(module, "BASELINES", None), dict) and hasattr(module, "baseline_plan") else None


def baseline_names(world) -> list[str]:
    module = world_baselines(world)
    return sorted(module.BASELINES) if module is not None else []


def check_baseline(world, name: str) -> None:
    """Raise a GroundplanError naming the world's baselines unless `name` is one of them."""
    from groundplan.engine.errors import GroundplanError, did_you_mean

    names = baseline_names(world)
    world = getattr(world, "name", world)  # a Domain is named in messages by its own name
    if not names:
        raise GroundplanError(f"the world '{world}' has no baselines of its own (domains/{world}/baselines.py with "
                              "BASELINES and baseline_plan): use --agent random or --agent oracle")
    if name not in names:
        hint = did_you_mean(name, names)
        raise GroundplanError(f"the world '{world}' has no baseline '{name}'" + (f" ({hint})" if hint else "")
                              + f"; its baselines: {', '.join(names)} (--agent baseline:NAME)")


class WorldBaselineAgent(Agent):
    """A world's own baseline as an open-loop agent: one answer holding the baseline's whole plan.

    The plan comes from `domains/<world>/baselines.py` (see the module's docstring), seeded by the
    episode seed (0 when run without one, so a plan is always reproducible)."""

    mode = "open"

    def __init__(self, baseline: str):
        self.baseline = baseline
        self.name = f"baseline:{baseline}"

    def reset(self, task, seed=None) -> None:
        super().reset(task, seed)
        check_baseline(task.domain, self.baseline)
        self._module = world_baselines(task.domain)

    def plan(self, observation: Observation) -> Reply:
        seed = 0 if self.seed is None else self.seed
        lines = [str(word) for word in self._module.baseline_plan(self.baseline, self.task, seed)]
        return Reply("\n".join(lines), detail={"actions": lines})

    def config(self) -> dict:
        return {"agent": self.name, "mode": self.mode, "baseline": self.baseline}
