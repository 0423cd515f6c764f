"""Samples that are sampled (issue 31): the episode's seed in the LLM cache key, `--samples N` with
pass@k, the cache modes, cached tokens and dollars apart from spent ones, and unknown prices said
as unknown. LLM runs talk to the scripted server on loopback (`llm_server.py`), with the `io`
strategy (one request an episode) on small kitchen problems."""
import csv
import io
import json
from itertools import combinations
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.engine.task import Task
from groundplan.evals.cli import report, run
from llm_server import ScriptedServer

P1, P2 = "problems/sync/01_cheese_sandwich_s42.json", "problems/sync/02_lettuce_sandwich_s42.json"
MODEL = "openai/gpt-4o-mini"
UNPRICED = "openai/groundplan-model-without-a-price"
FAKE_KEY = "sk-test-0123456789abcdef"
BAD = "Plan:\n1. Juggle the lettuce"


def _plan(problem: str) -> str:
    steps = Task.load(problem).problem.optimal["plan"]
    return "Plan:\n" + "\n".join(f"{i}. {a}" for i, a in enumerate(steps, 1))


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "cache"))


def _eval(server, problems, out, *extra, model=MODEL, command=run):
    args = [*problems, "--agent", "llm", "--model", model, "--api-base", server.api_base, "--strategy", "io",
            "--steps-to-go-time", "0", "--llm-retries", "0", "--out", str(out), *extra]
    result = CliRunner().invoke(command, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout  # the table (stderr may say how long the LLM start-up took)


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "episodes.jsonl").read_text().splitlines()]


def _summary(folder: Path) -> dict:
    (entry,) = json.loads((folder / "summary.json").read_text())["by_set"]
    return entry


def _label(model=MODEL) -> str:
    return f"llm:{model}:io"


# ------------------------------------------------------------------ item 1: the seed is in the key
def test_another_seed_draws_new_replies_and_the_same_seed_replays_them(tmp_path):
    with ScriptedServer(default=BAD) as server:
        _eval(server, [P1], tmp_path / "a", "--seed", "0")
        assert len(server.requests) == 1
        _eval(server, [P1], tmp_path / "b", "--seed", "1")  # temperature 0.7: a new sample, not the cache's reply
        assert len(server.requests) == 2
        _eval(server, [P1], tmp_path / "c", "--seed", "0")  # the same seed: replayed
        assert len(server.requests) == 2
        _eval(server, [P1], tmp_path / "d", "--seed", "2", "--no-llm-seed")  # not sent, still in the key
        assert len(server.requests) == 3
        bodies = [r["body"] for r in server.requests]
    from groundplan.agents.llm.client import provider_seed
    from groundplan.evals.run import episode_seed

    seeds = [episode_seed(s, _label(), P1) for s in (0, 1)]
    assert [b.get("seed") for b in bodies] == [provider_seed(seeds[0]), provider_seed(seeds[1]), None]
    assert [r["seed"] for r in _lines(tmp_path / "a")] == [seeds[0]] == [r["seed"] for r in _lines(tmp_path / "c")]
    assert _lines(tmp_path / "c")[0]["requests"] == 0


# ------------------------------------------------------------------ item 2: --samples N and pass@k
def test_samples_are_episodes_of_their_own_resumed_reported_and_scored_by_pass_at_k(tmp_path):
    from groundplan.evals.run import episode_seed

    out = tmp_path / "run"
    with ScriptedServer([_plan(P1), BAD] + [BAD] * 4) as server:  # P1, P2; then P1 @s1 @s2, P2 @s1 @s2
        _eval(server, [P1, P2], out)  # one sample: today's ids and seeds
        before = {r["id"]: r for r in _lines(out)}
        assert set(before) == {f"{_label()}::{P1}", f"{_label()}::{P2}"}
        _eval(server, [P1, P2], out, "--samples", "3", "--resume")
        assert len(server.requests) == 6  # sample 0 was not run again
    rows = {r["id"]: r for r in _lines(out)}
    assert set(rows) == {f"{_label()}::{p}" + s for p in (P1, P2) for s in ("", "@s1", "@s2")}
    for ref in (P1, P2):
        assert rows[f"{_label()}::{ref}"] == before[f"{_label()}::{ref}"]
        for i in (1, 2):
            row = rows[f"{_label()}::{ref}@s{i}"]
            assert row["sample"] == i and row["seed"] == episode_seed(0, _label(), ref, i) and row["problem_ref"] == ref
    assert len({r["seed"] for r in rows.values()}) == 6
    entry = _summary(out)
    # P1: 1 success of 3 samples, P2: none; pass@k per problem, then averaged
    assert entry["episodes"] == 6 and entry["success_rate"] == pytest.approx(1 / 6)
    assert entry["samples"] == 3 and entry["pass@1"] == pytest.approx(1 / 6) and entry["pass@3"] == pytest.approx(0.5)
    assert "pass@3" in (out / "summary.md").read_text()
    (table_row,) = [r for r in csv.DictReader(io.StringIO((out / "summary.csv").read_text())) if r["level"] == "problem_set"]
    assert float(table_row["pass@3"]) == pytest.approx(0.5) and table_row["samples"] == "3"
    reported = json.loads(CliRunner().invoke(report, [str(out), "--format", "json"]).output)["by_set"][0]
    assert reported["pass@3"] == pytest.approx(0.5) and reported["pass@1"] == pytest.approx(1 / 6)


def test_samples_give_the_same_lines_with_workers(tmp_path):
    def lines(folder):
        return {r["id"]: {k: v for k, v in r.items() if k != "seconds"} for r in _lines(folder)}

    common = [P1, P2, "--agent", "random", "--samples", "2", "--steps-to-go-time", "0", "--seed", "3"]
    for name, extra in (("one", []), ("two", ["--workers", "2"])):
        result = CliRunner().invoke(run, common + ["--out", str(tmp_path / name), *extra], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    one = lines(tmp_path / "one")
    assert len(one) == 4 and one == lines(tmp_path / "two")
    assert one[f"random::{P1}"]["trajectory"] != one[f"random::{P1}@s1"]["trajectory"]  # another seed, another walk


def test_pass_at_k_is_the_unbiased_estimator():
    from groundplan.evals.summary import pass_at, pass_at_k

    for n in range(1, 7):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):  # the chance that k samples drawn without replacement hold a success
                draws = list(combinations(range(n), k))
                assert pass_at_k(n, c, k) == pytest.approx(sum(any(outcomes[i] for i in d) for d in draws) / len(draws))
    rows = [{"id": f"a::{p}{s}", "problem_ref": p, "success": ok}
            for p, results in (("x", (1, 0, 0, 0)), ("y", (1, 1, 0, 0))) for s, ok in zip(("", "@s1", "@s2", "@s3"), results)]
    assert pass_at(rows) == pytest.approx({"samples": 4, "pass@1": 0.375, "pass@4": 1.0})
    assert pass_at(rows[:1] + rows[4:5]) == {}  # one sample each: nothing to add


# ------------------------------------------------------------------ items 3 and 4: cache modes, cached apart from spent
def test_a_cached_rerun_spends_nothing_and_reports_the_cached_apart_and_refresh_asks_again(tmp_path):
    with ScriptedServer(default=BAD) as server:
        _eval(server, [P1], tmp_path / "a")
        table = _eval(server, [P1], tmp_path / "b")
        assert len(server.requests) == 1
        _eval(server, [P1], tmp_path / "c", "--cache", "refresh")
        assert len(server.requests) == 2
    (first,), (again,), (refreshed,) = (_lines(tmp_path / n) for n in "abc")
    assert first["tokens"] > 0 and first["cost_usd"] > 0 and first["cached_tokens"] == 0
    assert (again["prompt_tokens"], again["completion_tokens"], again["tokens"], again["cost_usd"]) == (0, 0, 0, 0.0)
    assert again["cached_tokens"] == first["tokens"] and again["cached_cost_usd"] == first["cost_usd"]
    assert refreshed["tokens"] == first["tokens"] and refreshed["cached_tokens"] == 0 and refreshed["requests"] == 1
    entry = _summary(tmp_path / "b")
    assert (entry["tokens"], entry["cost_usd"]) == (0, 0.0)
    assert (entry["cached_tokens"], entry["cached_cost_usd"]) == (first["tokens"], round(first["cost_usd"], 6))
    assert "cached_tokens" in table and "cached_cost_usd" in (tmp_path / "b" / "summary.md").read_text()
    help_text = CliRunner().invoke(run, ["--help"]).output
    assert "GROUNDPLAN_CACHE" in help_text and all(mode in help_text for mode in ("off:", "read:", "write:", "refresh:"))


def test_each_cache_mode_reads_and_writes_as_it_says(tmp_path):
    from groundplan.agents.llm.cache import DiskCache
    from groundplan.agents.llm.client import Client

    messages = [{"role": "user", "content": "Say something."}]
    cache = DiskCache(tmp_path / "modes")

    def client(mode):
        return Client(MODEL, api_base=server.api_base, api_key=FAKE_KEY, cache=cache, cache_mode=mode, max_retries=0)

    def entries():
        return sorted(json.loads(p.read_text())["text"] for p in cache.folder.rglob("*.json"))

    with ScriptedServer([f"reply {i}" for i in range(1, 9)]) as server:
        assert client("on").complete(messages, seed=1).text == "reply 1"
        assert client("on").complete(messages, seed=1).cached  # stored, replayed
        assert client("off").complete(messages, seed=1).text == "reply 2"  # not read ...
        assert client("off").complete(messages, seed=5).text == "reply 3" and entries() == ["reply 1"]  # ... nor written
        assert client("read").complete(messages, seed=1).text == "reply 1"  # read ...
        assert client("read").complete(messages, seed=2).text == "reply 4" and entries() == ["reply 1"]  # ... a miss not written
        assert client("write").complete(messages, seed=1).text == "reply 5"  # never read; the entry there is kept
        assert client("write").complete(messages, seed=3).text == "reply 6"  # a new one is stored
        assert entries() == ["reply 1", "reply 6"]
        assert client("refresh").complete(messages, seed=1).text == "reply 7"  # asked again, and replaces the entry
        assert entries() == ["reply 6", "reply 7"]
        assert client("on").complete(messages, seed=1).text == "reply 7" and len(server.requests) == 7
    from groundplan.engine.errors import GroundplanError

    with pytest.raises(GroundplanError, match="not a cache mode.*refresh"):
        Client(MODEL, cache=False, cache_mode="fresh")


# ------------------------------------------------------------------ item 5: unknown prices
def test_a_model_without_a_price_has_unknown_dollars_not_zero(tmp_path):
    with ScriptedServer(default=BAD) as server:
        table = _eval(server, [P1], tmp_path / "a", model=UNPRICED)
        _eval(server, [P1], tmp_path / "b", model=UNPRICED)  # replayed: the cached dollars are unknown too
    (first,), (again,) = _lines(tmp_path / "a"), _lines(tmp_path / "b")
    assert first["tokens"] > 0 and first["cost_usd"] is None and first["unpriced"] == 1
    assert again["cached_tokens"] == first["tokens"] and again["cached_cost_usd"] is None and again["cost_usd"] is None
    entry = _summary(tmp_path / "a")
    assert entry["cost_usd"] is None and entry["unpriced_episodes"] == 1
    row = table.splitlines()[2].split()
    assert row[-1] == "unknown" and "0.000" not in row[-1]
    assert "| unknown |" in (tmp_path / "a" / "summary.md").read_text()
    (csv_row,) = [r for r in csv.DictReader(io.StringIO((tmp_path / "a" / "summary.csv").read_text())) if r["level"] == "problem_set"]
    assert csv_row["cost_usd"] == "unknown"
    assert any("no price" in note and "unknown" in note for note in json.loads((tmp_path / "a" / "summary.json").read_text())["notes"])


def test_partly_priced_dollars_are_a_lower_bound_and_old_lines_still_read():
    from groundplan.evals.summary import markdown, summarise

    def row(i, **fields):
        return {"id": f"llm::p{i}", "problem_ref": f"p{i}", "agent_label": "llm", "problem_set": "s", "success": True,
                "tokens": 10, **fields}

    summary = summarise([row(0, cost_usd=0.25, unpriced=0), row(1, cost_usd=None, unpriced=2)])
    (entry,) = summary["by_set"]
    assert entry["cost_usd"] == 0.25 and entry["unpriced_episodes"] == 1
    assert "| >=0.250 |" in markdown(summary)
    assert any("1 of 2 episode(s)" in note and "lower bound" in note for note in summary["notes"])
    (old,) = summarise([row(0, cost_usd=0.5)])["by_set"]  # a line written before the split: no cached fields
    assert (old["tokens"], old["cost_usd"], old["cached_tokens"], old["unpriced_episodes"]) == (10, 0.5, 0, 0)
    assert "samples" not in old and "pass@1" not in old
