"""The exact optimum of all 16,000 GRASP environments, and the OR-Tools model that must agree.

    python evals/bench/grasp_optima.py [--repeat 3] [--sample 40] [--check N|all] [--hint] [--no-exact] [--log FILE]

1. Times the branch and bound of domains/grasp/exact.py over every environment of
   problems/grasp/ (median of --repeat runs) and checks each value against the stored optimum
   and each plan by replaying it (domains/grasp/scoring.py). The issue's target: under 3 minutes
   on one core.
2. Reference in the same run: the OR-Tools CP-SAT model (planners/routing/orienteering.py) on a stratified
   sample of --sample environments; prints both per-environment times and their ratio.
3. --check N (or all): solves N environments (spread over all files and rule combinations) with
   the OR-Tools model from scratch and counts disagreements with the branch and bound. With
   --hint, CP-SAT starts from the branch and bound's route and only has to prove it (faster;
   CP-SAT still proves the optimum itself). Slow: about a second an environment.
Exit status 1 on any disagreement.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def exact_pass(envs):
    from groundplan.domains.grasp import exact, scoring

    bad = []
    tables = {}
    began = time.perf_counter()
    for env in envs:
        key = (env.tag, env.index, env.rules["moves"])
        if key not in tables:
            tables.clear()
            tables[key] = exact.tables(env.grid, env.rules["moves"])
        value, legs = exact.solve(env.grid, env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"], tables[key])
        plan = exact.plan_from_legs(env.grid, legs, env.rules["moves"])
        replay = scoring.score(env.grid, plan, env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"])
        if abs(value - env.optimum) > 1e-9 or abs(replay - value) > 1e-9 or len(plan) > 20:
            bad.append((env.ref, env.optimum, value, replay))
    return time.perf_counter() - began, bad


def spread(envs, count):
    """count environments spread evenly over the list (every file; the rule combination rotates)."""
    if count >= len(envs):
        return list(envs)
    step = len(envs) / count
    return [envs[min(len(envs) - 1, int(i * step) + i % 8)] for i in range(count)]


def ortools_pass(envs, hint=False, log=None):
    from groundplan.domains.grasp import exact, oracle, scoring

    bad, times = [], []
    for n, env in enumerate(envs, 1):
        value, legs = exact.solve(env.grid, env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"])
        began = time.perf_counter()
        found, plan, proven = oracle.solve(env.grid, env.rules, hint=legs if hint else None)
        times.append(time.perf_counter() - began)
        replay = scoring.score(env.grid, plan, env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"])
        if not proven or abs(found - value) > 1e-9 or abs(replay - found) > 1e-9:
            bad.append((env.ref, value, found, replay, proven))
        if log is not None and (n % 100 == 0 or n == len(envs)):
            with open(log, "a") as out:
                out.write(f"{n}/{len(envs)} checked, {len(bad)} disagreements, {sum(times):.0f} s\n")
    return times, bad


def main(argv=None) -> int:
    from groundplan.domains.grasp import environments

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of the full exact pass (the median is printed)")
    parser.add_argument("--sample", type=int, default=40, help="environments for the OR-Tools reference timing")
    parser.add_argument("--check", default="0", help="environments to cross-check with OR-Tools: a number or 'all'")
    parser.add_argument("--hint", action="store_true", help="start CP-SAT from the branch and bound's route")
    parser.add_argument("--log", help="append progress of --check to this file")
    parser.add_argument("--no-exact", action="store_true", help="skip the timed exact pass (for a --check run)")
    args = parser.parse_args(argv)

    loading = time.perf_counter()
    envs = environments.load()
    print(f"loaded {len(envs)} environments from problems/grasp in {time.perf_counter() - loading:.1f} s")
    runs, bad = [], []
    for _ in range(0 if args.no_exact else max(1, args.repeat)):
        seconds, bad = exact_pass(envs)
        runs.append(seconds)
    median = statistics.median(runs) if runs else None
    if runs:
        print(f"exact branch and bound, all {len(envs)}: {median:.1f} s (median of {len(runs)}; target < 180 s), "
              f"{1000 * median / len(envs):.2f} ms each; {len(bad)} disagreements with the stored optima")
    for row in bad[:10]:
        print("  stored/solved/replayed differ:", *row)
    if args.sample and runs:
        sample = spread(envs, args.sample)
        times, sample_bad = ortools_pass(sample)
        per = statistics.median(times)
        print(f"reference, OR-Tools CP-SAT on {len(sample)} spread environments: median {1000 * per:.1f} ms each; "
              f"branch and bound / CP-SAT time ratio {median / len(envs) / per:.4f}; {len(sample_bad)} disagreements")
        bad += sample_bad
    if args.check != "0":
        # grid index first: a run stopped early has covered instances 0..k of every file and rule
        chosen = sorted(envs if args.check == "all" else spread(envs, int(args.check)), key=lambda e: (e.index, e.ref))
        times, check_bad = ortools_pass(chosen, hint=args.hint, log=args.log)
        print(f"OR-Tools cross-check ({'hinted' if args.hint else 'from scratch'}): {len(chosen)} environments in "
              f"{sum(times):.0f} s, {len(check_bad)} disagreements")
        for row in check_bad[:10]:
            print("  exact/OR-Tools/replayed differ:", *row)
        bad += check_bad
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
