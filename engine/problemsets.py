"""Problem sets: many problems of one domain in one JSON Lines file.

Worlds such as PPNL and GRASP have tens of thousands of small problems; one file per problem
would be slow to copy and to list. A problem-set file (`.jsonl`) holds one JSON object per line:

    {"problem_set": "grasp-mu1", "defaults": {"groundplan": "1", "domain": "grasp", ...}}
    {"name": "grid-0001", "objects": {...}, "init": [...]}
    ...

The optional first line is the header: `defaults` are merged (shallowly) under every problem,
so the domain, shared objects and settings are written once. Each other line is a problem
(after the merge, an ordinary problem object) and needs a `name` unique in the file.

A group line, `{"group": "grid-0042", "defaults": {...}}`, starts a group: its defaults are
merged over the header's for every problem after it, up to the next group line. So data shared
by a few problems (one map under eight rule variants) is written once, not once per problem.

A set may be gzip-compressed (`.jsonl.gz`): large generated sets such as BabyAI's shrink about
tenfold, and every reader here takes either form.

A single problem is addressed as `FILE.jsonl#NAME` (or `FILE.jsonl#N`, the N-th problem, from 1)
wherever a problem file is accepted; `expand` turns files, set files and globs into such
references, and a row range `FILE.jsonl#A-B` (rows A to B inclusive, from 1, as `#N` counts them)
into one reference per row, by name. `sample` picks N references by a hash of the seed and each
reference's place in its set (`stable_key`), the same rows on every machine. Errors name `FILE.jsonl:LINE` and the JSON pointer inside that line's problem.

Reading one problem indexes the names of all (a name used twice is refused wherever it is) but
parses only the line asked for: a line that opens with `{"name": "..."` gives its name without
being parsed, so picking one row of a set of millions costs a scan of its lines, not a parse. A
set of only such lines (after a header) is indexed by one regex pass in C (`_plain_index`: a
million rows in about 1 s, against 7 s with a parse per row); any other is read line by line.
"""
from __future__ import annotations

import functools
import glob
import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path

from .errors import Diagnostic, ModelError

SUFFIX = ".jsonl"
SUFFIXES = (".jsonl", ".jsonl.gz")


def is_set_reference(source) -> bool:
    """A path to a problem-set file, with or without '#name'."""
    return isinstance(source, (str, Path)) and str(source).split("#", 1)[0].lower().endswith(SUFFIXES)


def set_name(path) -> str:
    """A set file's name without its suffixes ('plan' for plan.jsonl.gz)."""
    name = Path(str(path).split("#", 1)[0]).name
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return Path(name).stem


def _read_text(path) -> str:
    """A set file's text, gunzipped for '.gz'; only regular files of bounded size (engine/files.py)."""
    from .files import read_file_text

    return read_file_text(path, str(path), "save the problem set as UTF-8 JSON Lines")


def _open_for_writing(fd, path):
    """A text stream over `fd` for `path`: gzip (reproducible: no name, no time) for '.gz'."""
    import os

    if str(path).lower().endswith(".gz"):
        import gzip
        import io

        raw = os.fdopen(fd, "wb")
        return io.TextIOWrapper(gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0), encoding="utf-8"), raw
    return os.fdopen(fd, "w", encoding="utf-8"), None


def split_reference(source) -> tuple[str, str | None]:
    text = str(source)
    path, _, name = text.partition("#")
    return path, (name or None)


@functools.lru_cache(maxsize=8)
def _index(path: str, stamp) -> tuple[dict, list[tuple[str, int, str, dict]], dict[str, int]]:
    """(defaults, [(name, line number, raw line, its group's defaults)], {name: position}) of a set
    file, checked once. The name lookup keeps reading every problem of a 16,000-problem run linear."""
    try:
        text = _read_text(path)
    except FileNotFoundError:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(path, "", "file not found", "check the path")]) from None
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(path, "", f"cannot read: {exc}")]) from None
    fast = _plain_index(path, text)
    if fast is not None:
        return fast
    defaults: dict = {}
    group: dict = {}
    entries: list[tuple[str, int, str, dict]] = []
    seen: dict[str, int] = {}
    errors = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        head = _quick_head(line) or _head(line, where)
        if "problem_set" in head or "group" in head and "name" not in head:
            head = _parse(line, where)  # used as they are: checked now (a problem line is checked when read)
        if "problem_set" in head:
            if entries or number != _first_line(text):
                errors.append(Diagnostic(where, "", "the header line (with 'problem_set') must come first",
                                         "move it to the top of the file"))
                continue
            defaults = head.get("defaults") or {}
            if not isinstance(defaults, dict):
                errors.append(Diagnostic(where, "/defaults", "must be an object of problem fields"))
                defaults = {}
            continue
        if "group" in head and "name" not in head:
            group = head.get("defaults") or {}
            if not isinstance(group, dict) or set(head) - {"group", "defaults"}:
                errors.append(Diagnostic(where, "", "a group line is {\"group\": NAME, \"defaults\": {problem fields}}",
                                         "remove other keys; 'defaults' must be an object"))
                group = {}
            continue
        name = head.get("name")
        if not isinstance(name, str) or not name:
            errors.append(Diagnostic(where, "/name", "every problem in a set needs a 'name'", 'add "name": "..."'))
            continue
        if name in seen:
            errors.append(Diagnostic(where, "/name", f"the name '{name}' is already used on line {seen[name]}",
                                     "give every problem of the set its own name"))
            continue
        seen[name] = number
        entries.append((name, number, line, group))
    if errors:
        raise ModelError(errors)
    return defaults, entries, {entry[0]: position for position, entry in enumerate(entries)}


class _Rows(Sequence):
    """The entries of a set whose every problem line opens with its name, built on demand from the
    names and the lines (a tuple per row cost about 100 bytes of the millions)."""

    def __init__(self, names: list, lines: list, start: int):
        self.names, self.lines, self.start = names, lines, start

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self.names)
        return self.names[k], self.start + k + 1, self.lines[self.start + k], {}


def _plain_index(path: str, text: str):
    """_index's result for the common set: an optional header on line 1, then only problem lines
    that open with their name (no blank line, no group line, names distinct). The names are read
    by one regex match per line in C, with no Python step per row; None for any other set, which
    the careful loop indexes (and reports on)."""
    from operator import methodcaller

    lines = text.splitlines()
    if not lines or not lines[0].strip():
        return None
    start, defaults = 0, {}
    if _quick_head(lines[0]) is None:
        head = _head(lines[0], f"{path}:1")
        if "problem_set" not in head:
            return None
        defaults = head.get("defaults") or {}
        if not isinstance(defaults, dict):
            return None
        start = 1
    if text.count('"problem_set"') != start:  # the header's own, or none: a later header is the loop's to refuse
        return None
    try:
        names = list(map(methodcaller("group", 1), map(_NAME_FIRST.match, itertools.islice(lines, start, None))))
    except AttributeError:  # a line that does not open with its name: None has no group
        return None
    positions = dict(zip(names, itertools.count()))
    if len(positions) != len(names):  # a name used twice: the loop says where
        return None
    return defaults, _Rows(names, lines, start), positions


def _first_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            return number
    return 0


# a problem line that opens with its name, as `write` and the generators write them: its name
# is read without parsing the line (json.loads of every row to index its name took minutes and
# GBs for a set of millions of rows); a name with a control character
# (or a backslash: an escape) is left to the parser
_NAME_FIRST = re.compile(r'[ \t]*\{[ \t]*"name"[ \t]*:[ \t]*"([^"\\\x00-\x1f]*)"[ \t]*[,}]')


def _quick_head(line: str) -> dict | None:
    """{"name": NAME} of a problem line that opens with its name and has no key that could make it a
    header ('problem_set' anywhere in it); None for every other line, which `_head` parses. The
    line itself is checked in full when it is read (read_problem), as every line always was."""
    found = _NAME_FIRST.match(line)
    if found is None or '"problem_set"' in line:  # a key, or in a text: either way the parser decides
        return None
    return {"name": found.group(1)}


def _head(line: str, where: str) -> dict:
    """A line's keys, to index it: plain JSON without the plain-data check, which read_problem runs
    on the one line it returns (checking all 8,000 BabyAI rows to pick one by name took 17 s)."""
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    return data if isinstance(data, dict) else _parse(line, where)  # let the careful parser say what is wrong


def _parse(line: str, where: str) -> dict:
    from .files import parse_text

    data = parse_text(line, where)
    if not isinstance(data, dict):
        raise ModelError(malformed=True, diagnostics=[Diagnostic(where, "", "each line of a problem set is a JSON object")])
    return data


def _entries(path: str):
    p = Path(path)
    try:
        stamp = p.stat().st_mtime_ns
    except OSError:
        stamp = None
    try:
        return _index(str(p), stamp)
    except MemoryError:  # under plan-eval --episode-memory: the set's load error, as without the limit
        from .files import out_of_memory

        out_of_memory(str(p))


def names(path: str) -> list[str]:
    """The names of the problems in a set file, in file order."""
    return [entry[0] for entry in _entries(path)[1]]


def read_problem(source) -> tuple[dict, str]:
    """(problem data with the header's defaults merged in, the name errors should use)."""
    path, name = split_reference(source)
    defaults, entries, positions = _entries(path)
    if name is None:
        if len(entries) == 1:
            name = entries[0][0]
        else:
            raise ModelError(malformed=True, diagnostics=[Diagnostic(path, "", f"a problem set of {len(entries)} problems: say which one",
                                         f"use {path}#NAME or {path}#N (1..{len(entries)})")])
    entry = None
    if name in positions:
        entry = entries[positions[name]]
    elif name.isdigit():
        k = int(name)
        if 1 <= k <= len(entries):
            entry = entries[k - 1]
    if entry is None:
        from .errors import did_you_mean

        listed = [e[0] for e in entries]
        hint = did_you_mean(name, listed) or (f"its {len(listed)} problems are named {listed[0]} ... {listed[-1]}" if listed else "the set is empty")
        raise ModelError(malformed=True, diagnostics=[Diagnostic(path, "", f"no problem named '{name}' in this set", hint)])
    _, number, line, group = entry
    where = f"{path}:{number}"
    data = dict(defaults)
    data.update(group)
    data.update(_parse(line, where))
    # No second check of the merged data: the header, the group line and this line were each
    # checked when parsed (parse_text), and a shallow merge adds no depth and no values. Checking
    # the merge again cost more than the rest of reading a GRASP problem (its group's 60 energy
    # values, re-walked for each of its 8 problems).
    return data, where


def expand(patterns) -> list[str]:
    """Problem references for files, set files (one per problem), glob patterns and the names of
    shipped sets (`engine.catalog`), in order.

    A pattern that matches nothing is kept as given, so the loader reports it as not found."""
    from .catalog import expand_name, installed, names_matching

    out: list[str] = []
    for pattern in patterns:
        text = str(pattern)
        ranged = _row_range(text)
        if ranged is not None:
            out.extend(ranged)
            continue
        named = None if any(ch in text for ch in "*?[") else expand_name(text)  # a shipped set's name: kitchen/async
        if named is not None:
            out.extend(named)
            continue
        matches = sorted(glob.glob(text)) if any(ch in text for ch in "*?[") else [text]
        there = None if matches else installed(text)
        if there:  # problems/async/*.json after a plain install
            matches = sorted(glob.glob(there))
        if not matches:  # a pattern over the shipped sets' names: 'grasp/*', 'ppnl/single_*'
            named = names_matching(text)
            out.extend(ref for found in named for ref in found.references())
            if named:
                continue
            out.append(text)
        for match in matches:
            if match.lower().endswith(SUFFIXES) and "#" not in match and Path(match).is_file():
                try:
                    out.extend(f"{match}#{name}" for name in names(match))
                except ModelError:
                    out.append(match)  # reported when it is loaded
            else:
                out.append(match)
    return out


_RANGE = re.compile(r"^(\d+)-(\d+)$")


def _row_range(text: str) -> list[str] | None:
    """`FILE#A-B` (or `NAME#A-B` of a shipped set): rows A to B inclusive, from 1, as references
    by name; None when `text` is no such range (a row named like a range is that row)."""
    base, hash_, rows = text.partition("#")
    found = _RANGE.match(rows) if hash_ else None
    if found is None:
        return None
    from .catalog import locate
    from .errors import GroundplanError

    path = base if Path(base).is_file() else (locate(base) or base)
    if not is_set_reference(path) or not Path(path).is_file():
        return None  # not a set file here: the loader says what is wrong with the reference
    listed = names(path)
    if rows in listed:
        return None
    first, last = int(found.group(1)), int(found.group(2))
    if not 1 <= first <= last <= len(listed):
        raise GroundplanError(f"{text}: rows {first}-{last} are not in the set, whose rows are 1-{len(listed)}: "
                              f"give A-B with 1 <= A <= B <= {len(listed)}")
    return [f"{path}#{name}" for name in listed[first - 1:last]]


def stable_key(ref: str) -> str:
    """A reference as `sample` hashes it: its place in its set, never where the set is installed
    (`single_5x5.jsonl#5x5-k1-e000-s06` for a set's row, `async/01_x.json` for a file of a
    folder), so the same rows are chosen on every machine and from a checkout or a wheel."""
    path, hash_, name = str(ref).replace("\\", "/").partition("#")
    parts = [p for p in path.split("/") if p]
    if hash_:
        if name.isdigit():  # FILE#N: the N-th row, by its name, as the set's own references say
            listed = names(path)
            if 1 <= int(name) <= len(listed):
                name = listed[int(name) - 1]
        return f"{parts[-1] if parts else path}#{name}"
    return "/".join(parts[-2:])


def sample(refs: list[str], n: int, seed: int) -> list[str]:
    """N of `refs`, chosen by seed: the N whose sha256 of f"{seed}:{stable_key(ref)}" (hex digest,
    UTF-8) sorts first, returned in the order `refs` has them. A plain hash of text, so neither
    Python's hash randomisation nor the platform changes the choice; all of them when N is not
    smaller than their number."""
    import hashlib

    if n >= len(refs):
        return list(refs)
    digest = {ref: hashlib.sha256(f"{seed}:{stable_key(ref)}".encode("utf-8")).hexdigest() for ref in refs}
    chosen = set(sorted(refs, key=lambda ref: (digest[ref], ref))[:n])
    return [ref for ref in refs if ref in chosen]


def write(path, problems, header: dict | None = None) -> None:
    """Write a problem set atomically: an optional header, then one problem per line."""
    import os
    import tempfile

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.chmod(tmp, 0o644)  # mkstemp makes it private; a data file is for everyone to read
    out, raw = _open_for_writing(fd, target)
    with out:
        if header is not None:
            out.write(json.dumps(header, separators=(",", ":")) + "\n")
        for problem in problems:
            out.write(json.dumps(problem, separators=(",", ":")) + "\n")
    if raw is not None:
        raw.close()
    os.replace(tmp, target)


def replace_problem(source, problem: dict) -> None:
    """Rewrite one problem's line (e.g. to store its optimum), keeping every other line as it is."""
    import os
    import tempfile

    path, name = split_reference(source)
    _, where = read_problem(source)
    number = int(where.rsplit(":", 1)[1])
    lines = _read_text(path).splitlines(keepends=True)
    header, entries, _ = _entries(path)
    defaults = dict(header)
    defaults.update(next(e[3] for e in entries if e[1] == number))
    own = {k: v for k, v in problem.items() if k not in defaults or defaults[k] != v or k == "name"}
    lines[number - 1] = json.dumps(own, separators=(",", ":")) + "\n"
    fd, tmp = tempfile.mkstemp(dir=Path(path).parent, prefix=Path(path).name, suffix=".tmp")
    os.chmod(tmp, 0o644)
    out, raw = _open_for_writing(fd, path)
    with out:
        out.writelines(lines)
    if raw is not None:
        raw.close()
    os.replace(tmp, path)
