"""Where the shipped worlds live, for a source checkout and an installed package alike.

`domains/` and `problems/` are installed beside the `engine` package (see pyproject.toml), so
the same relative location works in both cases.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOMAINS_DIR = ROOT / "domains"
PROBLEMS_DIR = ROOT / "problems"
