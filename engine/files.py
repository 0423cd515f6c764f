"""Reading domain, problem and plan files as plain data, with errors that name the file.

JSON is the canonical syntax; YAML (by file extension) is accepted for the same model. Values
JSON cannot round-trip (NaN, Infinity) and absurd nesting are refused here, so later stages can
walk the data recursively without guarding against them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import Diagnostic, ModelError

MAX_DEPTH = 64
MAX_ABS_NUMBER = 10**15
MAX_NODES = 5_000_000


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not allowed (use a finite number)")


def parse_text(text: str, file: str, yaml_syntax: bool = False) -> Any:
    """Parse JSON (or YAML) text; any failure becomes a ModelError naming the file and place."""
    try:
        if yaml_syntax:
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                                     "check for a missing comma, quote or bracket near there")]) from None
    except RecursionError:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", "nesting is too deep to read", f"keep nesting below {MAX_DEPTH} levels")]) from None
    except ValueError as exc:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"not valid JSON: {exc}")]) from None
    except Exception as exc:  # yaml's own error classes
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"not valid YAML: {exc}".splitlines()[0])]) from None
    check_plain_data(data, file)
    return data


def check_plain_data(data: Any, file: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH and numbers too large to mean anything."""
    stack = [(data, 0, ())]
    nodes = 0
    while stack:
        value, depth, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"more than {MAX_NODES:,} values",
                                         "split the problem set, or avoid YAML anchors that repeat large parts")])
        if depth > MAX_DEPTH:
            from .errors import pointer

            raise ModelError(malformed=True, diagnostics=[Diagnostic(file, pointer(path[:8]) + "/...", f"nesting deeper than {MAX_DEPTH} levels",
                                         "flatten the formula, e.g. one 'and' with many parts")])
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    from .errors import pointer

                    hint = "YAML reads on/off/yes/no as booleans: quote the key, e.g. 'on':" if isinstance(key, bool) else "quote the key"
                    raise ModelError(malformed=True, diagnostics=[Diagnostic(file, pointer(path), f"object key {key!r} is not a string", hint)])
                stack.append((item, depth + 1, path + (key,)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                stack.append((item, depth + 1, path + (index,)))
        elif isinstance(value, float) and value != value:
            from .errors import pointer

            raise ModelError(malformed=True, diagnostics=[Diagnostic(file, pointer(path), "NaN is not allowed", "use a finite number")])
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_ABS_NUMBER:
            from .errors import pointer

            raise ModelError(malformed=True, diagnostics=[Diagnostic(file, pointer(path), f"number {value!r} is out of range",
                                         f"numbers must lie within ±{MAX_ABS_NUMBER:.0e}")])


def read_data(path: str | Path, name: str | None = None) -> Any:
    """Read one JSON or YAML file into plain Python data; errors name it as `name` (default: the path)."""
    path = Path(path)
    file = name or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", "file not found", "check the path")]) from None
    except IsADirectoryError:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", "is a directory, not a file")]) from None
    except OSError as exc:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"cannot read: {exc.strerror}")]) from None
    except ValueError:  # e.g. an embedded NUL byte
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", "not a usable file path", "check the path")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", "not UTF-8 text", "save the file as UTF-8 JSON")]) from None
    return parse_text(text, file, yaml_syntax=path.suffix.lower() in (".yaml", ".yml"))
