"""LLM start-up, apart from the episodes' time (issue 33, item 5).

litellm takes seconds to import, and without LITELLM_LOCAL_MODEL_COST_MAP it fetches its price
list from GitHub at import (retried for seconds when offline). The first LLM episode of a run used
to count all of that in its `seconds`. plan-eval now loads litellm in every process that runs LLM
episodes before the first one's clock starts, says how long that took apart (stderr, and the
manifest's `startup`), reads prices from the copy installed with litellm, and loads nothing for a
run without an LLM agent.

The run is checked the way a user meets it: plan-eval in a fresh interpreter (litellm not yet
imported), against the loopback ScriptedServer, with the network unreachable (proxies on a closed
loopback port, and an audit hook that refuses, and reports, any connection or name lookup that is
not loopback). No key, no network."""
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groundplan.agents.llm import client
from groundplan.evals.pool import Pool
from llm_server import ScriptedServer

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = "problems/blocksworld/sussman.json"
PLAN = "unstack c from a\nput down c\npick up b\nstack b on c\npick up a\nstack a on b"
MODEL = "openai/gpt-4o-mini"
CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens there, a connection is refused at once

# plan-eval with the network unreachable: only loopback (and Unix sockets) may be reached or looked up
OFFLINE = r'''
import atexit, sys

LOOPBACK = ("127.0.0.1", "::1", "localhost", b"127.0.0.1", b"::1", b"localhost", None)

def refuse(event, args):
    if event == "socket.connect":
        address = args[1]
        host = address[0] if isinstance(address, tuple) else None  # a Unix socket's path: local
        if host is not None and host not in LOOPBACK:
            print(f"REFUSED connect {host}", file=sys.stderr, flush=True)
            raise OSError(101, "Network is unreachable (test)")
    elif event == "socket.getaddrinfo" and args[0] not in LOOPBACK:
        print(f"REFUSED lookup {args[0]!r}", file=sys.stderr, flush=True)
        raise OSError(-3, "Temporary failure in name resolution (test)")

sys.addaudithook(refuse)
atexit.register(lambda: print("litellm imported:", "litellm" in sys.modules, file=sys.stderr))
from groundplan.evals.cli import main
sys.exit(main(sys.argv[1:]))
'''


def _plan_eval(args, tmp_path):
    """plan-eval in a fresh interpreter, offline, with no cost-map setting of the user's."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-test", GROUNDPLAN_CACHE=str(tmp_path / "cache"),
               HTTP_PROXY=CLOSED, HTTPS_PROXY=CLOSED, ALL_PROXY=CLOSED, http_proxy=CLOSED, https_proxy=CLOSED, all_proxy=CLOSED,
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    env.pop(client.COST_MAP_VARIABLE, None)  # (this process may have set it: the subprocess must show plan-eval's default)
    return subprocess.run([sys.executable, "-c", OFFLINE, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)


def _bundled_prices(model: str) -> dict:
    """The model's entry in the price list installed with litellm, read without importing litellm."""
    folder = Path(importlib.util.find_spec("litellm").submodule_search_locations[0])
    prices = json.loads((folder / "model_prices_and_context_window_backup.json").read_text())
    return prices[model.split("/", 1)[1]]


def test_the_first_llm_episode_is_timed_like_the_second_and_start_up_is_said_apart(tmp_path):
    out = tmp_path / "run"
    with ScriptedServer(default=PLAN) as server:
        began = time.perf_counter()
        result = _plan_eval([PROBLEM, "--agent", "llm", "--model", MODEL, "--api-base", server.api_base, "--strategy", "io",
                             "--samples", "2", "--steps-to-go-time", "0", "--out", str(out)], tmp_path)
        took = time.perf_counter() - began
    assert result.returncode == 0, result.stderr[-3000:]
    assert "REFUSED" not in result.stderr  # nothing in litellm's import or requests reached for the network
    rows = sorted((json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()), key=lambda r: r["id"])
    assert [r["outcome"] for r in rows] == ["goal-reached", "goal-reached"]
    first, second = (r["seconds"] for r in rows)  # (which one ran first: both must be quick)
    assert abs(first - second) < 1, (first, second, result.stderr[-2000:])  # the target: within 1 s of each other
    # the start-up is said apart: on stderr, and in the manifest, one number for plan-eval's process
    assert "LLM start-up (loading litellm, once per process, before its first episode)" in result.stderr
    assert "not counted in any episode's seconds" in result.stderr
    (startup,) = json.loads((out / "manifest.json").read_text())["startup"]["llm_seconds"]
    assert 0 < startup < took
    # prices are the installed list's, as before
    price = _bundled_prices(MODEL)
    for row in rows:
        expected = row["prompt_tokens"] * price["input_cost_per_token"] + row["completion_tokens"] * price["output_cost_per_token"]
        assert row["cost_usd"] > 0 and math.isclose(row["cost_usd"], expected, rel_tol=1e-6, abs_tol=1e-8), (row, expected)


def test_a_run_without_an_llm_agent_never_loads_litellm(tmp_path):
    out = tmp_path / "run"
    result = _plan_eval([PROBLEM, "--agent", "oracle", "--steps-to-go-time", "0", "--out", str(out)], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "litellm imported: False" in result.stderr
    assert "LLM start-up" not in result.stderr and "startup" not in json.loads((out / "manifest.json").read_text())


def test_the_users_own_cost_map_setting_is_kept(monkeypatch):
    """litellm reads LITELLM_LOCAL_MODEL_COST_MAP when it is imported; plan-eval sets it only when the user has not."""
    monkeypatch.setenv(client.COST_MAP_VARIABLE, "False")  # the user wants litellm to fetch the current list
    assert client._cost_map_setting() == "False" and os.environ[client.COST_MAP_VARIABLE] == "False"
    monkeypatch.delenv(client.COST_MAP_VARIABLE)
    assert client._cost_map_setting() == "True" and os.environ[client.COST_MAP_VARIABLE] == "True"


# ------------------------------------------------------------------ workers start up before their first batch
_PREPARED: list = []


def _prepare():
    _PREPARED.append(os.getpid())
    return 0.25


def _job(job):
    return {"id": job, "prepared": _PREPARED == [os.getpid()]}  # in this worker, before its first episode


def test_each_worker_starts_up_before_its_first_episode_and_says_how_long():
    pool = Pool(2, _job, key=str, died=lambda job, reason: {"id": job, "died": reason}, prepare=_prepare)
    rows = list(pool.run([["a", "b"], ["c"], ["d"]]))
    assert sorted(r["id"] for r in rows) == ["a", "b", "c", "d"] and all(r["prepared"] for r in rows)
    assert pool.startup == [0.25, 0.25]  # one per worker started, not per batch or episode
    quiet = Pool(1, _job, key=str, died=lambda job, reason: {"id": job}, prepare=lambda: None)  # nothing to load: nothing said
    assert [r["id"] for r in quiet.run([["e"]])] == ["e"] and quiet.startup == []


@pytest.mark.parametrize("seconds, where, said", [
    ([5.04], "plan-eval", "5.0 s in plan-eval's process"),
    ([4.0], "worker", "4.0 s in its one worker"),
    ([12.41, 12.73], "Ray worker", "12.4-12.7 s in each of its 2 Ray workers"),
])
def test_the_start_up_line(seconds, where, said):
    from groundplan.evals.run import startup_note

    assert said in startup_note(seconds, where)
