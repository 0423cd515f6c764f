"""The LLM agent: any litellm model, four prompt strategies, one step loop.

`io` and `cot` answer once with a whole plan (open loop); `react` and `react-prior` answer one
action per step (closed loop). A reply that cannot be read is re-prompted with feedback that
says what was missing; the loop bounds and counts re-prompts as the world's profile says.
"""
from __future__ import annotations

from ..base import Agent, Observation, Reply
from ..profile import profile_for
from . import parse, prompts
from .client import Client


class LLMAgent(Agent):
    name = "llm"

    def __init__(self, model: str, strategy: str = "react", api_base: str | None = None, api_key: str | None = None,
                 temperature: float = 0.7, max_tokens: int | None = None, system_prompt: str | None = None,
                 examples: list[str] | None = None, cache_dir: str | None = None, no_cache: bool = False,
                 timeout: float = 120.0, max_retries: int = 5, backoff: float = 1.0, concurrency: int = 8,
                 history: str | None = None):
        if strategy not in prompts.STRATEGIES:
            from engine.errors import GroundplanError, did_you_mean

            hint = did_you_mean(strategy, prompts.STRATEGIES) or f"choose from {', '.join(prompts.STRATEGIES)}"
            raise GroundplanError(f"unknown prompt strategy '{strategy}' ({hint})")
        self.model, self.strategy = model, strategy
        self.mode = "closed" if strategy.startswith("react") else "open"
        self.temperature, self.max_tokens = temperature, max_tokens
        self.system_prompt, self.examples, self.history_mode = system_prompt, examples, history
        params = {"temperature": temperature}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        from .cache import DiskCache

        cache = False if no_cache else DiskCache(cache_dir) if cache_dir else None
        self.client = Client(model, api_base=api_base, api_key=api_key, cache=cache, timeout=timeout, max_retries=max_retries,
                             backoff=backoff, concurrency=concurrency, params=params)
        self.api_base = api_base

    def reset(self, task, seed=None) -> None:
        super().reset(task, seed)
        self.profile = profile_for(task)
        spec = self.profile.prompts["strategies"][self.strategy]
        self.history_mode_now = self.history_mode or spec.get("history", "last")
        examples = prompts.examples_for(self.profile, self.strategy, self.examples)
        self.opening = prompts.instructions(self.profile, self.strategy, self.system_prompt, examples)
        self.steps: list[dict] = []
        self._pending: dict | None = None

    def _ask(self, messages: list[dict]):
        return self.client.complete(messages)

    @staticmethod
    def _reply(text: str, completions: list, detail: dict) -> Reply:
        return Reply(text, sum(c.prompt_tokens for c in completions), sum(c.completion_tokens for c in completions),
                     sum(c.cost_usd for c in completions), all(c.cached for c in completions), sum(c.requests for c in completions),
                     detail)

    # ------------------------------------------------------------ open loop
    def plan(self, observation: Observation) -> Reply:
        read = parse.plan_lines if self.strategy == "io" else parse.cot_actions
        messages = self.opening + [prompts.observation_message(self.profile, self.strategy, observation.text)]
        completions, problems = [], []
        limit = int(self.profile.loop.get("reprompts_per_step", 5))
        for _ in range(limit + 1):
            completion = self._ask(messages)
            completions.append(completion)
            actions, problem = read(completion.text)
            if problem is None:
                return self._reply(completion.text, completions, {"actions": actions, "messages": messages, "reprompts": len(problems)})
            problems.append(problem)
            messages = messages + [{"role": "assistant", "content": completion.text},
                                   {"role": "user", "content": self.profile.template("feedback", default="{feedback}").replace("{feedback}", problem)}]
        return self._reply(completions[-1].text, completions, {"actions": [], "parse_error": problems[-1], "reprompts": len(problems)})

    # ------------------------------------------------------------ closed loop
    def act(self, observation: Observation) -> Reply:
        history = prompts.history_text(self.profile, self.steps, self.history_mode_now)
        messages = self.opening + [prompts.observation_message(self.profile, self.strategy, observation.text, history)]
        completion = self._ask(messages)
        reasoning, action, problem = parse.react_step(completion.text)
        self._pending = {"reasoning": reasoning, "action": action or completion.text.strip()}
        detail = {"messages": messages, "reasoning": reasoning}
        if problem:
            detail["parse_error"] = problem
        return self._reply(action, [completion], detail)

    def observe(self, observation: Observation, answer: str, feedback: str | None) -> None:
        if self._pending is not None:
            self.steps.append({**self._pending, "feedback": feedback})
            self._pending = None

    def config(self) -> dict:
        return {"agent": self.name, "mode": self.mode, "model": self.model, "strategy": self.strategy, "api_base": self.api_base,
                "temperature": self.temperature, "max_tokens": self.max_tokens, "history": self.history_mode,
                "system_prompt": self.system_prompt, "examples": self.examples}
