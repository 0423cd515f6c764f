"""Reading domain, problem and plan files as plain data, with errors that name the file.

JSON is the canonical syntax; YAML (by file extension) is accepted for the same model. Values
JSON cannot round-trip (NaN, Infinity) and absurd nesting are refused here, so later stages can
walk the data recursively without guarding against them. So is a key written twice in one
object: both parsers would keep the last silently, and a second `goal` or action is a mistake.

JSON has no comments, so a `"//"` key is one, in any object of a domain or problem: the loader
drops them (`strip_comments`) before the schema sees the file. Several may stand in one object.

Every user file is opened through `read_file_bytes` / `read_file_text`: only regular files of at
most MAX_FILE_BYTES. A device such as /dev/zero would fill memory, and opening a named pipe for
reading waits for a writer that may never come; both are refused before anything is read.
"""
from __future__ import annotations

import functools
import json
import os
import stat
from pathlib import Path
from typing import Any

from .errors import Diagnostic, ModelError

MAX_DEPTH = 64
MAX_ABS_NUMBER = 10**15
MAX_NODES = 5_000_000
# The largest shipped file, BabyAI's plan set, is 49 MB once decompressed; five times that leaves
# room for bigger sets while a mistaken path (a disk image, a log) fails at once. Documented in
# docs/language.md ("Errors and exit codes").
MAX_FILE_BYTES = 256 * 2**20
COMMENT = "//"  # the key of a comment in a domain or problem (docs/language.md, "Comments")


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not allowed (use a finite number)")


def _json_object(duplicates: dict):
    """An object_pairs_hook that notes the keys an object repeats (json keeps the last silently)."""
    def build(pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            # keep the object itself: its id stays unique only while it is alive
            duplicates[id(obj)] = (obj, _repeated(key for key, _ in pairs))
        return obj
    return build


def _repeated(keys) -> list:
    seen, out = set(), []
    for key in keys:
        if key == COMMENT:  # comments may repeat: each is its own note
            continue
        try:
            if key in seen and key not in out:
                out.append(key)
            seen.add(key)
        except TypeError:  # an unhashable YAML key: reported as a non-string key later
            continue
    return out


def _yaml_loader(text: str, duplicates: dict):
    """A yaml SafeLoader over `text` that notes into `duplicates` the keys each mapping repeats."""
    loader = _yaml_loader_class()(text)
    loader.duplicates = duplicates
    return loader


@functools.lru_cache(maxsize=None)
def _yaml_loader_class():
    """yaml's SafeLoader with a mapping constructor that records repeated keys. Keys brought in
    by a merge (`<<: *anchor`) are meant to be overridden and do not count."""
    import yaml

    class Loader(yaml.SafeLoader):
        duplicates: dict = {}

    def mapping(loader, node):
        data: dict = {}
        yield data
        own = [loader.construct_object(key, deep=True) for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"]
        data.update(loader.construct_mapping(node))
        repeated = _repeated(own)
        if repeated:
            loader.duplicates[id(data)] = (data, repeated)

    Loader.add_constructor("tag:yaml.org,2002:map", mapping)
    return Loader


def parse_text(text: str, file: str, yaml_syntax: bool = False) -> Any:
    """Parse JSON (or YAML) text; any failure becomes a ModelError naming the file and place."""
    duplicates: dict = {}
    try:
        if yaml_syntax:
            loader = _yaml_loader(text, duplicates)
            try:
                data = loader.get_single_data()
            finally:
                loader.dispose()
        else:
            data = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_json_object(duplicates))
    except json.JSONDecodeError as exc:
        # some of json's messages end in "at" ("Invalid control character at"): do not say it twice
        what = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"not valid JSON: {what} at line {exc.lineno} column {exc.colno}",
                                     "check for a missing comma, quote or bracket near there")]) from None
    except RecursionError:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", "nesting is too deep to read", f"keep nesting below {MAX_DEPTH} levels")]) from None
    except MemoryError:
        data = None
        out_of_memory(file)
    except ValueError as exc:
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"not valid JSON: {exc}")]) from None
    except Exception as exc:  # yaml's own error classes
        raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", f"not valid YAML: {exc}".splitlines()[0])]) from None
    check_plain_data(data, file, duplicates)
    return data


def _plainly_fine(data: Any) -> bool:
    """True when `data` breaks none of check_plain_data's rules, found without tracking where each
    value is: that bookkeeping made checking a BabyAI set of 8,000 rows (picked by name) take about
    17 s; the careful walk runs only when something is wrong, to say where."""
    stack = [(data, 0)]
    nodes = 0
    containers = (dict, list)
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            return False
        items = value.values() if type(value) is dict else value
        if type(value) is dict and not all(type(key) is str for key in value):
            return False
        for item in items:
            kind = type(item)
            if kind in containers:
                stack.append((item, depth + 1))
                continue
            nodes += 1
            if depth + 1 > MAX_DEPTH:
                return False
            if kind is float:
                if item != item or abs(item) > MAX_ABS_NUMBER:
                    return False
            elif kind is int and abs(item) > MAX_ABS_NUMBER:
                return False
            elif kind not in (str, bool, type(None), int, float):
                return False  # a YAML date, a subclass: the careful walk decides
        if nodes > MAX_NODES:
            return False
    return True


def check_plain_data(data: Any, file: str, duplicates: dict | None = None) -> None:
    """Refuse nesting deeper than MAX_DEPTH, numbers too large to mean anything and, given the
    parser's record of them ({id: (object, keys)}), keys repeated in one object."""
    if not duplicates and type(data) in (dict, list) and _plainly_fine(data):
        return
    stack = [(data, 0, ())]
    nodes = 0
    repeats: list[Diagnostic] = []
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
            noted = duplicates.get(id(value)) if duplicates else None
            if noted is not None and noted[0] is value:
                from .errors import pointer

                repeats.extend(Diagnostic(file, pointer(path + (key,)), f"duplicate key '{key}'",
                                          "an object names each key once (the last one would silently win): "
                                          "remove or rename one") for key in noted[1])
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
    if repeats:  # read, and wrong (like a schema error): exit status 1, every repeat at once
        raise ModelError(sorted(repeats, key=lambda d: d.pointer))


def strip_comments(data: Any) -> Any:
    """`data` without the comment keys (`"//"`) of its objects, at any depth; the same object when
    it has none, so a file without comments is not copied. Run after `check_plain_data`, which
    bounds the depth this recursion may reach."""
    if isinstance(data, dict):
        out = {key: strip_comments(value) for key, value in data.items() if key != COMMENT}
        same = len(out) == len(data) and all(out[key] is value for key, value in data.items())
        return data if same else out
    if isinstance(data, list):
        out = [strip_comments(item) for item in data]
        return data if all(a is b for a, b in zip(out, data)) else out
    return data


def _refuse(file: str, message: str, hint: str | None = None):
    """Input that cannot be read at all (exit status 2), with no chained OS error attached."""
    raise ModelError(malformed=True, diagnostics=[Diagnostic(file, "", message, hint)]) from None


def check_file(path: str | Path, file: str | None = None) -> int:
    """The size of `path` if it is a regular file we may read; a ModelError (exit status 2) otherwise.

    Uses stat, not open: opening a named pipe blocks until something writes into it."""
    file = file or str(path)
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        _refuse(file, "file not found", "check the path")
    except OSError as exc:
        _refuse(file, f"cannot read: {exc.strerror}")
    except ValueError:  # e.g. an embedded NUL byte
        _refuse(file, "not a usable file path", "check the path")
    if stat.S_ISDIR(info.st_mode):
        _refuse(file, "is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a named pipe" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a file")
        _refuse(file, f"not a regular file ({kind})", "give the path of a file saved on disk; pipes and devices are not read")
    if info.st_size > MAX_FILE_BYTES:
        _refuse(file, f"{info.st_size:,} bytes is larger than the limit of {MAX_FILE_BYTES // 2**20} MB",
                "split it into smaller files (problem sets into several .jsonl files)")
    return info.st_size


def read_file_bytes(path: str | Path, file: str | None = None) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; errors name it as `file`."""
    file = file or str(path)
    check_file(path, file)
    try:
        # O_NONBLOCK: should the path have become a pipe since the check, opening still returns
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        _refuse(file, f"cannot read: {exc.strerror}")
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            _refuse(file, "not a regular file", "give the path of a file saved on disk; pipes and devices are not read")
        try:
            # asked for its size, not the limit: read(n) reserves n bytes first, and 256 MB reserved
            # per file read would not fit a worker under --episode-memory
            size = os.fstat(fd).st_size
            raw = fh.read(min(size, MAX_FILE_BYTES) + 1)
            if len(raw) > size:  # it grows while read: read on, only as far as the limit
                raw += fh.read(MAX_FILE_BYTES + 1 - len(raw))
        except OSError as exc:
            _refuse(file, f"cannot read: {exc.strerror}")
    if len(raw) > MAX_FILE_BYTES:  # it grew after the check
        _refuse(file, f"larger than the limit of {MAX_FILE_BYTES // 2**20} MB", "split it into smaller files")
    return raw


def out_of_memory(file: str):
    """Reading a file ran out of the memory this process may use (`plan-eval --episode-memory`): a
    load error naming the file, as the same file is without the limit, not an episode's 'memout'."""
    _refuse(file, "reading it ran out of the memory this process may use",
            "give it more memory (plan-eval --episode-memory) or split it into smaller files")


GUNZIP_CHUNK = 4 * 2**20


def _gunzip(packed: bytes, file: str) -> bytes:
    """The decompressed bytes, read in chunks: one read of the limit reserved 256 MB at once, so
    under `plan-eval --episode-memory` a gzip bomb was a MemoryError (an episode's 'memout')
    rather than the size refusal it is without the limit. Should the chunks not fit in memory,
    they are dropped and the file unpacked again, only counted: past the limit it is the same size
    refusal, and within it a load error that names the file and the memory, never a MemoryError."""
    import gzip
    import io
    import zlib

    def unpack(keep: bool, size: int):
        chunks, total = [], 0
        with gzip.GzipFile(fileobj=io.BytesIO(packed)) as stream:
            while total <= MAX_FILE_BYTES:
                chunk = stream.read(size)
                if not chunk:
                    break
                total += len(chunk)
                if keep:
                    chunks.append(chunk)
        return chunks, total

    try:
        try:
            chunks, total = unpack(True, GUNZIP_CHUNK)
            if total <= MAX_FILE_BYTES:
                return b"".join(chunks)
        except MemoryError:
            chunks = None  # let go of what was read (a failed read leaves the stream unusable)
            try:
                _, total = unpack(False, 2**16)
            except MemoryError:
                total = 0
    except (OSError, EOFError, zlib.error) as exc:
        _refuse(file, f"not a readable gzip file: {exc}")
    if total > MAX_FILE_BYTES:
        _refuse(file, f"decompresses to more than the limit of {MAX_FILE_BYTES // 2**20} MB", "split it into smaller files")
    out_of_memory(file)


def read_file_text(path: str | Path, file: str | None = None, hint: str = "save the file as UTF-8") -> str:
    """A regular file's UTF-8 text, gunzipped for '.gz' (with the same size limit on the result)."""
    file = file or str(path)
    raw = read_file_bytes(path, file)
    if str(path).lower().endswith(".gz"):
        raw = _gunzip(raw, file)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        _refuse(file, "not UTF-8 text", hint)
    except MemoryError:
        raw = None
        out_of_memory(file)


def read_data(path: str | Path, name: str | None = None) -> Any:
    """Read one JSON or YAML file into plain Python data; errors name it as `name` (default: the path)."""
    path = Path(path)
    file = name or str(path)
    text = read_file_text(path, file, "save the file as UTF-8 JSON")
    return parse_text(text, file, yaml_syntax=path.suffix.lower() in (".yaml", ".yml"))
