"""PPNL metrics as pure functions, to plug into plan-eval: one score per answer, then rates.

Definitions (the paper's, section 3; where the released evaluation code differs, see README):
- an answer is a string of actions ("up up right inspect ...") or a declaration that the goal is
  not reachable (any answer saying "goal (is) not reachable" or "unreachable", in any case);
- replay: moves run from the start; the first move off the grid or into an obstacle, or the
  first word that is no action, ends the replay and makes the plan infeasible (one-shot
  semantics); `inspect` (multi goal only) on a goal cell marks that goal visited, elsewhere it
  does nothing;
- success: feasible, and single goal: the final cell is the goal (passing through it is not
  enough); multi goal: every goal inspected and, with a constraint, no goal of group B
  inspected before every goal of group A was;
- optimal: success with exactly the optimal number of actions (inspects count);
- exact match: the actions equal the ground-truth plan;
- feasible: no illegal move and no unknown word;
- distance: for feasible failures, the fewest actions still needed from where the plan ended
  (breadth-first legs, remaining goals in the best allowed order, their inspects included);
  undefined (None) when the plan broke the ordering constraint, which can no longer be repaired;
- unreachable accuracy: on problems whose goal is unreachable, the share of answers declaring it.
Problems with an unreachable goal count only toward unreachable accuracy; the other rates are
over the reachable problems (as in the paper's tables, optimal and exact match too).
A reachable problem answered "goal not reachable" is an empty, feasible, failed plan.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .grid import MOVES, distances

ACTIONS = {name for name, _, _ in MOVES} | {"inspect"}
NOT_REACHABLE = "goal not reachable"
DECLARATION = re.compile(r"\bgoal\s+(is\s+)?not\s+reachable\b|\bunreachable\b")


@dataclass
class Score:
    reachable: bool
    declared_unreachable: bool
    success: bool = False
    optimal: bool = False
    exact_match: bool = False
    feasible: bool = False
    distance: int | None = None
    actions: int = 0


def instance_from_problem(data: dict) -> dict:
    """What scoring needs, from a generated problem's data (its metadata and optimum)."""
    meta, optimal = data["metadata"], data.get("optimal") or {}
    return {"size": meta["size"], "obstacles": meta["obstacles"], "start": meta["start"], "goals": meta["goals"],
            "before": [int(p[1:]) for p in meta.get("before", [])], "after": [int(p[1:]) for p in meta.get("after", [])],
            "multi": "routing" in data, "reachable": optimal.get("cost") is not None,
            "optimal_cost": optimal.get("cost"), "plan": optimal.get("plan")}


def parse_answer(answer) -> tuple[list[str], bool]:
    """(action words, whether the answer declares the goal unreachable)."""
    if isinstance(answer, (list, tuple)):
        text = " ".join(map(str, answer))
    else:
        text = str(answer or "")
    if DECLARATION.search(text.lower()):
        return [], True
    return [w for w in text.lower().replace(",", " ").replace(".", " ").split()], False


def replay(instance: dict, words) -> dict:
    """{"cell", "feasible", "inspected": [goal indices in order], "steps"} after the one-shot replay."""
    size, blocked = instance["size"], {tuple(o) for o in instance["obstacles"]}
    goals = [tuple(g) for g in instance["goals"]]
    step = {name: (dr, dc) for name, dr, dc in MOVES}
    here, inspected, feasible, steps = tuple(instance["start"]), [], True, 0
    for word in words:
        if word == "inspect" and instance["multi"]:
            if here in goals and goals.index(here) not in inspected:
                inspected.append(goals.index(here))
        elif word in step:
            there = (here[0] + step[word][0], here[1] + step[word][1])
            if not (0 <= there[0] < size and 0 <= there[1] < size) or there in blocked:
                feasible = False
                break
            here = there
        else:
            feasible = False
            break
        steps += 1
    return {"cell": here, "feasible": feasible, "inspected": inspected, "steps": steps}


def order_kept(instance: dict, inspected) -> bool:
    """No goal of group B inspected while a goal of group A was still uninspected."""
    before, after = set(instance.get("before", [])), set(instance.get("after", []))
    done = set()
    for g in inspected:
        if g in after and not before <= done:
            return False
        done.add(g)
    return True


def remaining_distance(instance: dict, cell, inspected) -> int | None:
    """Fewest actions from `cell` to finish the task, or None if the constraint is already broken."""
    from groundplan.planners.routing import brute_force_sequence

    size, blocked = instance["size"], {tuple(o) for o in instance["obstacles"]}
    goals = [tuple(g) for g in instance["goals"]]
    if not instance["multi"]:
        return distances(size, blocked, tuple(cell)).get(goals[0])
    if not order_kept(instance, inspected):
        return None
    left = [i for i in range(len(goals)) if i not in inspected]
    if not left:
        return 0
    here = distances(size, blocked, tuple(cell))
    table = {i: distances(size, blocked, goals[i]) for i in left}
    first = [here.get(goals[i]) for i in left]
    leg = [[None if a == b else table[a].get(goals[b]) for b in left] for a in left]
    position = {g: k for k, g in enumerate(left)}
    before = [position[i] for i in instance.get("before", []) if i in position]
    after = [position[j] for j in instance.get("after", []) if j in position]
    precedence = [(before, after)] if before and after else []
    found = brute_force_sequence(len(left), first, leg, [0] * len(left), precedence)
    return None if found is None else int(found[1]) + len(left)


def score(instance: dict, answer, reference_plan=None) -> Score:
    """Score one answer. `reference_plan` (default: the instance's plan) is the exact-match target."""
    words, declared = parse_answer(answer)
    result = Score(reachable=instance["reachable"], declared_unreachable=declared)
    if not instance["reachable"]:
        return result
    run = replay(instance, words)
    goals = [tuple(g) for g in instance["goals"]]
    result.feasible = run["feasible"]
    result.actions = len(words)
    if instance["multi"]:
        done = len(run["inspected"]) == len(goals) and order_kept(instance, run["inspected"])
    else:
        done = run["cell"] == goals[0]
    result.success = run["feasible"] and done
    result.optimal = result.success and len(words) == instance["optimal_cost"]
    target = reference_plan if reference_plan is not None else instance.get("plan")
    if target is not None:
        result.exact_match = words == [w.lower() for w in (target.split() if isinstance(target, str) else target)]
    if run["feasible"] and not result.success:
        result.distance = remaining_distance(instance, run["cell"], run["inspected"])
    return result


def aggregate(scores) -> dict:
    """The paper's rates: success, optimal, exact match, feasible over reachable problems; mean
    distance over feasible failures; unreachable accuracy over unreachable problems."""
    scores = list(scores)
    reach = [s for s in scores if s.reachable]
    unreach = [s for s in scores if not s.reachable]
    distances_ = [s.distance for s in reach if s.feasible and not s.success and s.distance is not None]

    def rate(key):
        return sum(getattr(s, key) for s in reach) / len(reach) if reach else None

    return {
        "problems": len(scores), "reachable": len(reach), "unreachable": len(unreach),
        "success": rate("success"), "optimal": rate("optimal"), "exact_match": rate("exact_match"),
        "feasible": rate("feasible"),
        "distance": sum(distances_) / len(distances_) if distances_ else None,
        "unreachable_accuracy": sum(s.declared_unreachable for s in unreach) / len(unreach) if unreach else None,
    }


def as_dict(s: Score) -> dict:
    return asdict(s)


# ---------------------------------------------------------------- plan-eval plug-in
def _answer_of(episode) -> list[str] | str:
    """What the agent answered, as PPNL scores it: the words it played (open loop: its plan lines,
    including the one that broke the replay), or the unreachable declaration. With several trials
    (ReAct) the answer is the concatenation of the executed prefixes, as the reference's: a move
    refused in a trial was never made."""
    if episode.declaration in ("unreachable", "impossible"):
        return NOT_REACHABLE
    words = []
    for step in episode.trajectory:
        detail = step.get("detail") if isinstance(step.get("detail"), dict) else {}
        if step.get("action") is None and step.get("answer") and ("\n" in step["answer"] or isinstance(detail.get("actions"), list)):
            continue  # an open-loop agent's whole reply; its lines follow one by one
        if "trial" in step and not step.get("valid", True):
            continue
        if step.get("action") or step.get("answer"):
            words.append(str(step.get("action") or step.get("answer")).strip().lower())
    return words


def episode_metrics(task, episode) -> dict:
    """PPNL's per-answer scores for one plan-eval episode (under the key 'ppnl')."""
    instance = instance_from_problem(task.problem.raw)
    return {"ppnl": as_dict(score(instance, _answer_of(episode)))}


def summary_metrics(rows: list[dict]) -> dict:
    """The paper's rates over a group of plan-eval episode lines, prefixed 'ppnl_'."""
    scores = [Score(**row["ppnl"]) for row in rows if isinstance(row.get("ppnl"), dict)]
    if not scores:
        return {}
    rates = aggregate(scores)
    return {f"ppnl_{k}": v for k, v in rates.items() if k not in ("problems", "reachable", "unreachable")}
