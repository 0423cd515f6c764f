"""Rendering a state as text for agents and people, driven by the domain's templates.

Three formats:
- `narrative`: sentences from the predicates' `text` templates; with the domain's
  `render.group_by_object`, one block per object listing what holds of it (a predicate's
  `describe` template gives the wording under each argument);
- `structured`: one `key: value` line per predicate and fluent;
- `json`: the same content as data;
- `observation`: what an agent sees, the domain's `render.observation` template filled with the
  narrative state, the applicable actions and the goal text.
Hidden predicates and fluents (bookkeeping such as counters) are never shown. Timers are shown
only when the domain asks (`"shown": true`), with their steps to go as `{remaining}`: an agent
cannot otherwise tell how long a tank still needs, and worlds written before stay as they were.
"""
from __future__ import annotations

import json

from .task import State, fill_template

FORMATS = ("narrative", "structured", "json", "observation")
DEFAULT_OBSERVATION = "{state}\n\nActions:\n{actions}\n\nGoal: {goal}"


def atom_text(domain, pred: str, args: tuple, under: str | None = None, labels: dict | None = None) -> str:
    """One atom as a sentence ('a is on b'), or as pred(a, b) when the domain gives no text.

    `labels` (the problem's display names of objects) replaces object names in the sentence."""
    definition = domain.predicates.get(pred) or domain.derived.get(pred)
    template = None
    binding = {}
    if labels:
        args = tuple(labels.get(a, a) for a in args)
    if definition is not None:
        binding = {v: a for (v, _), a in zip(definition.params, args)}
        if under is not None:
            template = getattr(definition, "describe", {}).get(under)
        template = template or definition.text
    if template:
        return fill_template(template, binding)
    return f"{pred}({', '.join(args)})" if args else pred


def fluent_text(domain, name: str, args: tuple, value, labels: dict | None = None) -> str:
    definition = domain.fluents[name]
    if labels:
        args = tuple(labels.get(a, a) for a in args)
    shown = _num(value)
    if definition.text:
        binding = {v: a for (v, _), a in zip(definition.params, args)}
        binding["value"] = shown
        return fill_template(definition.text, binding)
    return f"{name}({', '.join(args)}) = {shown}"


def timer_text(domain, name: str, args: tuple, remaining: int, labels: dict | None = None) -> str:
    """A running (or paused) timer instance as its `text`, with {remaining} its steps to go."""
    definition = domain.timers[name]
    if labels:
        args = tuple(labels.get(a, a) for a in args)
    binding = {v: a for (v, _), a in zip(definition.params, args)}
    binding["remaining"] = _num(remaining)
    return fill_template(definition.text or name, binding)


def _num(x):
    return str(int(x)) if isinstance(x, (int, float)) and float(x).is_integer() else str(x)


def visible_content(task, state: State) -> dict:
    """What an observer may see: true visible atoms, visible fluent values, the turn."""
    domain = task.domain
    hidden = {n for n, d in {**domain.predicates, **domain.derived}.items() if d.hidden}
    order = {name: i for i, name in enumerate(list(domain.predicates) + list(domain.derived))}
    objects = {name: i for i, name in enumerate(task.objects(state))}
    atoms = sorted((a for a in task.true_atoms(state) if a[0] not in hidden),
                   key=lambda a: (order[a[0]], [objects.get(x, len(objects)) for x in a[1]]))
    values = []
    keys = dict.fromkeys([k for k, _ in task.problem.values] + list(task.fluent_keys))
    for name, args in keys:
        if not domain.fluents[name].hidden:
            values.append((name, args, task.value(state, name, args)))
    content = {"atoms": atoms, "values": values}
    shown = [(*task.timer_keys[tid], left) for tid, left in state.timers if domain.timers[task.timer_keys[tid][0]].shown]
    if shown:  # only then: a world without shown timers renders exactly as before
        content["timers"] = shown
    if task.turn_based:
        content["turn"] = task.agents[state.turn]
    return content


def render(task, state: State, fmt: str = "narrative") -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (choose from {', '.join(FORMATS)})")
    if fmt == "observation":
        return observation(task, state)
    content = visible_content(task, state)
    domain = task.domain
    if fmt == "json":
        data = {
            "facts": [[p, *args] for p, args in content["atoms"]],
            "values": [[[n, *args], v] for n, args, v in content["values"]],
        }
        if "timers" in content:
            data["timers"] = [[[n, *args], left] for n, args, left in content["timers"]]
        if "turn" in content:
            data["turn"] = content["turn"]
        return json.dumps(data)
    if fmt == "structured":
        lines = []
        by_pred: dict[str, list[tuple]] = {}
        for pred, args in content["atoms"]:
            by_pred.setdefault(pred, []).append(args)
        for pred, rows in by_pred.items():
            lines.append(f"{pred}: " + ", ".join("(" + " ".join(args) + ")" if args else "true" for args in rows))
        for name, args, value in content["values"]:
            lines.append(f"{name}({' '.join(args)}): {_num(value)}")
        for name, args, left in content.get("timers", ()):
            lines.append(f"timer {name}({' '.join(args)}): {left} remaining")
        if "turn" in content:
            lines.append(f"turn: {content['turn']}")
        return "\n".join(lines)
    # narrative
    if domain.render.get("group_by_object"):
        return _by_object(task, state, content)
    labels = task.problem.labels
    lines = [atom_text(domain, p, args, labels=labels) for p, args in content["atoms"]]
    lines += [fluent_text(domain, n, args, v, labels) for n, args, v in content["values"]]
    lines += [timer_text(domain, n, args, left, labels) for n, args, left in content.get("timers", ())]
    if "turn" in content:
        lines.append(f"It is {content['turn']}'s turn.")
    return "\n".join(lines)


def _by_object(task, state, content) -> str:
    domain = task.domain
    header = domain.render.get("object_header", "{Type} {name}:")
    type_names = domain.render.get("type_names", {})
    labels = task.problem.labels
    blocks = []
    for obj, typ in _in_type_order(domain, task.objects(state)):
        lines = []
        for pred, args in content["atoms"]:
            if obj in args:
                definition = domain.predicates.get(pred) or domain.derived.get(pred)
                var = definition.params[args.index(obj)][0] if definition else None
                lines.append(atom_text(domain, pred, args, under=var, labels=labels))
        for name, args, value in content["values"]:
            if obj in args:
                lines.append(fluent_text(domain, name, args, value, labels))
        for name, args, left in content.get("timers", ()):
            if obj in args:
                lines.append(timer_text(domain, name, args, left, labels))
        if lines:
            shown_type = type_names.get(typ, typ)
            title = header.replace("{Type}", shown_type.capitalize()).replace("{type}", shown_type).replace("{name}", labels.get(obj, obj))
            blocks.append("\n".join([title] + lines))
    general = [atom_text(domain, p, args, labels=labels) for p, args in content["atoms"] if not args]
    general += [fluent_text(domain, n, args, v, labels) for n, args, v in content["values"] if not args]
    general += [timer_text(domain, n, args, left, labels) for n, args, left in content.get("timers", ()) if not args]
    if general:
        blocks.append("\n".join(general))
    if "turn" in content:
        blocks.append(f"It is {content['turn']}'s turn.")
    return "\n\n".join(blocks)


def _in_type_order(domain, objects: dict) -> list:
    """(object, type) pairs in the problem's order, regrouped by `render.type_order` when given
    (the reference kitchen prints players before containers, whatever order its files list them in);
    an object of a subtype goes with the first listed type it belongs to, the rest follow."""
    order = domain.render.get("type_order")
    if not order:
        return list(objects.items())

    def rank(item):
        return next((i for i, t in enumerate(order) if domain.is_subtype(item[1], t)), len(order))
    return sorted(objects.items(), key=rank)  # stable: the problem's order within a rank


def setting_text(value) -> str:
    """A setting's value as a prompt shows it: 0.3, 8, true (JSON's spelling, never Python's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def fill_settings(text: str, settings: dict) -> str:
    """`text` with each `{name}` of a setting replaced by the problem's value. Texts written once for
    a whole world (its description, a problem set's goal text, prompt templates) name the rules
    that vary between problems this way, so two problems that differ in a rule are never shown the
    same words; braces that name no setting are left as they are."""
    if not text or "{" not in text:
        return text
    for name, value in settings.items():
        text = text.replace("{" + name + "}", setting_text(value))
    return text


def settings_lines(task) -> list[str]:
    """One line per setting of the domain: '- name = value: what it means' (its declared description)."""
    declared = task.domain.raw.get("settings", {}) if isinstance(task.domain.raw, dict) else {}
    lines = []
    for name, value in task.settings.items():
        meaning = (declared.get(name) or {}).get("description") if isinstance(declared.get(name), dict) else None
        lines.append(f"- {name} = {setting_text(value)}" + (f": {meaning}" if meaning else ""))
    return lines


def observation(task, state: State) -> str:
    """What an agent sees: the domain's `render.observation` template over the narrative state,
    the applicable actions (one per line) and the goal text."""
    template = task.domain.render.get("observation", DEFAULT_OBSERVATION)
    fields = {
        "state": render(task, state, "narrative"),
        "actions": "\n".join(a.text for a in task.applicable(state)),
        "goal": task.problem.goal_text or "reach the goal",
    }
    return template.replace("{state}", fields["state"]).replace("{actions}", fields["actions"]).replace("{goal}", fields["goal"])
