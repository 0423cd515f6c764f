"""Importer: the 2000 released GRASP grids -> 20 problem-set files of 800 environments each.

    groundplan generate grasp --source PATH/TO/GRASP/data/grids --out problems/grasp

The grid generator was never released, so the world is built from the released data
(github.com/jasontangzs0/GRASP, Apache-2.0): 20 files `{inner|outer}_{dist}_{block|free}.jsonl`
of 100 grids each. Each file becomes `problems/grasp/<same tag>.jsonl`:
- a header with what all its problems share (domain, the 20-step budget, the goal text, the
  source, the licence and the axis note below);
- per grid, a group line with its start, obstacles and energy, then its 8 environments (moves x
  carry limit x step cost), each with its settings, the exact optimum's plan (`optimal`) and score
  (`metadata.optimum_score`), and a goal that holds once the optimum's energy lies on the start cell.

File tags are kept as released, although the released `upDown` grids split their energy
density by columns and `leftRight` by rows (the reverse of the paper's words; spec section 1).
The importer measures and prints the split it finds, so the swap is checked, not assumed.

Bad input stops with `FILE:LINE#/pointer: message` lines and exit status 1, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import exact
from .grid import NO_LIMIT, SIZE, Grid, from_text, problem_facts

DISTRIBUTIONS = ("random", "upDown", "leftRight", "cluster", "spiral")
TAGS = [f"{start}_{dist}_{obst}" for start in ("inner", "outer") for dist in DISTRIBUTIONS for obst in ("block", "free")]
COMBINATIONS = [(moves, limit, cost) for moves in (4, 8) for limit in (NO_LIMIT, 2) for cost in (0, 0.3)]
GRIDS_PER_FILE = 100
KEYS = {"index", "energy", "energy_probability", "obstacle", "start_position", "grid", "start"}
AXIS_NOTE = ("File tags are kept as released. In the released data the skewed labels are swapped relative to the "
             "paper's text: 'upDown' grids split their energy density by COLUMNS (columns 0-5 vs 6-10) and "
             "'leftRight' grids by ROWS (rows 0-5 vs 6-10). Cells are [row, col] from the top left; the released "
             "'start' is [row, col] although its README calls it (x, y).")
LICENSE = ("Apache-2.0. Derived from the GRASP data (github.com/jasontangzs0/GRASP, commit 4188838), "
           "(c) the GRASP authors; see domains/grasp/LICENSE and domains/grasp/NOTICE.")
GOAL_TEXT = ("Collect as much energy as you can and put it down on the cell where you started, within 20 actions; "
             "each action costs {step_cost} units of energy.")


class BadInput(Exception):
    """A problem with the released data, already worded as FILE:LINE#/pointer: message."""


def problem_name(index: int, moves: int, limit: int, cost: float) -> str:
    return f"grid{index:02d}-mu{1 if moves == 4 else 2}-{'nolimit' if limit == NO_LIMIT else 'limit2'}-cost{cost:g}"


def read_grids(path: Path) -> list[tuple[dict, Grid]]:
    """The rows of one released file, each checked and turned into a Grid."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read: {exc}") from None
    tag = path.stem
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise BadInput(f"{where}#: each line must be a JSON object")
        missing = KEYS - set(row)
        if missing:
            raise BadInput(f"{where}#: missing keys {sorted(missing)}")
        start = row["start"]
        if not (isinstance(start, list) and len(start) == 2 and all(isinstance(v, int) and 0 <= v < SIZE for v in start)):
            raise BadInput(f"{where}#/start: expected [row, col] within 0..{SIZE - 1}, got {start!r}")
        expected = dict(zip(("start_position", "energy", "obstacle"), tag.split("_")))
        for key, value in expected.items():
            if row[key] != value:
                raise BadInput(f"{where}#/{key}: {row[key]!r} does not match the file tag {tag!r}")
        if not isinstance(row["index"], int) or row["index"] != len(out):
            raise BadInput(f"{where}#/index: expected {len(out)}, got {row['index']!r}")
        try:
            grid = from_text(row["grid"], start)
        except (ValueError, IndexError, TypeError, AttributeError) as exc:
            raise BadInput(f"{where}#/grid: {exc}") from None
        if grid.start in grid.energy:
            raise BadInput(f"{where}#/grid: the start cell holds energy")
        out.append((row, grid))
    if len(out) != GRIDS_PER_FILE:
        raise BadInput(f"{path}: expected {GRIDS_PER_FILE} grids, found {len(out)}")
    return out


def density_split(grids: list[Grid]) -> dict:
    """Mean |density of rows 0-5 - density of rows 6-10| over grids, and the same for columns.

    A file whose energy is skewed along one axis shows a large difference on that axis only."""
    def gap(first, second):
        total = 0.0
        for grid in grids:
            parts = []
            for cells in (first, second):
                cells = [cell for cell in cells if cell not in grid.obstacles and cell != grid.start]
                parts.append(sum(1 for cell in cells if grid.energy.get(cell)) / max(len(cells), 1))
            total += abs(parts[0] - parts[1])
        return total / max(len(grids), 1)

    rows = lambda lo, hi: [(r, c) for r in range(lo, hi) for c in range(SIZE)]
    cols = lambda lo, hi: [(r, c) for r in range(SIZE) for c in range(lo, hi)]
    return {"rows": gap(rows(0, 6), rows(6, SIZE)), "columns": gap(cols(0, 6), cols(6, SIZE))}


def grid_problems(row: dict, grid: Grid) -> tuple[dict, list[dict]]:
    """(the group line of one grid, its 8 environments)."""
    facts = problem_facts(grid)
    facts["description"] = (f"GRASP grid {row['index']} of the released file {row['start_position']}_{row['energy']}_"
                             f"{row['obstacle']}.jsonl (energy_probability {row['energy_probability']}); file tags as "
                             "released, see domains/grasp/README.md for the upDown/leftRight axis swap.")
    group = {"group": f"grid{row['index']:02d}", "defaults": facts}
    start = f"c{grid.start[0]}_{grid.start[1]}"
    problems = []
    shared = {}
    for moves, limit, cost in COMBINATIONS:
        if moves not in shared:
            shared[moves] = exact.tables(grid, moves)
        rules = {"moves": moves, "carry_limit": limit, "step_cost": cost}
        value, plan = exact.optimum(grid, rules, shared[moves])
        delivered = round(value + cost * len(plan))
        problems.append({
            "name": problem_name(row["index"], moves, limit, cost),
            "settings": rules,
            "goal": {">=": [["energy", start], delivered]},
            "optimal": {"cost": round(cost * len(plan), 10), "method": "grasp-exact", "plan": plan},
            "metadata": {"optimum_score": value},
        })
    return group, problems


def header(tag: str) -> dict:
    start, dist, obst = tag.split("_")
    return {"problem_set": tag, "defaults": {
        "groundplan": "1", "domain": "grasp", "max_steps": 20, "goal_text": GOAL_TEXT, "license": LICENSE,
        "description": (f"GRASP grids of the released file {tag}.jsonl (start {start}, energy distribution '{dist}', "
                        f"obstacles {obst}), each under the 8 rule combinations. {AXIS_NOTE}")}}


def convert(source: Path, out: Path, tags=TAGS, quiet=False) -> int:
    """Write one problem-set file per released file; returns the number of environments."""
    from groundplan.engine import problemsets

    total = 0
    for tag in tags:
        path = source / f"{tag}.jsonl"
        if not path.is_file():
            raise BadInput(f"{path}: file not found (expected the 20 released files {TAGS[0]}.jsonl ...)")
        rows = read_grids(path)
        lines = []
        for row, grid in rows:
            group, problems = grid_problems(row, grid)
            lines.append(group)
            lines += problems
            total += len(problems)
        problemsets.write(out / f"{tag}.jsonl", lines, header(tag))
        if not quiet:
            split = density_split([g for _, g in rows])
            print(f"{tag}: {len(rows)} grids, {len(rows) * len(COMBINATIONS)} environments; mean density gap "
                  f"between halves: rows {split['rows']:.2f}, columns {split['columns']:.2f}")
    return total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="groundplan generate grasp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="../shared/data/grasp/data/grids", help="folder of the 20 released .jsonl files")
    parser.add_argument("--out", default="problems/grasp", help="folder for the problem sets")
    parser.add_argument("--only", nargs="*", choices=TAGS, help="convert only these files")
    args = parser.parse_args(argv)
    try:
        total = convert(Path(args.source), Path(args.out), args.only or TAGS)
    except BadInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{total} environments written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
