"""An on-disk cache of model replies keyed by the whole request.

A rerun of an evaluation costs nothing and makes no request: the key covers the model, the
messages and every parameter that changes the reply (temperature, max tokens, seed, ...), so a
changed prompt is a miss, never a stale hit. Entries are written atomically, one file each,
so concurrent workers and killed runs cannot corrupt it; an entry damaged some other way (a
truncated copy, an edit by hand) is read as a miss and rewritten, never as an error.

The same request asked again within an episode (a re-prompt after an invalid answer that shows
the model what it saw before, a state visited twice) carries its repeat number in the key: the
model gets a fresh try each time instead of its cached first answer, and a rerun of the episode,
which asks the same requests in the same order, still finds every reply. The first asking has no
number, so caches written before the number existed still hit. Skipping the cache on re-prompts
would also give a fresh try, but a rerun would then ask the model again and could take another
path; numbering every call by its place in the episode would work too, but would change every key
after the first call and stop episodes that open with the same prompt from sharing its reply.
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


# what an entry must hold to be served (the Completion is rebuilt from them)
FIELDS = {"text": str, "prompt_tokens": int, "completion_tokens": int, "cost_usd": (int, float)}


def request_key(model: str, messages: list, params: dict, repeat: int = 0) -> str:
    """`repeat`: how many times the same request was asked before in the episode (0: first time)."""
    request = {"model": model, "messages": messages, "params": params}
    if repeat:
        request["repeat"] = int(repeat)
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def usable(entry) -> bool:
    """An entry a Completion can be rebuilt from (bool is not taken for a number)."""
    return isinstance(entry, dict) and all(
        isinstance(entry.get(name), kind) and not isinstance(entry.get(name), bool) for name, kind in FIELDS.items())


class DiskCache:
    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder is not None else default_dir()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent, or unreadable: ask again
        return entry if usable(entry) else None  # damaged ({}, a field missing): ask again, and put() replaces it

    def put(self, key: str, value: dict) -> None:
        """Best effort: a cache that cannot be written (disk full, read-only) must not cost the
        reply that was just paid for; the next run simply asks again."""
        path = self._path(key)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(value, out)
            os.replace(tmp, path)
        except OSError as exc:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            if not getattr(self, "_warned", False):
                self._warned = True
                import sys

                print(f"groundplan: the LLM cache in {self.folder} cannot be written ({exc.strerror or exc}); "
                      "replies are not cached", file=sys.stderr)
