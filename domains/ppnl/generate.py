"""Seeded generator of the PPNL data sets (the paper's procedure and counts).

    groundplan generate ppnl --out data/ppnl                 # every split, single and multi goal
    groundplan generate ppnl --eval-sets problems/ppnl       # the committed GPT-4-sized samples
    groundplan generate ppnl --stats                         # unreachable fractions and lengths

Procedure (paper section 2.2 and appendix A; counts of its Tables 2 and 7):
1. Environments: distinct random obstacle sets per (grid size, obstacle count). 6x6 with 1-5
   obstacles: all 36 one-obstacle grids and 200 each with 2-5 (836); per obstacle count the
   first int(0.8 n) are development environments (668), the rest unseen (168). Out of
   distribution, 25 environments per obstacle count: 5x5 and 7x7 with 1-5, 6x6 with 6-11.
2. Placements, per environment: 30 single-goal (start and goal distinct free cells), and for
   each goal count 2-6, 10 multi-goal placements (distinct goals, never the start), each also
   with an ordering constraint "visit A before B": |A| = floor(l/2), A a random subset in
   random order, B the rest in ascending order. Placements of one environment are distinct.
   Development environments split their placements 24/3/3 (single) and 8/1/1 (multi, per goal
   count) into train / dev / test_seen; unseen and out-of-distribution ones are all test.
3. Ground truth: domains/ppnl/oracle.py (breadth-first search; OR-Tools open path with the
   precedence group). Goals outside the start's component are kept: their answer is
   "Goal not reachable".
4. GPT-4 samples: 2 problems per environment of each test set (336 unseen-environment, 250 5x5,
   250 7x7, 300 with 6-11 obstacles; 336 multi-goal from the unseen environments).

Every random draw comes from a `random.Random` seeded by the seed and what is drawn (the grid
setup, the environment, the goal count), so a set does not change when another is added.
"""
from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

from . import problem as P
from .oracle import ORDER_SOLVERS, solve_multi, solve_single
from .grid import TIE_BREAKS
from .text import TEXT_STYLES

# (setup name, grid size, {obstacle count: environments}, development share or None)
SETUPS = [
    ("6x6", 6, {1: 36, 2: 200, 3: 200, 4: 200, 5: 200}, 0.8),
    ("5x5", 5, {k: 25 for k in range(1, 6)}, None),
    ("7x7", 7, {k: 25 for k in range(1, 6)}, None),
    ("obstacles", 6, {k: 25 for k in range(6, 12)}, None),
]
SINGLE_PER_ENV = 30
SINGLE_SPLIT = (("train", 24), ("dev", 3), ("test_seen", 3))
GOAL_COUNTS = range(2, 7)
MULTI_PER_COUNT = 10
MULTI_SPLIT = (("train", 8), ("dev", 1), ("test_seen", 1))
SAMPLE_PER_ENV = 2
# split of each setup's environments -> file name
SET_NAMES = {("6x6", "train"): "train", ("6x6", "dev"): "dev", ("6x6", "test_seen"): "test_seen",
             ("6x6", "test_unseen"): "test_unseen", ("5x5", "test"): "ood_5x5", ("7x7", "test"): "ood_7x7",
             ("obstacles", "test"): "ood_obstacles"}
EVAL_SETS = [("single", "test_unseen", "single_unseen_env"), ("single", "ood_5x5", "single_5x5"),
             ("single", "ood_7x7", "single_7x7"), ("single", "ood_obstacles", "single_obstacles"),
             ("multi", "test_unseen", "multi_unseen_env")]


def _rng(seed: int, *what) -> random.Random:
    return random.Random(":".join(map(str, ("ppnl", seed) + what)))


def environments(seed: int) -> list[dict]:
    """Every environment: {"env", "setup", "size", "obstacles", "group"} with group dev/unseen/test."""
    out = []
    for setup, size, counts, dev_share in SETUPS:
        cells = [(r, c) for r in range(size) for c in range(size)]
        for k, n in counts.items():
            rng = _rng(seed, "env", setup, k)
            if n > _choose(len(cells), k):
                raise ValueError(f"{setup}: only {_choose(len(cells), k)} grids have {k} obstacles, {n} asked")
            if n == _choose(len(cells), k):
                drawn = [list(x) for x in itertools.combinations(cells, k)]
                rng.shuffle(drawn)
            else:
                seen, drawn = set(), []
                while len(drawn) < n:
                    pick = tuple(sorted(rng.sample(cells, k)))
                    if pick not in seen:
                        seen.add(pick)
                        drawn.append(list(pick))
            n_dev = int(dev_share * n) if dev_share else 0
            for i, obstacles in enumerate(drawn):
                group = "test" if dev_share is None else ("dev" if i < n_dev else "unseen")
                out.append({"env": f"{setup}-k{k}-e{i:03d}", "setup": setup, "size": size, "group": group,
                            "obstacles": [list(o) for o in obstacles]})
    return out


def _choose(n, k):
    from math import comb

    return comb(n, k)


def _placements(rng, free, goals: int, count: int) -> list[tuple]:
    """`count` distinct (start, goal, goal, ...) draws: distinct cells, goals never the start."""
    seen, out = set(), []
    for _ in range(count * 1000):
        pick = tuple(rng.sample(free, goals + 1))
        if pick not in seen:
            seen.add(pick)
            out.append(pick)
            if len(out) == count:
                return out
    raise ValueError(f"fewer than {count} distinct placements of {goals} goals")


def _constraint(rng, goals: int):
    a = rng.sample(range(goals), goals // 2)
    b = sorted(set(range(goals)) - set(a))
    return a, b


def instances(env: dict, seed: int, kind: str):
    """The environment's single- or multi-goal instances (without ground truth), in a fixed order."""
    size, obstacles = env["size"], env["obstacles"]
    blocked = {tuple(o) for o in obstacles}
    free = [(r, c) for r in range(size) for c in range(size) if (r, c) not in blocked]
    base = {"env": env["env"], "size": size, "obstacles": obstacles}
    if kind == "single":
        picks = _placements(_rng(seed, "single", env["env"]), free, 1, SINGLE_PER_ENV)
        splits = _splits(env, SINGLE_SPLIT, SINGLE_PER_ENV)
        for j, (pick, split) in enumerate(zip(picks, splits)):
            yield {**base, "name": f"{env['env']}-s{j:02d}", "split": split, "start": list(pick[0]),
                   "goals": [list(pick[1])], "multi": False}
        return
    for goals in GOAL_COUNTS:
        rng = _rng(seed, "multi", env["env"], goals)
        picks = _placements(rng, free, goals, MULTI_PER_COUNT)
        splits = _splits(env, MULTI_SPLIT, MULTI_PER_COUNT)
        for j, (pick, split) in enumerate(zip(picks, splits)):
            before, after = _constraint(rng, goals)
            one = {**base, "split": split, "start": list(pick[0]), "goals": [list(g) for g in pick[1:]], "multi": True}
            yield {**one, "name": f"{env['env']}-g{goals}-m{j}", "before": [], "after": []}
            yield {**one, "name": f"{env['env']}-g{goals}-m{j}-c", "before": before, "after": after}


def _splits(env, shares, total):
    if env["group"] == "dev":
        return [name for name, n in shares for _ in range(n)]
    return ["test_unseen" if env["group"] == "unseen" else "test"] * total


def set_name(env: dict, split: str) -> str:
    return SET_NAMES[(env["setup"], split)]


def solved(instance: dict, tie_break: str, order_solver: str, style: str = "samples") -> dict:
    """The problem line of an instance, with its ground truth."""
    size, obstacles, start, goals = instance["size"], instance["obstacles"], instance["start"], instance["goals"]
    if not instance["multi"]:
        answer = solve_single(size, obstacles, start, goals[0], tie_break)
        method = f"breadth-first search on the grid (domains/ppnl/oracle.py); plan tie-break: {tie_break}"
    else:
        answer = solve_multi(size, obstacles, start, goals, instance["before"], instance["after"], tie_break, order_solver)
        method = (f"open path from the start over breadth-first leg distances, order by OR-Tools "
                  f"{'CP-SAT' if order_solver == 'cp-sat' else '(brute force)'} with the precedence group "
                  f"(planners/routing.py, ties: earliest); plan tie-break: {tie_break}")  # the file's name when the sets were made (now planners/routing/): kept, so their hashes stay
    return P.problem(instance, answer, method, style)


def sample(problems_by_env: dict, seed: int, label: str) -> list:
    """2 problems per environment, drawn with their own generator, in environment order."""
    out = []
    for env, items in problems_by_env.items():
        out += _rng(seed, "sample", label, env).sample(items, SAMPLE_PER_ENV)
    return out


def write_all(out_dir: Path, seed: int, tie_break: str, order_solver: str, kinds, log, style: str = "samples") -> dict:
    """Every split of the chosen kinds, multi-goal texts as the released sample files write them
    unless `style` says otherwise; returns {path: number of problems}."""
    envs = environments(seed)
    counts = {}
    for kind in kinds:
        by_set: dict[str, list] = {}
        for env in envs:
            for inst in instances(env, seed, kind):
                by_set.setdefault(set_name(env, inst["split"]), []).append((env, inst))
        for name, items in by_set.items():
            began = time.perf_counter()
            size = items[0][0]["size"]
            path = out_dir / kind / f"{name}.jsonl"
            P_header = P.header(size, kind == "multi", f"ppnl-{kind}-{name}")
            from groundplan.engine import problemsets

            problemsets.write(path, (solved(inst, tie_break, order_solver, style) for _, inst in items), P_header)
            counts[str(path)] = len(items)
            log(f"{path}: {len(items)} problems ({time.perf_counter() - began:.1f} s)")
    return counts


def write_eval_sets(out_dir: Path, seed: int, tie_break: str, order_solver: str, log, style: str = "in-context") -> dict:
    """The GPT-4-sized samples: 2 problems per environment of each test set, multi-goal texts as
    the released in-context test sets write them unless `style` says otherwise."""
    from groundplan.engine import problemsets

    envs = environments(seed)
    counts = {}
    for kind, set_file, label in EVAL_SETS:
        by_env: dict[str, list] = {}
        size = None
        for env in envs:
            for inst in instances(env, seed, kind):
                if set_name(env, inst["split"]) == set_file:
                    by_env.setdefault(env["env"], []).append(inst)
                    size = env["size"]
        chosen = sample(by_env, seed, label)
        path = out_dir / f"{label}.jsonl"
        problemsets.write(path, [solved(i, tie_break, order_solver, style) for i in chosen], P.header(size, kind == "multi", f"ppnl-{label}"))
        counts[str(path)] = len(chosen)
        log(f"{path}: {len(chosen)} problems")
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="groundplan generate ppnl", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of every draw (default 0)")
    parser.add_argument("--out", help="write every split to OUT/{single,multi}/<split>.jsonl")
    parser.add_argument("--kind", choices=["single", "multi", "both"], default="both", help="with --out: which sets")
    parser.add_argument("--eval-sets", metavar="DIR", help="write the GPT-4-sized samples to DIR/*.jsonl")
    parser.add_argument("--stats", action="store_true", help="print unreachable fractions and optimal lengths beside the paper's")
    parser.add_argument("--tie-break", choices=TIE_BREAKS, default="ours",
                        help="which shortest path is the plan: ours (up<down<left<right) or the reference's A*")
    parser.add_argument("--order-solver", choices=ORDER_SOLVERS, default="cp-sat",
                        help="multi goal: OR-Tools CP-SAT (default) or brute force over all orders (same answer, faster for <=6 goals)")
    parser.add_argument("--text-style", choices=TEXT_STYLES,
                        help="multi-goal texts: 'samples' ((r, c), ending '. ': the released sample files; default with --out) "
                             "or 'in-context' ((r,c), ending '.': the GPT-4 test sets; default with --eval-sets)")
    parser.add_argument("--samples", type=int, default=0, help="with --stats: multi-goal optimal lengths over this many problems per goal count")
    args = parser.parse_args(argv)
    if not (args.out or args.eval_sets or args.stats):
        parser.error("say what to make: --out DIR, --eval-sets DIR and/or --stats")

    def log(message):
        print(message, file=sys.stderr, flush=True)

    if args.eval_sets:
        write_eval_sets(Path(args.eval_sets), args.seed, args.tie_break, args.order_solver, log, args.text_style or "in-context")
    if args.out:
        kinds = ["single", "multi"] if args.kind == "both" else [args.kind]
        write_all(Path(args.out), args.seed, args.tie_break, args.order_solver, kinds, log, args.text_style or "samples")
    if args.stats:
        from .stats import report

        print(report(args.seed, args.samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
