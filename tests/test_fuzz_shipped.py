"""Fuzzing `groundplan validate` and a short episode with mutations of the shipped problems.

tests/test_fuzz_inputs.py mutates two small worlds as data; this file starts from one problem
of every shipped world (the kitchen in its three modes, PPNL, GRASP, BabyAI, Plancraft, the
classic domains), mutates its JSON as a user's editor or a broken generator would, writes it as
a file and runs the command a user runs. Three properties, the acceptance of issue 18:

- no traceback: every outcome is an exit code with a message (a crash in click's runner fails);
- no hang: each example runs under a 60 s alarm;
- no wrong accept: the mutations whose meaning we know (a stored reference that is not a plan of
  the problem, a cost that is negative, fractional or zero away from the goal, a duplicated key)
  must be refused, not scored.
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import problemsets
from groundplan.engine.budget import alarm
from groundplan.cli import main

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [
    "problems/async/01_cheese_chicken_sandwich_s126.json",
    "problems/sync/01_cheese_sandwich_s126.json",
    "problems/multiagent/01_lettuce_burger_s126.json",
    "problems/ppnl/single_5x5.jsonl#1",
    "problems/grasp/inner_cluster_block.jsonl#1",
    "problems/plancraft/test.small.jsonl#1",
    "problems/babyai/plan.jsonl.gz#1",
    "problems/blocksworld/sussman.json",
    "problems/gripper/prob01.json",
]
HANG_SECONDS = 60


def _read(ref: str) -> dict:
    if problemsets.is_set_reference(ref):
        return problemsets.read_problem(str(ROOT / ref))[0]
    return json.loads((ROOT / ref).read_text())


BASES = {ref: _read(ref) for ref in SEEDS}


def run_cli(*args):
    """One command in-process under the hang alarm; a traceback (an exception click did not turn
    into an exit code) fails the test with the input that caused it."""
    began = time.perf_counter()
    with alarm(HANG_SECONDS, grace=0):
        result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)
    # the alarm's error is a clean exit too: a refusal that only came from it is a hang
    assert time.perf_counter() - began < HANG_SECONDS, f"groundplan {' '.join(map(str, args))} ran {HANG_SECONDS} s"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"groundplan {' '.join(map(str, args))} crashed: "
                             f"{type(result.exception).__name__}: {result.exception}") from result.exception
    assert "Traceback" not in result.output
    return result


# ------------------------------------------------------------------ mutations
def paths_of(doc, prefix=()):
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.extend(paths_of(value, prefix + (key,)))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:12]):  # long lists: their head is enough to reach every kind of place
            out.extend(paths_of(value, prefix + (index,)))
    return out


def parent_and_key(doc, path):
    for part in path[:-1]:
        doc = doc[part]
    return doc, path[-1]


SCALARS = [None, True, False, 0, -1, 1, 2.5, -7, 10**9, "", "x", "?x", "../../etc/passwd", "/dev/zero", "a\x00b",
           "kitchen", "grasp", [], {}, [[]], {"and": []}, ["on", "a"], 1e300]


def mutate(doc: dict, rng: random.Random) -> dict:
    """One structural mutation at a random place: replace, delete, rename a key, or wrap a value."""
    paths = [p for p in paths_of(doc) if p]
    if not paths:
        return doc
    path = rng.choice(paths)
    parent, key = parent_and_key(doc, path)
    kind = rng.randrange(5)
    if kind == 0:
        parent[key] = rng.choice(SCALARS)
    elif kind == 1:
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif kind == 2 and isinstance(parent, dict):
        parent[str(key) + rng.choice(["s", "_", "X"])] = parent.pop(key)
    elif kind == 3:
        parent[key] = [parent[key]]
    else:
        value = parent[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[key] = rng.choice([-value - 1, value + 0.5, 0, -(10**12)])
        elif isinstance(value, str):
            parent[key] = rng.choice([value + "x", value.upper(), "", value * 3])
        else:
            parent[key] = rng.choice(SCALARS)
    return doc


def as_text(doc: dict, rng: random.Random) -> str:
    """The JSON text, sometimes with a text-level fault a structural mutation cannot make."""
    text = json.dumps(doc, indent=1)
    fault = rng.randrange(8)
    if fault == 0:  # cut off (a killed writer)
        return text[: rng.randrange(len(text))]
    if fault == 1:  # a duplicated top-level key: the later must not silently win
        key = rng.choice(list(doc))
        return text[:-2] + f',\n "{key}": ' + json.dumps(doc[key]) + "\n}"
    if fault == 2:
        return text.replace('"', "'", 1)
    return text


@pytest.mark.slow
@settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(SEEDS), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_no_traceback_no_hang_on_mutated_shipped_problems(tmp_path_factory, ref, mutations, seed):
    rng = random.Random(seed)
    doc = json.loads(json.dumps(BASES[ref]))
    for _ in range(mutations):
        doc = mutate(doc, rng)
        if not isinstance(doc, dict):
            break
    path = tmp_path_factory.mktemp("fuzz") / "problem.json"
    path.write_text(as_text(doc, rng) if isinstance(doc, dict) else json.dumps(doc))
    result = run_cli("validate", path)
    if result.exit_code == 0:  # accepted: it must also run
        run_cli("show", path)
        if "plancraft" not in ref:  # listing Plancraft's actions grounds all 256,320 of them (about a minute)
            run_cli("actions", path)


# ------------------------------------------------------------------ wrong accepts, as fixed examples
def with_reference(ref: str) -> dict:
    doc = json.loads(json.dumps(BASES[ref]))
    entry = doc.get("optimal") or {}
    if not entry.get("plan") or not entry.get("cost"):
        pytest.skip(f"{ref} stores no plan with a cost")
    return doc


REFERENCED = [r for r in SEEDS if (BASES[r].get("optimal") or {}).get("plan") and (BASES[r].get("optimal") or {}).get("cost")]


def refused(tmp_path, doc, text=None) -> str:
    path = tmp_path / "problem.json"
    path.write_text(text if text is not None else json.dumps(doc))
    result = run_cli("validate", path)
    assert result.exit_code != 0, f"accepted: {result.output}"
    return result.output


@pytest.mark.parametrize("ref", REFERENCED)
@pytest.mark.parametrize("cost", [-3, 0, 2.5])
def test_a_stored_cost_that_cannot_be_is_refused(tmp_path, ref, cost):
    doc = with_reference(ref)
    doc["optimal"]["cost"] = cost
    assert "optimal" in refused(tmp_path, doc)


@pytest.mark.parametrize("ref", REFERENCED)
def test_a_stored_plan_with_an_unknown_step_is_refused(tmp_path, ref):
    doc = with_reference(ref)
    doc["optimal"]["plan"] = ["fly to the moon"] + doc["optimal"]["plan"][1:]
    assert "optimal/plan" in refused(tmp_path, doc)


@pytest.mark.parametrize("ref", REFERENCED)
def test_a_stored_plan_with_an_inapplicable_step_is_refused(tmp_path, ref):
    doc = with_reference(ref)
    plan = doc["optimal"]["plan"]
    if plan[1:] + plan[:1] == plan:
        pytest.skip("reordering leaves this plan as it was")
    doc["optimal"]["plan"] = plan[1:] + plan[:1]  # the first step last: some step fails, or the goal is not reached
    assert "optimal" in refused(tmp_path, doc)


@pytest.mark.parametrize("key", ["goal", "domain", "name"])
def test_a_duplicated_key_is_refused(tmp_path, key):
    doc = json.loads(json.dumps(BASES["problems/blocksworld/sussman.json"]))
    text = json.dumps(doc, indent=1)
    duplicate = text[:-2] + f',\n "{key}": ' + json.dumps(doc[key]) + "\n}"
    assert key in refused(tmp_path, doc, duplicate)
