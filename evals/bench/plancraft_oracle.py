"""The exact crafting oracle (domains/plancraft/oracle.py) against plancraft's expert planner.

    python evals/bench/plancraft_oracle.py [--splits val test] [--max-expansions N] [--no-plancraft]

For every example of each split it runs, one after the other on one core:
- the oracle (`solve`: A* over grid cells and pocket stacks, with the cell-count relaxation as
  lower bound and heuristic; every plan is replayed in the interpreter before it is returned);
- our reproduction of plancraft's expert planner (`reference.reference_plan`);
- plancraft's own planner (`get_subplans`, the oracle model's call), when plancraft is installed.

It prints per split: the oracle's statuses (optimal, feasible with a lower bound, unsolvable,
unknown) against the labels, the time per example of each planner (median, max, total), and
where the oracle's plans are shorter than the reference's: sums, means, per complexity bin and
per recipe type, how many are shorter / equal / longer, and the largest savings.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.domains.plancraft import oracle  # noqa: E402
from groundplan.evals.bench.plancraft_speed import main as speed_main  # noqa: E402
from groundplan.engine import Task  # noqa: E402


def plancraft_planner():
    """plancraft's get_subplans and its examples by id, or None when plancraft is not installed."""
    try:
        import plancraft
        from plancraft.environment.planner import get_subplans
    except ImportError:
        return None
    data = {}
    for split in ("train", "val", "test"):
        for ex in json.loads((Path(plancraft.__file__).parent / "data" / f"{split}.json").read_text()):
            data[ex["id"]] = ex

    def plan(name):
        ex = data.get(name)
        if ex is None:
            return None
        slots = ex["slotted_inventory"]
        observation = {"inventory": {int(k): dict(slots[k]) for k in slots}, "target": ex["target"]}
        subplans, steps = get_subplans(observation)
        if not steps:
            return None
        return [a for sub in subplans for a in sub]
    return plan


def times(xs: list[float]) -> str:
    if not xs:
        return "-"
    return f"median {1000 * statistics.median(xs):7.1f} ms  max {max(xs):7.3f} s  total {sum(xs):7.1f} s"


def run_split(split: str, max_expansions: int, theirs) -> dict:
    from groundplan.domains.plancraft.reference import reference_plan

    path = ROOT / "problems" / "plancraft" / f"{split}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]
    out = []
    for row in rows:
        task = Task.load(f"{path}#{row['name']}")
        meta = row["metadata"]
        t0 = time.perf_counter()
        result = oracle.solve(task, max_expansions=max_expansions)
        t1 = time.perf_counter()
        ref = reference_plan(task)
        t2 = time.perf_counter()
        rec = {"name": row["name"], "impossible": bool(meta.get("impossible")), "bin": meta.get("complexity_bin"),
               "type": meta.get("recipe_type"), "status": result.status, "length": result.length,
               "lower": result.lower_bound, "oracle_s": t1 - t0, "ref_s": t2 - t1,
               "ref": None if ref is None else len(ref)}
        if theirs is not None:
            t3 = time.perf_counter()
            p = theirs(row["name"])
            rec["theirs_s"] = time.perf_counter() - t3
            rec["theirs"] = None if p is None else len(p)
        out.append(rec)
    return report(split, out)


def report(split: str, out: list[dict]) -> dict:
    n = len(out)
    imp = [r for r in out if r["impossible"]]
    sol = [r for r in out if not r["impossible"]]
    status = Counter(r["status"] for r in out)
    print(f"\n== {split}: {n} examples ({len(sol)} solvable, {len(imp)} impossible)")
    print(f"oracle statuses: {dict(sorted(status.items()))}")
    solved = sum(1 for r in sol if r["length"] is not None)
    proven = sum(1 for r in sol if r["status"] == oracle.OPTIMAL)
    unsolv = sum(1 for r in imp if r["status"] == oracle.UNSOLVABLE)
    wrong = [r["name"] for r in out if (r["status"] == oracle.UNSOLVABLE) != r["impossible"] and r["status"] != oracle.UNKNOWN]
    print(f"solvable: {solved}/{len(sol)} solved, {proven} proven optimal; impossible: {unsolv}/{len(imp)} proven unsolvable;"
          f" disagreeing with the label: {wrong or 'none'}")
    gaps = [(r["name"], r["length"], r["lower"]) for r in sol if r["status"] == oracle.FEASIBLE]
    if gaps:
        print(f"not proven optimal (name, length, lower bound): {gaps}")
    unknown = [r["name"] for r in out if r["status"] == oracle.UNKNOWN]
    if unknown:
        print(f"unknown: {unknown}")
    print(f"time oracle           {times([r['oracle_s'] for r in out])}")
    print(f"time reference (ours) {times([r['ref_s'] for r in out])}")
    if out and "theirs_s" in out[0]:
        print(f"time plancraft's own  {times([r['theirs_s'] for r in out])}")
        mism = [r["name"] for r in out if r["theirs"] != r["ref"]]
        print(f"reference (ours) vs plancraft's own action counts: {len(mism)} mismatches {mism[:10]}")
    both = [r for r in sol if r["length"] is not None and r["ref"] is not None]
    if both:
        so, sr = sum(r["length"] for r in both), sum(r["ref"] for r in both)
        shorter = sum(1 for r in both if r["length"] < r["ref"])
        longer = [r["name"] for r in both if r["length"] > r["ref"]]
        print(f"lengths on {len(both)} solvable: oracle sum {so} mean {so / len(both):.3f}; reference sum {sr} "
              f"mean {sr / len(both):.3f}; saved {sr - so} actions ({100 * (sr - so) / sr:.1f}%), "
              f"mean {(sr - so) / len(both):.3f} per example")
        print(f"oracle shorter on {shorter}, equal on {len(both) - shorter - len(longer)}, longer on {len(longer)} {longer or ''}")
        for key, label in (("bin", "complexity bin"), ("type", "recipe type")):
            groups = defaultdict(list)
            for r in both:
                groups[r[key]].append(r)
            print(f"by {label}:")
            for g in sorted(groups, key=str):
                rs = groups[g]
                mo = sum(r["length"] for r in rs) / len(rs)
                mr = sum(r["ref"] for r in rs) / len(rs)
                print(f"  {str(g):>8s}: n={len(rs):3d}  reference {mr:6.2f}  oracle {mo:6.2f}  saved {mr - mo:5.2f} "
                      f"({100 * (mr - mo) / mr:4.1f}%)  shorter on {sum(1 for r in rs if r['length'] < r['ref'])}")
        top = sorted(both, key=lambda r: r["length"] - r["ref"])[:5]
        print("largest savings: " + ", ".join(f"{r['name']} {r['ref']}->{r['length']}" for r in top))
    return {"split": split, "rows": out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--splits", nargs="+", default=["val", "test"])
    ap.add_argument("--max-expansions", type=int, default=oracle.MAX_EXPANSIONS)
    ap.add_argument("--no-plancraft", action="store_true", help="skip plancraft's own planner")
    ap.add_argument("--json", help="write the per-example records here")
    ap.add_argument("--no-speed", action="store_true", help="skip the interpreter-against-plancraft step rate")
    args = ap.parse_args(argv)
    theirs = None if args.no_plancraft else plancraft_planner()
    if theirs is None and not args.no_plancraft:
        print("plancraft is not installed: its own planner is not timed")
    results = [run_split(s, args.max_expansions, theirs) for s in args.splits]
    allrows = [r for res in results for r in res["rows"]]
    if len(results) > 1:
        report(" + ".join(args.splits), allrows)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if not args.no_speed and theirs is not None:
        print("\ninterpreter steps per second against plancraft's environment (evals/bench/plancraft_speed.py):")
        speed_main(["--repeats", "3"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
