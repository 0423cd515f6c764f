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
        from groundplan.engine.errors import GroundplanError

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
    from groundplan.engine.errors import Diagnostic, ModelError
    from groundplan.engine.files import read_data

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


def strategies(profile: Profile) -> dict[str, dict]:
    """The prompt strategies a world accepts: the generic ones it inherits and those it adds, less
    those it withdraws (a strategy set to null in its prompts.yaml: BabyAI asks questions, so the
    generic step-by-step strategies have nothing to ask)."""
    return {name: spec for name, spec in (profile.prompts.get("strategies") or {}).items() if isinstance(spec, dict)}


def default_strategy(profile: Profile) -> str:
    """The strategy a world's LLM episodes use when none is named: its paper's (prompts.default_strategy)."""
    name = profile.prompts.get("default_strategy") or "react"
    if name not in strategies(profile):
        from groundplan.engine.errors import GroundplanError

        raise GroundplanError(f"{profile.files[-1]}: /prompts/default_strategy names '{name}', which world "
                              f"'{profile.world}' does not accept ({', '.join(strategies(profile))})")
    return name


def describe_strategies(profile: Profile) -> str:
    """'io, cot, react (default), react-prior': a world's strategies as its messages and --help list them."""
    default = default_strategy(profile)
    return ", ".join(f"{name} (default)" if name == default else name for name in strategies(profile))


@functools.lru_cache(maxsize=1)
def check_strategy(name: str) -> None:
    """Refuse a prompt strategy no shipped profile defines, with the nearest known name."""
    known = strategy_names()
    if name not in known:
        from groundplan.engine.errors import GroundplanError, did_you_mean

        hint = did_you_mean(name, known) or f"choose from {', '.join(known)}"
        raise GroundplanError(f"unknown prompt strategy '{name}' ({hint})")


def check_strategy_for(strategy: str | None, domains) -> None:
    """Refuse, before the first episode, a strategy that some world of the run does not accept,
    with one message that lists the strategies of every world concerned (None: each world's
    default, which must exist)."""
    from groundplan.engine.errors import GroundplanError

    refused, seen = [], set()
    for domain in domains:
        profile = profile_for_domain(domain)
        if profile.world in seen:
            continue
        seen.add(profile.world)
        default_strategy(profile)  # a broken default is the world's error, said here
        if strategy is not None and strategy not in strategies(profile):
            refused.append(f"world '{profile.world}' accepts {describe_strategies(profile)}")
    if refused:
        raise GroundplanError(f"prompt strategy '{strategy}' is not one this run's worlds all accept: "
                              + "; ".join(refused) + ". Name one they accept with --strategy, or leave --strategy out "
                              "to use each world's default")


def _shipped_profiles() -> dict[str, Profile]:
    """The generic profile ('other worlds') and each installed world's, by name; a broken profile
    is left out here and reported when its world is used."""
    from groundplan.engine.errors import GroundplanError

    out = {}
    for own in sorted((DEFAULTS.parent.parent / "domains").glob("*/prompts.yaml")):
        try:
            out[own.parent.name] = _load(own.parent.name, str(own.parent))
        except GroundplanError:
            continue
    out["other worlds"] = _load("generic", None)
    return out


def shipped_strategies() -> dict[str, str]:
    """Each installed world's strategies, for --help (read from the profiles, never hard-coded)."""
    out = {}
    for world, profile in _shipped_profiles().items():
        try:
            out[world] = describe_strategies(profile)
        except Exception:  # noqa: BLE001 - a broken default is reported when its world is used, not in --help
            continue
    return out


def strategy_names() -> tuple[str, ...]:
    """Every prompt strategy the generic defaults or a shipped world's profile defines (a name
    is checked when an agent is made; whether the task's world has it, before the run starts)."""
    profiles = _shipped_profiles()
    names = dict.fromkeys(strategies(profiles.pop("other worlds")))
    for profile in profiles.values():
        names.update(dict.fromkeys(strategies(profile)))
    return tuple(names)


def profile_for(task) -> Profile:
    """The profile of the task's world (the domain file's folder), or the generic defaults."""
    return profile_for_domain(task.domain)


def profile_for_domain(domain) -> Profile:
    """The profile of a loaded domain, without building any problem (for run manifests)."""
    domain_file = Path(domain.file)
    folder = str(domain_file.resolve().parent) if domain_file.is_file() else None
    return _load(domain.name, folder)
