"""The wheel is the package users install: one top-level package, every shipped file, and the
commands working from an empty folder with nothing of the checkout in reach.

The wheel is built once for the module (about 5 s, offline: no build isolation, so setuptools
comes from the test extra), installed with --target into a folder (no dependencies: they are
this environment's), and run with that folder first on the path, from an empty folder. CI also
installs it, with its dependencies, into a fresh virtual environment (.ci/run)."""
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "planners", "agents", "evals", "domains", "problems")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (found,) = out.glob("groundplan-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return target


def _tracked(*folders) -> list[str]:
    out = subprocess.run(["git", "ls-files", *folders], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return out.split()


def test_the_wheel_holds_one_top_level_package_and_every_shipped_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {name.split("/")[0] for name in names} == {"groundplan", wheel.name.split("-py3")[0] + ".dist-info"}
    missing = [path for path in _tracked(*LAYERS, "groundplan") if f"groundplan/{path.removeprefix('groundplan/')}" not in names]
    assert not missing, missing[:20]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "groundplan = groundplan.cli:main" in text and "plan-eval = groundplan.evals.cli:main" in text


def _from_empty_folder(installed: Path, tmp_path: Path, *args, module="groundplan.evals.cli"):
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(installed)  # before this environment's site-packages, and its editable checkout
    command = [sys.executable, *(["-m", module] if module else []), *args]
    return subprocess.run(command, cwd=empty, env=env, capture_output=True, text=True, timeout=300)


def test_the_installed_package_imports_by_its_name_only(installed, tmp_path):
    code = ("import importlib.util, groundplan.engine as e; print(e.__file__); "
            "print([m for m in ('engine', 'planners', 'agents', 'evals', 'domains', 'problems') if importlib.util.find_spec(m)])")
    done = _from_empty_folder(installed, tmp_path, "-c", code, module=None)
    assert done.returncode == 0, done.stderr[-2000:]
    where, top = done.stdout.splitlines()
    assert Path(where).is_relative_to(installed) and top == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("named", ["kitchen/async", "babyai/plan", "plancraft/test.small", "ppnl/single_5x5"])
def test_a_named_set_runs_from_an_empty_folder_with_the_oracle(installed, tmp_path, named):
    limit = "3" if named == "kitchen/async" else "1"
    done = _from_empty_folder(installed, tmp_path, named, "--limit", limit, "--agent", "oracle", "--out", str(tmp_path / "r"),
                              "--steps-to-go-time", "0")
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    assert len(rows) == int(limit) and all(row["success"] for row in rows), rows
    assert all(str(installed) in row["file"] for row in rows)  # the wheel's files, not the checkout's
