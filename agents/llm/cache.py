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

The episode's seed is part of the key too (`plan-eval` derives it from `--seed`, the agent, the
problem and the sample, `evals.run.episode_seed`): a rerun with the same seed replays its
replies, while another seed, or another sample of the same problem (`--samples`), draws new ones
instead of replaying the first sample's. A request made without a seed (an agent used outside
plan-eval) has none in its key, like every key written before the seed was in it; plan-eval's
own episodes always have one, so their entries written before that are no longer hit.

Where the cache lives: `GROUNDPLAN_CACHE`/llm when that variable is set, else
`$XDG_CACHE_HOME/groundplan/llm` (`~/.cache/groundplan/llm`). How a run uses it is its mode
(`MODES`, plan-eval's `--cache`); a reply served from it costs nothing now, and is accounted
apart from what was spent (`agents.base.Reply`).
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


# How a run uses the cache (plan-eval --cache): (read entries, write replies, replace an entry there)
MODES = {
    "on": (True, True, True),         # the default: replay what is there; ask what is not, and store it
    "off": (False, False, False),     # no cache: ask every request, store nothing
    "read": (True, False, False),     # read only: replay what is there; ask what is not, store nothing
    "write": (False, True, False),    # write only: ask every request; store a reply where there is no entry yet
    "refresh": (False, True, True),   # ask every request again; store its reply, replacing the entry
}


def check_mode(mode: str) -> str:
    if mode not in MODES:
        from groundplan.engine.errors import GroundplanError, did_you_mean

        hint = did_you_mean(str(mode), list(MODES))
        raise GroundplanError(f"'{mode}' is not a cache mode" + (f" ({hint})" if hint else "") + f": choose from {', '.join(MODES)}")
    return mode


def request_key(model: str, messages: list, params: dict, repeat: int = 0, seed: int | None = None) -> str:
    """`repeat`: how many times the same request was asked before in the episode (0: first time);
    `seed`: the episode's seed (None: none, as in keys written before the seed was in them)."""
    request = {"model": model, "messages": messages, "params": params}
    if repeat:
        request["repeat"] = int(repeat)
    if seed is not None:
        request["seed"] = int(seed)
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

    def put(self, key: str, value: dict, replace: bool = True) -> None:
        """Best effort: a cache that cannot be written (disk full, read-only) must not cost the
        reply that was just paid for; the next run simply asks again. `replace=False` keeps a
        usable entry already there (--cache write)."""
        path = self._path(key)
        tmp = None
        if not replace and self.get(key) is not None:
            return
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
