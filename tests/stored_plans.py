"""The kitchen's stored optimal plans replayed once per test session, for the tests that check them
(tests/test_kitchen.py, tests/test_kitchen_fidelity.py), and which of them the suite replays.

Replaying a plan grounds the problem's goal, and the goals of the two-dish multi-agent tasks
08-10 (an `exists` over 12 objects) ground to 10^4-3x10^5 cases: 4-47 s a file, most of the
stored-plan check's time. The suite replays every other stored plan, and of tasks 08-10 the base
task's and those of the seeded files that tests/test_kitchen_fidelity.py samples (every 7th
multi-agent file); `python evals/bench/stored_plans.py` replays them all."""
from __future__ import annotations

import functools
import glob
import json
from dataclasses import dataclass

TASKS = "domains/kitchen/tasks"
TWO_DISH = ("08_", "09_", "10_")  # the multi-agent tasks whose goals are costly to ground


def multiagent_paths() -> list[str]:
    """The 110 multi-agent files: the 10 base tasks, then the 100 seeded ones."""
    return sorted(glob.glob(f"{TASKS}/multiagent/*.json")) + sorted(glob.glob("problems/multiagent/*.json"))


def fidelity_sample() -> list[str]:
    """The multi-agent files tests/test_kitchen_fidelity.py replays: every 7th."""
    return multiagent_paths()[::7]


def stored() -> list[str]:
    """Every kitchen file with a stored plan (sync, async, multi-agent, seeded and base tasks)."""
    paths = sorted(glob.glob("problems/sync/*.json") + glob.glob("problems/async/*.json")
                   + glob.glob("problems/multiagent/*.json") + glob.glob(f"{TASKS}/*/*.json"))
    return [p for p in paths if (json.load(open(p)).get("optimal") or {}).get("plan")]


def two_dish(path: str) -> bool:
    return "/multiagent/" in path and path.rsplit("/", 1)[1].startswith(TWO_DISH)


def sampled() -> list[str]:
    """`stored()` with tasks 08-10 of the multi-agent set cut to their base tasks and the seeded
    files of `fidelity_sample()` (7 of their 33 files)."""
    keep = set(fidelity_sample())
    return [p for p in stored() if not two_dish(p) or p.startswith(TASKS) or p in keep]


@dataclass(frozen=True)
class Replay:
    valid: bool
    cost: float | None
    message: str
    agent_mode: str


@functools.lru_cache(maxsize=None)
def replay(path: str) -> Replay:
    """The file's stored plan validated against the file (as `validate_plan` does), once a session."""
    from groundplan.engine import Task, validate_plan

    task = Task.load(path)
    result = validate_plan(task, json.load(open(path))["optimal"]["plan"])
    return Replay(result.valid, result.cost, result.message() if not result.valid else "", task.agent_mode)
