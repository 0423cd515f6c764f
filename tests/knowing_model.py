"""A scripted model that knows every answer, for end-to-end tests of the LLM harness.

It answers each request the way a perfect model would: it recognises the problem and the state the
request is about, and replies with the oracle's next action (a whole plan, a declaration, or a
question's key), written in the format the strategy's prompt asks for. If prompts, readers, step
loops and metrics fit together, such a model scores success 1.0 and optimality 1.0; any seam that
does not fit (a prompt that hides the state, a format the reader does not take, a loop rule that
costs the model a step it should not) shows up as a lower score.

How it knows: before the run, for each problem, the expected first request is built with
`agents.llm.preview.first_request` and the oracle's answers are recorded; open-loop and question
requests are recognised by their exact messages, closed-loop ones by the observation text of a
state on the oracle's path appearing in the last message (the longest such text, states not yet
answered first). A request it cannot place is answered with a sentence that is no action, and
counted in `unplaced`.
"""
from __future__ import annotations

import json

from groundplan.agents import Limits, run_episode
from groundplan.agents.baselines import OracleAgent
from groundplan.agents.llm.preview import first_request
from groundplan.agents.profile import profile_for, strategies
from groundplan.agents.questions import question_for
from groundplan.engine.task import Task

NOT_PLACED = "I cannot tell which problem this request is about."


def world_profile(world: str):
    """The agent profile of a shipped world by its folder name; 'classics' (the worlds without a
    prompts.yaml) is the generic one."""
    from pathlib import Path

    from groundplan.agents.profile import _load

    return _load(world, None if world == "classics" else str(Path("domains", world).resolve()))


def accepted(world: str) -> list[str]:
    """The strategies the world's profile accepts: the tests take them from there, never a list of their own."""
    return list(strategies(world_profile(world)))


def _key(messages) -> str:
    return json.dumps([{"role": m.get("role"), "content": m.get("content")} for m in messages], sort_keys=True)


def _last_user(messages) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


class KnowingModel:
    def __init__(self, refs: list[str], strategy: str | None):
        self.open: dict[str, str] = {}
        self.closed: list[tuple[str, str]] = []  # (observation text, reply), every problem's path in order
        self.answered: set[int] = set()
        self.unplaced = 0
        self.requests = 0
        for ref in refs:
            self._learn(ref, strategy)

    # ---------------------------------------------------------------- learning the answers
    def _learn(self, ref: str, strategy: str | None) -> None:
        task = Task.load(ref)
        used, first = first_request(task, strategy)
        profile = profile_for(task)
        spec = strategies(profile)[used]
        question = question_for(task)
        if question is not None:
            self.open[_key(first)] = self._question_reply(used, question.oracle_answer())
            return
        mode = spec.get("mode") or ("closed" if used.startswith("react") else "open")
        if mode == "open":
            episode = run_episode(task, OracleAgent(open_loop=True), Limits())
            lines = episode.trajectory[0]["detail"]["actions"]
            self.open[_key(first)] = self._plan_reply(profile, used, spec, lines)
            return
        episode = run_episode(task, OracleAgent(), Limits(), record_observations=True)
        assert episode.success, f"the oracle itself fails {ref}: {episode.outcome}"
        for entry in episode.trajectory:
            self.closed.append((entry["observation"], self._step_reply(spec, entry["answer"])))

    @staticmethod
    def _declares(profile, line: str) -> bool:
        from groundplan.agents.interpret import declaration

        return declaration(line, profile.loop.get("declarations") or {}) in ("impossible", "unreachable")

    def _plan_reply(self, profile, strategy: str, spec: dict, lines: list[str]) -> str:
        if spec.get("prompt"):  # a world's own one-shot prompt (GRASP): the list it asks for
            return "[" + ", ".join(lines) + "]"
        if spec.get("shots"):  # a few-shot completion prompt (PPNL): its answer marker, then the moves
            from groundplan.agents.llm import shots

            data = shots.load(str(profile.world_file(spec["shots"])))
            if len(lines) == 1 and self._declares(profile, lines[0]):
                lines = [data["declare"][0]]
            marker = data["answer_after"][0].replace("{k}", "1")
            return (f"{marker} " if marker else "") + " ".join(lines)
        from groundplan.agents.llm.agent import spec_reads_plan

        if spec_reads_plan(spec, strategy):
            return "Plan:\n" + "\n".join(lines)
        return "\n".join(f"Action: {line}\nNext State Changes: as the plan intends." for line in lines)

    @staticmethod
    def _step_reply(spec: dict, action: str) -> str:
        if spec.get("history") == "chat":  # Plancraft's dialogue: the reply is the action line itself
            return action
        return f"Reasoning: I follow the plan that reaches the goal.\nAction: {action}"

    @staticmethod
    def _question_reply(strategy: str, key: str) -> str:
        if strategy in ("cot", "tot"):
            return f"I go through it step by step, and every line of thought agrees.\n{key}"
        return key

    # ---------------------------------------------------------------- answering
    def __call__(self, body: dict) -> str:
        self.requests += 1
        messages = body.get("messages") or []
        reply = self.open.get(_key(messages))
        if reply is not None:
            return reply
        last = _last_user(messages)
        found = [(i not in self.answered, len(text), -i, i) for i, (text, _) in enumerate(self.closed) if text and text in last]
        if not found:
            self.unplaced += 1
            return NOT_PLACED
        index = max(found)[3]
        self.answered.add(index)
        return self.closed[index][1]
