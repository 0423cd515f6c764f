"""The LLM agent: any litellm model, the prompt strategies of the world's profile, one step loop.

Generic strategies: `io` and `cot` answer once with a whole plan (open loop); `react` and
`react-prior` answer one action per step (closed loop). A world may redefine a strategy or add
its own (`domains/<world>/prompts.yaml`): its `mode`, its number of `trials` (open loop: a failed
plan is followed by a new one, from where it stopped, with the reason), and a `shots` file that
replaces the generic conversation by the benchmark's own few-shot text (`agents/llm/shots.py`).
A reply that cannot be read is re-prompted with feedback that says what was missing; the loop
bounds and counts re-prompts as the world's profile says.

A reply is read whole, but what is kept of it (the answer in the trajectory, the reasoning, and
what later prompts repeat to the model) is cut at `max_reply_chars` (20,000) with a note saying
so: a runaway reply of megabytes would otherwise be stored several times and sent back on every
later request. Model calls end at the episode's deadline (`Agent.deadline`); a call that fails
leaves what it spent on the exception (`spent`, a Reply) for the loop to account.
"""
from __future__ import annotations

from ..base import Agent, Observation, Reply
from ..profile import profile_for
from . import parse, prompts, shots
from .client import Client, Completion, ModelCallError

MAX_REPLY_CHARS = 20_000


def cut(text: str, limit: int | None) -> str:
    """`text`, or its first `limit` characters and a line saying how much there was."""
    if limit is None or text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... reply cut: {len(text):,} characters, kept the first {limit:,}]"


def spec_reads_plan(spec: dict, strategy: str) -> bool:
    """Does the strategy's answer hold a 'Plan:' (read: plan) or 'Action:' lines (read: actions)?"""
    return spec.get("read", "plan" if strategy == "io" else "actions") == "plan"


class LLMAgent(Agent):
    name = "llm"

    def __init__(self, model: str, strategy: str | None = None, api_base: str | None = None, api_key: str | None = None,
                 temperature: float | None = None, max_tokens: int | None = None, system_prompt: str | None = None,
                 examples: list[str] | None = None, cache_dir: str | None = None, no_cache: bool = False, cache: str = "on",
                 send_seed: bool = True,
                 timeout: float = 60.0, max_retries: int = 4, backoff: float = 1.0, concurrency: int = 8,
                 history: str | None = None, max_reply_chars: int | None = MAX_REPLY_CHARS):
        from ..profile import check_strategy

        if strategy is not None:
            check_strategy(strategy)
        # `strategy`: the one named (None: each world's default); `self.strategy`: the one in use this episode
        self.model, self.requested, self.strategy = model, strategy, strategy
        self.mode = "closed" if (strategy or "react").startswith("react") else "open"  # until a world's profile says otherwise
        self.trials = None
        self.temperature, self.max_tokens = temperature, max_tokens
        self.system_prompt, self.examples, self.history_mode = system_prompt, examples, history
        if max_reply_chars is not None and (isinstance(max_reply_chars, bool) or not isinstance(max_reply_chars, int)
                                            or max_reply_chars < 1):
            from groundplan.engine.errors import GroundplanError

            raise GroundplanError(f"max_reply_chars is a whole number >= 1 (or None: keep replies whole), not {max_reply_chars!r}")
        self.max_reply_chars = max_reply_chars
        self._asked: dict[str, int] = {}
        # what the user gave wins over the world's and the strategy's params (the papers' settings)
        params = {name: value for name, value in (("temperature", temperature), ("max_tokens", max_tokens)) if value is not None}
        self.given_params = params
        from .cache import DiskCache

        # `cache`: how the reply cache is used (agents/llm/cache.py MODES; no_cache is mode 'off')
        store = False if no_cache or cache == "off" else DiskCache(cache_dir) if cache_dir else None
        self.client = Client(model, api_base=api_base, api_key=api_key, cache=store, timeout=timeout, max_retries=max_retries,
                             backoff=backoff, concurrency=concurrency, params=params, cache_mode=cache, send_seed=send_seed)
        self.api_base = api_base

    def reset(self, task, seed=None) -> None:
        super().reset(task, seed)
        from ..profile import default_strategy

        self.profile = profile_for(task)
        self.strategy = self.requested or default_strategy(self.profile)
        self.spec = spec = prompts.strategy_spec(self.profile, self.strategy)
        self.client.params = {**(self.profile.prompts.get("params") or {}), **(spec.get("params") or {}), **self.given_params}
        self.mode = spec.get("mode") or self.mode
        self.trials = spec.get("trials")
        self.history_mode_now = self.history_mode or spec.get("history", "last")
        self.loop_overrides = dict(spec.get("loop") or {})
        self.window = int(spec.get("window", 40))
        self.dialogue: list[dict] = []  # chat history: the observations and the replies, as sent and received
        self.shots = None
        self.own_prompt = None
        if self.history_mode_now == "chat":
            # the world builds the opening (system prompt, few-shot turns) for this strategy's tools
            from groundplan.engine.loader import world_module

            own = world_module(task.domain, "prompting")
            if own is None:
                from groundplan.engine.errors import GroundplanError

                raise GroundplanError(f"strategy '{self.strategy}' of world '{self.profile.world}' keeps a chat history, "
                                      f"which needs domains/{self.profile.world}/prompting.py: opening(spec, task)"
                                      + ("" if task.domain.plugin_world else " (Python plug-ins are read only for a domain "
                                         "file inside an installed world, a folder of domains/)"))
            self.opening = own.opening(spec, task, self.system_prompt)
        elif spec.get("prompt"):
            self.own_prompt = prompts.world_prompt(self.profile, self.strategy, spec, task)
            self.opening = []
        elif spec.get("shots"):
            if self.examples:
                from groundplan.engine.errors import GroundplanError

                raise GroundplanError(f"strategy '{self.strategy}' of world '{self.profile.world}' brings its own examples "
                                      f"({spec['shots']}); drop the examples option")
            self.shots = shots.for_task(shots.load(str(self.profile.world_file(spec["shots"]))), task)
            self.opening = []
        else:
            examples = prompts.examples_for(self.profile, self.strategy, self.examples)
            self.opening = prompts.instructions(self.profile, self.strategy, self.system_prompt, examples, task)
        self.steps: list[dict] = []
        self._trials: list[dict] = []  # shots strategies: each trial's reply (as kept) and where it started
        self._pending: dict | None = None
        self._asked = {}  # how often each request was asked in this episode (see _ask)

    def _ask(self, messages: list[dict], completions: list) -> Completion:
        """One model call, appended to `completions` (the answer's calls so far).

        A request asked again in the same episode is numbered, so the cache gives the model a
        fresh try rather than its first reply, and a rerun replays the same replies in order; the
        episode's seed goes with every request, so another seed or sample draws new replies.
        When the call fails, what the answer spent so far goes on the exception (`spent`)."""
        key = self.client.key(messages)
        repeat = self._asked.get(key, 0)
        self._asked[key] = repeat + 1
        try:
            completion = self.client.complete(messages, repeat=repeat, deadline=self.deadline, seed=getattr(self, "seed", None))
        except ModelCallError as exc:
            exc.spent = self._reply("", completions + [Completion("", 0, 0, 0.0, False, exc.requests)], {})
            raise
        completions.append(completion)
        return completion

    def _cut(self, text: str) -> str:
        return cut(text, self.max_reply_chars)

    def _reply(self, text: str, completions: list, detail: dict) -> Reply:
        """The reply and its cost: spent (requests made now) apart from replayed (cache hits)."""
        spent = [c for c in completions if not c.cached]
        replayed = [c for c in completions if c.cached]
        return Reply(self._cut(text), sum(c.prompt_tokens for c in spent), sum(c.completion_tokens for c in spent),
                     sum(c.cost_usd for c in spent if c.cost_known), all(c.cached for c in completions),
                     sum(c.requests for c in completions), detail,
                     cached_tokens=sum(c.prompt_tokens + c.completion_tokens for c in replayed),
                     cached_cost_usd=sum(c.cost_usd for c in replayed if c.cost_known),
                     unpriced=sum(1 for c in completions if not c.cost_known))

    # ------------------------------------------------------------ open loop
    def plan(self, observation: Observation) -> Reply:
        if self.shots is not None:
            messages, k = self._shots_request(observation)

            def read(text):
                return shots.read(self.shots, text, k)[:2]
        elif self.own_prompt is not None:
            messages, read = self.own_prompt.messages(observation, self.system_prompt), self.own_prompt.read
        else:
            read = parse.plan_lines if spec_reads_plan(self.spec, self.strategy) else parse.cot_actions
            messages = self.opening + [prompts.observation_message(self.profile, self.strategy, observation.text, task=self.task)]
        completions, problems = [], []
        limit = int(self.profile.loop.get("plan_reprompts", self.profile.loop.get("reprompts_per_step", 5)))
        for _ in range(limit + 1):
            completion = self._ask(messages, completions)
            actions, problem = read(completion.text)
            if problem is None:
                # lines past the step cap are never replayed (one more lets the loop see the cap)
                actions = actions[:max(0, observation.max_steps - observation.step) + 1]
                detail = {"actions": actions, "messages": messages, "reprompts": len(problems)}
                if self.shots is not None:
                    self._trials.append({"kept": self._cut(shots.read(self.shots, completion.text, k)[2]), "start": observation.step})
                    detail["trial"] = k
                return self._reply(completion.text, completions, detail)
            problems.append(problem)
            messages = messages + [{"role": "assistant", "content": self._cut(completion.text)},
                                   {"role": "user", "content": self.profile.template("feedback", default="{feedback}").replace("{feedback}", problem)}]
        return self._reply(completions[-1].text, completions, {"actions": [], "parse_error": problems[-1], "reprompts": len(problems)})

    def _shots_request(self, observation: Observation) -> tuple[list[dict], int]:
        """The world's few-shot prompt for the next trial: after a failed one, its reply and an
        observation line (moves made, where the agent is, why it stopped) are appended."""
        k = len(self._trials) + 1
        if self._trials and "obs" not in self._trials[-1]:
            last = self._trials[-1]
            last["obs"] = shots.observation(self.shots, self.task, observation.state, k - 1,
                                            observation.step - last["start"], observation.feedback)
        transcript = "\n".join(f"{t['kept']}\n{t['obs']}" for t in self._trials)
        text = shots.compose(self.shots, shots.fill(self.shots["task"], self.task), transcript)
        system = self.system_prompt if self.system_prompt is not None else self.shots.get("system")
        return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": text}], k

    # ------------------------------------------------------------ questions
    def answer(self, question) -> Reply:
        """One request with the world's own prompt for the question and this strategy."""
        messages, completions = question.messages(self.strategy), []
        completion = self._ask(messages, completions)
        return self._reply(completion.text, completions, {"messages": messages})

    # ------------------------------------------------------------ closed loop
    def act(self, observation: Observation) -> Reply:
        if self.history_mode_now == "chat":
            return self._chat(observation)
        history = prompts.history_text(self.profile, self.steps, self.history_mode_now)
        messages = self.opening + [prompts.observation_message(self.profile, self.strategy, observation.text, history, self.task)]
        completions: list = []
        completion = self._ask(messages, completions)
        reasoning, action, problem = parse.react_step(completion.text)
        reasoning = self._cut(reasoning)
        self._pending = {"reasoning": reasoning, "action": self._cut(action or completion.text.strip())}
        detail = {"messages": messages, "reasoning": reasoning}
        if problem:
            detail["parse_error"] = problem
        return self._reply(action, completions, detail)

    def _chat(self, observation: Observation) -> Reply:
        """One turn of a plain dialogue: the reply goes to the world whole (the world reads what it
        needs, e.g. Plancraft's first line), as the reference benchmarks' chat loops do."""
        shown = {"role": "user", "content": observation.text}
        window = self.dialogue[-(self.window - 1):] if self.window > 1 else []
        if window and window[0]["role"] == "assistant":
            window = window[1:]
        messages, completions = self.opening + window + [shown], []
        completion = self._ask(messages, completions)
        self._pending = {"user": shown, "reply": self._cut(completion.text)}
        return self._reply(completion.text, completions, {"messages": messages})

    def observe(self, observation: Observation, answer: str, feedback: str | None) -> None:
        if self.history_mode_now == "chat":
            if self._pending is not None:
                self.dialogue += [self._pending["user"], {"role": "assistant", "content": self._pending["reply"]}]
                self._pending = None
            return
        if self._pending is not None:
            self.steps.append({**self._pending, "feedback": feedback})
            self._pending = None

    def config(self) -> dict:
        return {"agent": self.name, "mode": self.mode, "model": self.model, "strategy": self.requested, "api_base": self.api_base,
                "temperature": self.temperature, "max_tokens": self.max_tokens, "history": self.history_mode,
                "system_prompt": self.system_prompt, "examples": self.examples}
