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


def strategy_spec(profile, strategy: str) -> dict:
    """The strategy's entry in the world's profile, or a clear error naming what the world has."""
    from groundplan.engine.errors import GroundplanError

    from ..profile import describe_strategies

    spec = (profile.prompts.get("strategies") or {}).get(strategy)
    if not isinstance(spec, dict):
        raise GroundplanError(f"world '{profile.world}' has no prompt strategy '{strategy}' "
                              f"(it accepts {describe_strategies(profile)})")
    mode = spec.get("mode")
    if mode not in (None, "open", "closed"):
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': mode is 'open' or 'closed', not '{mode}'")
    trials = spec.get("trials", 1)
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': trials is a whole number >= 1, not {trials!r}")
    if spec.get("read") not in (None, "plan", "actions"):
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': read is 'plan' or 'actions', not {spec.get('read')!r}")
    if spec.get("shots") and mode != "open":
        raise GroundplanError(f"strategy '{strategy}' of world '{profile.world}': a 'shots' prompt answers whole plans, "
                              "so it needs mode: open")
    return spec


class WorldPrompt:
    """A strategy whose request and reading are the world's own (`prompt: MODULE` in its profile):
    the benchmark's one-shot prompt and its reference's answer parser, as GRASP's paper ran them.
    The module (domains/<world>/MODULE.py) provides

        request(task, spec) -> list[dict]                     # the whole request (chat messages)
        read_plan(text, spec) -> (actions: list[str], problem: str | None)

    The loop replays the actions as any open-loop plan; `problem` (no plan could be read at all)
    is re-prompted or fails by the world's loop rules."""

    def __init__(self, module, spec: dict, task):
        self.module, self.spec, self.task = module, spec, task

    def messages(self, observation, system_prompt: str | None = None) -> list[dict]:
        messages = [dict(m) for m in self.module.request(self.task, self.spec)]
        if system_prompt is not None:
            messages = [{"role": "system", "content": system_prompt}] + [m for m in messages if m.get("role") != "system"]
        return messages

    def read(self, text: str):
        return self.module.read_plan(text, self.spec)


def world_prompt(profile, strategy: str, spec: dict, task) -> WorldPrompt:
    from groundplan.engine.errors import GroundplanError
    from groundplan.engine.loader import world_module

    name = spec["prompt"]
    where = f"strategy '{strategy}' of world '{profile.world}'"
    if spec.get("mode") != "open" or spec.get("trials", 1) != 1:
        raise GroundplanError(f"{where}: a world's own prompt ('prompt: {name}') asks once for a whole plan, so it needs "
                              "mode: open and one trial")
    module = world_module(task.domain, str(name))
    if module is None or not all(hasattr(module, f) for f in ("request", "read_plan")):
        raise GroundplanError(f"{where} names the world's prompt module '{name}', which needs domains/{profile.world}/{name}.py "
                              "with request(task, spec) and read_plan(text, spec)"
                              + ("" if task.domain.plugin_world else " (Python plug-ins are read only for a domain file inside "
                                 "an installed world, a folder of domains/)"))
    return WorldPrompt(module, spec, task)


def _fill(template: str, **fields) -> str:
    for key, value in fields.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def _changes(task, before, after) -> str:
    """What one step changed, in the domain's words: the facts that became true and false."""
    from groundplan.engine.render import atom_text

    old = set(task.true_atoms(before, include_static=False))
    new = set(task.true_atoms(after, include_static=False))
    parts = [atom_text(task.domain, p, a) for p, a in sorted(new - old)]
    parts += ["no longer: " + atom_text(task.domain, p, a) for p, a in sorted(old - new)]
    return "; ".join(parts) if parts else "nothing visible changes yet"


@functools.lru_cache(maxsize=32)
def example_text(path: str, strategy: str) -> str:
    """A worked example from a problem file with a stored plan, in the strategy's answer format."""
    from groundplan.engine.render import observation
    from groundplan.engine.task import Task
    from groundplan.engine.validate import validate_plan

    task = Task.load(path)
    plan = (task.problem.optimal or {}).get("plan") or []
    result = validate_plan(task, plan)
    if not plan or not result.valid:
        from groundplan.engine.errors import GroundplanError

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


def world_text(profile, task) -> str:
    """The `{world}` block of the generic instructions: the domain's description and each setting of
    the problem with its value, or '' when the domain says nothing and has no settings."""
    from groundplan.engine.render import fill_settings, settings_lines

    description = fill_settings((task.domain.description or "").strip(), task.settings)
    parts = [_fill(profile.template("world", default="{description}"), description=description)] if description else []
    lines = settings_lines(task)
    if lines:
        parts.append(profile.template("settings_header", default="This problem's settings:") + "\n" + "\n".join(lines))
    return "\n\n".join(parts)


def fill_task(text: str, task, profile) -> str:
    """A template of `profile` filled for one problem: {world} and each setting's {name} (engine.render.fill_settings)."""
    if task is None or not text or "{" not in text:
        return text
    from groundplan.engine.render import fill_settings

    if "{world}" in text:
        text = text.replace("{world}", world_text(profile, task))
    return fill_settings(text, task.settings)


def instructions(profile, strategy: str, system_prompt: str | None, examples: str, task=None) -> list[dict]:
    """The fixed opening messages of every request of an episode."""
    spec = profile.prompts["strategies"][strategy]
    system = system_prompt if system_prompt is not None else fill_task(profile.template("system"), task, profile)
    parts = [fill_task(profile.template("instructions"), task, profile), fill_task(spec.get("format", ""), task, profile)]
    if examples:
        parts.append(examples)
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": "\n\n".join(p.strip() for p in parts if p and p.strip())})
    return messages


def observation_message(profile, strategy: str, observation_text: str, history: str = "", task=None) -> dict:
    spec = profile.prompts["strategies"][strategy]
    parts = [history] if history else []
    parts.append(f"{profile.template('observation_header')}\n{observation_text}")
    if spec.get("prior"):
        parts.append(fill_task(spec["prior"], task, profile))
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
