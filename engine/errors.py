"""Diagnostics for bad input.

Every problem with a user's file becomes a `Diagnostic` that names the file, the JSON pointer of
the offending value, what is wrong and, when we can guess, how to fix it. Loading collects all of
them before failing, so an author fixes a file in one round instead of one error per run.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable


def pointer(path: Iterable) -> str:
    """The RFC 6901 JSON pointer of a path of keys and indices."""
    parts = []
    for part in path:
        text = str(part).replace("~", "~0").replace("/", "~1")
        parts.append(text)
    return "/" + "/".join(parts) if parts else ""


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest valid spelling, or None when nothing is close."""
    matches = difflib.get_close_matches(str(name), sorted(set(map(str, candidates))), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None


@dataclass(frozen=True)
class Diagnostic:
    file: str
    pointer: str
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}#{self.pointer}" if self.pointer else self.file
        text = f"{where}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text

    def to_json(self) -> dict:
        return {"file": self.file, "pointer": self.pointer, "message": self.message, "hint": self.hint}


class GroundplanError(Exception):
    """Base class of every error groundplan raises on purpose (the CLI prints these, no traceback)."""


class ResourceLimit(GroundplanError):
    """Work refused or stopped because it would not fit the limits it was given: `status` is
    'memout' or 'timeout' (the planners' vocabulary), so a caller scores it rather than crashing.
    Raised before the work where its size can be estimated (grounding), during it otherwise."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class ModelError(GroundplanError):
    """A domain, problem or plan file that cannot be used; carries every diagnostic found."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    malformed: bool = False  # the input could not be read at all (exit code 2), as opposed to read and wrong (1)

    def __post_init__(self):
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(d) for d in self.diagnostics)


class Collector:
    """Accumulates diagnostics for one file while a loader walks it.

    Errors make the file unusable. Warnings are for a file that still means something but
    probably not what its author meant (an action parameter used nowhere): they are kept on the
    loaded model and `groundplan validate` prints them, so they never stop a run."""

    def __init__(self, file: str):
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []

    def error(self, path, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(self.file, pointer(path), message, hint))

    def warn(self, path, message: str, hint: str | None = None) -> None:
        self.warnings.append(Diagnostic(self.file, pointer(path), message, hint))

    def unknown(self, path, kind: str, name, known: Iterable[str], fix: str | None = None) -> None:
        hint = did_you_mean(name, known) or fix
        self.error(path, f"unknown {kind} '{name}'", hint)

    def raise_if_any(self) -> None:
        if self.diagnostics:
            raise ModelError(list(self.diagnostics))
