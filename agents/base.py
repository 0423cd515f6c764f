"""What an agent is: something that answers an observation with text.

Every agent, from the oracle to a human, answers in text that the loop parses, so the
baselines go through the same parser, feedback and accounting as an LLM. An agent is either
closed-loop (one answer per step: `act`) or open-loop (one answer holding a whole plan: `plan`,
replayed by the loop until it ends or fails).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field


@dataclass
class Reply:
    """An agent's answer and what it cost.

    The tokens and dollars are those spent now, on requests that reached a provider; what was
    replayed from the LLM cache is counted apart (`cached_tokens`, `cached_cost_usd`: what those
    replies cost when they were first asked), so a rerun served from the cache spends nothing.
    `unpriced`: replies whose model litellm has no price for; the dollars then leave them out."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = False
    requests: int = 0  # calls that reached a provider (0 for baselines and cache hits)
    detail: dict = field(default_factory=dict)  # e.g. the messages sent, the model's reasoning
    cached_tokens: int = 0
    cached_cost_usd: float = 0.0
    unpriced: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Observation:
    """What the loop shows an agent at one step.

    The texts are rendered when first read: the oracle and random agents never read them, which
    keeps the harness's own cost per step small."""

    def __init__(self, task, state, feedback: str | None, step: int, max_steps: int, attempt: int = 0,
                 feedback_template: str = "{feedback}", replaces: bool = False):
        self.task, self.state = task, state
        self.feedback = feedback
        self.step, self.max_steps, self.attempt = step, max_steps, attempt
        self.turn = task.turn_indicator(state, step)
        self.goal = task.problem.goal_text or "reach the goal"
        self._feedback_template = feedback_template
        self._replaces = replaces  # the feedback is the whole message (a tool's answer), as in Plancraft's dialogue

    @functools.cached_property
    def valid_actions(self) -> list:
        """The ground actions applicable now (in the engine's fixed order)."""
        return self.task.applicable(self.state)

    @functools.cached_property
    def actions(self) -> list[str]:
        return [a.text for a in self.valid_actions]

    @functools.cached_property
    def state_text(self) -> str:
        from groundplan.engine.render import render

        return render(self.task, self.state, "narrative")

    @functools.cached_property
    def text(self) -> str:
        """The world's observation (its template over state, valid actions and goal, or the world's own
        `domains/<world>/text.py: observation(task, state)`), after the feedback."""
        if self.feedback and self._replaces:
            return self._feedback_template.replace("{feedback}", self.feedback)
        from groundplan.engine.loader import world_module

        own = world_module(self.task.domain, "text")
        if own is not None and hasattr(own, "observation"):
            text = own.observation(self.task, self.state)
        else:
            from groundplan.engine.render import observation

            text = observation(self.task, self.state)
        if self.feedback:
            text = self._feedback_template.replace("{feedback}", self.feedback) + "\n\n" + text
        return text


class Agent:
    """Base class. Subclasses set `name` and `mode` and implement `act` or `plan`."""

    name = "agent"
    mode = "closed"  # "closed": act() each step; "open": plan() once
    # When the episode's wall-clock budget runs out (a time.monotonic() instant), set by the step
    # loop before reset(); None: no limit. Agents that think for long (a planner, a model call)
    # bound their own work by it, so --episode-time holds while they are busy, not only between steps.
    deadline: float | None = None

    def time_left(self, cap: float | None = None) -> float | None:
        """Seconds until the deadline (never below 0), at most `cap`; None when neither bounds it."""
        import time

        left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        if cap is None:
            return left
        return cap if left is None else min(cap, left)

    def reset(self, task, seed: int | None = None) -> None:
        """Start an episode on `task` (an engine Task)."""
        self.task = task
        self.seed = seed

    def act(self, observation: Observation) -> Reply:
        raise NotImplementedError(f"{self.name} does not act step by step")

    def plan(self, observation: Observation) -> Reply:
        """One answer with the whole plan, one action per line."""
        raise NotImplementedError(f"{self.name} does not answer with a whole plan")

    def answer(self, question) -> Reply:
        """One answer to a world's question (agents.questions): Predict's pose, Decompose's subgoals."""
        raise NotImplementedError(f"{self.name} does not answer questions")

    def observe(self, observation: Observation, answer: str, feedback: str | None) -> None:
        """Told what happened to its last answer (closed loop); LLM agents keep history here."""

    def config(self) -> dict:
        """What identifies this agent's behaviour in a run's manifest."""
        return {"agent": self.name, "mode": self.mode}
