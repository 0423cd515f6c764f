"""The LLM client under bad conditions: a server that never answers or sends a byte a second, a
deadline, a damaged cache, re-prompts that must reach the model, failures that must still be
counted, a runaway reply, and a reply that repeats the API key.
Everything talks to servers on loopback; no test needs a key or the network."""
import json
import socket
import threading
import time

import pytest
from click.testing import CliRunner

from groundplan.agents import Limits, make_agent, run_episode
from groundplan.agents.llm.agent import cut
from groundplan.agents.llm.client import Client, DeadlineReached, ModelCallError
from groundplan.agents.loop import AGENT_ERROR, GOAL, TIME_LIMIT
from groundplan.engine.errors import GroundplanError
from groundplan.engine.task import Task
from groundplan.evals.cli import run as plan_eval
from llm_server import ScriptedServer

PROBLEM = "problems/sync/02_lettuce_sandwich_s42.json"
MODEL = "openai/gpt-4o-mini"
FAKE_KEY = "sk-test-0123456789abcdef"


class HangingServer:
    """Accepts connections and never reads or answers them, like a provider that hangs."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.05)  # so the accepting thread sees the stop flag and ends before the socket is closed
        self.connections: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self):
        while not self.stop.is_set():
            try:
                connection, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections.append(connection)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        for connection in self.connections:
            connection.close()
        self.sock.close()


@pytest.fixture(scope="module", autouse=True)
def litellm_loaded():
    """litellm takes seconds to import; import it once here so it does not count against a deadline."""
    from groundplan.agents.llm.client import _litellm

    _litellm()


@pytest.fixture(scope="module")
def task():
    return Task.load(PROBLEM)


@pytest.fixture(scope="module")
def plan(task):
    return task.problem.optimal["plan"]


def _agent(api_base, cache=None, **options):
    options.setdefault("strategy", "react")
    options.setdefault("backoff", 0.01)
    if cache is None:
        options["no_cache"] = True
    else:
        options["cache_dir"] = str(cache)
    return make_agent("llm", model=MODEL, api_base=api_base, api_key=FAKE_KEY, **options)


def _within(seconds: float, work):
    """work()'s result, or a failure if it has not returned after `seconds` (the old client held
    a hanging request for minutes; the test must not)."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", work()), daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return box["result"], time.monotonic() - started


# ------------------------------------------------------------------ a hanging server (item 3)
def test_episode_time_cuts_a_request_that_never_ends(task):
    with HangingServer() as server:
        episode, took = _within(15, lambda: run_episode(task, _agent(server.api_base), Limits(seconds=3)))
    assert episode.outcome == TIME_LIMIT and not episode.success
    assert took < 6
    assert "time ran out" in episode.error and FAKE_KEY not in episode.error
    assert episode.requests == 1  # the request that was cut short is counted


def test_backoff_never_sleeps_past_the_deadline():
    with ScriptedServer(default=None) as server:  # every request answers 500
        client = Client(MODEL, api_base=server.api_base, api_key=FAKE_KEY, cache=False, backoff=30, max_retries=3)
        started = time.monotonic()
        with pytest.raises(DeadlineReached) as caught:
            client.complete([{"role": "user", "content": "hi"}], deadline=started + 1.5)
        took = time.monotonic() - started
    assert 1.4 < took < 3  # it slept until the deadline, not the 15 to 30 s the backoff asked for
    assert caught.value.requests == 1 == len(server.requests)


def test_plan_eval_llm_timeout_and_retries_bound_a_hanging_server(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with HangingServer() as server:
        args = [PROBLEM, "--agent", "llm", "--model", MODEL, "--api-base", server.api_base, "--llm-timeout", "1",
                "--llm-retries", "1", "--steps-to-go-time", "0", "--out", str(out), "--format", "json"]
        result, took = _within(20, lambda: CliRunner().invoke(plan_eval, args))
    assert result.exit_code == 1, result.output  # an episode the agent could not run: said, and not a clean run
    assert "agent-error" in result.output
    (row,) = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert row["outcome"] == AGENT_ERROR
    assert "did not answer within 1 s, 2 time(s)" in row["error"] and FAKE_KEY not in row["error"]
    assert row["requests"] == 2
    assert 1.8 < row["seconds"] < 5 and took < 10
    options = json.loads((out / "manifest.json").read_text())["agents"][0]["options"]
    assert options["timeout"] == 1.0 and options["max_retries"] == 1


def test_plan_eval_keeps_unset_llm_options_out_of_the_manifest(tmp_path, monkeypatch, plan):
    """A run folder made before the options existed resumes with the same command."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with ScriptedServer([f"Action: {a}" for a in plan]) as server:
        args = [PROBLEM, "--agent", "llm", "--model", MODEL, "--api-base", server.api_base, "--steps-to-go-time", "0",
                "--out", str(out)]
        result = CliRunner().invoke(plan_eval, args)
    assert result.exit_code == 0, result.output
    options = json.loads((out / "manifest.json").read_text())["agents"][0]["options"]
    assert set(options) == {"model", "api_base"}  # no --strategy: the world's default, recorded per episode
    help_text = CliRunner().invoke(plan_eval, ["--help"]).output
    assert "--llm-timeout" in help_text and "--llm-retries" in help_text


# ------------------------------------------------------------------ the cache (item 7a, 7b)
def test_a_damaged_cache_entry_is_a_miss_and_is_rewritten(task, plan, tmp_path):
    cache = tmp_path / "cache"
    with ScriptedServer([f"Action: {a}" for a in plan]) as server:
        assert run_episode(task, _agent(server.api_base, cache, temperature=0.0)).success
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == len(plan)
    damage = ["{}", '{"text": "Action: x"}', "null", '{"text": 1, "prompt_tokens": 1, "completion_tokens": 1, "cost_usd": 0}']
    for i, path in enumerate(entries):
        path.write_text(damage[i % len(damage)])
    with ScriptedServer([f"Action: {a}" for a in plan]) as server:
        episode = run_episode(task, _agent(server.api_base, cache, temperature=0.0))
        assert len(server.requests) == len(plan)  # every damaged entry was asked again ...
    assert episode.outcome == GOAL and episode.requests == len(plan)
    assert all("text" in json.loads(path.read_text()) for path in entries)  # ... and written back whole
    with ScriptedServer([]) as server:
        again = run_episode(task, _agent(server.api_base, cache, temperature=0.0))
        assert server.requests == []
    assert again.success and again.requests == 0


def test_a_reprompt_reaches_the_model_and_a_rerun_replays_it(task, plan, tmp_path):
    """With the last step as history, the second re-prompt after the same invalid answer is the
    same request as the first: it must get a fresh reply, not the cached invalid one."""
    cache = tmp_path / "cache"
    script = ["Action: dance", "Action: dance"] + [f"Action: {a}" for a in plan]
    with ScriptedServer(script) as server:
        first = run_episode(task, _agent(server.api_base, cache))
        bodies = [r["body"]["messages"] for r in server.requests]
    assert bodies[1] == bodies[2]  # the same request, asked twice ...
    assert first.outcome == GOAL and first.reprompts == 2 and len(bodies) == len(plan) + 2  # ... answered twice
    with ScriptedServer([]) as server:
        again = run_episode(task, _agent(server.api_base, cache))
        assert server.requests == []
    assert again.outcome == GOAL and again.requests == 0
    assert [e["answer"] for e in again.trajectory] == [e["answer"] for e in first.trajectory]


# ------------------------------------------------------------------ failed requests are counted (item 7c)
def test_a_provider_that_keeps_failing_counts_every_request(task):
    with ScriptedServer(default=None) as server:  # every request answers 500
        episode = run_episode(task, _agent(server.api_base, max_retries=2))
        made = len(server.requests)
    assert episode.outcome == AGENT_ERROR
    assert episode.requests == made == 3


def test_a_failure_after_a_reprompt_keeps_the_tokens_already_spent(task, monkeypatch):
    script = [{"text": "no plan in this answer", "usage": (50, 5)}]  # a cot answer with no Action line, then 500s
    with ScriptedServer(script) as server:
        from groundplan.agents.profile import profile_for

        # Robotouille ends a run with no readable plan at once (plan_reprompts: 0); re-ask here
        monkeypatch.setitem(profile_for(task).loop, "plan_reprompts", 1)
        episode = run_episode(task, _agent(server.api_base, strategy="cot", max_retries=1))
        made = len(server.requests)
    assert episode.outcome == AGENT_ERROR
    assert episode.requests == made == 3
    assert (episode.prompt_tokens, episode.completion_tokens) == (50, 5)


# ------------------------------------------------------------------ a runaway reply (item 7d)
def test_a_huge_reply_is_cut_where_it_is_kept_and_where_it_is_repeated(task, plan):
    huge = "Reasoning: " + "think " * 200_000  # 1.2 MB and no Action line
    script = [huge, huge + f"\nAction: {plan[0]}"] + [f"Action: {a}" for a in plan[1:]]
    with ScriptedServer(script) as server:
        episode = run_episode(task, _agent(server.api_base))
        sent = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert episode.outcome == GOAL  # the Action after the cut was still read
    note = f"[... reply cut: {len(huge.strip()):,} characters, kept the first 20,000]"
    # the re-prompt repeats the cut reply (as the reasoning and as the answer read), not 1.2 MB
    assert note in sent[1] and len(sent[1]) < 45_000
    assert len(sent[2]) < 25_000  # so does the next step's history (the reasoning)
    assert len(json.dumps(episode.to_json())) < 600_000  # the prompts of 16 requests; uncut, the reply alone is 3.6 MB of it
    assert episode.trajectory[1]["detail"]["reasoning"].endswith("kept the first 20,000]")


def test_the_cap_is_an_option_and_says_what_it_cut():
    assert cut("abcdef", 4) == "abcd\n[... reply cut: 6 characters, kept the first 4]"
    assert cut("abc", 4) == "abc" and cut("x" * 50, None) == "x" * 50
    with pytest.raises(GroundplanError, match="max_reply_chars"):
        make_agent("llm", model=MODEL, no_cache=True, max_reply_chars=0)
    # the agent accounts any ModelCallError; the loop scores a TimeoutError at the deadline as time-limit
    assert issubclass(DeadlineReached, ModelCallError) and issubclass(DeadlineReached, TimeoutError)


def test_a_cache_that_cannot_be_written_does_not_cost_the_reply(tmp_path, monkeypatch, capsys):
    import errno

    from groundplan.agents.llm.cache import DiskCache

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")
    cache = DiskCache(tmp_path / "cache")
    monkeypatch.setattr("tempfile.mkstemp", full)
    cache.put("ab" * 32, {"text": "move north"})  # used to raise, losing the paid reply with the episode
    cache.put("cd" * 32, {"text": "move south"})
    assert cache.get("ab" * 32) is None
    assert capsys.readouterr().err.count("cannot be written") == 1  # said once, not per reply


# ------------------------------------------------------------------ a server that dribbles (issue 32, item 4)
def test_llm_timeout_bounds_a_server_that_sends_a_byte_a_second(tmp_path, monkeypatch):
    """Each read gets a byte within the per-read timeout, so only a bound on the whole request ends it."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with ScriptedServer([{"drip": 12}, {"drip": 12}], default=None) as server:
        args = [PROBLEM, "--agent", "llm", "--model", MODEL, "--api-base", server.api_base, "--llm-timeout", "2",
                "--llm-retries", "1", "--max-steps", "3", "--steps-to-go-time", "0", "--out", str(out), "--format", "json"]
        result, took = _within(20, lambda: CliRunner().invoke(plan_eval, args))
        assert len(server.requests) == 2  # the timed-out request was retried once, and no more
    assert result.exit_code == 1, result.output
    (row,) = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert row["outcome"] == AGENT_ERROR
    assert "did not answer within 2 s, 2 time(s)" in row["error"] and FAKE_KEY not in row["error"]
    assert row["requests"] == 2
    assert 3.8 < row["seconds"] < 6.5 and took < 9


def test_episode_time_cuts_a_dribbling_request(task):
    with ScriptedServer([{"drip": 12}], default=None) as server:
        episode, took = _within(10, lambda: run_episode(task, _agent(server.api_base, timeout=30), Limits(seconds=2)))
    assert episode.outcome == TIME_LIMIT and took < 4 and episode.requests == 1


# ------------------------------------------------------------------ a key echoed in a reply (issue 32, item 11)
def test_a_key_a_reply_repeats_is_stored_nowhere(tmp_path, monkeypatch, plan):
    key = "zq7Unshaped4711keyValue"  # no known shape: only knowing the key finds it
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "run"
    script = [f"Reasoning: you sent me {key}, no action here."]  # unreadable: re-prompted with the reply repeated
    script += [f"Reasoning: key {key} is fine.\nAction: {a} {key}" if i == 0 else f"Reasoning: with {key}.\nAction: {a}"
               for i, a in enumerate(plan)]
    script.insert(2, f"Reasoning: key {key}.\nAction: {plan[0]}")
    args = [PROBLEM, "--agent", "llm", "--model", MODEL, "--api-base", "", "--strategy", "react", "--steps-to-go-time", "0",
            "--out", str(out), "--format", "json"]
    with ScriptedServer(script) as server:
        args[args.index("--api-base") + 1] = server.api_base
        result = CliRunner().invoke(plan_eval, args)
        sent = [json.dumps(r["body"]) for r in server.requests]
    assert "goal" in result.output, result.output
    assert len(sent) == len(plan) + 2 and all(key not in body for body in sent)  # what later prompts repeat
    assert any("[redacted]" in body for body in sent[1:])
    stored = [p for folder in (out, tmp_path / "cache") for p in folder.rglob("*") if p.is_file()]
    assert len([p for p in stored if p.suffix == ".json" and "cache" in p.parts]) == len(plan) + 2
    assert [str(p) for p in stored if key in p.read_text(errors="replace")] == []
    # a rerun replays the redacted replies, and takes the same path
    with ScriptedServer([]) as server:
        again = CliRunner().invoke(plan_eval, args[:-4] + ["--out", str(tmp_path / "again"), "--format", "json"])
        assert server.requests == []
    assert "goal" in again.output, again.output


def test_a_cache_entry_written_with_the_key_is_replayed_redacted(tmp_path):
    from groundplan.agents.llm.cache import DiskCache

    cache = DiskCache(tmp_path / "cache")
    client = Client(MODEL, api_base="http://127.0.0.1:9/v1", api_key=FAKE_KEY, cache=cache)
    messages = [{"role": "user", "content": "hi"}]
    cache.put(client.key(messages), {"text": f"Action: wait {FAKE_KEY}", "prompt_tokens": 1, "completion_tokens": 1, "cost_usd": 0.0})
    replayed = client.complete(messages)  # an entry from before replies were redacted
    assert replayed.cached and replayed.text == "Action: wait [redacted]"
