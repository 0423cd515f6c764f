"""A world's agent profile: the loop's rules and the prompt templates, as data.

The loop and the LLM agent are the same for every world; what differs (Robotouille re-prompts
on an invalid answer without using a step, GRASP spends the step, PPNL stops a one-shot plan at
its first blocked move) is read from `domains/<world>/prompts.yaml`, merged over the generic
defaults in `agents/default_prompts.yaml`. Templates use `{name}` fields; their hashes go into
a run's manifest so that a change of wording is visible when results are compared.
"""
from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

DEFAULTS = Path(__file__).with_name("default_prompts.yaml")


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@dataclass(frozen=True)
class Profile:
    world: str
    data: dict
    files: tuple[str, ...]

    @property
    def loop(self) -> dict:
        return self.data["loop"]

    @property
    def prompts(self) -> dict:
        return self.data["prompts"]

    @property
    def folder(self) -> Path | None:
        """The world's own folder (where its prompts.yaml is), None for the generic defaults."""
        return Path(self.files[-1]).parent if len(self.files) > 1 else None

    def world_file(self, relative: str) -> Path:
        """A file the world's profile names (examples, shots), relative to the world's folder."""
        from engine.errors import GroundplanError

        if self.folder is None:
            raise GroundplanError(f"'{relative}' is relative to a world's folder, but world '{self.world}' has no prompts.yaml")
        return self.folder / relative

    def data_files(self) -> list[Path]:
        """Files the strategies read besides the profile itself (their `shots`), for the manifest."""
        found = []
        for spec in self.prompts.get("strategies", {}).values():
            if isinstance(spec, dict) and spec.get("shots") and self.folder is not None:
                found.append(self.folder / spec["shots"])
        return sorted(set(found))

    def template(self, *keys: str, default: str = "") -> str:
        node = self.prompts
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node if isinstance(node, str) else default

    def hashes(self) -> dict:
        """sha256 of each template file and of the merged prompts, for the run manifest."""
        root = DEFAULTS.parent.parent
        out = {}
        for path in [Path(f) for f in self.files] + [p for p in self.data_files() if p.is_file()]:
            try:
                shown = str(path.resolve().relative_to(root))
            except ValueError:
                shown = str(path)
            out[shown] = _sha(path.read_bytes())
        out["merged"] = _sha(json.dumps(self.data, sort_keys=True).encode())
        return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _read_yaml(path: Path) -> dict:
    from engine.errors import Diagnostic, ModelError
    from engine.files import read_data

    data = read_data(path)
    if not isinstance(data, dict):
        raise ModelError([Diagnostic(str(path), "", "a prompts file is a mapping with 'loop' and 'prompts'")])
    unknown = set(data) - {"loop", "prompts"}
    if unknown:
        raise ModelError([Diagnostic(str(path), f"/{sorted(unknown)[0]}", "unknown section", "use 'loop' and 'prompts'")])
    return data


@functools.lru_cache(maxsize=32)
def _load(world: str, domain_dir: str | None) -> Profile:
    data = _read_yaml(DEFAULTS)
    files = [str(DEFAULTS)]
    if domain_dir is not None:
        own = Path(domain_dir) / "prompts.yaml"
        if own.is_file():
            data = _merge(data, _read_yaml(own))
            files.append(str(own))
    return Profile(world, data, tuple(files))


@functools.lru_cache(maxsize=1)
def check_strategy(name: str) -> None:
    """Refuse a prompt strategy no shipped profile defines, with the nearest known name."""
    known = strategy_names()
    if name not in known:
        from engine.errors import GroundplanError, did_you_mean

        hint = did_you_mean(name, known) or f"choose from {', '.join(known)}"
        raise GroundplanError(f"unknown prompt strategy '{name}' ({hint})")


def strategy_names() -> tuple[str, ...]:
    """Every prompt strategy the generic defaults or a shipped world's profile defines (a name
    is checked when an agent is made; whether the task's world has it, when an episode starts)."""
    names = dict.fromkeys(_read_yaml(DEFAULTS)["prompts"]["strategies"])
    from engine.errors import GroundplanError

    for own in sorted((DEFAULTS.parent.parent / "domains").glob("*/prompts.yaml")):
        try:
            names.update(dict.fromkeys((_read_yaml(own).get("prompts") or {}).get("strategies") or {}))
        except GroundplanError:
            continue  # a broken profile is reported when its world is used, not here
    return tuple(names)


def profile_for(task) -> Profile:
    """The profile of the task's world (the domain file's folder), or the generic defaults."""
    return profile_for_domain(task.domain)


def profile_for_domain(domain) -> Profile:
    """The profile of a loaded domain, without building any problem (for run manifests)."""
    domain_file = Path(domain.file)
    folder = str(domain_file.resolve().parent) if domain_file.is_file() else None
    return _load(domain.name, folder)
