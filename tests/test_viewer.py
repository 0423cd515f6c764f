"""The viewer's data without a browser (evals/view/): states replayed from a run folder match
the recorded hashes, a problem edited since the run is said rather than drawn wrong, steps to go
agree with the stored optimum, and bad input gets a clear error."""
import json
import shutil
import threading
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundplan.agents.loop import state_hash
from groundplan.engine import Task
from groundplan.cli import main as groundplan
from groundplan.evals.cli import run as evals_run
from groundplan.evals.cli import view as evals_view
from groundplan.evals.view import Runs, problem_runs, serve
from groundplan.evals.view.episodes import replay_frames

PROBLEM = "problems/sync/01_cheese_sandwich_s126.json"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run") / "r"
    problem = PROBLEM if Path(PROBLEM).exists() else str(sorted(Path("problems/sync").glob("01_*.json"))[0])
    done = CliRunner().invoke(evals_run, [problem, "--out", str(folder), "--steps-to-go-time", "0"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return folder, [json.loads(x) for x in (folder / "episodes.jsonl").read_text().splitlines()]


def test_replayed_states_match_every_recorded_hash(run):
    _, rows = run
    for row in rows:
        task = Task.load(row["problem_ref"])
        states = replay_frames(task, row["trajectory"])
        assert [state_hash(s) for s in states[:-1]] == [e["state"] for e in row["trajectory"]]
        assert state_hash(states[-1]) == row["final_state_hash"]


def test_the_oracle_episode_never_leaves_the_optimal_plan_and_counts_down(run):
    folder, rows = run
    oracle = next(r for r in rows if r["agent_label"] == "oracle")
    task = Task.load(oracle["problem_ref"])
    optimum = task.problem.optimal["cost"]
    assert optimum is not None  # the sync tasks' optima are proven
    detail = Runs([folder], togo_time=2.0).detail(0, oracle["id"])
    togo = [f["togo"] for f in detail["frames"]]
    assert togo[0] == f"{optimum:g}" and togo[-1] == "0"
    assert detail["left_plan_at"] is None and not any(f.get("off_plan") for f in detail["frames"])


def test_a_problem_edited_since_the_run_is_said_not_drawn(run, tmp_path):
    folder, rows = run
    row = next(r for r in rows if r["agent_label"] == "oracle")
    edited = json.loads(Path(row["problem_ref"]).read_text())
    edited["init"] = [f for f in edited["init"] if f[0] != "item_on"][:]  # items moved off their stations
    copy = tmp_path / "edited.json"
    copy.write_text(json.dumps(edited | {"domain": str(Path("domains/kitchen/domain.json").resolve())}))
    moved = tmp_path / "r"
    shutil.copytree(folder, moved)
    lines = [json.loads(x) for x in (moved / "episodes.jsonl").read_text().splitlines()]
    for line in lines:
        line["problem_ref"] = str(copy)
    (moved / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    detail = Runs([moved], togo_time=0).detail(0, row["id"])
    assert any("could not be reconstructed" in f.get("lost", "") for f in detail["frames"])


def test_the_server_answers_the_page_an_episode_and_its_steps_to_go(run):
    folder, rows = run
    pages = Runs([folder], togo_time=1.0)
    got = {}
    ready = threading.Event()
    threading.Thread(target=serve, args=(pages, 0, lambda url: (got.update(url=url), ready.set())), daemon=True).start()
    assert ready.wait(30)
    page = urllib.request.urlopen(got["url"]).read().decode()
    assert "gp-index" in page and "ep-0-" not in page  # episodes are fetched, not embedded
    eid = rows[0]["id"]
    detail = json.loads(urllib.request.urlopen(got["url"] + "episode?run=0&id=" + urllib.parse.quote(eid)).read())
    assert len(detail["frames"]) == len(rows[0]["trajectory"]) + 1 and detail.get("togo_pending")
    togo = json.loads(urllib.request.urlopen(got["url"] + "togo?run=0&id=" + urllib.parse.quote(eid)).read())
    assert len(togo["frames"]) == len(detail["frames"])
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(got["url"] + "episode?run=0&id=nope")
    assert info.value.code == 404 and "no episode 'nope'" in info.value.read().decode()


def test_the_server_answers_only_to_loopback_names_and_sends_its_policy(run):
    """Issue 32, item 9: a page elsewhere whose name is rebound to 127.0.0.1 sends its own Host,
    and must read neither the page nor an episode's prompts and replies."""
    import http.client

    folder, rows = run
    got, ready = {}, threading.Event()
    threading.Thread(target=serve, args=(Runs([folder], togo_time=0), 0, lambda url: (got.update(url=url), ready.set())),
                     daemon=True).start()
    assert ready.wait(30)
    port = int(got["url"].rstrip("/").rsplit(":", 1)[1])
    episode = "/episode?run=0&id=" + urllib.parse.quote(rows[0]["id"])

    def get(path: str, host: str | None):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            if host is None:  # no Host header at all
                connection.putrequest("GET", path, skip_host=True)
                connection.endheaders()
            else:
                connection.request("GET", path, headers={"Host": host})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", f"localhost:{port + 1}", "localhost.",
                 f"127.0.0.1:{port}@evil.example", "", None):
        for path in ("/", episode, "/togo?run=0&id=x"):
            status, _, body = get(path, host)
            assert status == 403 and b"prompt" not in body and b"gp-index" not in body, (host, path, status)
    for host in ("127.0.0.1", f"127.0.0.1:{port}", "localhost", f"localhost:{port}", f"LocalHost:{port}", "[::1]", f"[::1]:{port}"):
        status, headers, page = get("/", host)
        assert status == 200 and b"gp-index" in page, host
    status, _, body = get(episode, f"localhost:{port}")
    assert status == 200 and json.loads(body)["frames"]
    # issue 32, item 10: the page may run its own script and style and load nothing from elsewhere
    policy = headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "img-src 'none'" in policy and "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert '<meta http-equiv="Content-Security-Policy"' in page.decode()


def test_the_html_file_carries_its_policy_before_any_style_or_script(run, tmp_path):
    folder, rows = run
    out = tmp_path / "page.html"
    done = CliRunner().invoke(evals_view, [str(folder), "--html", str(out), "--togo-time", "0"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    text = out.read_text()
    meta = text.index('<meta http-equiv="Content-Security-Policy" content="')
    assert meta < text.index("<style>") and meta < text.index("<script")
    policy = text[meta:].split('content="', 1)[1].split('"', 1)[0]
    assert "default-src 'none'" in policy and "img-src 'none'" in policy and "unsafe-inline" not in policy


@pytest.mark.parametrize("args, words", [
    (["view", "RUN", "--episode", "nope", "--html", "x.html"], "no episode 'nope'"),
    (["view", "EMPTY", "--html", "x.html"], "no episodes"),
    (["view", "RUN", "RUN", "RUN"], "one run folder, or two"),
])
def test_bad_view_commands_get_clear_errors(run, tmp_path, args, words):
    folder, _ = run
    empty = tmp_path / "empty"
    empty.mkdir()
    argv = [str(folder) if a == "RUN" else str(empty) if a == "EMPTY" else a for a in args]
    done = CliRunner().invoke(evals_view, argv[1:])  # in this process: an uncaught exception is done.exception
    assert done.exit_code != 0 and words in done.stderr, done.stderr
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception  # no traceback


def test_groundplan_view_of_a_plan_that_is_not_an_action_names_the_step(tmp_path):
    plan = tmp_path / "plan.txt"
    plan.write_text("pick up b\nfly to the moon\n")
    done = CliRunner().invoke(groundplan, ["view", "problems/blocksworld/sussman.json", str(plan), "--html", str(tmp_path / "x.html")])
    assert done.exit_code != 0 and "fly to the moon" in done.stderr, done.stderr
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception  # no traceback


def test_a_problem_and_a_plan_make_a_one_episode_page(tmp_path):
    plan = tmp_path / "plan.txt"  # the Sussman anomaly's optimal plan: 6 steps
    plan.write_text("unstack c from a\nput down c\npick up b\nstack b on c\npick up a\nstack a on b\n")
    runs = problem_runs("problems/blocksworld/sussman.json", str(plan), togo_time=1.0)
    (entry,) = runs.index["runs"][0]["episodes"]
    assert entry["outcome"] == "goal-reached" and entry["agent_label"] == "plan" and entry["steps"] == 6
    detail = runs.detail(0, entry["id"])
    assert [f["togo"] for f in detail["frames"]] == [str(6 - k) for k in range(7)]
    assert detail["left_plan_at"] is None


def test_lines_of_the_wrong_shape_and_duplicates_are_left_out_and_said_not_a_traceback(run, tmp_path):
    folder, rows = run
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "manifest.json").write_text((folder / "manifest.json").read_text())
    good = rows[0]
    lines = [good, dict(rows[1], trajectory="x"), dict(good, id="b", trajectory=[1, 2]), dict(good, id="c", steps="many"), good]
    (damaged / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))

    out = tmp_path / "page.html"
    done = CliRunner().invoke(evals_view, [str(damaged), "--html", str(out), "--togo-time", "0"])
    assert done.exception is None, done.exception  # no traceback
    assert done.exit_code == 0, done.output
    assert "3 line(s) left out" in done.stderr and "line 2: /trajectory is string" in done.stderr
    assert "line 3: /trajectory/0 is integer" in done.stderr and "1 duplicate line(s) left out" in done.stderr
    assert out.exists()

    pages = Runs([damaged], togo_time=0)
    assert list(pages.rows[0]) == [good["id"]]  # the server has only the good episode to replay
    assert pages.detail(0, good["id"])["frames"]


# ------------------------------------------------------------------ issue 34, item 4: question answers played on the picture
def _agent_cell(scene: dict):
    return next((m["r"], m["c"]) for m in scene["marks"] if m.get("title", "").startswith("the agent at"))


def test_a_babyai_plan_answer_is_played_as_far_as_it_was_scored_beside_the_experts():
    from groundplan.engine.problemsets import expand
    from groundplan.evals.view.episodes import playback_tracks

    task = Task.load(expand(["babyai/plan"])[0])
    expert = [a.strip() for a in task.problem.metadata["expert_actions"].split(",")]
    # the expert's actions, a word no agent can do, and two actions past the goal (scoring stops at the goal)
    answer = "The action sequence is: " + ", ".join(expert[:1] + ["jump"] + expert[1:] + ["forward", "left"])
    mine, reference = playback_tracks(task, answer)
    assert [f.get("action") for f in mine["frames"][1:]] == expert
    assert "1 unknown word(s) dropped" in mine["note"] and f"after step {len(expert)}" in mine["note"]
    assert [f.get("action") for f in reference["frames"][1:]] == expert
    # each frame is the state after its action: the agent stands where the engine's own steps put it
    state = task.initial_state()
    for frame, word in zip(mine["frames"][1:], expert):
        state = task.step(state, task.parse_action(word, state)).state
        assert _agent_cell(frame["scene"]) == (task.value(state, "agent-y", ()), task.value(state, "agent-x", ()))
    assert task.is_goal(state)


def test_unreadable_answers_are_said_not_played():
    from groundplan.engine.problemsets import expand
    from groundplan.evals.view.episodes import playback_tracks

    for kind, answer in (("plan", "I would rather not."), ("predict", "somewhere"), ("decompose", "no subgoals")):
        tracks = playback_tracks(Task.load(expand([f"babyai/{kind}"])[0]), answer)
        mine = tracks[0]
        assert mine["frames"][0]["scene"]["kind"] == "grid"
        if kind == "predict":  # the row's own actions are played, and the prediction said unreadable
            assert "unreadable" in mine["note"] and len(mine["frames"]) > 1
        else:
            assert "nothing to play" in mine["note"] and len(mine["frames"]) == 1


def test_leaderboard_rows_link_to_their_episodes_in_viewer_pages(run, tmp_path):
    from groundplan.evals.cli import leaderboard

    folder, rows = run
    out = tmp_path / "board"
    done = CliRunner().invoke(leaderboard, [str(folder), "--out", str(out), "--viewer"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    md = (out / "leaderboard.md").read_text()
    board = json.loads((out / "leaderboard.json").read_text())
    page = out / "episodes" / f"1-{folder.name}.html"
    assert page.exists() and all(r["id"] in page.read_text() for r in rows)
    linked = set()
    for entry in board["entries"]:
        labels = {link["agent"] for link in entry["episode_links"]}
        assert len(labels) == 1 and entry["model"] in next(iter(labels))  # a row links to its own agent's episodes
        linked |= labels
        for link in entry["episode_links"]:
            assert f"](episodes/1-{folder.name}.html#{link['fragment']})" in md
    assert linked == {r["agent_label"] for r in rows}
    done = CliRunner().invoke(leaderboard, [str(folder), "--viewer"], catch_exceptions=False)
    assert done.exit_code != 0 and "--out" in done.output
