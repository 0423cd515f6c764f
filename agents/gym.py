"""A Gymnasium environment over any groundplan problem: text observations, text actions.

RL and agent libraries that speak Gymnasium (BALROG-style harnesses, TextWorld-style agents) can
drive every world through it, with the step loop's reading of answers, so an action means the
same here as in `plan-eval`. `gymnasium.make("groundplan/Problem-v0", problem=PATH)`, where PATH
is a problem file or a row of a set (`problems/plancraft/test.small.jsonl#3`); `max_steps`
overrides the step cap. Needs the optional extra: pip install 'groundplan[gym]'.

Spaces. The observation is the world's observation text (what the loop shows an agent, without
the prompt around it), with the feedback on the last action in front. An action is text: any
answer the world reads (its action texts, exact or tolerant as its profile says; its declarations
such as `finish`, or Plancraft's `impossible: <reason>`; Plancraft's `think:` and `search:`).
`info["valid_actions"]` lists the actions applicable now, as the world writes them, and
`action_space.sample()` draws one of them (the space's own generator: seed it with
`env.action_space.seed(n)`, as anywhere in Gymnasium; "" when none applies). An agent that
chooses by index steps with `info["valid_actions"][i]`.

Why text and a list rather than `Discrete` with an action mask: a mask needs a fixed numbering of
every ground action, and the worlds do not have a small fixed set. Plancraft has 256,320
(grounding them all to list the valid ones made `reset` take minutes and 3 GB), objects created
during an episode bring new actions, and the valid ones number from a handful to about 10,000
per state. A `Discrete(n)`
whose n changes per state breaks vector environments and wrappers that read the space once. So,
as in TextWorld (admissible commands) and Jericho (valid actions), actions are text and the valid
ones come in `info`, listed for the current state only (`Task.applicable_texts`, which lists a
world too large to ground without grounding it). An integer action is refused with a hint.

`info` after `reset` and every `step`:
- `valid_actions`: list of str, the actions applicable now in a fixed order (in a world of
  simultaneous agents, whole rounds `a | b`); empty when nothing applies;
- `feedback`: str or None, what the world said about the last action (why it was refused, a
  tool's answer); None after `reset` and after an action it carried out;
- `step`, `max_steps`: steps taken and the step cap; `turn`: whose turn it is, or None;
- `state_hash`: the state's fingerprint, as in the episodes' trajectories;
- after `step` only: `valid` (the action was carried out or was a declaration) and, when the
  action was a declaration, `declaration` (`finish`, `impossible`, ...).

Reward: 1.0 on the step that reaches the goal, and on a declaration that a problem stored as
unsolvable cannot be done; 0.0 otherwise. `terminated`: the goal is reached or a declaration is
made. `truncated`: the step cap is reached first (the loop's: the world's factor times the
reference cost, the world's fixed budget, or `max_steps`). Every `step` is one step, a refused
answer or a tool call included (the loop's re-prompts and tool budgets are not applied here),
except a declaration, which ends the episode where it stands.
Worlds are deterministic: `reset(seed=...)` seeds `np_random` as Gymnasium asks, and the episode
always starts in the problem's initial state; `options` are not used. A question problem
(BabyAI's Predict and Decompose sets) is played as its world; its question is not asked here.
The README's section "A Gymnasium environment" says the same for users, with the times.
"""
from __future__ import annotations

import string

import gymnasium
from gymnasium import spaces

from groundplan.engine.task import Task

from .base import Observation
from .interpret import ACTION, DECLARE, interpret
from .loop import Limits, reference, state_hash, step_cap
from .profile import profile_for

CHARSET = frozenset(string.printable)


class ValidActionText(spaces.Text):
    """Text actions, sampled among the valid ones of the current state.

    A plain `Text` space samples random characters, which no world reads as an action. The
    environment keeps `valid` up to date after every `reset` and `step`; membership (`contains`)
    stays the `Text` one, since the world reads more than its listed actions."""

    def __init__(self, max_length: int, charset=CHARSET):
        super().__init__(max_length, min_length=0, charset=charset)
        self.valid: list[str] = []

    def sample(self, mask=None, probability=None) -> str:
        if mask is not None or probability is not None:  # Text's own character-level sampling, asked for explicitly
            return super().sample(mask=mask, probability=probability)
        if not self.valid:
            return ""  # as Discrete gives its start when the mask allows nothing
        return self.valid[int(self.np_random.integers(len(self.valid)))]


class GroundplanEnv(gymnasium.Env):
    """One problem as an environment (the module docstring says what it observes, accepts and rewards)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, problem: str, max_steps: int | None = None, render_mode: str | None = None):
        self.task = problem if isinstance(problem, Task) else Task.load(problem)
        self.profile = profile_for(self.task)
        self.max_steps = step_cap(self.task, self.profile, Limits(max_steps=max_steps))
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_length=1_000_000, min_length=0, charset=CHARSET)
        self.action_space = ValidActionText(max_length=10_000)
        self.state = None
        self.steps = 0

    def _observation(self, feedback=None) -> Observation:
        return Observation(self.task, self.state, feedback, self.steps, self.max_steps,
                           feedback_template=self.profile.template("feedback", default="{feedback}"))

    def _observe(self, feedback=None) -> tuple[str, dict]:
        obs = self._observation(feedback)
        text = obs.text  # first: where the observation grounds the actions to show them, the list keeps their order
        valid = self._valid_actions(obs)
        self.action_space.valid = valid
        info = {"valid_actions": valid, "state_hash": state_hash(self.state), "step": self.steps,
                "max_steps": self.max_steps, "feedback": feedback, "turn": obs.turn}
        return text, info

    def _valid_actions(self, obs: Observation) -> list[str]:
        """What `step` accepts as an action now: whole rounds where agents act simultaneously."""
        task = self.task
        if task.agent_mode == "simultaneous" and len(task.agents) > 1:
            return [" | ".join(a.text for a in combo) for combo, _ in task.joint_successors(self.state)]
        return obs.actions

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.state = self.task.initial_state()
        self.steps = 0
        return self._observe()

    def step(self, action: str):
        if self.state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if not isinstance(action, str):
            raise gymnasium.error.InvalidAction(
                f"an action is text, not {type(action).__name__} {action!r}: to choose by index, step with info['valid_actions'][i]")
        decision = interpret(self.task, self.state, action, self.profile.loop)
        if decision.kind == DECLARE:
            _, _, solvable = reference(self.task)
            right = decision.declaration != "finish" and solvable is False
            obs, info = self._observe()
            info.update(declaration=decision.declaration, valid=True)
            return obs, 1.0 if right else 0.0, True, False, info
        feedback, valid = self._act(decision)
        self.steps += 1
        reached = self.task.is_goal(self.state)
        obs, info = self._observe(feedback)
        info["valid"] = valid
        return obs, 1.0 if reached else 0.0, reached, (not reached and self.steps >= self.max_steps), info

    def _act(self, decision) -> tuple[str | None, bool]:
        """Carry out a decision that is not a declaration: (feedback, whether it was a valid action)."""
        if decision.kind == ACTION and decision.applicable:
            if not decision.actions:  # an answer the world takes as a step that does nothing (Plancraft's smelt from [0])
                self.state = self.task.wait_step(self.state)
            elif len(decision.actions) > 1:
                self.state = self.task.apply_joint(self.state, decision.actions)
            else:
                self.state = self.task.step(self.state, decision.actions[0]).state
            return None, True
        if self.task.on_inapplicable == "noop":
            self.state = self.task.wait_step(self.state)
        return decision.reason or "not a valid action", False

    def render(self):
        text = self._observation().text if self.state is not None else ""
        if self.render_mode == "human":
            print(text)
            return None
        return text


gymnasium.register(id="groundplan/Problem-v0", entry_point="groundplan.agents.gym:GroundplanEnv")
