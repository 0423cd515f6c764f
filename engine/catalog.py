"""The shipped problem sets by name: `kitchen/async`, `ppnl/single_5x5`, `babyai/plan`, ...

Installed from a wheel, the sets live somewhere in site-packages, so a command that takes paths
(`plan-eval problems/async/*.json`) works only inside a checkout. A name works from any folder.
Names come from the layout of problems/, not from a list kept by hand, so a new set is named the
day it is added:

- a folder of problem files is `WORLD/FOLDER` (problems/async, whose problems are the kitchen's,
  is `kitchen/async`), or `WORLD` alone when the folder is named after its world
  (problems/blocksworld is `blocksworld`);
- a problem-set file is `FOLDER/SET` (problems/ppnl/single_5x5.jsonl is `ppnl/single_5x5`,
  problems/babyai/plan.jsonl.gz is `babyai/plan`).

A glob pattern that matches no path matches names (`'grasp/*'`: the twenty GRASP sets; quote it
for the shell). A path under `problems/` or `domains/` that does not exist here is the installed package's (so
`plan-eval problems/async/*.json` and `groundplan validate domains/blocksworld/domain.json` work
after a plain install as in a checkout). One problem of a set is `NAME#ROW` (a set file's row, by name or number, as for files) or
`NAME/FILE` (a file of a folder, with or without `.json`). A path that exists always wins over a
name, so a folder of the user's own called `kitchen/async` is read as theirs.
"""
from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from .paths import PROBLEMS_DIR, ROOT
from .problemsets import SUFFIXES, names, set_name


@dataclass(frozen=True)
class ShippedSet:
    name: str
    world: str
    path: Path  # a folder of problem files, or a problem-set file

    @property
    def is_file(self) -> bool:
        return self.path.is_file()

    def references(self) -> list[str]:
        """Every problem of the set, as the commands address it (FILE or FILE#NAME)."""
        if self.is_file:
            return [f"{self.path}#{name}" for name in names(str(self.path))]
        return [str(p) for p in _problem_files(self.path)]

    def size(self) -> int:
        return len(names(str(self.path))) if self.is_file else len(_problem_files(self.path))


def _problem_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.is_file())


@functools.lru_cache(maxsize=1)
def shipped_sets() -> dict[str, ShippedSet]:
    """Every shipped set by name, in name order."""
    found = {}
    if not PROBLEMS_DIR.is_dir():
        return found
    for folder in sorted(p for p in PROBLEMS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        files = _problem_files(folder)
        if files:
            world = _world_of_file(files[0]) or folder.name
            name = world if world == folder.name else f"{world}/{folder.name}"
            found[name] = ShippedSet(name, world, folder)
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.name.lower().endswith(SUFFIXES):
                name = f"{folder.name}/{set_name(path)}"
                found[name] = ShippedSet(name, _world_of_set(path) or folder.name, path)
    return dict(sorted(found.items()))


def _world_of_file(path: Path) -> str | None:
    try:
        domain = json.loads(path.read_text()).get("domain")
    except (OSError, ValueError, AttributeError):
        return None
    return domain if isinstance(domain, str) and "/" not in domain and not domain.endswith(".json") else None


def _world_of_set(path: Path) -> str | None:
    """The domain its header names (the first line: a gzip stream is read no further)."""
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as stream:
            head = json.loads(stream.readline())
    except (OSError, ValueError, EOFError):
        return None
    domain = head.get("defaults", {}).get("domain") if isinstance(head, dict) and isinstance(head.get("defaults"), dict) else None
    return domain if isinstance(domain, str) and "/" not in domain else None


def _exists(text: str) -> bool:
    try:
        return Path(text.split("#", 1)[0]).exists()
    except (OSError, ValueError):
        return False


def expand_name(text: str) -> list[str] | None:
    """The problems a set name (or one problem of it) stands for; None when `text` is a path
    that exists or no shipped name."""
    if _exists(text):
        return None
    sets = shipped_sets()
    if text in sets:
        return sets[text].references()
    one = locate(text)
    return [one] if one else None


def names_matching(pattern: str) -> list[ShippedSet]:
    """The shipped sets whose names match a glob pattern ('grasp/*', 'ppnl/single_*'), in name order."""
    import fnmatch

    return [s for name, s in shipped_sets().items() if fnmatch.fnmatchcase(name, pattern)]


INSTALLED = ("problems/", "domains/")  # relative paths that fall back to the installed package's


def installed(text: str) -> str | None:
    """`problems/...` or `domains/...` (a path or a glob pattern) as the installed package's
    files, when that is not where they are already; None otherwise."""
    if not text.startswith(INSTALLED) or ROOT.resolve() == Path.cwd().resolve():
        return None
    return str(ROOT / text)


def locate(text) -> str | None:
    """The path form of one problem named through a set (`NAME#ROW`, `NAME/FILE`), of a set file
    named alone, or of a shipped file by its path in a checkout (`domains/...`, `problems/...`);
    None for a path that exists and for anything that is no such name."""
    if not isinstance(text, str) or _exists(text):
        return None
    there = installed(text)
    if there and _exists(there):
        return there
    sets = shipped_sets()
    base, hash_, row = text.partition("#")
    if base in sets and sets[base].is_file:
        return f"{sets[base].path}#{row}" if hash_ else str(sets[base].path)
    parent, _, leaf = base.rpartition("/")
    if parent in sets and not sets[parent].is_file and leaf and not hash_:
        for candidate in (leaf, f"{leaf}.json"):
            path = sets[parent].path / candidate
            if "/" not in candidate and path.is_file():
                return str(path)
    return None


def did_you_mean(text: str) -> str | None:
    """A hint for a problem argument that is neither a path nor a name: the nearest name."""
    from .errors import did_you_mean as nearest

    base = str(text).split("#", 1)[0]
    if base.endswith((".json", *SUFFIXES)) or base.startswith((".", "/")):
        return None
    return nearest(base, list(shipped_sets())) or "shipped sets are named like kitchen/async or ppnl/single_5x5 (plan-eval --list-sets)"


def sets_table() -> str:
    """The shipped sets as `plan-eval --list-sets` and `groundplan sets` print them."""
    rows = [(s.name, s.world, str(s.size()), _shown(s.path)) for s in shipped_sets().values()]
    head = ("set", "world", "problems", "where")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i < 3 else cell for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
             for row in [head, *rows]]
    return "\n".join(lines)


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
