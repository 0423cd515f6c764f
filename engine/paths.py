"""Where the shipped worlds live, for a source checkout and an installed package alike.

`domains/` and `problems/` install as `groundplan.domains` and `groundplan.problems`, beside
`groundplan.engine` (setup.py), as they sit beside `engine/` in a checkout: the same relative
location works in both cases.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOMAINS_DIR = ROOT / "domains"
PROBLEMS_DIR = ROOT / "problems"
