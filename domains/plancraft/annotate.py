"""Write the oracle's results into the crafting world's problem sets, in place.

    python -m groundplan.domains.plancraft.annotate problems/plancraft/*.jsonl [--max-expansions N] [--no-reference]

For every row, only `optimal` and `metadata.reference_actions` change (the header line and every
other field are kept byte for byte):

- proven optimal: `{"cost": N, "method": ..., "plan": [...]}`;
- a plan without a proof of optimality: `{"cost": null, "upper_bound": N, "lower_bound": L,
  "lower_bound_method": ..., "plan": [...], "method": ...}`;
- proven impossible: `{"cost": null, "solvable": false, "method": "proven: ..."}`;
- nothing proven (the search gave up): `{"cost": null, "lower_bound": L, ...}`, with the
  reference planner's plan as the upper bound when it has one.

`metadata.reference_actions` is the number of actions of plancraft's own expert planner
(`reference.reference_plan`, our reproduction), which the Action Efficiency metric subtracts; it
is left out when that planner has no plan (the impossible examples).

The oracle is bounded by A* expansions, not by time, so a re-run gives the same files.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from . import oracle


def _reference_plan(task):
    try:
        from .reference import reference_plan
    except ImportError:  # the reproduction of the reference planner is optional here
        return None, False
    return reference_plan(task), True


def record(result: oracle.Result, reference: list[str] | None = None) -> dict:
    """The `optimal` field for an oracle result (the reference plan is the fallback upper bound)."""
    if result.status == oracle.OPTIMAL:
        return {"cost": result.length, "method": f"{result.method}; optimality: {result.bound_method}",
                "plan": result.plan}
    if result.status == oracle.UNSOLVABLE:
        return {"cost": None, "solvable": False, "method": result.method}
    plan, method = result.plan, result.method
    if plan is None and reference is not None:
        plan, method = reference, "plancraft's expert planner (domains/plancraft/reference.py); oracle: " + result.method
    out = {"cost": None}
    if plan is not None:
        out["upper_bound"] = len(plan)
    out["lower_bound"] = result.lower_bound
    out["lower_bound_method"] = result.bound_method
    if plan is not None:
        out["plan"] = plan
    out["method"] = method
    return out


def annotate(path: str, max_expansions: int = oracle.MAX_EXPANSIONS, use_reference: bool = True,
             log=sys.stderr) -> dict:
    """Rewrite one problem-set file; returns counts by status."""
    from groundplan.engine.task import Task

    text = Path(path).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    counts: dict[str, int] = {}
    have_reference = use_reference
    out = []
    started = time.perf_counter()
    for i, line in enumerate(lines):
        if i == 0 or not line.strip():
            out.append(line)  # the header, kept as it is
            continue
        row = json.loads(line)
        task = Task.load(f"{path}#{row['name']}")
        result = oracle.solve(task, max_expansions=max_expansions)
        reference = None
        if have_reference:
            reference, have_reference = _reference_plan(task)
        row["optimal"] = record(result, reference)
        meta = row.setdefault("metadata", {})
        if have_reference:
            if reference is not None:
                meta["reference_actions"] = len(reference)
            else:
                meta.pop("reference_actions", None)
        counts[result.status] = counts.get(result.status, 0) + 1
        out.append(json.dumps(row, separators=(",", ":")) + ("\n" if line.endswith("\n") else ""))
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.chmod(tmp, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("".join(out))
    os.replace(tmp, target)
    if log is not None:
        ref = "" if have_reference or not use_reference else " (reference.py not available: reference_actions left out)"
        print(f"{path}: {counts} in {time.perf_counter() - started:.1f} s{ref}", file=log)
    return counts


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--max-expansions", type=int, default=oracle.MAX_EXPANSIONS)
    ap.add_argument("--no-reference", action="store_true", help="leave metadata.reference_actions as it is")
    args = ap.parse_args(argv)
    for path in args.files:
        annotate(path, args.max_expansions, not args.no_reference)


if __name__ == "__main__":
    main()
