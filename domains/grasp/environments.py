"""The 16,000 GRASP environments as (file tag, grid index, rules, Grid, stored optimum) records.

Benchmarks, tests and the README's figures iterate over the committed problem sets through this
module, so none of them needs the released data (which is not shipped at run or test time).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .grid import Grid, from_problem, rules

PROBLEMS = Path(__file__).resolve().parents[2] / "problems" / "grasp"


@dataclass(frozen=True)
class Environment:
    ref: str          # FILE.jsonl#NAME, loadable by the engine
    tag: str          # the released file's tag, e.g. inner_upDown_free
    index: int        # the grid's index in that file (0..99)
    rules: dict       # moves, carry_limit, step_cost
    grid: Grid
    optimum: float    # the stored exact optimum
    plan: tuple       # the stored optimal plan


def load(tags=None, indices=None, folder=PROBLEMS):
    """Environments of the given file tags (default all 20) and grid indices (default 0..99)."""
    from groundplan.engine import problemsets

    paths = sorted(Path(folder).glob("*.jsonl"))
    if tags is not None:
        paths = [p for p in paths if p.stem in set(tags)]
    wanted = None if indices is None else set(indices)
    out = []
    for path in paths:
        grids: dict = {}
        for name in problemsets.names(str(path)):
            index = int(name[4:6])
            if wanted is not None and index not in wanted:
                continue
            ref = f"{path}#{name}"
            data, _ = problemsets.read_problem(ref)
            grid = grids.get(index)
            if grid is None:
                grid = grids[index] = from_problem(data)
            out.append(Environment(ref, path.stem, index, rules(data), grid,
                                   data["metadata"]["optimum_score"], tuple(data["optimal"]["plan"])))
    return out
