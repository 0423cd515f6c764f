"""An on-disk cache of model replies keyed by the whole request.

A rerun of an evaluation costs nothing and makes no request: the key covers the model, the
messages and every parameter that changes the reply (temperature, max tokens, seed, ...), so a
changed prompt is a miss, never a stale hit. Entries are written atomically, one file each,
so concurrent workers and killed runs cannot corrupt it.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


def default_dir() -> Path:
    base = os.environ.get("GROUNDPLAN_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "groundplan")
    return Path(base) / "llm"


def request_key(model: str, messages: list, params: dict) -> str:
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class DiskCache:
    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder is not None else default_dir()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent, or unreadable: ask again

    def put(self, key: str, value: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(value, out)
        os.replace(tmp, path)
