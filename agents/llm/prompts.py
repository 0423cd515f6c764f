"""Building the messages of each prompt strategy from the world's templates.

The structure follows the Robotouille prompts (system prompt; instructions; one worked
example; the history; feedback on the last answer and the observation; for ReAct+Prior a
reminder of the rules), the wording is ours and lives in data (`agents/default_prompts.yaml`,
`domains/<world>/prompts.yaml`). Worked examples are built from problem files with stored
plans, so they are always consistent with the engine.
"""
from __future__ import annotations

import functools
from pathlib import Path

STRATEGIES = ("io", "cot", "react", "react-prior")


def strategy_spec(profile, strategy: str) -> dict:
    """The strategy's entry in the world's profile, or a clear error naming what the world has."""
    from engine.errors import GroundplanError

    strategies = profile.prompts.get("strategies") or {}
    spec = strategies.get(strategy)
    if not isinstance(spec, dict):
        raise GroundplanError(f"world '{profile.world}' has no prompt strategy '{strategy}' "
                              f"(it has: {', '.join(strategies)})")
    mode = spec.get("mode")
    if mode not in (None, "open", "closed"):
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': mode is 'open' or 'closed', not '{mode}'")
    trials = spec.get("trials", 1)
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': trials is a whole number >= 1, not {trials!r}")
    if spec.get("shots") and mode != "open":
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': a 'shots' prompt answers whole plans, "
                              "so it needs mode: open")
    return spec


def _fill(template: str, **fields) -> str:
    for key, value in fields.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def _changes(task, before, after) -> str:
    """What one step changed, in the domain's words: the facts that became true and false."""
    from engine.render import atom_text

    old = set(task.true_atoms(before, include_static=False))
    new = set(task.true_atoms(after, include_static=False))
    parts = [atom_text(task.domain, p, a) for p, a in sorted(new - old)]
    parts += ["no longer: " + atom_text(task.domain, p, a) for p, a in sorted(old - new)]
    return "; ".join(parts) if parts else "nothing visible changes yet"


@functools.lru_cache(maxsize=32)
def example_text(path: str, strategy: str) -> str:
    """A worked example from a problem file with a stored plan, in the strategy's answer format."""
    from engine.render import observation
    from engine.task import Task
    from engine.validate import validate_plan

    task = Task.load(path)
    plan = (task.problem.optimal or {}).get("plan") or []
    result = validate_plan(task, plan)
    if not plan or not result.valid:
        from engine.errors import GroundplanError

        raise GroundplanError(f"{path}: an example needs a stored valid plan ('optimal'/'plan')")
    states = result.states
    first = observation(task, states[0])
    if strategy == "io":
        return f"Observation:\n{first}\n\nPlan:\n" + "\n".join(plan)
    if strategy == "cot":
        steps = [f"Action: {a}\nNext State Changes: {_changes(task, s, t)}" for a, s, t in zip(plan, states, states[1:])]
        return f"Observation:\n{first}\n\n" + "\n".join(steps)
    steps = []
    for i, action in enumerate(plan):
        shown = first if i == 0 else "(omitted)"
        remaining = ", then ".join(plan[i:i + 4]) + (", ..." if len(plan) > i + 4 else "")
        steps.append(f"Observation: {shown}\nReasoning: the plan from here is: {remaining}.\nAction: {action}")
    return "\n\n".join(steps)


def examples_for(profile, strategy: str, paths: list[str] | None) -> str:
    if paths is None:
        base = Path(profile.files[-1]).parent if len(profile.files) > 1 else None
        paths = [str(base / p) for p in profile.prompts.get("examples", [])] if base else []
    if not paths:
        return ""
    head = profile.template("example_header")
    tail = profile.template("example_end")
    return "\n\n".join(f"{head}\n\n{example_text(p, strategy)}\n\n{tail}" for p in paths)


def instructions(profile, strategy: str, system_prompt: str | None, examples: str) -> list[dict]:
    """The fixed opening messages of every request of an episode."""
    spec = profile.prompts["strategies"][strategy]
    system = system_prompt if system_prompt is not None else profile.template("system")
    parts = [profile.template("instructions"), spec.get("format", "")]
    if examples:
        parts.append(examples)
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": "\n\n".join(p for p in parts if p)})
    return messages


def observation_message(profile, strategy: str, observation_text: str, history: str = "") -> dict:
    spec = profile.prompts["strategies"][strategy]
    parts = [history] if history else []
    parts.append(f"{profile.template('observation_header')}\n{observation_text}")
    if spec.get("prior"):
        parts.append(spec["prior"])
    return {"role": "user", "content": "\n\n".join(parts)}


def history_text(profile, steps: list[dict], mode: str) -> str:
    """Earlier steps of a ReAct episode: none, the last one (Robotouille's ablation winner) or all."""
    if mode == "none" or not steps:
        return ""
    chosen = steps[-1:] if mode == "last" else steps
    template = profile.template("history_step")
    blocks = []
    for step in chosen:
        block = _fill(template, reasoning=step.get("reasoning", ""), action=step.get("action", ""))
        if step.get("feedback"):
            block += "\n" + _fill(profile.template("feedback", default="{feedback}"), feedback=step["feedback"])
        blocks.append(block)
    return "\n\n".join(blocks)
