"""Writing a problem file as people read and diff it: one object, fact or plan step per line.

`json.dumps(indent=...)` puts every word of a fact on its own line, which makes a generated
problem thousands of lines long and its diffs unreadable. Generators write their problems
through `dumps_problem`, so every world's files share one layout.
"""
from __future__ import annotations

import json

LISTED = ("map", "plan")  # lists inside `metadata` and `optimal` written an item a line


def _block(items: list[str], indent: str, open_: str, close: str) -> str:
    return open_ + "\n" + ",\n".join(indent + "  " + x for x in items) + "\n" + indent + close


def dumps_problem(data: dict) -> str:
    """The problem as JSON text: `init` a fact a line, `objects` an object a line, and in
    `metadata` and `optimal` a map row or plan step a line; everything else on one line."""
    out = []
    for key, value in data.items():
        if key == "init":
            text = _block([json.dumps(f) for f in value], "  ", "[", "]")
        elif key == "objects":
            text = _block([f"{json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()], "  ", "{", "}")
        elif key in ("metadata", "optimal") and isinstance(value, dict):
            parts = [f"{json.dumps(k)}: " + (_block([json.dumps(x) for x in v], "    ", "[", "]")
                                            if k in LISTED and isinstance(v, list) else json.dumps(v))
                     for k, v in value.items()]
            text = _block(parts, "  ", "{", "}")
        else:
            text = json.dumps(value)
        out.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(out) + "\n}\n"
