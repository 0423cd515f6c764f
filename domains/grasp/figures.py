"""Regenerates the GRASP figures quoted in domains/grasp/README.md from the committed problems.

    python -m groundplan.domains.grasp.figures [--instances 10] [--rw-seeds 50] [--greedy-seeds 10]

- the exact optimum's mean per rule combination (the stored optima);
- random walk and greedy under corrected scoring (spec section 9B), Monte-Carlo means over seeds;
- random walk and greedy under the legacy evaluator, the greedy planned with the 2024 mover
  (the setting of the paper's Table 2 and spec section 9A);
each with its standard error (over episodes) and, for the legacy means, the standard error of the
paper's own figure, which replays ONE stored run (one episode per grid and combination).
"""
from __future__ import annotations

import argparse
import itertools
import math
import statistics

from . import baselines, environments, scoring
from .grid import NO_LIMIT

COMBINATIONS = list(itertools.product((4, 8), (NO_LIMIT, 2), (0, 0.3)))


def label(combo) -> str:
    moves, limit, cost = combo
    return f"mu{1 if moves == 4 else 2},{'inf' if limit == NO_LIMIT else 2},{cost:g}"


def combo_of(env):
    return env.rules["moves"], env.rules["carry_limit"], env.rules["step_cost"]


def baseline_scores(envs, name, seeds, mode="corrected"):
    """{combo: [score of every (environment, seed) episode]} and {combo: [length]}."""
    scores, lengths = {c: [] for c in COMBINATIONS}, {c: [] for c in COMBINATIONS}
    for env in envs:
        combo = combo_of(env)
        for seed in range(seeds):
            if name == "greedy":
                plan = baselines.greedy(env.grid, env.rules, seed, planning=mode)
            else:
                plan = baselines.random_walk(env.grid, env.rules, seed)
            out = scoring.run(env.grid, plan, *combo, mode=mode)
            scores[combo].append(out.score)
            lengths[combo].append(out.length)
    return scores, lengths


TABLE2_ROWS = [("Energy dist.", lambda e: e.tag.split("_")[1]), ("Obstacle", lambda e: e.tag.split("_")[2]),
               ("Start", lambda e: e.tag.split("_")[0]), ("Moves", lambda e: f"mu{1 if e.rules['moves'] == 4 else 2}"),
               ("Carry limit", lambda e: "none" if e.rules["carry_limit"] == NO_LIMIT else "2"),
               ("Step cost", lambda e: f"{e.rules['step_cost']:g}"), ("Average", lambda e: "")]


def table2(envs, seeds):
    """The random-walk and greedy columns of the paper's Table 2 (legacy evaluator): mean length
    and energy per value of each control."""
    episodes = {}
    for name in ("random-walk", "greedy"):
        for env in envs:
            for seed in range(seeds[name]):
                plan = (baselines.greedy(env.grid, env.rules, seed, planning="legacy") if name == "greedy"
                        else baselines.random_walk(env.grid, env.rules, seed))
                episodes.setdefault(name, []).append((env, scoring.run(env.grid, plan, *combo_of(env), mode="legacy")))
    print("\nTable 2 (legacy evaluator): control, value, RW L, RW E, Greedy L, Greedy E")
    for control, key in TABLE2_ROWS:
        values = sorted({key(env) for env in envs})
        for value in values:
            cells = []
            for name in ("random-walk", "greedy"):
                chosen = [out for env, out in episodes[name] if key(env) == value]
                cells += [statistics.mean(o.length for o in chosen), statistics.mean(o.score for o in chosen)]
            print(f"  {control:13} {value:10} " + " ".join(f"{x:6.2f}" for x in cells))


def mean_se(values):
    return statistics.mean(values), (statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=10, help="grids 0..N-1 of each file (the paper: 10)")
    parser.add_argument("--rw-seeds", type=int, default=50)
    parser.add_argument("--greedy-seeds", type=int, default=10)
    args = parser.parse_args(argv)
    envs = environments.load(indices=range(args.instances))
    everything = environments.load()
    print(f"{len(envs)} environments (instances 0-{args.instances - 1}); optimum over all 16,000 as well")
    print("\nexact optimum (mean): instances 0-%d / 0-99" % (args.instances - 1))
    for combo in COMBINATIONS:
        a = statistics.mean(e.optimum for e in envs if combo_of(e) == combo)
        b = statistics.mean(e.optimum for e in everything if combo_of(e) == combo)
        print(f"  {label(combo):12} {a:6.3f} / {b:6.3f}")
    print(f"  {'all':12} {statistics.mean(e.optimum for e in envs):6.3f} / {statistics.mean(e.optimum for e in everything):6.3f}")
    for mode in ("corrected", "legacy"):
        print(f"\n{mode} scoring" + (" (greedy planned with the 2024 mover)" if mode == "legacy" else ""))
        for name, seeds in (("random-walk", args.rw_seeds), ("greedy", args.greedy_seeds)):
            scores, lengths = baseline_scores(envs, name, seeds, mode)
            print(f"  {name} ({seeds} seeds per environment)")
            for combo in COMBINATIONS:
                m, se = mean_se(scores[combo])
                one_run = statistics.stdev(scores[combo]) / math.sqrt(len(scores[combo]) / seeds)
                print(f"    {label(combo):12} {m:7.3f} +- {se:.3f} (one run: +- {one_run:.3f})  length {statistics.mean(lengths[combo]):.2f}")
            allv = [s for c in COMBINATIONS for s in scores[c]]
            print(f"    {'all':12} {statistics.mean(allv):7.3f}  length {statistics.mean(l for c in COMBINATIONS for l in lengths[c]):.2f}")
    table2(envs, {"random-walk": args.rw_seeds, "greedy": args.greedy_seeds})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
