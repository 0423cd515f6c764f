"""`plan-eval`: the evaluation harness (built under issue 6).

Until the harness lands, the command says so instead of failing with an import error, and points
at what works today.
"""
from __future__ import annotations

import sys


def main(argv=None) -> int:
    print("plan-eval is not available yet in this version of groundplan (the evaluation harness is being built).\n"
          "Today: `groundplan plan PROBLEM` for oracle plans, `groundplan validate PROBLEM PLAN` to score a plan,\n"
          "`groundplan play PROBLEM` to act in a world.", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
