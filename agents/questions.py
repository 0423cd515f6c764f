"""Question episodes: a problem whose task is one answer, scored by its world, not a walk.

Some benchmarks ask about a world instead of acting in it: LLM-BabyBench's Predict ("where does
this action sequence leave the agent?") and Decompose ("list the subgoals"). A world declares
such tasks in `domains/<world>/questions.py`:

    kind(task) -> str | None                  # the problem's question kind, None for a walk
    messages(task, strategy) -> list[dict]    # the chat messages an LLM is sent
    score(task, answer: str) -> dict          # {"success": bool, ...the world's own fields}
    oracle_answer(task) -> str                # an answer that scores as a success
    random_answer(task, rng) -> str           # the random baseline's answer
    check_answer_key(task) -> list[Diagnostic]  # optional: what is wrong with the row's answer key
    playback(task, answer) -> list[dict]      # optional: [{"name", "actions", "note"}] the viewer plays

The loop asks the agent once (`Agent.answer`), lets the world score the text and records the
answer, the score and what it cost. The oracle, random and LLM agents answer questions; a world
without the module has none, and nothing here changes its episodes. `check_answer_key` is called
by the engine before anything is scored (`engine.validate.check_answer_keys`: `groundplan
validate`, and plan-eval before a problem's first episode): a key the world disproves makes the
problem a load error.
"""
from __future__ import annotations

from dataclasses import dataclass


def world_questions(world):
    """The questions module of a loaded domain's world (or of an installed world named by its
    folder), or None."""
    from groundplan.engine.loader import world_module

    return world_module(world, "questions")


@dataclass
class Question:
    """One problem's question, bound to the world's functions."""

    task: object
    kind: str
    module: object

    def messages(self, strategy: str) -> list[dict]:
        return self.module.messages(self.task, strategy)

    def score(self, answer: str) -> dict:
        return self.module.score(self.task, answer)

    def oracle_answer(self) -> str:
        return self.module.oracle_answer(self.task)

    def random_answer(self, rng) -> str:
        return self.module.random_answer(self.task, rng)


def question_for(task) -> Question | None:
    module = world_questions(task.domain)
    if module is None:
        return None
    kind = module.kind(task)
    return Question(task, kind, module) if kind else None
