"""A run's folder: manifest.json and episodes.jsonl, safe against kills.

Each episode is one JSON line written with a single `write` on a file opened for appending: once
`write` returns, the line is the kernel's, so a kill -9 of plan-eval can at worst leave one torn
last line; `--resume` drops it and re-runs that episode. Only a crash of the machine itself can
lose lines still in the page cache, so the file is fsync'ed at most once a second (and on close)
rather than after every line: at 16,000 short episodes, one fsync per line cost about a minute
of the main process's time. The manifest pins what the numbers mean (version, commit, agents,
prompt hashes, seed, the content hash of every domain and problem).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path

EPISODES = "episodes.jsonl"
MANIFEST = "manifest.json"


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
        blob = Path(ref).read_bytes()
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
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_episodes(folder: Path, repair: bool = False) -> list[dict]:
    """Every complete episode line; with `repair`, a torn last line (from a kill) is cut off."""
    path = folder / EPISODES
    if not path.exists():
        return []
    raw = path.read_bytes()
    rows, good_end, offset = [], 0, 0
    for line in raw.split(b"\n"):
        end = offset + len(line) + 1
        if line.strip():
            try:
                rows.append(json.loads(line))
                good_end = min(end, len(raw))
            except ValueError:
                break  # torn: everything after it is unreliable
        else:
            good_end = min(end, len(raw))
        offset = end
    if repair and good_end < len(raw):
        with open(path, "r+b") as f:
            f.truncate(good_end)
    return rows


class EpisodeWriter:
    """Appends episode lines; fsyncs at most every `sync_seconds` (0: after every line) and on close."""

    def __init__(self, folder: Path, sync_seconds: float = 1.0):
        self.path = folder / EPISODES
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.sync_seconds = sync_seconds
        self.synced = time.monotonic()

    def write(self, row: dict) -> None:
        data = (json.dumps(row, separators=(",", ":"), default=str) + "\n").encode()
        os.write(self.fd, data)
        now = time.monotonic()
        if now - self.synced >= self.sync_seconds:
            os.fsync(self.fd)
            self.synced = now

    def close(self) -> None:
        try:
            os.fsync(self.fd)
        finally:
            os.close(self.fd)
