"""Plancraft speed: the interpreter's steps per second against plancraft 0.4.9's environment.

    python evals/bench/plancraft_speed.py [--sequences 200] [--length 20] [--repeats 5]

Needs plancraft (`pip install plancraft==0.4.9`), measured in the same run.

The same random reply sequences as the conformance test (domains/plancraft/conformance.py,
leaning towards crafting; replies the parser refuses are left out, so every step is an action)
over the val examples, parsed beforehand on both sides, then stepped:
- interpreter: `Task.step` on the ground actions, from the initial state. Its crafting table
  memoises grids it has seen, so it is timed twice: "warm" keeps the memo between repeats,
  "cold" empties it before each repeat (every grid is new once per repeat);
- plancraft: `PlancraftEnvironment.step` on the parsed MoveAction/SmeltAction, after a reset
  to the example's inventory (reset not timed), as shipped (it redraws its 704x664 picture and
  converts it to an array on every step) and with the drawing swapped out (state logic only).
Prints steps per second, medians over --repeats, and the ratios. The machine is shared and
noisy: read the ratios.
"""
from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from groundplan.domains.plancraft import world  # noqa: E402
from groundplan.domains.plancraft.conformance import (action_sequence, reference_env, reference_handlers,  # noqa: E402
                                           reference_parse)
from groundplan.domains.plancraft.text import read_reply  # noqa: E402
from groundplan.engine import Task  # noqa: E402
from groundplan.engine.problemsets import names  # noqa: E402

VAL = ROOT / "problems" / "plancraft" / "val.jsonl"


def workload(sequences: int, length: int):
    """[(task, ground actions, plancraft actions, plancraft inventory)] per sequence."""
    from plancraft.environment.actions import MoveAction, SmeltAction

    handlers = reference_handlers(("move", "smelt"))
    examples = names(str(VAL))
    out = []
    for seed in range(sequences):
        task = Task.load(f"{VAL}#{examples[seed % len(examples)]}")
        start = task.initial_state()
        ours, theirs = [], []
        for text in action_sequence(task, random.Random(seed), length):
            _, action = reference_parse(text, handlers)
            reading = read_reply(text, ("move", "smelt"))
            if not isinstance(action, (MoveAction, SmeltAction)) or reading.changes_nothing:
                continue  # refused, or smelting from [0]: no step to time on one side
            ours.append(reading.ground(task, start))
            theirs.append(action)
        out.append((task, ours, theirs, world.inventory(task, start)))
    return out


def interpreter_rate(work, cold: bool) -> float:
    if cold:
        for table in work[0][0].domain.tables.values():
            table._memo.clear()
    steps, spent = 0, 0.0
    for task, actions, _, _ in work:
        state = task.initial_state()
        began = time.perf_counter()
        for action in actions:
            state = task.step(state, action).state
        spent += time.perf_counter() - began
        steps += len(actions)
    return steps / spent


def plancraft_rate(work, env) -> float:
    steps, spent = 0, 0.0
    for _, _, actions, inventory in work:
        env.reset(copy.deepcopy(inventory))
        began = time.perf_counter()
        for action in actions:
            env.step(action)
        spent += time.perf_counter() - began
        steps += len(actions)
    return steps / spent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=200)
    parser.add_argument("--length", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    work = workload(args.sequences, args.length)
    total = sum(len(w[1]) for w in work)
    print(f"{args.sequences} sequences, {total} steps per repeat, {args.repeats} repeats (medians)")
    shipped, bare = reference_env(picture=True), reference_env(picture=False)
    rates = {"interpreter, warm": [], "interpreter, cold": [], "plancraft, as shipped": [], "plancraft, no picture": []}
    for _ in range(args.repeats):
        rates["interpreter, cold"].append(interpreter_rate(work, cold=True))
        rates["interpreter, warm"].append(interpreter_rate(work, cold=False))
        rates["plancraft, as shipped"].append(plancraft_rate(work, shipped))
        rates["plancraft, no picture"].append(plancraft_rate(work, bare))
    median = {k: statistics.median(v) for k, v in rates.items()}
    for name, rate in median.items():
        print(f"{name:24s} {rate:12,.0f} steps/s")
    for ours in ("interpreter, warm", "interpreter, cold"):
        for theirs in ("plancraft, as shipped", "plancraft, no picture"):
            print(f"{ours} / {theirs}: {median[ours] / median[theirs]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
