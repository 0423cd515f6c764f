"""What a model would be sent, without a model: the first request of an episode.

A wrong prompt invalidates every run made with it, and the only way to see one used to be a paid
run. `first_request` builds the exact messages the LLM agent would send first for a problem and a
strategy (the world's default when none is named), through the same agent, profile, step-loop
rules and observation code as a real episode; the request is caught where it would leave for the
provider. `plan-eval prompt PROBLEM` prints it, and the prompt audit (tests/test_prompt_audit.py)
checks it for every world and strategy.
"""
from __future__ import annotations


class _Caught(Exception):
    def __init__(self, messages):
        super().__init__("request caught")
        self.messages = messages


def first_request(task, strategy: str | None = None, **options) -> tuple[str, list[dict]]:
    """(the strategy used, the messages of the episode's first request)."""
    from ..loop import Limits, _Run
    from ..profile import profile_for
    from ..questions import question_for
    from .agent import LLMAgent

    agent = LLMAgent(model=options.pop("model", "preview"), strategy=strategy, no_cache=True, **options)

    def caught(messages, completions):
        raise _Caught(messages)

    agent._ask = caught
    agent.reset(task, 0)
    run = _Run(task, agent, profile_for(task), Limits(), None)
    run.adopt(getattr(agent, "loop_overrides", None) or {})
    question = question_for(task)
    try:
        if question is not None:
            agent.answer(question)
        elif agent.mode == "open":
            agent.plan(run.observe(None))
        else:
            agent.act(run.observe(None))
    except _Caught as request:
        return agent.strategy, request.messages
    raise AssertionError("the agent answered without asking the model")  # pragma: no cover - a broken agent


def as_text(messages: list[dict]) -> str:
    """The messages as a person reads them: each role on a line of its own, then its content."""
    return "\n\n".join(f"--- {m.get('role')}\n{m.get('content')}" for m in messages)
