"""Figures of the generated data beside the paper's: counts, unreachable fractions, optimal lengths.

    groundplan generate ppnl --stats [--seed 0] [--samples 200]

Counts and unreachable fractions need only breadth-first reachability, so they cover every
problem; multi-goal optimal lengths need the order solver and are measured on `--samples`
problems per goal count (the unconstrained ones of the development environments).
"""
from __future__ import annotations

import statistics
from collections import Counter

from .grid import distances
from .oracle import reachable, solve_multi

# Table 2 (problems per set) and Table 8 (% unreachable) of the paper; lengths from the released data
PAPER_COUNTS = {"train": (16032, 53440), "dev": (2004, 6680), "test_seen": (2004, 6680), "test_unseen": (5040, 16800),
                "ood_5x5": (3750, 12500), "ood_7x7": (3750, 12500), "ood_obstacles": (4500, 15000)}
PAPER_UNREACHABLE = {"train": (0.41, 0.89), "dev": (0.55, 1.02), "test_seen": (0.40, 0.78), "test_unseen": (0.34, 0.89),
                     "ood_7x7": (0.00, 0.10), "ood_5x5": (0.55, 2.82), "ood_obstacles": (15.37, 29.07)}
PAPER_SINGLE_MEAN = {"dev": 4.08, "test_seen": 4.08, "ood_5x5": 3.55, "ood_7x7": 4.67, "ood_obstacles": 4.55}
PAPER_MULTI_MOVES = {2: 7.2, 3: 9.5, 4: 11.4, 5: 13.0, 6: 14.4}  # Monte-Carlo of the described generator (spec)


def collect(seed: int):
    """{set: {"single": [lengths or None], "multi": [reachable flags]}} over every problem."""
    from .generate import environments, instances, set_name

    out: dict[str, dict] = {}
    for env in environments(seed):
        blocked = {tuple(o) for o in env["obstacles"]}
        for inst in instances(env, seed, "single"):
            d = distances(env["size"], blocked, tuple(inst["start"])).get(tuple(inst["goals"][0]))
            out.setdefault(set_name(env, inst["split"]), {"single": [], "multi": []})["single"].append(d)
        for inst in instances(env, seed, "multi"):
            ok = reachable(env["size"], env["obstacles"], inst["start"], inst["goals"])
            out.setdefault(set_name(env, inst["split"]), {"single": [], "multi": []})["multi"].append(ok)
    return out


def multi_lengths(seed: int, samples: int) -> dict:
    """Mean optimal moves (inspects excluded) and % unreachable per goal count, on dev-environment samples."""
    import random

    from .generate import environments, instances

    pool: dict[int, list] = {}
    for env in environments(seed):
        if env["group"] == "dev":
            for inst in instances(env, seed, "multi"):
                if not inst["before"]:
                    pool.setdefault(len(inst["goals"]), []).append(inst)
    rng = random.Random(f"ppnl:{seed}:stats")
    result = {}
    for goals, items in sorted(pool.items()):
        moves = []
        for inst in rng.sample(items, min(samples, len(items))):
            answer = solve_multi(inst["size"], inst["obstacles"], inst["start"], inst["goals"], order_solver="brute-force")
            if answer.solvable:
                moves.append(answer.cost - goals)
        unreachable = sum(not reachable(i["size"], i["obstacles"], i["start"], i["goals"]) for i in items)
        result[goals] = (statistics.mean(moves) if moves else None, 100 * unreachable / len(items), len(moves))
    return result


def report(seed: int, samples: int = 0) -> str:
    data = collect(seed)
    lines = [f"PPNL generator, seed {seed}", "",
             "| set | single goal (paper) | multi goal (paper) | single unreachable % (paper) | multi unreachable % (paper) | single mean optimal length (paper) | median | max |",
             "|---|---|---|---|---|---|---|---|"]
    for name in PAPER_COUNTS:
        single, multi = data[name]["single"], data[name]["multi"]
        found = [d for d in single if d is not None]
        su = 100 * sum(d is None for d in single) / len(single)
        mu = 100 * sum(not ok for ok in multi) / len(multi)
        ps, pm = PAPER_COUNTS[name]
        pu = PAPER_UNREACHABLE[name]
        mean = PAPER_SINGLE_MEAN.get(name)
        lines.append(f"| {name} | {len(single)} ({ps}) | {len(multi)} ({pm}) | {su:.2f} ({pu[0]:.2f}) | {mu:.2f} ({pu[1]:.2f}) | "
                     f"{statistics.mean(found):.2f} ({mean if mean else '-'}) | {statistics.median(found):g} | {max(found)} |")
    dev = Counter(d for d in data["dev"]["single"] if d is not None)
    lines += ["", "dev single-goal optimal lengths 1..12: " + ", ".join(str(dev.get(k, 0)) for k in range(1, 13)),
              "(paper's released dev set, 1..11: 200, 332, 320, 324, 321, 235, 139, 77, 38, 6, 1)"]
    if samples:
        lines += ["", f"multi goal, 6x6 development environments, {samples} unconstrained problems per goal count:",
                  "| goals | mean optimal moves (spec's Monte-Carlo) | unreachable % (all problems) |", "|---|---|---|"]
        for goals, (mean, unreachable, n) in multi_lengths(seed, samples).items():
            lines.append(f"| {goals} | {mean:.2f} ({PAPER_MULTI_MOVES[goals]}) | {unreachable:.2f} |")
    return "\n".join(lines)
