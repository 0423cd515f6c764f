"""A Gymnasium environment over any groundplan problem: text observations, text actions.

RL and agent libraries that speak Gymnasium (BALROG-style harnesses, for instance) can drive our
worlds through it. The observation is the world's observation text; an action is any text the
step loop would accept (exact or tolerant, as the world's profile says). Reward is 1.0 on the
step that reaches the goal, else 0.0; `terminated` is the goal, `truncated` the step cap.

Needs the optional extra: pip install 'groundplan[gym]'.
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


class GroundplanEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, problem: str, max_steps: int | None = None, render_mode: str | None = None):
        self.task = problem if isinstance(problem, Task) else Task.load(problem)
        self.profile = profile_for(self.task)
        self.max_steps = step_cap(self.task, self.profile, Limits(max_steps=max_steps))
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_length=1_000_000, charset=CHARSET)
        self.action_space = spaces.Text(max_length=10_000, charset=CHARSET)
        self.state = None
        self.steps = 0

    def _observe(self, feedback=None) -> tuple[str, dict]:
        obs = Observation(self.task, self.state, feedback, self.steps, self.max_steps,
                          feedback_template=self.profile.template("feedback", default="{feedback}"))
        info = {"valid_actions": obs.actions, "state_hash": state_hash(self.state), "step": self.steps,
                "max_steps": self.max_steps, "feedback": feedback, "turn": obs.turn}
        return obs.text, info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.state = self.task.initial_state()
        self.steps = 0
        return self._observe()

    def step(self, action: str):
        if self.state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        decision = interpret(self.task, self.state, str(action), self.profile.loop)
        feedback, valid = None, False
        if decision.kind == ACTION and decision.applicable:
            if len(decision.actions) > 1:
                self.state = self.task.apply_joint(self.state, decision.actions)
            else:
                self.state = self.task.step(self.state, decision.actions[0]).state
            valid = True
        elif decision.kind == DECLARE:
            _, _, solvable = reference(self.task)
            right = decision.declaration != "finish" and solvable is False
            obs, info = self._observe()
            info.update(declaration=decision.declaration, valid=True)
            return obs, 1.0 if right else 0.0, True, False, info
        else:
            feedback = decision.reason or "not a valid action"
            if self.task.on_inapplicable == "noop":
                self.state = self.task.wait_step(self.state)
        self.steps += 1
        reached = self.task.is_goal(self.state)
        obs, info = self._observe(feedback)
        info["valid"] = valid
        return obs, 1.0 if reached else 0.0, reached, (not reached and self.steps >= self.max_steps), info

    def render(self):
        text = self._observe()[0] if self.state is not None else ""
        if self.render_mode == "human":
            print(text)
            return None
        return text


gymnasium.register(id="groundplan/Problem-v0", entry_point="agents.gym:GroundplanEnv")
