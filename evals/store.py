"""A run's folder: manifest.json and episodes.jsonl, safe against kills.

Each episode is one JSON line written with a single `write` on a file opened for appending: once
`write` returns, the line is the kernel's, so a kill -9 of plan-eval can at worst leave one torn
last line; `--resume` drops it and re-runs that episode. Only a crash of the machine itself can
lose lines still in the page cache, so the file is fsync'ed at most once a second (and on close)
rather than after every line: at 16,000 short episodes, one fsync per line cost about a minute
of the main process's time. The manifest pins what the numbers mean (version, commit, agents,
prompt hashes, seed, the content hash of every domain and problem).

A line that is not a complete episode is never silently dropped: a torn *last* line (no newline:
the only kind a kill can make) is cut on `--resume` and its episode runs again; any other bad line
is moved to episodes.rejected.jsonl with its line number, and the file is rewritten atomically
(temporary file, fsync, rename), so a crash during the repair loses nothing either. A full disk or
a read-only folder stops the run with `StoreError`, which says what happened and how to resume,
and leaves the file ending at a line boundary.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import GroundplanError

EPISODES = "episodes.jsonl"
REJECTED = "episodes.rejected.jsonl"
MANIFEST = "manifest.json"
REQUIRED = ("id", "agent_label", "problem_set")  # what the summary needs of every line

EDQUOT = getattr(errno, "EDQUOT", -1)  # not on Windows
REASONS = {errno.ENOSPC: "no space left on the device", EDQUOT: "the disk quota is exceeded",
           errno.EACCES: "permission denied", errno.EPERM: "operation not permitted", errno.EROFS: "the file system is read-only",
           errno.EIO: "an input/output error of the device"}


class StoreError(GroundplanError):
    """A run folder that could not be written (disk full, read-only): everything written before is
    kept, and the run continues with --resume once the cause is gone."""

    def __init__(self, path, exc: OSError):
        self.path, self.errno = Path(path), exc.errno
        code = errno.errorcode.get(exc.errno, "")
        reason = REASONS.get(exc.errno) or exc.strerror or str(exc)
        self.reason = f"{reason} ({code})" if code else reason
        super().__init__(f"could not write {path}: {self.reason}")

    @property
    def remedy(self) -> str:
        if self.errno in (errno.ENOSPC, EDQUOT):
            return "Free some space on that device (or move the folder to one that has it)"
        if self.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return "Make the folder writable (or copy it somewhere writable)"
        return "Fix the cause"


@contextmanager
def writing(path):
    """Turns an OSError while writing `path` into a StoreError that names it."""
    try:
        yield
    except StoreError:
        raise
    except OSError as exc:
        raise StoreError(path, exc) from None


def problem_data(ref: str) -> tuple[dict, str, Path]:
    """(the problem's data, its content hash, the path its domain reference is relative to).

    A file's hash is of its bytes; a problem-set entry's, of its data with the set's defaults."""
    from engine import problemsets
    from engine.files import parse_text

    if problemsets.is_set_reference(ref):
        data, _ = problemsets.read_problem(ref)
        blob = json.dumps(data, sort_keys=True).encode()
        origin = Path(problemsets.split_reference(ref)[0])
    else:
        from engine.files import read_file_bytes

        blob = read_file_bytes(ref)  # checked: a FIFO or a device named as a problem would block or never end
        data = parse_text(blob.decode("utf-8"), ref, yaml_syntax=Path(ref).suffix.lower() in (".yaml", ".yml"))
        origin = Path(ref)
    return data, hashlib.sha256(blob).hexdigest()[:16], origin


def file_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def git_commit() -> str | None:
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def version() -> str:
    try:
        from importlib.metadata import version as v

        return v("groundplan")
    except Exception:
        return "unknown"


def write_json(path: Path, data) -> None:
    write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def write_text(path: Path, text: str) -> None:
    """Replace a file whole or not at all (a full disk leaves the old one, not half a new one)."""
    tmp = path.with_name(path.name + ".tmp")
    with writing(path):
        try:
            tmp.write_text(text)
            os.replace(tmp, path)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise


@dataclass
class Lines:
    """What episodes.jsonl holds: the good rows, and the lines that are not."""

    rows: list[dict] = field(default_factory=list)
    bad: list[tuple[int, bytes, str]] = field(default_factory=list)  # (line number, the line, why it is refused)
    torn: bytes = b""  # a last line without its newline that is not a whole row: what a kill during a write leaves
    unterminated: bool = False  # the last line is a whole row but lacks its newline (a write cut just before it)
    good: list[bytes] = field(default_factory=list, repr=False)  # the good lines as written

    @property
    def unreadable(self) -> int:
        return len(self.bad) + bool(self.torn.strip())


def _row(line: bytes) -> tuple[dict | None, str]:
    try:
        row = json.loads(line)
    except ValueError as exc:  # UnicodeDecodeError is one too
        return None, f"not JSON ({exc})"
    if not isinstance(row, dict):
        return None, "not a JSON object"
    missing = [k for k in REQUIRED if not isinstance(row.get(k), str)]
    if missing:
        return None, "not an episode line (no " + ", ".join(missing) + ")"
    return row, ""


def scan(folder: Path) -> Lines:
    """Every line of episodes.jsonl, sorted into good rows, bad lines and a torn tail."""
    path = Path(folder) / EPISODES
    out = Lines()
    if not path.exists():
        return out
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as exc:
        raise GroundplanError(f"could not read {path}: {StoreError(path, exc).reason}") from None
    last = lines.pop()  # b"" when the file ends with a newline
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        row, why = _row(line)
        if row is None:
            out.bad.append((number, line, why))
        else:
            out.rows.append(row)
            out.good.append(line)
    if last:
        row = _row(last)[0] if last.strip() else None
        if row is None:
            out.torn = last
        else:
            out.rows.append(row)
            out.good.append(last)
            out.unterminated = True
    return out


def read_episodes(folder: Path, repair: bool = False) -> list[dict]:
    """Every good episode line; with `repair`, the file is mended first (`repair_episodes`)."""
    return (repair_episodes(folder) if repair else scan(folder)).rows


def repair_episodes(folder: Path) -> Lines:
    """Make episodes.jsonl hold only good lines, each ending with a newline, losing none of them:
    a torn last line is cut (its episode runs again); any other bad line is appended to
    episodes.rejected.jsonl with its line number and the reason, then the file is rewritten
    atomically without it. Returns what was found, for the caller to report."""
    folder = Path(folder)
    path = folder / EPISODES
    found = scan(folder)
    if found.bad:
        rejected = folder / REJECTED
        moved = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        text = "".join(json.dumps({"line": n, "reason": why, "text": line.decode("utf-8", "backslashreplace"), "moved": moved}) + "\n"
                       for n, line, why in found.bad)
        with writing(rejected):  # first, so a crash before the rewrite leaves the lines in both files, never in none
            fd = os.open(rejected, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                _write_all(fd, text.encode())
                os.fsync(fd)
            finally:
                os.close(fd)
        tmp = path.with_name(path.name + ".tmp")
        with writing(path):
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    _write_all(fd, b"".join(line + b"\n" for line in found.good))
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(tmp, path)
            except OSError:
                tmp.unlink(missing_ok=True)
                raise
            _sync_folder(folder)
    elif found.torn:
        with writing(path), open(path, "r+b") as f:
            f.truncate(path.stat().st_size - len(found.torn))
    elif found.unterminated:
        with writing(path):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                _write_all(fd, b"\n")
            finally:
                os.close(fd)
    return found


def _sync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX: fsync the directory); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> int:
    """os.write until all of `data` is written (a write may take only part of it); returns how much
    was written when an OSError stops it, as the `written` attribute of that error."""
    done = 0
    while done < len(data):
        try:
            n = os.write(fd, data[done:])
        except OSError as exc:
            exc.written = done
            raise
        if n <= 0:
            exc = OSError(errno.EIO, "the write made no progress")
            exc.written = done
            raise exc
        done += n
    return done


class EpisodeWriter:
    """Appends episode lines; fsyncs at most every `sync_seconds` (0: after every line) and on close.

    After a failed write (disk full, ...) it cuts the partial line it may have left, so the file
    ends at a line boundary (if even that fails, `repair_episodes` cuts the torn tail on resume), and
    refuses every later line: nothing may follow a torn one."""

    def __init__(self, folder: Path, sync_seconds: float = 1.0):
        self.path = Path(folder) / EPISODES
        with writing(self.path):
            self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            self.size = os.fstat(self.fd).st_size
        self.sync_seconds = sync_seconds
        self.synced = time.monotonic()
        self.failed: StoreError | None = None
        self.written = 0

    def write(self, row: dict) -> None:
        if self.failed is not None:
            raise self.failed
        data = (json.dumps(row, separators=(",", ":"), default=str) + "\n").encode()
        try:
            _write_all(self.fd, data)
        except OSError as exc:
            if getattr(exc, "written", 0):
                try:
                    os.ftruncate(self.fd, self.size)
                except OSError:
                    pass  # the torn tail has no newline: --resume cuts it
            self.failed = StoreError(self.path, exc)
            raise self.failed from None
        self.size += len(data)
        self.written += 1
        now = time.monotonic()
        if now - self.synced >= self.sync_seconds:
            self.synced = now
            self._sync()

    def _sync(self) -> None:
        try:
            os.fsync(self.fd)
        except OSError as exc:
            self.failed = StoreError(self.path, exc)
            raise self.failed from None

    def close(self) -> None:
        """Flush and close; a failure to flush is raised only if no earlier one was."""
        try:
            if self.failed is None:
                self._sync()
        finally:
            os.close(self.fd)
