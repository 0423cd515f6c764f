"""Give every kitchen problem a valid plan (an upper bound on its optimum), then improve them.

    python evals/bench/kitchen_plans.py find     [--time-limit 20] [--sets ...]   # problems without a plan
    python evals/bench/kitchen_plans.py repair   [--time-limit 20]                # instances: the base plan, repaired
    python evals/bench/kitchen_plans.py serial   [--time-limit 20]                # turn-based: serial plan, scheduled
    python evals/bench/kitchen_plans.py relay    [--time-limit 20]                # turn-based: one agent per dish, scheduled
    python evals/bench/kitchen_plans.py agenda   [--time-limit 60] [--sets ...]   # every order of the dishes, low-weight legs
    python evals/bench/kitchen_plans.py prove    [--time-limit 60] [--sets ...]   # bounded BFS: optimum or a higher lower bound
    python evals/bench/kitchen_plans.py bounds   [--sets ...]                     # lower bounds: best estimate of the start
    python evals/bench/kitchen_plans.py improve  [--time-limit 30] [--sets ...]   # every unproven problem
    python evals/bench/kitchen_plans.py polish   [--time-limit 300] [--sets ...]  # windows of stored plans re-optimised

`find` tries, in order: the base task's stored plan replayed on the instance (instances are the
base task plus stations and items, so it is often still valid); the base plan repaired
(planners/decompose/agenda.py `repair`: each old step applied where it still applies, short searches to
its preconditions where an extra object blocks it, keeping what later steps need); for
turn-based multi-agent tasks, a plan of the serial task (any robot at any step) scheduled into
turns (planners/decompose/solo.py); then greedy best-first search with exploration (planners/search/explore.py:
h_FF, preferred operators, novelty), weighted (w = 5) first because the weight stops it digging
under a deceptive stacking; then the same search leg by leg through a goal agenda (one dish at a
time). `repair` and `serial` run those two steps on every problem they apply to, keeping a plan
only when it is cheaper. `improve` runs the search as weighted A* (weights 5, 3, 2) bounded by
the best known cost, pruning with the admissible time-aware h_max, like LAMA's restarts. Every
plan is replayed by the interpreter and shortened by action elimination before `groundplan plan
--store`'s merge keeps the better one (a proven optimum is never touched).
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def files(sets):
    out = []
    for s in sets:
        out += sorted((ROOT / "domains" / "kitchen" / "tasks" / s).glob("*.json"))
    for s in sets:
        if s != "train":
            out += sorted((ROOT / "problems" / s).glob("*.json"))
    return out


def base_of(path: Path) -> Path | None:
    if path.parent.parent.name != "problems":
        return None
    stem = path.stem.rsplit("_s", 1)[0]
    base = ROOT / "domains" / "kitchen" / "tasks" / path.parent.name / (stem + ".json")
    return base if base.exists() else None


def entry(path: Path) -> dict:
    return json.loads(path.read_text()).get("optimal") or {}


def proven(e: dict) -> bool:
    return e.get("cost") is not None and "upper_bound" not in e


def known_cost(e: dict):
    return e.get("cost") if proven(e) else e.get("upper_bound")


def store(path: Path, task, actions, planner: str, heuristic: str | None, log) -> None:
    from groundplan.engine.validate import validate_plan
    from groundplan.planners.cli import store_result
    from groundplan.planners.result import SOLVED_SATISFICING, PlanResult
    from groundplan.planners.improve.shorten import shorten

    actions = shorten(task, actions, time_limit=5)
    plan = [a.text if not isinstance(a, tuple) else " | ".join(x.text for x in a) for a in actions]
    check = validate_plan(task, plan)
    if not check.valid:
        log(f"  ! {planner} plan does not validate: {check.message()}")
        return
    before = known_cost(entry(path))
    store_result(str(path), PlanResult(SOLVED_SATISFICING, planner, plan=plan, cost=check.cost, heuristic=heuristic))
    log(f"  {planner}: cost {check.cost} (was {before}) -> {known_cost(entry(path))}")


def transfer(path: Path, task, log):
    """The base task's plan, as ground actions of this task, if it is valid here."""
    from groundplan.engine.validate import validate_plan

    base = base_of(path)
    if base is None:
        return None
    plan = entry(base).get("plan")
    if not plan:
        return None
    result = validate_plan(task, plan)
    if not result.valid:
        return None
    return task.parse_plan(plan)


def explore_leg(weight):
    """One leg of an agenda, relay or repair: exploration with h_FF from where the last ended."""
    from groundplan.planners import heuristics as H
    from groundplan.planners.search.explore import explore

    def leg(sub, start, left):
        return explore(sub, H.make(sub, "hff"), start=start, time_limit=left, weight=weight)

    return leg


def search_plan(task, limit: float, log):
    """(ground actions, method) of a plan found within `limit` seconds, or None."""
    from groundplan.planners import heuristics as H
    from groundplan.planners.decompose.agenda import parts, solve_agenda
    from groundplan.planners.search.explore import explore

    # weighted first: g bounds how far a deceived greedy search digs below a bad stacking
    for weight, share in ((5, 0.4), (None, 0.2)):
        result = explore(task, H.make(task, "hff"), time_limit=limit * share, weight=weight)
        log(f"  explore w={weight}: {result.status} cost {result.cost} expanded {result.expanded} {result.seconds:.1f} s")
        if result.solved:
            return result.actions, "explore" if weight is None else f"explore w={weight}"

    leg = explore_leg(5)
    n = parts(task)
    orders = [tuple(range(n)), tuple(reversed(range(n)))]  # as written and reversed, then the rest
    orders += [p for p in itertools.permutations(range(n)) if p not in orders] if n <= 3 else []
    for order in orders[:1] if n == 1 else orders:
        result = solve_agenda(task, leg, time_limit=limit * 0.4 / min(len(orders), 2), order=order)
        log(f"  agenda {order}: {result.status} cost {result.cost} expanded {result.expanded} "
            f"{result.seconds:.1f} s {result.reason}")
        if result.solved:
            return result.actions, f"goal agenda (parts in order {order}) + explore w=5"
    return None


def find_serial(path: Path, task, limit: float, log) -> bool:
    """Turn-based tasks: plan the serial task (any agent at any step), then schedule it into turns."""
    from groundplan.planners.decompose.solo import schedule, serial_task

    found = search_plan(serial_task(task), limit, log)
    if found is None:
        return False
    actions = schedule(task, [a.text for a in found[0]])
    log(f"  serial plan of {len(found[0])} actions -> {'not schedulable' if actions is None else len(actions)} turns")
    if actions is None:
        return False
    store(path, task, actions, found[1] + " on the serial task, scheduled into turns", "hff", log)
    return True


def relay_orders(task, weight, limit_each: float, log):
    """Relay plans of a turn-based task with several dishes (planners/decompose/solo.py relay), in the order
    as written and reversed: (scheduled ground actions, method) for each order that schedules."""
    from groundplan.planners.decompose.agenda import parts
    from groundplan.planners.decompose.solo import relay

    n = parts(task)
    if n < 2:
        return
    for order in (tuple(range(n)), tuple(reversed(range(n)))):
        result, actions = relay(task, explore_leg(weight), time_limit=limit_each, order=order)
        log(f"  relay {order} w={weight}: {result.status} cost {result.cost} expanded {result.expanded} "
            f"{result.seconds:.1f} s {result.reason} -> {'not scheduled' if actions is None else len(actions)}")
        if actions is not None:
            yield actions, f"relay (parts in order {order}, one agent each) + explore w={weight}, scheduled into turns"


def find_relay(path: Path, task, limit: float, log) -> bool:
    """Turn-based tasks with several dishes: one agent per dish in turn, the first order that works."""
    for actions, method in relay_orders(task, 5, limit / 2, log):
        store(path, task, actions, method, "hff", log)
        return True
    return False


def find_solo(path: Path, task, limit: float, log) -> bool:
    """Turn-based tasks, last resort: one agent does everything, the others wait their turns."""
    from groundplan.planners.decompose.solo import schedule, solo_task

    for agent in task.agents:
        found = search_plan(solo_task(task, agent), limit / len(task.agents), log)
        if found is None:
            continue
        actions = schedule(task, [a.text for a in found[0]])
        log(f"  {agent} alone: {len(found[0])} actions -> {'not schedulable' if actions is None else len(actions)} turns")
        if actions is not None:
            store(path, task, actions, found[1] + f" with {agent} alone, the others waiting", "hff", log)
            return True
    return False


def find(path: Path, limit: float, log) -> None:
    from groundplan.engine import Task

    task = Task.load(path)
    actions = transfer(path, task, log)
    if actions is not None:
        store(path, task, actions, "base task's plan", None, log)
        return
    if try_repair(path, task, limit * 0.3, log):
        return
    if task.turn_based and find_serial(path, task, limit, log):
        return
    if task.turn_based and find_relay(path, task, limit, log):  # turn-based: more than one agent
        return
    if task.turn_based and find_solo(path, task, limit, log):
        return
    found = search_plan(task, limit, log)
    if found is not None:
        store(path, task, found[0], found[1], "hff", log)


def try_repair(path: Path, task, limit: float, log) -> bool:
    """The base task's plan, replanned where the instance's extra objects block it."""
    from groundplan.engine import Task
    from groundplan.planners.decompose.agenda import repair

    base = base_of(path)
    plan = entry(base).get("plan") if base is not None else None
    if not plan:
        return False
    result = repair(task, Task.load(base), plan, explore_leg(1), time_limit=limit)
    log(f"  repair: {result.status} cost {result.cost} expanded {result.expanded} {result.seconds:.1f} s {result.reason}")
    if not result.solved:
        return False
    store(path, task, result.actions, "base task's plan, repaired", "hff", log)
    return True


def repair_phase(path: Path, limit: float, log) -> None:
    from groundplan.engine import Task

    try_repair(path, Task.load(path), limit, log)


def prove(path: Path, limit: float, log) -> None:
    """Bounded breadth-first search below the best known plan (planners/search/layered.py), or up to the
    paper's horizon where that is lower: the optimum, or a higher proven lower bound."""
    from groundplan.engine import Task
    from groundplan.planners.cli import store_result
    from groundplan.planners.search.layered import prove_optimal

    task = Task.load(path)
    before = entry(path)
    guess = json.loads(path.read_text()).get("metadata", {}).get("paper_horizon") or paper_horizon(path)
    result = prove_optimal(task, upper_bound=known_cost(before), guess=guess, time_limit=limit)
    log(f"  bounded-bfs: {result.status} cost {result.cost} bound {result.lower_bound} expanded {result.expanded} "
        f"{result.seconds:.1f} s {result.peak_memory_mb:.0f} MB {result.reason}")
    if result.status == "unsupported":
        return
    store_result(str(path), result)
    after = entry(path)
    log(f"  stored: {'proven ' + str(after.get('cost')) if proven(after) else 'bounds ' + str(after.get('lower_bound')) + '..' + str(after.get('upper_bound'))}"
        f" (was {before.get('lower_bound')}..{known_cost(before)})")


def paper_horizon(path: Path):
    """The paper's horizon of a base task (Table 3), None for the multi-agent set."""
    from groundplan.domains.kitchen.horizons import PAPER_HORIZON

    if base_of(path) is not None or path.parent.parent.name != "tasks":
        return None
    horizons = PAPER_HORIZON.get(path.parent.name)
    return horizons[int(path.name[:2]) - 1] if horizons else None


def relay_phase(path: Path, limit: float, log) -> None:
    from groundplan.engine import Task

    task = Task.load(path)
    if task.turn_based:
        find_relay(path, task, limit, log)


def agenda_phase(path: Path, limit: float, log, weights=(2, 3)) -> None:
    """Orders of several dishes: every order of the dishes (at most 6), each dish a leg of weighted
    exploration from where the last ended, the cheapest plan kept. Legs of 20-30 steps are short
    enough for a low weight, which a whole order is not: async 10, 107 steps by weighted search
    over the whole, is 80 this way. Turn-based tasks: relay, one robot per dish, both orders."""
    from groundplan.engine import Task
    from groundplan.planners.decompose.agenda import parts, solve_agenda
    from groundplan.planners.improve.shorten import shorten

    task = Task.load(path)
    n = parts(task)
    if n < 2:
        return
    best = None
    for weight in weights:
        if task.turn_based:
            for actions, method in relay_orders(task, weight, limit, log):
                if best is None or len(actions) < len(best[0]):
                    best = (actions, method)
            continue
        for order in list(itertools.permutations(range(n)))[:6]:
            result = solve_agenda(task, explore_leg(weight), time_limit=limit, order=order)
            if not result.solved:
                continue
            actions = shorten(task, result.actions, time_limit=5)
            log(f"  agenda {order} w={weight}: {len(result.actions)} -> {len(actions)} steps {result.seconds:.1f} s")
            if best is None or len(actions) < len(best[0]):
                best = (actions, f"goal agenda (parts in order {order}) + explore w={weight}")
    if best is not None:
        store(path, task, best[0], best[1], "hff", log)


def serial(path: Path, limit: float, log) -> None:
    from groundplan.engine import Task

    task = Task.load(path)
    if task.turn_based:
        find_serial(path, task, limit, log)


def improve(path: Path, limit: float, log, weights=(5, 3, 2)) -> None:
    from groundplan.engine import Task
    from groundplan.planners import heuristics as H
    from groundplan.planners.search.explore import explore
    from groundplan.planners.search.symmetry import Symmetry

    task = Task.load(path)
    h, floor = H.make(task, "hff"), H.make(task, "hmax")
    symmetry = Symmetry.detect(task)
    for w in weights:
        e = entry(path)
        if proven(e) or e.get("upper_bound") is None:
            return
        bound = e["upper_bound"]
        if e.get("lower_bound") and e["lower_bound"] >= bound:
            return
        result = explore(task, h, time_limit=limit, symmetry=symmetry, weight=w, bound=bound, lower=floor)
        log(f"  explore w={w} below {bound}: {result.status} cost {result.cost} expanded {result.expanded} "
            f"{result.seconds:.1f} s")
        if result.solved:
            store(path, task, result.actions, f"explore w={w}", "hff", log)


def bounds(path: Path, limit: float, log) -> None:
    """A lower bound before any search: the best admissible estimate of the initial state."""
    from groundplan.engine import Task
    from groundplan.planners.cli import store_result
    from groundplan.planners.search.layered import root_lower_bound
    from groundplan.planners.result import NO_PLAN_WITHIN_BOUND, PlanResult

    before = entry(path)
    value, name = root_lower_bound(Task.load(path))
    if value == float("inf"):
        log(f"  {name} says the goal is unreachable: check with `groundplan plan {path} --planner bfs`")
        return
    store_result(str(path), PlanResult(NO_PLAN_WITHIN_BOUND, "admissible estimate of the initial state",
                                       heuristic=name, lower_bound=value))
    log(f"  {name} = {value} (lower bound was {before.get('lower_bound')}, now {entry(path).get('lower_bound')})")


def polish(path: Path, limit: float, log) -> None:
    """The stored plan, every window re-optimised by bounded search (planners/improve/windows.py)."""
    from groundplan.engine import Task
    from groundplan.planners.improve.windows import reoptimize

    task = Task.load(path)
    e = entry(path)
    if task.agent_mode == "simultaneous" and len(task.agents) > 1:
        return
    actions = task.parse_plan(e["plan"])
    began = time.perf_counter()
    better = reoptimize(task, actions, time_limit=limit)
    log(f"  windows: {len(actions)} -> {len(better)} steps in {time.perf_counter() - began:.0f} s")
    if len(better) < len(actions):
        store(path, task, better, "stored plan, windows re-optimised by bounded search", None, log)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=("find", "repair", "serial", "relay", "agenda", "improve", "polish", "bounds",
                                          "prove"))
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds per search")
    parser.add_argument("--sets", nargs="*", default=["sync", "async", "multiagent", "train"])
    parser.add_argument("--match", default="", help="only files whose path contains this")
    args = parser.parse_args(argv)

    def log(text):
        print(text, flush=True)

    began = time.perf_counter()
    todo = files(args.sets)
    if args.phase == "find":  # quick wins first: instances whose base task has a plan to replay
        def has_base_plan(path):
            base = base_of(path)
            return base is not None and bool(entry(base).get("plan"))
        todo.sort(key=lambda p: 0 if has_base_plan(p) else 1 if base_of(p) is not None else 2)
    for path in todo:
        if args.match not in str(path):
            continue
        e = entry(path)
        if proven(e) or (args.phase == "find" and e.get("plan")) or (args.phase in ("improve", "polish", "agenda") and not e.get("plan")):
            continue
        if args.phase in ("serial", "relay") and "multiagent" not in str(path):
            continue
        if args.phase == "repair" and base_of(path) is None:
            continue
        log(f"{path.relative_to(ROOT)} ({time.perf_counter() - began:.0f} s)")
        try:
            {"find": find, "repair": repair_phase, "serial": serial, "relay": relay_phase, "agenda": agenda_phase, "improve": improve, "polish": polish, "bounds": bounds, "prove": prove}[args.phase](path, args.time_limit, log)
        except Exception as exc:  # one problem's failure must not stop the batch
            log(f"  ! {type(exc).__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
