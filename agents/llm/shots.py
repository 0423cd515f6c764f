"""Few-shot completion prompts that a world keeps as data (the PPNL paper's prompt style).

Some benchmarks prompt with one block of text rather than a conversation: a header, solved
examples separated by a marker, the task, and a cue such as 'Answer:'. The plan is read after a
phrase ('So the actions are:'), and a ReAct run appends an 'Obs k' line after each failed trial
before asking again. Reproducing such a method means reproducing its text, so the text lives in
the world's folder and the agent only assembles it: a strategy opts in with `shots: FILE` in the
world's prompts.yaml, and FILE (JSON, relative to the world's folder) holds

  header, separator, examples   the opening block and the solved examples (texts)
  task, cue                     the last block: the task (a template) and the answer cue
  answer_after                  markers the actions follow, tried in order, on one line;
                                '{k}' is the trial number, '' means the reply's first line
  declare                       phrases that declare the goal unreachable when no marker is found
  observation                   the line added after a failed trial (trials > 1)
  system                        optional system message (none by default, as in the papers)
  settings                      {setting: {key: value}}: overrides for problems with that setting on

Template fields: {metadata.KEY} (the problem's metadata), {goal} (its goal text), {k}, {steps}
(moves executed in the trial), {feedback} (why the trial stopped), {facts:PRED} (the true atoms
of PRED in the domain's words, e.g. 'you are at (3,1)').
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

REQUIRED = {"header": str, "separator": str, "examples": list, "task": str, "answer_after": list}
OPTIONAL = {"about": str, "cue": str, "declare": list, "observation": str, "system": str, "settings": dict}
_FIELD = re.compile(r"\{([A-Za-z_]+)(?:([.:])([A-Za-z0-9_-]+))?\}")
_PUNCTUATION = ".,;:!?\"'`*()[]"


def _error(message: str):
    from groundplan.engine.errors import GroundplanError

    return GroundplanError(message)


@functools.lru_cache(maxsize=64)
def load(path: str) -> dict:
    """The shots file at `path`, checked (a wrong key or type is named, with the file)."""
    file = Path(path)
    if not file.is_file():
        raise _error(f"{path}: the prompt file a strategy points at ('shots') does not exist")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise _error(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise _error(f"{path}: a shots file is a JSON object with {', '.join(REQUIRED)}")
    for key, kind in {**REQUIRED, **OPTIONAL}.items():
        if key in REQUIRED and key not in data:
            raise _error(f"{path}: missing '{key}'")
        if key in data and not isinstance(data[key], kind):
            raise _error(f"{path}: '{key}' must be a {kind.__name__}")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise _error(f"{path}: unknown key '{unknown[0]}' (keys: {', '.join([*REQUIRED, *OPTIONAL])})")
    return data


def for_task(spec: dict, task) -> dict:
    """The spec with the overrides of every setting the problem turns on (e.g. multi-goal)."""
    out = dict(spec)
    for setting, override in spec.get("settings", {}).items():
        if task.problem.settings.get(setting):
            out.update(override)
    return out


def _facts(task, state, pred: str) -> str:
    from groundplan.engine.render import atom_text

    return "; ".join(atom_text(task.domain, p, a, labels=task.problem.labels) for p, a in task.true_atoms(state) if p == pred)


def fill(template: str, task=None, state=None, **fields) -> str:
    """Fill a template's fields from `fields`, the problem (metadata, goal) and the state (facts)."""
    def value(match: re.Match) -> str:
        name, sep, key = match.groups()
        if sep is None and name in fields:
            return str(fields[name])
        if task is not None and sep is None and name == "goal":
            return task.problem.goal_text or "reach the goal"
        if task is not None and sep == "." and name == "metadata":
            if key not in task.problem.metadata:
                raise _error(f"problem '{task.problem.name}' has no metadata '{key}', which this prompt shows "
                             "(use the world's generated problems, or a strategy without a shots file)")
            return str(task.problem.metadata[key])
        if task is not None and state is not None and sep == ":" and name == "facts":
            return _facts(task, state, key)
        return match.group(0)

    return _FIELD.sub(value, template)


def compose(spec: dict, task_text: str, transcript: str = "") -> str:
    """The prompt: header, examples and the task with its cue (and the trials so far), separated."""
    last = task_text + (f"\n{spec['cue']}" if spec.get("cue") else "") + (f"\n{transcript}" if transcript else "")
    return spec["separator"].join([b for b in [spec["header"], *spec["examples"]] if b] + [last])


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _find(lines: list[str], marker: str, k: int):
    """(line index, text after the marker) of the first line holding the marker, else None."""
    if marker == "":
        return next(((i, line) for i, line in enumerate(lines) if line.strip()), None)
    for number in (str(k), r"\d+"):
        pattern = re.compile(re.escape(marker).replace(re.escape("{k}"), number), re.IGNORECASE)
        for i, line in enumerate(lines):
            match = pattern.search(line)
            if match:
                return i, line[match.end():]
        if "{k}" not in marker:
            break
    return None


def read(spec: dict, text: str, k: int = 1) -> tuple[list[str], str | None, str]:
    """(actions, problem, kept): the actions after the first marker found, or a declaration, and
    the reply up to that line (what a later trial's prompt repeats)."""
    lines = (text or "").replace("\r\n", "\n").split("\n")
    declare = spec.get("declare", [])
    for marker in spec["answer_after"]:
        found = _find(lines, marker, k)
        if found is None:
            continue
        i, rest = found
        kept = "\n".join(lines[:i + 1]).strip()
        if any(_fold(rest) == _fold(p) for p in declare):
            return [rest.strip()], None, kept
        words = [w.strip(_PUNCTUATION) for w in re.split(r"[\s,]+", rest)]
        words = [w for w in words if w]
        if words:
            return words, None, kept
    folded = _fold(text or "")
    for phrase in declare:
        if re.search(rf"\b{re.escape(_fold(phrase))}\b", folded):
            return [phrase], None, (text or "").strip()
    shown = " or ".join(f"'{m.replace('{k}', str(k))}'" for m in spec["answer_after"] if m) or "the first line"
    return [], f"the answer holds no actions after {shown}", (text or "").strip()


def observation(spec: dict, task, state, k: int, steps: int, feedback: str | None) -> str:
    """The line that reports a failed trial to the next one (its number, moves made, why it stopped)."""
    reason = (feedback or "").strip().rstrip(".")
    return fill(spec.get("observation", "{feedback}"), task, state, k=k, steps=steps, feedback=reason)
