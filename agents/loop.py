"""The step loop every agent acts through.

One episode: the observation (state, valid actions, goal, feedback on the last answer) goes to
the agent; its answer is interpreted (`agents.interpret`); the engine applies the action; the
result becomes the next feedback. Open-loop agents answer once with a whole plan, which the
loop replays until it ends or fails; with more than one trial (the agent's `trials` or the
profile's), a failed plan is followed by a new one from the state it reached, with the reason. The world's profile (`agents.profile`) decides what an
invalid answer costs; the loop itself has no world in it.

The episode records everything needed to audit or re-score it without re-running: each
observation, answer, parsed action, feedback, state hash, tokens and dollars. Tokens and dollars
are those spent by this episode's requests; replies replayed from the LLM cache are counted apart
(`cached_tokens`, `cached_cost_usd`), and dollars no price is known for are None, not 0
(`unpriced` counts those replies). Lines written before the split have no cached fields: all
their tokens were counted as spent.
"""
from __future__ import annotations

import hashlib
import math
import time
from dataclasses import asdict, dataclass, field

from groundplan.engine.errors import ResourceLimit

from .base import Agent, Observation, Reply
from .interpret import ACTION, DECLARE, TOOL, Decision, interpret
from .profile import Profile, profile_for

# outcomes (why an episode ended)
GOAL = "goal-reached"
DECLARED = "declared-unsolvable"
WRONG_DECLARATION = "wrong-declaration"
FINISHED = "finished-early"
STEP_CAP = "step-cap"
PLAN_EXHAUSTED = "plan-exhausted"
PLAN_INVALID = "plan-invalid"
INVALID_OUTPUT = "invalid-output"
AGENT_ERROR = "agent-error"
TIME_LIMIT = "time-limit"
ANSWER_RIGHT = "answer-right"  # a question episode (agents.questions) whose answer the world scored a success
ANSWER_WRONG = "answer-wrong"
STUCK = "stuck"  # the world's progress measure did not change for loop.stuck_after steps (Plancraft's paper-era rule)
MEMOUT = "memout"  # the episode's memory ran out (a grounding or a planner that did not fit)
OUTCOMES = (GOAL, DECLARED, WRONG_DECLARATION, FINISHED, STEP_CAP, PLAN_EXHAUSTED, PLAN_INVALID, INVALID_OUTPUT,
            AGENT_ERROR, TIME_LIMIT, MEMOUT, ANSWER_RIGHT, ANSWER_WRONG, STUCK)


@dataclass
class Limits:
    max_steps: int | None = None  # overrides everything else
    max_steps_factor: float | None = None  # overrides the world's step_cap_factor
    seconds: float | None = None  # wall-clock budget for the episode
    budget: str | None = None  # a named variant of the world's loop rules (loop.budgets in its prompts.yaml)
    # the reference to score against instead of the problem's stored one ((cost, proven, solvable),
    # as `reference` gives it), and where it came from: plan-eval --reference optimum or none
    reference: tuple | None = None
    reference_from: str | None = None


@dataclass
class Episode:
    problem: str
    file: str
    agent: str
    success: bool
    outcome: str
    steps: int
    cost: float
    max_steps: int
    reference_cost: float | None
    reference_proven: bool
    solvable: bool | None
    max_steps_from: str = ""  # where the step cap came from (step_cap_from), said in the summary
    reference_from: str = ""  # where the reference cost came from (reference_from)
    invalid_actions: int = 0
    tool_calls: dict = field(default_factory=dict)  # non-environment replies by tool (think, search, ...)
    reprompts: int = 0
    exhausted_steps: int = 0
    repeated_transitions: int = 0
    prompt_tokens: int = 0  # spent: requests that reached the provider in this episode
    completion_tokens: int = 0
    cost_usd: float | None = 0.0  # None: unknown (some reply's model has no price in litellm's cost map)
    requests: int = 0
    seconds: float = 0.0
    declaration: str | None = None
    error: str | None = None
    final_state_hash: str = ""
    trajectory: list[dict] = field(default_factory=list)
    final_state: object = field(default=None, repr=False, compare=False)
    cached_tokens: int = 0  # replayed from the LLM cache: not spent now (what they cost when first asked)
    cached_cost_usd: float | None = 0.0
    unpriced: int = 0  # replies (spent or replayed) without a known price

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("final_state")
        data["tokens"] = self.tokens
        return data


def state_hash(state) -> str:
    """A short stable fingerprint of a state (same state, same hash, across runs and processes)."""
    return hashlib.blake2b(repr(tuple(state)).encode(), digest_size=8).hexdigest()


def reference(task, limits: Limits | None = None) -> tuple[float | None, bool, bool | None]:
    """(reference cost, proven optimal?, solvable?): the one `limits` give, else the problem's
    stored 'optimal' entry."""
    if limits is not None and limits.reference is not None:
        return limits.reference
    entry = task.problem.optimal or {}
    if entry.get("solvable") is False:
        return None, True, False
    if entry.get("cost") is not None:
        return float(entry["cost"]), True, True
    if entry.get("upper_bound") is not None:
        return float(entry["upper_bound"]), False, True
    return None, False, None


def reference_from(task, limits: Limits | None = None) -> str:
    """Where the reference cost of an episode comes from, in words for the summary."""
    if limits is not None and limits.reference is not None:
        return limits.reference_from or "given"
    entry = task.problem.optimal or {}
    if entry.get("solvable") is False:
        return "stored: unsolvable"
    if entry.get("cost") is not None:
        return "stored optimum"
    if entry.get("upper_bound") is not None:
        return "stored upper bound"
    return "none stored"


def step_cap(task, profile: Profile, limits: Limits, loop: dict | None = None) -> int:
    return step_cap_from(task, profile, limits, loop)[0]


def step_cap_from(task, profile: Profile, limits: Limits, loop: dict | None = None) -> tuple[int, str]:
    """The episode's step cap and where it came from. Said, not only applied: a problem with no
    reference cost silently got the world's default cap (100) before the summary said so."""
    loop = profile.loop if loop is None else loop
    if limits.max_steps is not None:
        return int(limits.max_steps), "--max-steps"
    if loop.get("max_steps") is not None and limits.max_steps_factor is None and task.problem.max_steps is None:
        return int(loop["max_steps"]), "the world's fixed budget (loop max_steps)"  # GRASP: 20 actions
    factor = limits.max_steps_factor
    cost, _, _ = reference(task, limits)
    if factor is None and task.problem.max_steps is not None:
        return int(task.problem.max_steps), "the problem's max_steps"
    if cost is not None and cost > 0:
        factor, named = (factor, "--max-steps-factor") if factor is not None else (profile.loop["step_cap_factor"], "the world's factor")
        return int(math.ceil(factor * cost - 1e-9)), f"{named} {factor:g} x reference cost {cost:g}"
    if task.problem.max_steps is not None:
        return int(task.problem.max_steps), "the problem's max_steps"
    return int(profile.loop["default_max_steps"]), "the default (default_max_steps), for want of a reference cost"


class _Run:
    """The mutable bookkeeping of one episode (kept out of the loop's control flow)."""

    def __init__(self, task, agent: Agent, profile: Profile, limits: Limits, record_observations: bool | None):
        self.task, self.agent, self.profile, self.limits = task, agent, profile, limits
        self.loop = dict(profile.loop)
        if limits.budget:  # a named variant of the world's loop rules (Plancraft: the paper's or the current budget)
            variants = self.loop.get("budgets") or {}
            if limits.budget not in variants:
                from groundplan.engine.errors import GroundplanError, did_you_mean

                hint = did_you_mean(limits.budget, list(variants)) or (f"it has: {', '.join(variants)}" if variants else "it has none")
                raise GroundplanError(f"world '{profile.world}' has no budget '{limits.budget}' ({hint})")
            self.loop.update(variants[limits.budget])
        self.record_observations = record_observations
        self.state = task.initial_state()
        self.steps = 0
        self.cost = 0.0
        self.invalid = self.reprompts = self.exhausted = 0
        self.seen: set = set()
        self.repeated = 0
        self.tokens = [0, 0]
        self.dollars = 0.0
        self.requests = 0
        self.cached = [0, 0.0]  # tokens and dollars replayed from the cache
        self.unpriced = 0
        self.trajectory: list[dict] = []
        self.max_steps, self.max_steps_from = step_cap_from(task, profile, limits, self.loop)
        self.limits = limits
        self.started = time.perf_counter()
        self.trial: int | None = None  # the open-loop trial, when there may be several
        self.tools: dict[str, int] = {}
        self.consecutive_tools = 0
        self.unchanged = 0  # steps in a row that left the world's progress measure as it was
        self._progress = None
        self.adopt({})

    def adopt(self, overrides: dict) -> None:
        """Merge an agent's rules (a prompt strategy's loop section) and recompute what follows from them."""
        self.loop.update(overrides)
        self.max_steps, self.max_steps_from = step_cap_from(self.task, self.profile, self.limits, self.loop)
        self._progress = None
        if self.loop.get("stuck_after"):
            from groundplan.engine.loader import world_module

            module = world_module(self.task.domain, "replies")
            self._progress = getattr(module, "progress_key", None)

    # ---------------------------------------------------------- observations
    def observe(self, feedback: str | None, attempt: int = 0) -> Observation:
        template = "{feedback}" if self.loop.get("feedback_replaces_observation") else self.profile.template("feedback", default="{feedback}")
        return Observation(self.task, self.state, feedback, self.steps, self.max_steps, attempt, template,
                           replaces=bool(self.loop.get("feedback_replaces_observation")))

    # ---------------------------------------------------------- accounting
    def account(self, reply: Reply) -> None:
        self.tokens[0] += reply.prompt_tokens
        self.tokens[1] += reply.completion_tokens
        self.dollars += reply.cost_usd
        self.requests += reply.requests
        self.cached[0] += reply.cached_tokens
        self.cached[1] += reply.cached_cost_usd
        self.unpriced += reply.unpriced

    def record(self, before, step: int, obs: Observation | None, answer: str | None, decision: Decision | None, feedback: str | None,
               reply: Reply | None, valid: bool) -> None:
        """One trajectory entry: the state seen, the answer, what it was read as, and what followed."""
        entry = {"step": step, "answer": answer, "action": decision.text if decision and decision.actions else None,
                 "valid": valid, "feedback": feedback, "state": state_hash(before), "next_state": state_hash(self.state)}
        if decision is not None and decision.kind == TOOL:
            entry["tool"] = decision.text
        if obs is not None and (self.record_observations or (self.record_observations is None and "text" in vars(obs))):
            entry["observation"] = obs.text  # by default, what the agent actually read
        if reply is not None:
            entry.update(tokens=reply.tokens, cost_usd=reply.cost_usd if not reply.unpriced else None, cached=reply.cached)
            if reply.cached_tokens:
                entry.update(cached_tokens=reply.cached_tokens, cached_cost_usd=reply.cached_cost_usd if not reply.unpriced else None)
            if reply.detail:
                entry["detail"] = reply.detail
        if self.trial is not None:
            entry["trial"] = self.trial
        self.trajectory.append(entry)

    # ---------------------------------------------------------- acting
    def apply(self, decision: Decision) -> str | None:
        """Apply a parsed action (applicable or not) under the world's rules; returns feedback."""
        task, before = self.task, self.state
        if not decision.actions:  # an answer the world accepts as a step that does nothing (Plancraft's smelt from [0])
            after = task.wait_step(before)
            self.cost += task.noop_cost(before)
            feedback = None
        elif task.agent_mode == "simultaneous" and len(task.agents) > 1:
            if decision.applicable:
                after = task.apply_joint(before, decision.actions)
                self.cost += sum(task.action_cost(before, a) for a in decision.actions)
                feedback = None
            else:
                after, feedback = (task.wait_step(before) if task.on_inapplicable == "noop" else before), decision.reason
                self.invalid += 1
        else:
            result = task.step(before, decision.actions[0])
            after = result.state
            self.cost += result.cost
            feedback = None if result.valid or self.loop.get("silent_noops") else result.message
            if not result.valid:
                self.invalid += 1
        self.steps += 1
        key = (state_hash(before), decision.text, state_hash(after))
        if key in self.seen:
            self.repeated += 1
        self.seen.add(key)
        self.state = after
        self.consecutive_tools = 0
        if self._progress is not None:
            self.unchanged = self.unchanged + 1 if self._progress(task, before) == self._progress(task, after) else 0
        return feedback

    def tool(self, decision: Decision) -> bool:
        """Count a non-environment reply; True when it used up a step (the world's budget rules)."""
        name = decision.text or "tool"
        self.tools[name] = self.tools.get(name, 0) + 1
        if decision.invalid:
            self.invalid += 1
        self.consecutive_tools += 1
        limit = 1 if self.loop.get("tools_use_steps") else \
            self.loop.get("max_consecutive_tools") or self.loop.get("reprompts_per_step", 5)
        if self.consecutive_tools >= int(limit):  # every turn counts (plancraft's current budget), or after
            self.steps += 1                       # `limit` in a row a step passes with no action (the paper's rule)
            self.cost += self.task.noop_cost(self.state)
            self.state = self.task.wait_step(self.state)
            self.consecutive_tools = 0
            if self._progress is not None:
                self.unchanged += 1  # a step with no action changes no item count
            return True
        return False

    @property
    def stuck(self) -> bool:
        limit = self.loop.get("stuck_after")
        return bool(limit) and self._progress is not None and self.unchanged >= int(limit)

    def out_of_time(self) -> bool:
        return self.limits.seconds is not None and time.perf_counter() - self.started > self.limits.seconds

    def finish(self, outcome: str, declaration: str | None = None, error: str | None = None) -> Episode:
        task = self.task
        cost, proven, solvable = reference(task, self.limits)
        if outcome == DECLARED and solvable is not False:
            outcome = WRONG_DECLARATION
        success = outcome in (GOAL, DECLARED, ANSWER_RIGHT)
        return Episode(
            problem=task.problem.name, file=task.problem.file, agent=self.agent.name, success=success, outcome=outcome,
            steps=self.steps, cost=self.cost, max_steps=self.max_steps, reference_cost=cost, reference_proven=proven,
            solvable=solvable, max_steps_from=self.max_steps_from, reference_from=reference_from(task, self.limits),
            invalid_actions=self.invalid, tool_calls=dict(self.tools), reprompts=self.reprompts, exhausted_steps=self.exhausted,
            repeated_transitions=self.repeated, prompt_tokens=self.tokens[0], completion_tokens=self.tokens[1],
            cost_usd=None if self.unpriced else round(self.dollars, 8), requests=self.requests,
            seconds=round(time.perf_counter() - self.started, 6),
            declaration=declaration, error=error, final_state_hash=state_hash(self.state), trajectory=self.trajectory,
            final_state=self.state, cached_tokens=self.cached[0],
            cached_cost_usd=None if self.unpriced else round(self.cached[1], 8), unpriced=self.unpriced)


def run_episode(task, agent: Agent, limits: Limits | None = None, seed: int | None = None,
                record_observations: bool | None = None) -> Episode:
    """Run `agent` on `task` until the goal, a declaration, the step cap or a failure.

    `record_observations`: None records the observations the agent read (an LLM's prompts, not
    the oracle's unread ones), True renders and records every one, False none."""
    limits = limits or Limits()
    profile = profile_for(task)
    run = _Run(task, agent, profile, limits, record_observations)
    agent.deadline = None if limits.seconds is None else time.monotonic() + limits.seconds
    from groundplan.engine.budget import alarm, limited

    try:
        # agents bound their own work by the deadline; the budget stops grounding and planning in
        # any thread, the alarm (main thread only) code that never polls
        with limited(limits.seconds), alarm(limits.seconds):
            return _episode(run, agent, task, seed)
    except KeyboardInterrupt:
        raise
    except (ResourceLimit, MemoryError) as exc:  # the episode outgrew its time or memory: scored, not a crash
        if isinstance(exc, ResourceLimit) and exc.status == "timeout":
            return run.finish(TIME_LIMIT, error=str(exc))
        return run.finish(MEMOUT, error=str(exc) if isinstance(exc, ResourceLimit) else "out of memory (MemoryError)")
    except Exception as exc:  # an agent that fails (e.g. a provider down after retries) ends its episode, not the run
        from .llm.redact import redact

        spent = getattr(exc, "spent", None)  # what the failed answer cost (an LLM's requests and retries)
        if isinstance(spent, Reply):
            run.account(spent)
        # an agent cut off by its deadline (a model call at --episode-time) ran out of time; it did not fail
        outcome = TIME_LIMIT if isinstance(exc, TimeoutError) and agent.deadline is not None else AGENT_ERROR
        return run.finish(outcome, error=redact(f"{type(exc).__name__}: {exc}"))


def _episode(run: _Run, agent: Agent, task, seed) -> Episode:
    agent.reset(task, seed)
    run.adopt(getattr(agent, "loop_overrides", None) or {})  # e.g. the tools a prompt strategy enables
    from .questions import question_for

    question = question_for(task)
    if question is not None:
        return _ask(run, question)
    if agent.mode == "open":
        return _open_loop(run)
    return _closed_loop(run)


def _ask(run: _Run, question) -> Episode:
    """A question episode: one answer, scored by the world; the score goes into the trajectory."""
    reply = run.agent.answer(question)
    run.account(reply)
    problem = reply.detail.get("parse_error") if reply.detail else None
    scored = {"success": False, "parse_error": problem} if problem else question.score(reply.text)
    run.record(run.state, 0, None, reply.text, None, scored.get("parse_error"), reply, bool(scored.get("success")))
    run.trajectory[-1]["score"] = scored
    run.trajectory[-1]["question"] = question.kind
    if scored.get("parse_error"):
        run.invalid += 1
        return run.finish(INVALID_OUTPUT)
    return run.finish(ANSWER_RIGHT if scored.get("success") else ANSWER_WRONG)


def _closed_loop(run: _Run) -> Episode:
    task, agent, loop = run.task, run.agent, run.loop
    feedback = None
    reprompt = loop.get("invalid_answer", "reprompt") == "reprompt"
    while True:
        if task.is_goal(run.state):
            return run.finish(GOAL)
        if run.steps >= run.max_steps:
            return run.finish(STEP_CAP)
        if run.stuck:
            return run.finish(STUCK)
        if run.out_of_time():
            return run.finish(TIME_LIMIT)
        attempt = 0
        while True:
            obs = run.observe(feedback, attempt)
            reply = agent.act(obs)
            run.account(reply)
            problem = reply.detail.get("parse_error") if reply.detail else None
            decision = Decision("invalid", reason=problem) if problem else interpret(task, run.state, reply.text, loop)
            if decision.kind == DECLARE:
                run.record(obs.state, obs.step, obs, reply.text, decision, None, reply, True)
                if decision.declaration == "finish":
                    return run.finish(GOAL if task.is_goal(run.state) else FINISHED, declaration="finish")
                return run.finish(DECLARED, declaration=decision.declaration)
            if decision.kind == TOOL:
                feedback = decision.reason
                run.record(obs.state, obs.step, obs, reply.text, decision, feedback, reply, not decision.invalid)
                agent.observe(obs, reply.text, feedback)
                if run.tool(decision) or (run.steps >= run.max_steps) or run.out_of_time():
                    break
                continue
            if decision.kind == ACTION and (decision.applicable or not reprompt):
                feedback = run.apply(decision)
                run.record(obs.state, obs.step, obs, reply.text, decision, feedback, reply, decision.applicable and feedback is None)
                agent.observe(obs, reply.text, feedback)
                break
            # an answer that names no valid action
            reason = decision.reason or "it is not a valid action"
            feedback = run.profile.template("invalid_answer", default="{reason}").replace("{answer}", reply.text.strip()).replace("{reason}", reason)
            run.invalid += 1
            run.record(obs.state, obs.step, obs, reply.text, decision, feedback, reply, False)
            agent.observe(obs, reply.text, feedback)
            if not reprompt:  # the step is spent
                run.steps += 1
                run.cost += task.noop_cost(run.state)
                if task.on_inapplicable == "noop":
                    run.state = task.wait_step(run.state)
                break
            attempt += 1
            run.reprompts += 1
            if attempt > int(loop.get("reprompts_per_step", 5)):
                run.exhausted += 1
                if run.exhausted >= int(loop.get("max_exhausted_steps", 3)):
                    return run.finish(INVALID_OUTPUT)
                attempt = 0
                break
            if run.out_of_time():
                return run.finish(TIME_LIMIT)


def _open_loop(run: _Run) -> Episode:
    """Up to `trials` plans; each one starts where the previous one stopped, told why it stopped."""
    trials = getattr(run.agent, "trials", None) or run.loop.get("trials", 1)
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        from groundplan.engine.errors import GroundplanError

        raise GroundplanError(f"'trials' is a whole number >= 1, not {trials!r}")
    feedback = None
    for trial in range(1, trials + 1):
        if trial > 1 and run.out_of_time():
            return run.finish(TIME_LIMIT)
        run.trial = trial if trials > 1 else None
        ended = _replay_plan(run, feedback)
        if isinstance(ended, Episode):
            return ended
        outcome, feedback = ended
    return run.finish(outcome)


def _replay_plan(run: _Run, feedback: str | None):
    """Ask for one plan and replay it: the finished Episode, or (outcome, reason) of a failed plan."""
    task, agent, loop = run.task, run.agent, run.loop
    obs = run.observe(feedback)
    reply = agent.plan(obs)
    run.account(reply)
    lines = reply.detail.get("actions") if isinstance(reply.detail.get("actions"), list) else \
        [line.strip() for line in reply.text.splitlines() if line.strip()]
    problem = reply.detail.get("parse_error")
    run.reprompts += int(reply.detail.get("reprompts", 0))
    run.record(obs.state, obs.step, obs, reply.text, None, problem, reply, problem is None)
    run.trajectory[-1]["plan"] = True  # the whole answer; its lines follow as entries of their own
    if problem:
        run.invalid += 1
        return run.finish(INVALID_OUTPUT)
    stop_on_invalid = loop.get("open_plan_invalid", "stop") == "stop"
    stop_at_goal = loop.get("stop_at_goal", True)
    for line in lines:
        if stop_at_goal and task.is_goal(run.state):
            return run.finish(GOAL)
        if run.steps >= run.max_steps:
            return run.finish(STEP_CAP)
        before, index = run.state, run.steps
        decision = interpret(task, before, line, loop)
        if decision.kind == DECLARE:
            run.record(before, index, None, line, decision, None, None, True)
            if decision.declaration == "finish":
                return run.finish(GOAL if task.is_goal(run.state) else FINISHED, declaration="finish")
            return run.finish(DECLARED, declaration=decision.declaration)
        if decision.kind == ACTION and (decision.applicable or not stop_on_invalid):
            step_feedback = run.apply(decision)
            run.record(before, index, None, line, decision, step_feedback, None, decision.applicable)
            continue
        reason = decision.reason or "it is not a valid action"
        run.invalid += 1
        if stop_on_invalid:
            run.record(before, index, None, line, decision, reason, None, False)
            return PLAN_INVALID, reason
        run.steps += 1  # an unknown line is a no-op that still uses a step
        run.cost += task.noop_cost(run.state)
        if task.on_inapplicable == "noop":
            run.state = task.wait_step(run.state)
        run.record(before, index, None, line, decision, reason, None, False)
    if task.is_goal(run.state):
        return run.finish(GOAL)
    return PLAN_EXHAUSTED, run.profile.template("plan_ended", default="the plan ended before the goal was reached")
