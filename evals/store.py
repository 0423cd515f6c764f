"""A run's folder: manifest.json and episodes.jsonl, safe against kills.

Each episode is one JSON line written with a single `write` on a file opened for appending: once
`write` returns, the line is the kernel's, so a kill -9 of plan-eval can at worst leave one torn
last line; `--resume` drops it and re-runs that episode. Only a crash of the machine itself can
lose lines still in the page cache, so the file is fsync'ed at most once a second (and on close)
rather than after every line: at 16,000 short episodes, one fsync per line cost about a minute
of the main process's time. The manifest pins what the numbers mean (version, commit, agents,
prompt hashes, seed, the content hash of every domain and problem); a run with an LLM agent adds
how long its processes took to start up (`startup`, evals.run), which no episode's time counts.

A line that is not a complete episode is never silently dropped: a torn *last* line (no newline:
the only kind a kill can make) is cut on `--resume` and its episode runs again; any other bad line
is moved to episodes.rejected.jsonl with its line number, and the file is rewritten atomically
(temporary file, fsync, rename), so a crash during the repair loses nothing either. A full disk or
a read-only folder stops the run with `StoreError`, which says what happened and how to resume,
and leaves the file ending at a line boundary.

A line that is JSON but not of an episode's shape (`SHAPE`: the fields the summary and the viewer
read, with their types, e.g. `"steps": "many"` or `"trajectory": "x"`) is refused like an
unreadable one, with the JSON pointer of the first wrong field: every reader of the file (report,
--resume, the viewer) gets it from `scan`, so none of them meets a field it cannot use. An episode
id seen on an earlier good line is a duplicate (`Lines.duplicates`): the first is counted, the
others are set aside (moved to episodes.rejected.jsonl on --resume), so a file that holds an
episode twice still counts it once.

A run folder has one writer at a time (`one_writer`): plan-eval holds an exclusive `flock` on
plan-eval.lock in the folder for the whole run, and a second plan-eval on the same folder is
refused with `FolderBusy`, which names the folder and the PID that holds it. The kernel releases
the lock of a process that dies, however it dies, so a killed run never holds its folder. Where
there is no flock (Windows), the lock file is created exclusively and holds the writer's PID; a
lock file whose PID is no longer running is taken over.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from groundplan.engine.errors import GroundplanError

EPISODES = "episodes.jsonl"
REJECTED = "episodes.rejected.jsonl"
MANIFEST = "manifest.json"
LOCK = "plan-eval.lock"
REQUIRED = ("id", "agent_label", "problem_set")  # what the summary needs of every line

# The shape of an episode line: each field the summary or the viewer reads, and the JSON types it
# may have ("null" where a writer may leave it unknown). REQUIRED fields must be there; the others
# may be missing (lines written before a field existed), but never of another type. Fields read
# only for their truth (beats_reference, reference_unverified, ...) or only shown are not listed.
NUMBER, INTEGER, STRING, BOOLEAN, NULL, ARRAY, OBJECT = "number", "integer", "string", "boolean", "null", "array", "object"
SHAPE = {
    "id": (STRING,), "agent_label": (STRING,), "problem_set": (STRING,),
    "success": (BOOLEAN,), "outcome": (STRING, NULL), "steps": (INTEGER,), "cost": (NUMBER,), "max_steps": (INTEGER, NULL),
    "reference_cost": (NUMBER, NULL), "reference_proven": (BOOLEAN, NULL), "solvable": (BOOLEAN, NULL),
    "optimality": (NUMBER, NULL), "optimality_bin": (STRING, NULL), "steps_to_go_bin": (STRING, NULL),
    "remaining_cost": (NUMBER, NULL), "invalid_actions": (INTEGER,), "repeated_transitions": (INTEGER,),
    "prompt_tokens": (INTEGER,), "completion_tokens": (INTEGER,), "tokens": (INTEGER,), "cached_tokens": (INTEGER,),
    "cost_usd": (NUMBER, NULL), "cached_cost_usd": (NUMBER, NULL), "unpriced": (INTEGER, BOOLEAN, NULL),
    "problem": (STRING, NULL), "problem_ref": (STRING, NULL), "file": (STRING, NULL), "world": (STRING, NULL),
    "plugin_world": (STRING, NULL), "difficulty": (STRING, NUMBER, NULL), "max_steps_from": (STRING, NULL),
    "reference_from": (STRING, NULL), "sample": (INTEGER,), "error": (STRING, NULL), "trajectory": (ARRAY,),
}
STEP_SHAPE = {"state": (STRING, NULL), "next_state": (STRING, NULL), "action": (STRING, NULL)}  # each trajectory entry (an object)

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
    from groundplan.engine import problemsets
    from groundplan.engine.files import parse_text

    if problemsets.is_set_reference(ref):
        data, _ = problemsets.read_problem(ref)
        blob = json.dumps(data, sort_keys=True).encode()
        origin = Path(problemsets.split_reference(ref)[0])
    else:
        from groundplan.engine.files import read_file_bytes

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
    duplicates: list[tuple[int, bytes, str]] = field(default_factory=list)  # good lines of an episode an earlier line holds

    @property
    def unreadable(self) -> int:
        return len(self.bad) + bool(self.torn.strip())

    @property
    def set_aside(self) -> list[tuple[int, bytes, str]]:
        """Every line --resume moves to episodes.rejected.jsonl, in the file's order."""
        return sorted(self.bad + self.duplicates, key=lambda item: item[0])


def _kind(value) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    return {str: STRING, list: ARRAY, dict: OBJECT}.get(type(value), type(value).__name__)


def _fits(value, kinds: tuple) -> bool:
    kind = _kind(value)
    return kind in kinds or (kind == INTEGER and NUMBER in kinds)


def _shown(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _pointer(*parts) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def shape_error(row: dict) -> str:
    """Why a JSON object is not an episode line (the JSON pointer of its first wrong field), or ''."""
    missing = [k for k in REQUIRED if k not in row]
    if missing:
        return "not an episode line (no " + ", ".join(missing) + ")"
    for key, kinds in SHAPE.items():
        if key in row and not _fits(row[key], kinds):
            return f"{_pointer(key)} is {_kind(row[key])} {_shown(row[key])}, not {' or '.join(kinds)}"
    for k, entry in enumerate(row.get("trajectory") or ()):
        if not isinstance(entry, dict):
            return f"{_pointer('trajectory', k)} is {_kind(entry)} {_shown(entry)}, not object"
        for key, kinds in STEP_SHAPE.items():
            if key in entry and not _fits(entry[key], kinds):
                return f"{_pointer('trajectory', k, key)} is {_kind(entry[key])} {_shown(entry[key])}, not {' or '.join(kinds)}"
    return ""


def _row(line: bytes) -> tuple[dict | None, str]:
    try:
        row = json.loads(line)
    except ValueError as exc:  # UnicodeDecodeError is one too
        return None, f"not JSON ({exc})"
    if not isinstance(row, dict):
        return None, "not a JSON object"
    why = shape_error(row)
    return (None, why) if why else (row, "")


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
    seen: dict[str, int] = {}  # episode id -> the line that holds it

    def take(number: int, line: bytes, row: dict) -> None:
        first = seen.setdefault(row["id"], number)
        if first != number:
            out.duplicates.append((number, line, f"a duplicate of line {first} (episode {row['id']})"))
        else:
            out.rows.append(row)
            out.good.append(line)

    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        row, why = _row(line)
        if row is None:
            out.bad.append((number, line, why))
        else:
            take(number, line, row)
    if last:
        row = _row(last)[0] if last.strip() else None
        if row is None:
            out.torn = last
        else:
            take(len(lines) + 1, last, row)
            out.unterminated = True
    return out


def read_episodes(folder: Path, repair: bool = False) -> list[dict]:
    """Every good episode line; with `repair`, the file is mended first (`repair_episodes`)."""
    return (repair_episodes(folder) if repair else scan(folder)).rows


def unreadable_where(found) -> str:
    """Where a scan's unreadable lines are, as a message says it: the first three and a torn tail."""
    where = [f"line {n}: {why}" for n, _, why in found.bad[:3]]
    if len(found.bad) > 3:
        where.append("...")
    if found.torn.strip():
        where.append("a torn last line")
    return "; ".join(where)


def duplicates_where(found) -> str:
    """Where a scan's duplicate episode lines are: the first three, and '...' for more."""
    where = [f"line {n}: {why}" for n, _, why in found.duplicates[:3]]
    return "; ".join(where + (["..."] if len(found.duplicates) > 3 else []))


def repair_episodes(folder: Path) -> Lines:
    """Make episodes.jsonl hold only good lines, each ending with a newline, one per episode,
    losing none of them: a torn last line is cut (its episode runs again); any other bad line, and
    every later line of an episode an earlier good line holds, is appended to
    episodes.rejected.jsonl with its line number and the reason, then the file is rewritten
    atomically without it. Returns what was found, for the caller to report."""
    folder = Path(folder)
    path = folder / EPISODES
    found = scan(folder)
    aside = found.set_aside
    if aside:
        rejected = folder / REJECTED
        moved = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        text = "".join(json.dumps({"line": n, "reason": why, "text": line.decode("utf-8", "backslashreplace"), "moved": moved}) + "\n"
                       for n, line, why in aside)
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


class FolderBusy(GroundplanError):
    """Another plan-eval is writing the run folder: this one writes nothing and stops."""

    def __init__(self, folder: Path, pid: int | None):
        self.folder, self.pid = Path(folder), pid
        holder = f"the plan-eval process with PID {pid}" if pid else "another plan-eval process (its PID not yet recorded)"
        super().__init__(f"{folder} is being written by {holder} (lock {Path(folder) / LOCK}); a run folder has one writer "
                         "at a time: wait for that run to end (then --resume adds what it lacks), or choose another --out")


# resolved folder -> [fd, depth, by flock]: the locks this process holds (a second flock of its own on the
# same file, through another descriptor, would conflict with the first)
_held: dict[str, list] = {}
_held_guard = threading.Lock()


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _pid_alive(pid: int) -> bool:
    """Whether a process with this PID is running (for the lock file where there is no flock)."""
    if os.name == "nt":
        import ctypes

        kernel = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            return bool(kernel.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _lock_flock(folder: Path, path: Path) -> int:
    import fcntl

    with writing(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise StoreError(path, exc) from None
        pid = None
        for _ in range(20):  # the holder writes its PID just after taking the lock
            pid = _read_pid(path)
            if pid:
                break
            time.sleep(0.01)
        raise FolderBusy(folder, pid) from None
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass  # the lock holds without the PID; a refused run then cannot name it
    return fd


def _lock_pid_file(folder: Path, path: Path) -> int:
    for _ in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pid = _read_pid(path)
            if pid is not None and pid != os.getpid() and _pid_alive(pid):
                raise FolderBusy(folder, pid) from None
            try:  # its writer is gone: the lock is stale
                path.unlink()
            except FileNotFoundError:
                pass
            continue
        except OSError as exc:
            raise StoreError(path, exc) from None
        os.write(fd, f"{os.getpid()}\n".encode())
        return fd
    raise FolderBusy(folder, _read_pid(path))


@contextmanager
def one_writer(folder: Path):
    """Hold the run folder's lock (created with the folder if need be) for the block, or raise
    FolderBusy naming the PID that holds it. Re-entrant within a process."""
    folder = Path(folder)
    with writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
    key = str(folder.resolve())
    path = folder / LOCK
    with _held_guard:
        if key in _held:
            _held[key][1] += 1
        else:
            try:
                fd = _lock_flock(folder, path)  # ImportError where there is no fcntl
                flock = True
            except ImportError:
                fd, flock = _lock_pid_file(folder, path), False
            _held[key] = [fd, 1, flock]
    try:
        yield
    finally:
        with _held_guard:
            entry = _held[key]
            entry[1] -= 1
            if entry[1] == 0:
                del _held[key]
                os.close(entry[0])  # with flock, closing the descriptor releases the lock; the file stays (unlinking
                if not entry[2] and _read_pid(path) == os.getpid():  # a flock'ed file races with the next writer)
                    try:
                        path.unlink()
                    except OSError:
                        pass
