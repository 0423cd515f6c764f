"""Problem-set files (JSON Lines): addressing, defaults, errors that name the line, and updates."""
import json

import pytest

from groundplan.engine import problemsets
from groundplan.engine.errors import ModelError
from groundplan.engine.task import Task

BLOCKS = json.load(open("problems/blocksworld/blocks-4-0.json"))


def _set(tmp_path, lines, header=True):
    path = tmp_path / "bw.jsonl"
    rows = []
    if header:
        rows.append(json.dumps({"problem_set": "bw", "defaults": {"groundplan": "1", "domain": "blocksworld"}}))
    rows += [line if isinstance(line, str) else json.dumps(line) for line in lines]
    path.write_text("\n".join(rows) + "\n")
    return path


def _problem(name, **changes):
    data = {k: v for k, v in BLOCKS.items() if k not in ("groundplan", "domain", "optimal")}
    data.update(name=name, **changes)
    return data


def test_problems_are_addressed_by_name_or_position_and_inherit_the_defaults(tmp_path):
    path = _set(tmp_path, [_problem("a"), _problem("b", goal=["on", "b", "a"])])
    by_name = Task.load(f"{path}#b")
    by_index = Task.load(f"{path}#2")
    assert by_name.problem.name == by_index.problem.name == "b"
    assert Task.load(f"{path}#a").problem.domain.name == "blocksworld"
    assert problemsets.names(str(path)) == ["a", "b"]


def test_expand_lists_every_problem_of_a_set_and_keeps_plain_files(tmp_path):
    path = _set(tmp_path, [_problem("a"), _problem("b")])
    refs = problemsets.expand([str(tmp_path / "*.jsonl"), "problems/blocksworld/blocks-4-0.json"])
    assert refs == [f"{path}#a", f"{path}#b", "problems/blocksworld/blocks-4-0.json"]


@pytest.mark.parametrize("lines, where, words", [
    ([{"objects": {}}], ":2", "needs a 'name'"),
    ([_problem("a"), _problem("a")], ":3", "already used on line 2"),
    ([_problem("a"), "{not json"], ":3", "not valid JSON"),
    ([_problem("a"), "[1, 2]"], ":3", "JSON object"),
])
def test_a_bad_line_is_named_by_file_and_line(tmp_path, lines, where, words):
    path = _set(tmp_path, lines)
    with pytest.raises(ModelError) as info:
        Task.load(f"{path}#a")
    text = str(info.value)
    assert f"bw.jsonl{where}" in text and words in text


def test_errors_inside_a_problem_name_its_line_and_pointer(tmp_path):
    path = _set(tmp_path, [_problem("a", init=[["on", "a", "zz"]])])
    with pytest.raises(ModelError) as info:
        Task.load(f"{path}#a")
    assert "bw.jsonl:2#/init/0" in str(info.value)


def test_an_unknown_name_suggests_the_closest(tmp_path):
    path = _set(tmp_path, [_problem("grid-1"), _problem("grid-2")])
    with pytest.raises(ModelError, match="did you mean 'grid-2'"):
        Task.load(f"{path}#grid-22")
    with pytest.raises(ModelError, match="say which one"):
        Task.load(str(path))


def test_storing_an_optimum_rewrites_only_that_line(tmp_path):
    from click.testing import CliRunner

    from groundplan.planners.cli import plan

    path = _set(tmp_path, [_problem("a"), _problem("b")])
    before = path.read_text().splitlines()
    result = CliRunner().invoke(plan, [f"{path}#b", "--planner", "astar", "--store"])
    assert result.exit_code == 0, result.output
    after = path.read_text().splitlines()
    assert after[:2] == before[:2]
    stored = json.loads(after[2])
    assert stored["optimal"]["cost"] == 6 and "domain" not in stored  # defaults are not repeated


def test_validate_takes_one_problem_of_a_set(tmp_path):
    from click.testing import CliRunner

    from groundplan.engine.cli import validate

    path = _set(tmp_path, [_problem("a"), _problem("b", init=[["on", "a", "zz"]])])
    ok = CliRunner().invoke(validate, [f"{path}#a"])
    assert ok.exit_code == 0 and "valid problem" in ok.output
    bad = CliRunner().invoke(validate, [f"{path}#b"])
    assert bad.exit_code == 1 and "bw.jsonl:3#/init/0" in bad.output


# ---------------------------------------------------------------- issue 32, item 7: one row, not every row
def test_reading_one_row_parses_that_row_not_every_row(tmp_path, monkeypatch):
    """Indexing json-parsed every row for its name: minutes and GBs for a set of millions."""
    rows = [{"name": f"p{i}", "objects": {"a": "block"}, "init": [["clear", "a"]], "goal": ["clear", "a"]} for i in range(3000)]
    path = _set(tmp_path, rows)
    parsed = []
    real = json.loads

    def counting(text, *args, **kwargs):
        parsed.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    data, where = problemsets.read_problem(f"{path}#p2500")
    assert data["name"] == "p2500" and where.endswith("bw.jsonl:2502")
    assert len(parsed) <= 3, f"{len(parsed)} lines parsed to read one"  # the header and the row asked for


@pytest.mark.parametrize("lines, name, where, words", [
    ([_problem("a"), {"init": [], "name": "a"}], "a", ":3", "already used on line 2"),  # the name not first
    ([_problem("a"), _problem("b"), _problem("a", goal=["clear", "a"])], "b", ":4", "already used on line 2"),
    ([_problem("a"), {"name": "b", "problem_set": "x"}], "a", ":3", "must come first"),  # a header later, name first
    ([_problem('q"uote\\d'), _problem('q"uote\\d')], 'q"uote\\d', ":3", "already used on line 2"),  # escapes
])
def test_names_read_without_parsing_keep_the_duplicate_and_header_checks(tmp_path, lines, name, where, words):
    path = _set(tmp_path, lines)
    with pytest.raises(ModelError) as info:
        problemsets.read_problem(f"{path}#{name}")
    text = str(info.value)
    assert f"bw.jsonl{where}" in text and words in text, text


def test_a_name_with_escapes_or_not_first_is_found(tmp_path):
    path = _set(tmp_path, [_problem('é "x" \\ y'), {"init": [], "name": "late"}, ' {"name" : "spaced" , "init": []}'])
    assert problemsets.names(str(path)) == ['é "x" \\ y', "late", "spaced"]
    assert problemsets.read_problem(f"{path}#spaced")[0]["init"] == []


@pytest.mark.parametrize("text", [
    '{"problem_set": "bw", "defaults": {"init": []}}\n{"name": "a", "goal": []}\n{"name": "b", "goal": []}\n',  # the quick index
    '\n{"problem_set": "bw", "defaults": {"init": []}}\n{"name": "a", "goal": []}\n\n{"name": "b", "goal": []}\n',  # blank lines
    '{"problem_set": "bw", "defaults": {"init": []}}\n{"goal": [], "name": "a"}\n{"group": "g", "defaults": {}}\n{"name": "b", "goal": []}\n',
    '{"name": "a", "goal": []}\n{"name": "b", "goal": []}',  # no header
])
def test_the_quick_index_and_the_careful_one_agree(tmp_path, text):
    path = tmp_path / "s.jsonl"
    path.write_text(text)
    assert problemsets.names(str(path)) == ["a", "b"]
    numbers = [i for i, line in enumerate(text.splitlines(), 1) if '"name"' in line]
    for name, number in zip("ab", numbers):
        data, where = problemsets.read_problem(f"{path}#{name}")
        assert where == f"{path}:{number}" and data["name"] == name and data["goal"] == []
    assert problemsets.read_problem(f"{path}#2")[0]["name"] == "b"
    if "problem_set" in text:
        assert problemsets.read_problem(f"{path}#a")[0]["init"] == []
