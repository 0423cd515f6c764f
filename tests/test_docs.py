"""Every example in the documentation is checked against the engine.

The conventions are written down at the top of docs/language.md (an HTML comment). In short,
each fenced block of docs/*.md and README.md is processed in document order:

- ```json / ```yaml: a complete domain (has "groundplan", no "domain") is loaded with
  load_domain; a complete problem (has "groundplan" and "domain") is loaded against the domain
  it names: a domain block of the same document (by its "name" or its file= path), else the
  loader's own resolution (a shipped domain). Fragments say what they are after the language:
  `formula`, `expression`, `effects` (checked as the precondition, cost or effect of an extra
  action added to the current domain, with `?var=type` words as its parameters), `goal`
  (the goal of the current problem), `domain-part` / `problem-part` (merged into the current
  domain / problem; marked `keep`, they stay merged for the blocks after them). `bad` marks an
  example that must fail to load with a ModelError (`pointer=/json/pointer` names a diagnostic
  it must report; `write` also saves the broken file, at file= or the current domain's file,
  for the console blocks after it).
  `aside` marks a complete block that does not become the current domain or problem.
  `file=path` saves a complete block to that path in the document's scratch directory.
- ```console: each `$ groundplan ...` line runs the CLI in the scratch directory and its output
  must match the lines below it ('...' matches any text, a line of just '...' any lines);
  `$ echo $?` prints the previous exit code; `$ python -m pytest ...` runs pytest there.
  For `groundplan play`, the answers are read from the transcript's `action: ...` lines.
- ```python: executed in the scratch directory (every `test_*` function it defines is called),
  unless marked `no-run`; `file=path` also saves it there.
Console and Python blocks are run for docs/*.md; README.md's data blocks are checked the same way.
"""
from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from groundplan.engine.errors import ModelError
from groundplan.engine.loader import build_problem, load_domain

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
KINDS = ("domain", "problem", "domain-part", "problem-part", "formula", "expression", "effects", "goal")
FRAGMENT_ACTION = "_doc_fragment"


@dataclass
class Block:
    doc: Path
    line: int
    lang: str
    words: list[str]
    text: str

    def __str__(self):
        return f"{self.doc.relative_to(ROOT)}:{self.line} ({' '.join([self.lang] + self.words)})"

    @property
    def options(self) -> dict[str, str]:
        return dict(w.split("=", 1) for w in self.words if "=" in w and not w.startswith("?"))

    @property
    def variables(self) -> list[list[str]]:
        return [w.split("=", 1) for w in self.words if w.startswith("?") and "=" in w]


def blocks(doc: Path) -> list[Block]:
    text = doc.read_text(encoding="utf-8")
    out = []
    for match in FENCE.finditer(text):
        info = match.group(1).split()
        line = text.count("\n", 0, match.start()) + 1
        out.append(Block(doc, line, info[0] if info else "", info[1:], match.group(2)))
    return out


def merge(base: dict, part: dict) -> dict:
    """A domain or problem with a part added: objects gain entries, lists grow, scalars are replaced."""
    out = copy.deepcopy(base)
    for key, value in part.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **copy.deepcopy(value)}
        elif isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + copy.deepcopy(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def expected_regex(expected: str) -> re.Pattern:
    parts = []
    for line in expected.strip("\n").splitlines():
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def normalised_output(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"


@dataclass
class DocChecker:
    """Walks one document's blocks in order, keeping the current domain and problem."""

    workdir: Path
    domains: dict = field(default_factory=dict)  # name or file path -> domain data
    domain_files: dict = field(default_factory=dict)  # domain name -> file path (when saved)
    domain: dict | None = None  # the current domain's data
    problem: tuple | None = None  # (data, file path or None)
    checked: int = 0
    failures: list = field(default_factory=list)
    last_exit: int = 0
    stamp: int = 0

    # ---------------------------------------------------------------- files
    def write(self, relative: str, text: str) -> Path:
        path = self.workdir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        # a fresh modification time for every write, so the loader's per-file cache never serves a stale domain
        self.stamp = max(path.stat().st_mtime_ns, self.stamp + 1_000_000)
        os.utime(path, ns=(self.stamp, self.stamp))
        return path

    def save_domain(self, data: dict, path: str | None) -> None:
        if path is not None:
            self.write(path, json.dumps(data, indent=2) if path.endswith(".json") else yaml.safe_dump(data, sort_keys=False))

    # ---------------------------------------------------------------- loading
    def load_domain(self, data):
        return load_domain(copy.deepcopy(data))

    def domain_for(self, problem: dict, file: str | None):
        """The document's domain a problem names, or None to let the loader resolve it."""
        ref = problem.get("domain")
        if not isinstance(ref, str):
            return None
        if file is not None:
            key = os.path.normpath(os.path.join(os.path.dirname(file), ref))
            if key in self.domains:
                return self.load_domain(self.domains[key])
        if ref in self.domains:
            return self.load_domain(self.domains[ref])
        return None

    def load_problem(self, data: dict, file: str | None):
        """Load problem data; with a file path, its domain reference is resolved from where the file lives."""
        domain = self.domain_for(data, file)
        path = self.workdir / file if file else None
        return build_problem(copy.deepcopy(data), file or "<problem>", path, domain)

    def fragment_domain(self, block: Block, data) -> dict:
        if self.domain is None:
            raise AssertionError("a fragment needs a complete domain earlier in the document")
        kind = block_kind(block, data)
        action = {"parameters": block.variables}
        if kind == "formula":
            action["precondition"] = data
        elif kind == "expression":
            action["cost"] = data
        else:
            action["effect"] = data if isinstance(data, list) else [data]
        return merge(self.domain, {"actions": {FRAGMENT_ACTION: action}})

    # ---------------------------------------------------------------- one data block
    def data_block(self, block: Block) -> None:
        data = yaml.safe_load(block.text) if block.lang == "yaml" else json.loads(block.text)
        kind = block_kind(block, data)
        bad = "bad" in block.words
        file = block.options.get("file")
        if bad:
            try:
                self.build(kind, data, file, block, commit=False)
            except ModelError as exc:
                error = exc
            else:
                raise AssertionError("a bad example loaded without a ModelError")
            pointer = block.options.get("pointer")
            if pointer is not None:
                found = [d.pointer for d in error.diagnostics]
                assert pointer in found, f"expected a diagnostic at {pointer}, got {found}"
            if "write" in block.words:
                if file is not None:
                    self.write(file, block.text)
                else:
                    assert kind == "domain-part", "write needs file= or a domain-part"
                    self.save_domain(merge(self.domain, data), self.domain_files.get(self.domain["name"]))
        else:
            self.build(kind, data, file, block, commit="aside" not in block.words)
        self.checked += 1

    def build(self, kind: str, data, file: str | None, block: Block, commit: bool) -> None:
        if kind == "domain":
            if file is not None and commit:
                key = os.path.normpath(file)
                if key in self.domains:  # the complete file after a tutorial built it up part by part
                    assert self.domains[key] == data, f"{file} differs from the parts shown before it"
                self.write(file, block.text)
                load_domain(self.workdir / file)
            else:
                self.load_domain(data)
            if commit:
                self.domain = data
                self.domains[data["name"]] = data
                if file is not None:
                    self.domains[os.path.normpath(file)] = data
                    self.domain_files[data["name"]] = file
        elif kind == "domain-part":
            assert self.domain is not None, "a domain-part needs a complete domain earlier in the document"
            merged = merge(self.domain, data)
            self.load_domain(merged)
            if commit and "keep" in block.words:
                name = self.domain["name"]
                for key, value in list(self.domains.items()):
                    if value is self.domain:
                        self.domains[key] = merged
                self.domain = merged
                self.save_domain(merged, self.domain_files.get(name))
        elif kind == "problem":
            if file is not None and commit:
                self.write(file, block.text)
            self.load_problem(data, file if commit else None)
            if commit:
                self.problem = (data, file)
        elif kind == "problem-part":
            assert self.problem is not None, "a problem-part needs a complete problem earlier in the document"
            merged = merge(self.problem[0], data)
            self.load_problem(merged, self.problem[1] if commit else None)
            if commit and "keep" in block.words:
                self.problem = (merged, self.problem[1])
                if self.problem[1] is not None:
                    self.write(self.problem[1], json.dumps(merged, indent=2))
        elif kind == "goal":
            assert self.problem is not None, "a goal needs a complete problem earlier in the document"
            self.load_problem({**self.problem[0], "goal": data}, None)
        else:
            self.load_domain(self.fragment_domain(block, data))

    # ---------------------------------------------------------------- console and python blocks
    def console_block(self, block: Block) -> None:
        runs = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                runs.append([line[2:], []])
            elif runs:
                runs[-1][1].append(line)
            else:
                raise AssertionError(f"output before any command: {line!r}")
        for command, lines in runs:
            expected = "\n".join(lines)
            actual = self.run(command, expected)
            if not expected_regex(expected).fullmatch(normalised_output(actual) if actual.strip() else ""):
                raise AssertionError(f"`{command}` printed:\n{actual}\nexpected:\n{expected}")
        self.checked += 1

    def run(self, command: str, expected: str) -> str:
        from click.testing import CliRunner

        from groundplan.cli import main

        args = shlex.split(command)
        if args == ["echo", "$?"]:
            return f"{self.last_exit}\n"
        if args[0] == "groundplan":
            answers = [line[len("action: "):] for line in expected.splitlines() if line.startswith("action: ")]
            result = CliRunner().invoke(main, args[1:], input="".join(a + "\n" for a in answers) if answers else None)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                raise result.exception
            self.last_exit = result.exit_code
            return result.output
        if args[:3] == ["python", "-m", "pytest"]:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
            done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args[3:]], cwd=self.workdir,
                                  capture_output=True, text=True, env=env, timeout=600)
            self.last_exit = done.returncode
            return done.stdout + done.stderr
        raise AssertionError(f"console blocks may run groundplan, 'echo $?' and 'python -m pytest', not {command!r}")

    def python_block(self, block: Block) -> None:
        if "file" in block.options:
            self.write(block.options["file"], block.text)
        if "no-run" in block.words:
            compile(block.text, str(block), "exec")  # at least valid Python
        else:
            namespace: dict = {"__name__": f"doc_{block.line}"}
            exec(compile(block.text, str(block), "exec"), namespace)
            for name, fn in list(namespace.items()):
                if name.startswith("test_") and callable(fn):
                    fn()
        self.checked += 1

    # ---------------------------------------------------------------- the whole document
    def check(self, doc: Path) -> None:
        for block in blocks(doc):
            try:
                if block.lang in ("json", "yaml"):
                    self.data_block(block)
                elif block.lang == "console" and doc.parent.name == "docs":
                    self.console_block(block)
                elif block.lang == "python" and doc.parent.name == "docs":
                    self.python_block(block)
            except Exception as exc:  # collect every failing block, then report them together
                self.failures.append(f"{block}: {type(exc).__name__}: {exc}")


def block_kind(block: Block, data) -> str:
    for word in block.words:
        if word in KINDS:
            return word
    if isinstance(data, dict) and "groundplan" in data:
        return "problem" if "domain" in data else "domain"
    raise AssertionError("not a complete domain or problem: mark the fragment's kind, e.g. ```json formula ?x=type")


def check_document(doc: Path, tmp_path: Path, monkeypatch) -> DocChecker:
    checker = DocChecker(tmp_path)
    monkeypatch.chdir(tmp_path)
    checker.check(doc)
    return checker


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_in_the_document_holds(doc, tmp_path, monkeypatch):
    if not doc.exists():
        pytest.skip(f"{doc.name} not written yet")
    checker = check_document(doc, tmp_path, monkeypatch)
    assert not checker.failures, "\n\n".join(checker.failures)
    data_blocks = [b for b in blocks(doc) if b.lang in ("json", "yaml")]
    print(f"{doc.relative_to(ROOT)}: {checker.checked} blocks checked ({len(data_blocks)} json/yaml)")


def test_language_reference_states_the_block_conventions():
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert text.lstrip().startswith("<!--") and "```json formula" in text.split("-->", 1)[0]


def test_every_data_block_has_a_kind():
    for doc in DOCS:
        if not doc.exists():
            continue
        for block in blocks(doc):
            if block.lang == "json":
                words = set(block.words) & set(KINDS)
                assert len(words) <= 1, f"{block}: more than one kind"


def test_tutorial_problem_is_solved_with_the_stated_cost(tmp_path, monkeypatch):
    from groundplan.engine import Task
    from groundplan.planners import solve

    doc = ROOT / "docs" / "authoring.md"
    text = doc.read_text(encoding="utf-8")
    stated = re.search(r"optimal plan has cost (\d+)", text)
    assert stated, "authoring.md must state 'optimal plan has cost N'"
    checker = DocChecker(tmp_path)
    monkeypatch.chdir(tmp_path)
    problems = []
    for block in blocks(doc):
        if block.lang == "json" and "bad" not in block.words:
            checker.data_block(block)
            if block_kind(block, json.loads(block.text)) == "problem":
                problems.append(block.options["file"])
    assert problems, "the tutorial shows a problem file"
    task = Task.load(tmp_path / problems[0])
    result = solve(task)
    assert result.status == "solved-optimal", result.reason
    assert result.cost == int(stated.group(1))
