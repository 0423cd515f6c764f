"""The episode viewer in a real headless Chromium (issue 22): what a person sees when stepping
through a run with the keyboard, filtering the list, and comparing two runs side by side.

Expected values come from the run folder itself (episodes.jsonl: the actions taken and the state
hashes before and after each step), never from the viewer's code."""
import json
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import launch, require_browser

PROBLEMS = ["problems/async/01_cheese_chicken_sandwich_s126.json", "problems/async/02_lettuce_chicken_sandwich_s126.json"]


def plan_eval(*args):
    """plan-eval in this process (these tests are about the page, not the process)."""
    from groundplan.evals.cli import run, view

    command, args = (view, args[1:]) if args[0] == "view" else (run, args)
    done = CliRunner().invoke(command, list(args), catch_exceptions=False)
    assert done.exit_code == 0, done.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    a, b = root / "a", root / "b"
    plan_eval(*PROBLEMS, "--out", str(a), "--steps-to-go-time", "0")
    plan_eval(*PROBLEMS, "--agent", "random", "--seed", "7", "--out", str(b), "--steps-to-go-time", "0")
    rows = [json.loads(line) for line in (a / "episodes.jsonl").read_text().splitlines()]
    return a, b, rows


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the page's own script and style run under its Content-Security-Policy: no violation reported
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    # (so a test waits on a function, "() => ...": an expression string is run by eval, which the policy refuses)
    page.goto(url)
    page.wait_for_selector(".pane .counter")
    return page, errors


def counter(page, run: int = 0) -> str:
    return page.text_content(f'.pane[data-run="{run}"] .counter')


def test_stepping_through_an_episode_with_the_keyboard(runs, browser, tmp_path):
    a, _, rows = runs
    out = tmp_path / "a.html"
    plan_eval("view", str(a), "--html", str(out), "--togo-time", "0")
    row = next(r for r in rows if r["agent_label"] == "random")
    trajectory, n = row["trajectory"], len(row["trajectory"])
    page, errors = open_page(browser, out.as_uri() + "#" + row["id"])
    assert counter(page).startswith(f"Step 0 of {n}")
    assert page.text_content(".pane .action") == trajectory[0]["action"]
    def drawn():  # the picture without the highlight of what changed since the step before
        return page.inner_html(".pane .picture").replace(" changed", "")
    picture = drawn()
    for k in range(1, 8):
        page.keyboard.press("ArrowRight")
        assert counter(page).startswith(f"Step {k} of {n}")
        assert page.text_content(".pane .action") == trajectory[k]["action"]
        now = drawn()
        moved = trajectory[k - 1]["state"] != trajectory[k - 1]["next_state"]
        changed_places = page.locator(".pane .place.changed").count()
        assert (now != picture) == moved, (k, trajectory[k - 1])
        assert (changed_places > 0) == moved
        picture = now
    page.keyboard.press("ArrowLeft")
    assert counter(page).startswith(f"Step 6 of {n}")
    page.keyboard.press("End")
    assert counter(page) == f"Step {n} of {n} (end: {row['outcome']})"
    slider = page.locator("#slider")
    assert slider.get_attribute("max") == str(n)
    assert errors == []


def test_the_list_filters_by_outcome_and_agent(runs, browser, tmp_path):
    a, _, rows = runs
    out = tmp_path / "a.html"
    plan_eval("view", str(a), "--html", str(out), "--togo-time", "0")
    page, _ = open_page(browser, out.as_uri())
    assert page.locator("#episodes tr.episode").count() == len(rows)
    page.select_option("#filter-outcome", "goal-reached")
    assert page.locator("#episodes tr.episode").count() == sum(r["outcome"] == "goal-reached" for r in rows) > 0
    page.select_option("#filter-outcome", "")
    page.select_option("#filter-agent", "random")
    shown = page.locator("#episodes tr.episode")
    assert shown.count() == sum(r["agent_label"] == "random" for r in rows)
    shown.nth(1).click()
    page.wait_for_function("() => document.querySelector('.pane h2').textContent.length > 0")
    chosen = shown.nth(1).get_attribute("data-id")
    assert page.text_content(".pane h2") == next(r["problem"] for r in rows if r["id"] == chosen)


def test_two_runs_side_by_side_on_loopback(runs, browser):
    a, b, rows = runs
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from groundplan.evals.view import Runs, serve

    pages = Runs([a, b], togo_time=0.3)
    ready = threading.Event()
    address = {}

    def started(url):
        address["url"] = url
        ready.set()
    thread = threading.Thread(target=serve, args=(pages, 0, started), daemon=True)
    thread.start()
    assert ready.wait(30)
    oracle = next(r for r in rows if r["agent_label"] == "oracle")
    b_rows = [json.loads(line) for line in (b / "episodes.jsonl").read_text().splitlines()]
    partner = next(r for r in b_rows if r["problem"] == oracle["problem"])
    page, errors = open_page(browser, address["url"] + "#" + oracle["id"])
    assert page.locator(".pane").count() == 2
    assert counter(page, 0).startswith(f"Step 0 of {len(oracle['trajectory'])}")
    assert counter(page, 1).startswith(f"Step 0 of {len(partner['trajectory'])}")
    page.keyboard.press("ArrowRight")
    assert counter(page, 0).startswith("Step 1 of") and counter(page, 1).startswith("Step 1 of")
    assert page.text_content('.pane[data-run="1"] .action') == partner["trajectory"][1]["action"]
    # the oracle's steps to go arrive from the server after the pictures
    page.wait_for_function("() => !document.querySelector('.pane[data-run=\"0\"]').textContent.includes('searching')", timeout=60000)
    assert errors == []


WORLDS = {
    "kitchen": ("problems/sync/04_burger_s126.json", ".place"),
    "ppnl": ("problems/ppnl/single_5x5.jsonl#5x5-k1-e000-s06", ".cell"),
    "grasp": ("problems/grasp/inner_cluster_block.jsonl#grid00-mu1-nolimit-cost0", ".cell"),
    "plancraft": ("problems/plancraft/val.small.jsonl#VAL0491", ".cell"),
}


@pytest.mark.parametrize("world", sorted(WORLDS))
def test_every_world_is_drawn_from_its_data(world, browser, tmp_path):
    problem, selector = WORLDS[world]
    out = tmp_path / f"{world}.html"
    from groundplan.cli import main

    done = CliRunner().invoke(main, ["view", problem, "--html", str(out), "--togo-time", "0"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    page, errors = open_page(browser, out.as_uri())
    from groundplan.engine import Task
    from groundplan.engine.picture import scene

    task = Task.load(problem)
    expected = scene(task, task.initial_state())
    drawn = page.locator(f".pane {selector}").count()
    same_colour = """([selector, colour]) => {
        const probe = document.createElement("div");
        probe.style.backgroundColor = colour;
        return document.querySelector(selector).style.backgroundColor === probe.style.backgroundColor;
    }"""
    if expected["kind"] == "grid":
        assert drawn == expected["rows"] * expected["cols"]
        fills = {(m["r"], m["c"]): m["fill"] for m in expected["marks"] if m.get("fill")}  # the last mark's fill shows
        for (r, c), colour in list(fills.items())[:3]:  # colours are painted under the page's policy
            assert page.evaluate(same_colour, [f'.pane .cell[data-r="{r}"][data-c="{c}"]', colour]), (r, c, colour)
    else:
        assert drawn == len(expected["places"])
        for p in [p for p in expected["places"] if p.get("color")][:3]:
            assert page.evaluate(same_colour, [f'.pane .place[data-name="{p["name"]}"]', p["color"]]), p
    assert errors == []


def test_the_page_loads_nothing_from_elsewhere(runs, browser, tmp_path):
    """Issue 32, item 10: whatever a page shows (a colour that is more than a colour, an image),
    its policy keeps Chromium from fetching another address, from a --html file and from the server."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from groundplan.evals.view import Runs, serve

    fetched = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self):
            fetched.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

        def log_message(self, *args):
            pass
    outside = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=outside.serve_forever, daemon=True).start()
    there = f"http://127.0.0.1:{outside.server_address[1]}"
    a, _, rows = runs
    out = tmp_path / "a.html"
    plan_eval("view", str(a), "--html", str(out), "--togo-time", "0")
    ready, address = threading.Event(), {}
    threading.Thread(target=serve, args=(Runs([a], togo_time=0), 0, lambda url: (address.update(url=url), ready.set())),
                     daemon=True).start()
    assert ready.wait(30)
    try:
        for url in (out.as_uri(), address["url"]):
            page, errors = open_page(browser, url)
            page.evaluate("""(there) => {
                window.refused = 0;
                document.addEventListener("securitypolicyviolation", () => { window.refused += 1; });
                const cell = document.querySelector(".pane .picture *");
                cell.style.cssText = "background:#4a4a4a;background-image:url(" + there + "/css)";
                const img = document.createElement("img"); img.src = there + "/img"; document.body.append(img);
                fetch(there + "/fetch").catch(() => {});
            }""", there)
            page.wait_for_function("() => window.refused >= 3", timeout=10000)
            assert fetched == [], (url, fetched)
            assert errors and all("Content Security Policy" in e for e in errors)  # refused, and nothing else went wrong
            page.close()
    finally:
        outside.shutdown()
        outside.server_close()


# ------------------------------------------------------------------ issue 34, item 4: what the model answered
GLYPHS = "\u25b6\u25bc\u25c0\u25b2"  # the agent's heading, as domains/babyai/domain.json draws it


def test_a_babyai_plan_answer_is_played_step_by_step_beside_the_reference(browser, tmp_path):
    """A question episode is one reply: the page plays the answer's actions on the grid, one per
    step of the slider, beside the expert's, and shows the score's fields as a table. Expected
    positions come from the engine stepping the reply's words, as episodes.jsonl recorded them."""
    import re

    from groundplan.engine import Task
    from groundplan.engine.problemsets import expand

    ref = expand(["babyai/plan"])[3]
    folder = tmp_path / "plan"
    plan_eval(ref, "--agent", "oracle", "--out", str(folder), "--steps-to-go-time", "0")
    row = json.loads((folder / "episodes.jsonl").read_text().splitlines()[0])
    entry = row["trajectory"][0]
    words = [w.strip() for w in re.split(r"is:", entry["answer"])[-1].split(",")]
    out = tmp_path / "plan.html"
    plan_eval("view", str(folder), "--html", str(out), "--togo-time", "0")
    page, errors = open_page(browser, out.as_uri())
    assert page.text_content(".pane .counter").startswith("Action 0 of")
    assert page.text_content('.pane table.score tr[data-field="success"] td') == "yes"
    assert page.text_content('.pane table.score tr[data-field="answer_actions"] td') == str(entry["score"]["answer_actions"])
    assert page.locator(".pane .track").count() == 2  # the answer and the reference
    assert "the start" in page.text_content('.track[data-track="0"] .when')
    task = Task.load(ref)
    state = task.initial_state()

    def agent_cell():
        cells = page.locator('.track[data-track="0"] .cell').all()
        found = [(int(c.get_attribute("data-r")), int(c.get_attribute("data-c"))) for c in cells
                 if any(g in (c.text_content() or "") for g in GLYPHS)]
        assert len(found) == 1, found
        return found[0]

    assert agent_cell() == (task.value(state, "agent-y", ()), task.value(state, "agent-x", ()))
    for k, word in enumerate(words, 1):
        page.keyboard.press("ArrowRight")
        state = task.step(state, task.parse_action(word, state)).state
        assert page.text_content('.track[data-track="0"] .when code') == word
        assert f"after action {k} of {len(words)}" in page.text_content('.track[data-track="0"] .when')
        assert agent_cell() == (task.value(state, "agent-y", ()), task.value(state, "agent-x", ()))
    assert task.is_goal(state)
    # the edges are numbered as the texts count: x across, y down
    assert page.locator('.track[data-track="0"] .axis[title="x 3"]').count() == 1
    assert errors == []


def test_plancraft_slots_carry_the_names_actions_use(browser, tmp_path):
    """An action names slots ([I19], [A1]); the picture labels each slot with that name, and the
    slot so named holds what the engine's state says it holds."""
    from groundplan.cli import main
    from groundplan.engine import Task

    problem = "problems/plancraft/val.small.jsonl#VAL0491"
    out = tmp_path / "plancraft.html"
    done = CliRunner().invoke(main, ["view", problem, "--html", str(out), "--togo-time", "0"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    page, errors = open_page(browser, out.as_uri())
    names = page.locator(".pane .cell .corner").all_text_contents()
    assert sorted(names) == sorted(["[0]"] + [f"[{r}{c}]" for r in "ABC" for c in "123"] + [f"[I{k}]" for k in range(1, 37)])
    task = Task.load(problem)
    state = task.initial_state()
    action = task.problem.optimal["plan"][0]  # "smelt: from [I19] to [I1] with quantity 1"
    source = action.split("from ")[1].split(" ")[0]
    item = task.domain.metadata["items"][task.value(state, "item", (source.strip("[]"),)) - 1]
    cell = page.locator(".pane .cell", has=page.locator(".corner", has_text=source)).first
    assert page.locator(".pane .cell .corner", has_text=source).count() == 1
    assert item in cell.text_content()
    assert "state before step 0" in page.text_content(".pane .when")
    assert errors == []


def test_a_link_with_filters_opens_the_list_filtered(runs, browser, tmp_path):
    """Leaderboard rows link to `page.html#agent=...`: the list opens showing that agent's episodes."""
    a, _, rows = runs
    out = tmp_path / "a.html"
    plan_eval("view", str(a), "--html", str(out), "--togo-time", "0")
    page, errors = open_page(browser, out.as_uri() + "#agent=random")
    shown = page.locator("#episodes tr.episode").count()
    assert shown == sum(r["agent_label"] == "random" for r in rows) and shown < len(rows)
    assert page.input_value("#filter-agent") == "random"
    assert errors == []
