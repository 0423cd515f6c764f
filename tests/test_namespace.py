"""One import namespace: every module of the project imports its layers as `groundplan.<layer>`.

A leftover `from engine import ...` would work in a checkout (its folder is on sys.path) and load
a second copy of the module, with classes that are not the first copy's, and fail in a wheel."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLD = re.compile(r"^\s*(?:from|import)\s+(engine|planners|agents|evals|domains|problems)\b", re.M)


def test_no_module_imports_a_layer_by_its_folder_name():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    offenders = [f"{name}: {match.group(0).strip()}" for name in files
                 for match in OLD.finditer((ROOT / name).read_text())]
    assert not offenders, offenders[:20]
