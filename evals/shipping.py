"""Problems and domains sent to workers by content, for workers that have no copy of the files.

A Ray cluster's nodes have groundplan installed but not the user's checkout: the problems, and
a domain kept outside the installed worlds, exist only where plan-eval was started. So the
driver reads each problem once, as the local backend would (the same data, the same name in
messages, the same problem-set name), and sends that; a worker builds the task from it.

Code does not travel: the engine, the agents and the worlds' plug-ins are the node's installed
package. What would silently change the episodes is a node that runs other code, so every batch
carries the driver's `code_fingerprint()` and a worker whose own differs refuses to run it
(`ShippingError`, which names the node). An installed world's domain is loaded from the node's
own copy, checked against the driver's content hash (its plug-ins read files beside it, so it
must be that file); any other domain travels as its text, with the prompts.yaml beside it, and
is written once per node under the temporary folder, named by its hash.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

from groundplan.engine.errors import GroundplanError

PACKAGES = ("engine", "planners", "agents", "evals", "domains")  # what a worker runs, and the worlds' data it reads
FINGERPRINTED = (".py", ".json", ".jsonl", ".yaml", ".yml")


class ShippingError(GroundplanError):
    """A worker that cannot run what the driver sent: another groundplan, another world file."""


@dataclass(frozen=True)
class DomainSource:
    key: str  # of everything below: two domains that differ in any of it (a prompts.yaml) are two
    name: str  # the file's name, as messages show it
    world: str | None = None  # an installed world: loaded from the node's own domains/<world>/<relative>,
    relative: str | None = None  # which must hash to file_digest
    file_digest: str | None = None
    files: tuple = ()  # any other domain: (relative path, text) of the file, its prompts.yaml and the files that names


@dataclass(frozen=True)
class ProblemSource:
    ref: str  # as given on the command line: the episode's id and seed are made of it
    digest: str  # of the problem's data: a worker's cache of built tasks is keyed by it
    data: dict
    file: str  # the name the problem's messages and the episode line's `file` use
    problem_set: str  # computed here: a file in the current folder is named by the driver's folder
    domain: str  # its DomainSource's key


def _root() -> Path:
    return Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of the installed code and world data (about 220 files, 25 ms): equal on two
    machines when they would play the same episodes the same way."""
    digest = hashlib.sha256()
    root = _root()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.suffix in FINGERPRINTED and "__pycache__" not in path.parts and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def check_fingerprint(expected: str) -> None:
    mine = code_fingerprint()
    if mine != expected:
        raise ShippingError(f"the worker on {socket.gethostname()} runs other groundplan code (fingerprint {mine}, the driver's "
                            f"{expected}, over {', '.join(PACKAGES)} in {_root()}): install the same version on every node "
                            "(pip install the same wheel or checkout), then run again with --resume")


# ------------------------------------------------------------------ the driver's side

def sources(refs: list[str]) -> tuple[dict[str, ProblemSource], dict[str, DomainSource]]:
    """What the workers need for `refs`. A problem left out (unreadable, its domain not found or
    not valid) is run by the driver itself, where it fails to load with exactly the local message."""
    from groundplan.engine.loader import load_domain, read_problem_source, resolve_domain_reference

    from .run import problem_set
    problems: dict[str, ProblemSource] = {}
    domains: dict[str, DomainSource] = {}
    by_path: dict[str, DomainSource | None] = {}
    for ref in refs:
        try:
            data, file, path = read_problem_source(ref)
            digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]  # no second read
            domain_path = resolve_domain_reference(data["domain"], path) if isinstance(data, dict) and isinstance(data.get("domain"), str) else None
        except Exception:
            continue
        if domain_path is None:
            continue
        key = str(domain_path)
        if key not in by_path:
            try:
                by_path[key] = _domain_source(domain_path, load_domain(domain_path))  # cached: the manifest loaded it
            except Exception:
                by_path[key] = None
        domain = by_path[key]
        if domain is None:
            continue
        domains[domain.key] = domain
        problems[ref] = ProblemSource(ref, digest, data, file, problem_set(ref), domain.key)
    return problems, domains


def _domain_source(path: Path, domain) -> DomainSource | None:
    from groundplan.engine.paths import DOMAINS_DIR

    from .store import file_hash

    world = domain.plugin_world
    if world is not None:
        relative = path.resolve().relative_to((DOMAINS_DIR / world).resolve()).as_posix()
        digest = file_hash(path)
        return DomainSource(_key(world, relative, digest), str(path), world=world, relative=relative, file_digest=digest)
    files = []
    try:
        for relative in _profile_files(path, domain):
            files.append((relative, (path.parent / relative).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return None  # the driver runs its problems (and an agent that reads the file says why there)
    return DomainSource(_key(*(part for pair in files for part in pair)), str(path), files=tuple(files))


def _profile_files(path: Path, domain) -> list[str]:
    """The domain file, the prompts.yaml beside it and what that names (examples, shots), as paths
    relative to the domain's folder; a file named outside that folder is not sent (it must then
    be where the node looks for it)."""
    from groundplan.agents.profile import profile_for_domain

    names = [path.name]
    folder = path.parent.resolve()
    if (folder / "prompts.yaml").is_file():
        names.append("prompts.yaml")
        profile = profile_for_domain(domain)
        named = [folder / str(x) for x in profile.prompts.get("examples") or []] + profile.data_files()
        for candidate in (Path(p).resolve() for p in named):
            if candidate.is_relative_to(folder) and candidate.is_file():
                names.append(candidate.relative_to(folder).as_posix())
    return list(dict.fromkeys(names))


def _key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


# ------------------------------------------------------------------ the worker's side

_received: dict[str, ProblemSource] = {}
_domain_sources: dict[str, DomainSource] = {}


def receive(problems: dict[str, ProblemSource], domains: dict[str, DomainSource]) -> None:
    """Remember what a task brought, for `shipped(ref)` and `load_task`: the problems of this task
    only (a worker serves many tasks, and must not keep every problem of a long run), the domains
    for good (there are few, and they are sent once)."""
    _received.clear()
    _received.update(problems)
    _domain_sources.update(domains)


def forget() -> None:
    """Drop everything received (the domains built from it too)."""
    _received.clear()
    _domain_sources.clear()
    _domain.cache_clear()


def has_domain(key: str) -> bool:
    return key in _domain_sources


def shipped(ref: str) -> ProblemSource | None:
    return _received.get(ref)


def load_task(source: ProblemSource):
    """The task the local backend would load from `source.ref`, built from the shipped data."""
    from groundplan.engine.loader import build_problem
    from groundplan.engine.task import Task

    domain = _domain(source.domain)
    return Task(build_problem(source.data, source.file, None, domain))


@functools.lru_cache(maxsize=16)
def _domain(key: str):
    from groundplan.engine.loader import load_domain
    from groundplan.engine.paths import DOMAINS_DIR

    from .store import file_hash

    source = _domain_sources[key]
    if source.world is not None:
        path = DOMAINS_DIR / source.world / source.relative
        found = file_hash(path) if path.is_file() else None
        if found != source.file_digest:
            raise ShippingError(f"{source.name}: this node's copy ({path}) {'differs' if found else 'is missing'}: install the "
                                "same groundplan version on every node")
        return load_domain(path)
    return load_domain(_materialise(source))


def _materialise(source: DomainSource) -> Path:
    """A domain from outside the installed worlds, with its prompt files, written once per node
    into a folder named by their content (so never stale)."""
    folder = Path(tempfile.gettempdir()) / "groundplan-shipped" / source.key
    for relative, text in source.files:
        path = folder / relative
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(path, text)
    return folder / source.files[0][0]


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)  # two workers of one node may write it at once: either copy is whole
