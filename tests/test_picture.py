"""Pictures as data (engine/picture.py, issue 22): each world's `render.picture` draws what its
problem files say, keeps drawing it right along random walks, and a wrong picture section is
refused at load time with its JSON pointer."""
import copy
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundplan.engine import Task
from groundplan.engine.errors import GroundplanError
from groundplan.engine.loader import build_problem, load_domain
from groundplan.engine.picture import scene
from groundplan.engine.problemsets import expand


def first(ref: str, k: int = 0) -> Task:
    return Task.load(expand([ref])[k])


def grasp_refusal(tmp_path, change) -> str:
    """The load error of GRASP's domain with its picture changed by `change`."""
    data = json.loads(Path("domains/grasp/domain.json").read_text())
    change(data["render"]["picture"])
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(data))
    with pytest.raises(GroundplanError) as info:
        load_domain(str(path))
    return str(info.value)


def marks_at(s: dict, title_start: str) -> list[tuple]:
    return [(m["r"], m["c"]) for m in s["marks"] if m.get("title", "").startswith(title_start)]


def test_ppnl_draws_the_agent_obstacles_and_goal_where_the_metadata_puts_them():
    for k in range(5):
        task = first("problems/ppnl/single_obstacles.jsonl", k)
        meta = task.problem.metadata
        s = scene(task, task.initial_state())
        assert (s["rows"], s["cols"]) == (meta["size"], meta["size"])
        assert marks_at(s, "you are at") == [tuple(meta["start"])]
        assert sorted(marks_at(s, "obstacle")) == sorted(map(tuple, meta["obstacles"]))
        assert sorted(marks_at(s, "goal")) == sorted(map(tuple, meta["goals"]))
        assert all(0 <= m["r"] < s["rows"] and 0 <= m["c"] < s["cols"] for m in s["marks"])


def test_ppnl_titles_show_numbers_not_object_names():
    task = first("problems/ppnl/single_5x5.jsonl")
    titles = [m["title"] for m in scene(task, task.initial_state())["marks"]]
    assert not any("i" in t.split("(")[-1] for t in titles), titles


def test_grasp_draws_each_energy_cell_with_its_amount():
    task = first("problems/grasp/inner_cluster_block.jsonl")
    s = scene(task, task.initial_state())
    energy = {args[0]: v for (name, args), v in task.problem.values if name == "energy" and v > 0}
    drawn = {(m["r"], m["c"]): m["label"] for m in s["marks"] if "label" in m}
    assert drawn == {tuple(int(x) for x in c[1:].split("_")): str(v) for c, v in energy.items()}
    assert (s["rows"], s["cols"]) == (11, 11)


def test_plancraft_shows_the_inventory_by_item_name_and_count():
    for k in range(5):
        task = first("problems/plancraft/val.small.jsonl", k)
        s = scene(task, task.initial_state())
        shown = Counter()
        for m in s["marks"]:
            if "label" in m:
                name, count = m["label"].rsplit(" \u00d7", 1)
                shown[name] += int(count)
        assert shown == Counter(task.problem.metadata["inventory"])


def test_babyai_draws_the_agent_with_its_heading_and_the_room_walls():
    task = first("problems/babyai/plan.jsonl.gz", 3)
    state = task.initial_state()
    s = scene(task, state)
    agent = [m for m in s["marks"] if m.get("title", "").startswith("the agent")]
    x, y, d = (task.value(state, f, ()) for f in ("agent-x", "agent-y", "dir"))
    assert [(m["r"], m["c"], m["glyph"]) for m in agent] == [(y, x, "\u25b6\u25bc\u25c0\u25b2"[d])]
    walls = {(m["r"], m["c"]) for m in s["marks"] if m.get("title") == "wall"}
    n = s["rows"]
    assert {(0, c) for c in range(n)} | {(n - 1, c) for c in range(n)} <= walls


def items_drawn(s: dict) -> Counter:
    out = Counter()

    def thing(t):
        out[t["name"]] += 1
        for inner in t.get("inside", []):
            thing(inner)

    def stacks(columns):
        for column in columns:
            for t in column:
                thing(t)
    for p in s["places"]:
        stacks(p["stacks"])
        for a in p["agents"]:
            stacks(a["holding"])
    for a in s["agents"]:
        stacks(a["holding"])
    return out


KITCHEN = ["problems/async/01_cheese_chicken_sandwich_s126.json", "problems/sync/04_burger_s126.json",
           "problems/multiagent/01_lettuce_burger_s126.json"]


def kitchen_task(ref):
    path = Path(ref)
    if not path.exists():
        path = sorted(path.parent.glob(path.name.split("_s")[0] + "*.json"))[0]
    return Task.load(str(path))


@pytest.mark.slow
@pytest.mark.parametrize("ref", KITCHEN)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_kitchen_pictures_keep_every_item_once_and_robots_where_they_are(ref, seed):
    """A law along random walks: every item and container is drawn exactly once (on a station, in
    a stack, inside a container or in a robot's hands), and each robot at the station it is at."""
    task = kitchen_task(ref)
    rng = random.Random(seed)
    state = task.initial_state()
    for _ in range(25):
        s = scene(task, state)
        things = [o for o, t in task.objects(state).items() if t in ("item", "container")]
        assert items_drawn(s) == Counter(things)
        for pred, args in task.true_atoms(state):
            if pred == "loc":
                place = next(p for p in s["places"] if p["name"] == args[1])
                assert args[0] in [a["name"] for a in place["agents"]]
        actions = task.applicable(state)
        if not actions:
            break
        state = task.successor(state, rng.choice(actions))


def test_blocksworld_stacks_follow_on_and_ontable():
    task = Task.load("problems/blocksworld/sussman.json")
    s = scene(task, task.initial_state())
    columns = [[t["name"] for t in column] for column in s["places"][0]["stacks"]]
    assert sorted(columns) == [["a", "c"], ["b"]]  # c sits on a; b alone


def test_a_domain_without_a_picture_shows_its_facts():
    data = json.loads(Path("domains/logistics/domain.json").read_text())
    assert "picture" not in data.get("render", {})
    problem = sorted(Path("problems/logistics").glob("*.json"))[0]
    task = Task.load(str(problem))
    s = scene(task, task.initial_state())
    assert s["kind"] == "facts" and s["facts"] and all(isinstance(x, str) for x in s["facts"])


@pytest.mark.parametrize("change, pointer, words", [
    (lambda p: p["marks"][0]["for"][0].__setitem__(0, "obstacel"), "/render/picture/marks/0/for/0/0", "obstacle"),
    (lambda p: p["marks"][0]["for"][0].append("?extra"), "/render/picture/marks/0/for/0", "takes 1 arguments"),
    (lambda p: p["marks"][0].__setitem__("at", "?nowhere"), "/render/picture/marks/0/at", "not bound"),
    (lambda p: p["cells"].__setitem__("pattern", "c(\\d+)_(\\d+)"), "/render/picture/cells/pattern", "row"),
    (lambda p: p["marks"][2]["for"].insert(0, {"compare": ["?v", ">", 0]}), "/render/picture/marks/2/for/0/compare/0", "before"),
    (lambda p: p.__setitem__("kind", "hexagons"), "/render/picture/kind", "grid"),
])
def test_a_wrong_picture_is_refused_at_load_time_with_its_pointer(tmp_path, change, pointer, words):
    data = json.loads(Path("domains/grasp/domain.json").read_text())
    picture = copy.deepcopy(data["render"]["picture"])
    change(picture)
    data["render"]["picture"] = picture
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(data))
    with pytest.raises(GroundplanError) as info:
        load_domain(str(path))
    text = str(info.value)
    assert pointer in text and words in text, text


HOSTILE = "#4a4a4a;background-image:url(http://127.0.0.1:9/x)"


@pytest.mark.parametrize("change, pointer, words", [
    (lambda p: p.__setitem__("background", HOSTILE), "/render/picture/background", "is not a colour"),
    (lambda p: p["marks"][0].__setitem__("fill", HOSTILE), "/render/picture/marks/0/fill", "is not a colour"),
    (lambda p: p["marks"][2].__setitem__("color", "url(http://127.0.0.1:9/x)"), "/render/picture/marks/2/color", "is not a colour"),
    (lambda p: p["marks"][2].__setitem__("color", {"by": "?c", "cases": {"c0_0": HOSTILE}}),
     "/render/picture/marks/2/color/cases/c0_0", "is not a colour"),
    (lambda p: p.__setitem__("rooms", {"every": 4, "fill": "red\n"}), "/render/picture/rooms/fill", "is not a colour"),
    (lambda p: p.__setitem__("styles", [{"when": [], "color": "expression(alert(1))"}]), "/render/picture/styles/0/color", "is not a colour"),
    (lambda p: p["marks"][0].__setitem__("fill", "gren"), "/render/picture/marks/0/fill", "did you mean 'green'"),
    (lambda p: p["marks"][0].__setitem__("fill", "rgb(1, 2, x)"), "/render/picture/marks/0/fill", "rgb(r, g, b)"),
])
def test_a_colour_outside_the_strict_syntax_is_refused_with_its_pointer(tmp_path, change, pointer, words):
    """Issue 32, item 10: a colour goes into the viewer's CSS, so a domain's colour that is more
    than a colour (a second declaration, a url()) must never load."""
    text = grasp_refusal(tmp_path, change)
    assert f"domain.json#{pointer}:" in text and words in text, text
    assert "CSS colour name" in text or "did you mean" in text  # the hint says what a colour may be


@pytest.mark.parametrize("colour", ["steelblue", "Grey", "transparent", "#4a4a4a", "#fff", "#ffe28a80", "rgb(74, 74, 74)",
                                    "rgba(0,0,0,.5)", "rgb(10%, 20%, 30%)"])
def test_every_documented_colour_form_loads(tmp_path, colour):
    data = json.loads(Path("domains/grasp/domain.json").read_text())
    data["render"]["picture"]["background"] = colour
    data["render"]["picture"]["marks"][0]["fill"] = {"by": "?c", "cases": {"c0_0": colour}, "else": colour}
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(data))
    assert load_domain(str(path)).render["picture"]["background"] == colour


def test_a_colour_filled_in_from_the_state_is_drawn_only_when_it_is_a_colour(tmp_path):
    task = first("problems/grasp/inner_cluster_block.jsonl")
    original = task.domain.render["picture"]  # the loaded domain is shared (cached): put it back
    spec = copy.deepcopy(original)
    spec["marks"][0]["fill"] = "{c}"  # an obstacle's cell name (c3_4) is no colour: the mark has no fill
    task.domain.render["picture"] = spec
    try:
        s = scene(task, task.initial_state())
    finally:
        task.domain.render["picture"] = original
    obstacles = [m for m in s["marks"] if m.get("title", "").startswith("obstacle")]
    assert obstacles and all("fill" not in m for m in obstacles)


def test_a_size_read_from_missing_metadata_names_the_problem():
    task = first("problems/ppnl/single_5x5.jsonl")
    data = {"groundplan": "1", "domain": task.domain.file, "name": "bare", "objects": dict(task.problem.objects),
            "init": [list((p, *a)) for p, a in task.problem.init], "goal": ["at", "i1", "i3"]}
    bare = Task(build_problem(data, "bare.json", None, domain=task.domain))
    with pytest.raises(GroundplanError, match="bare.json: the picture reads metadata 'size'"):
        scene(bare, bare.initial_state())


# ------------------------------------------------------------------ issue 34, item 4: what a picture says beside its cells
def test_grids_number_their_edges_as_the_worlds_texts_count():
    """BabyAI's texts say (x, y), PPNL's and GRASP's (row, column): the numbered edges say the same."""
    babyai = scene(first("babyai/plan"), first("babyai/plan").initial_state())
    assert (babyai["axes"]["rows"]["name"], babyai["axes"]["cols"]["name"]) == ("y", "x")
    task = first("problems/ppnl/single_5x5.jsonl")
    s = scene(task, task.initial_state())
    assert s["axes"] == {"rows": {"name": "row", "first": 0}, "cols": {"name": "column", "first": 0}}
    assert marks_at(s, "you are at") == [tuple(task.problem.metadata["start"])]  # drawn row r is the texts' row r


def test_plancraft_names_every_slot_as_actions_write_it():
    task = first("problems/plancraft/val.small.jsonl")
    s = scene(task, task.initial_state())
    corners = {m["corner"]: (m["r"], m["c"]) for m in s["marks"] if "corner" in m}
    expected = {"[0]"} | {f"[{r}{c}]" for r in "ABC" for c in "123"} | {f"[I{k}]" for k in range(1, 37)}
    assert set(corners) == expected
    # the slot an action names is the cell its items are drawn in (titles come from the state's fluents)
    for m in s["marks"]:
        if m.get("label") and m.get("title", "").startswith("I"):
            slot = m["title"].split(":")[0]
            assert corners[f"[{slot}]"] == (m["r"], m["c"])


def test_grasp_status_says_what_is_carried_and_the_score_so_far():
    task = first("problems/grasp/inner_cluster_block.jsonl", 7)  # step_cost 0.3
    assert task.settings["step_cost"] == 0.3
    state = task.initial_state()
    plan = task.problem.optimal["plan"]
    spent = 0.0
    for text in plan:
        result = task.step(state, task.parse_action(text, state))
        state, spent = result.state, spent + result.cost
    lines = scene(task, state, {"?cost": round(spent, 6)})["status"]
    score = task.problem.metadata["optimum_score"]
    assert any(line.startswith(f"score so far: {score:g} ") for line in lines), (lines, score)
    assert "carrying 0 energy" in lines
    # drawn alone (no cost known), the score line is left out rather than guessed
    assert not any(line.startswith("score") for line in scene(task, state)["status"])


@pytest.mark.parametrize("change, pointer, words", [
    (lambda p: p.__setitem__("status", [{"for": [{"compute": ["?s", "?v", "-", 1]}], "text": "{s}"}]),
     "/render/picture/status/0/for/0/compute/1", "before a pattern binds it"),
    (lambda p: p.__setitem__("status", [{"for": [{"compute": ["?s", 1, "^", 1]}], "text": "{s}"}]),
     "/render/picture/status/0/for/0/compute", None),
    (lambda p: p.__setitem__("axes", {"rows": 3}), "/render/picture/axes/rows", None),
])
def test_a_wrong_status_or_axes_is_refused_with_its_pointer(tmp_path, change, pointer, words):
    text = grasp_refusal(tmp_path, change)
    assert pointer in text and (words is None or words in text), text
