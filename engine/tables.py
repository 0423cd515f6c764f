"""Lookup tables: a finite function of several numbers, written as rows of patterns.

Some rules are data rather than formulas: Minecraft's 634 crafting recipes map the nine cells of
a crafting grid to a result, a furnace maps an item to what it smelts into, every item has a
stack size. Writing each as a formula would take thousands of nested `if`s and evaluate them on
every step; a table states them as rows and is evaluated by an index plus a memo, so a grid seen
before costs one dictionary lookup.

A table has `keys` numeric inputs and named `results`. Rows are tried in order and the first
that matches gives the results; no match gives `default`. A row's cell is a number or a list of
numbers (any of them matches). Three kinds of row:

- `match`: one cell per key, in key order;
- `pattern`: for tables with a `grid` of rows x columns (row-major keys), a smaller rectangle of
  cells tried at every offset (top-left first); every key outside the rectangle must be `blank`;
- `unordered`: the keys, as a multiset, must pair off one-to-one with the cells, the cells being
  padded with `blank` up to the number of keys (a shapeless recipe).

See docs/language.md ("Tables").
"""
from __future__ import annotations

from dataclasses import dataclass, field

MEMO_LIMIT = 1_000_000


@dataclass
class Row:
    kind: str  # "match" | "pattern" | "unordered"
    cells: tuple  # (frozenset of accepted values, ...); a pattern's cells row-major
    result: tuple
    placements: tuple = ()  # pattern: ((key index of each cell), keys that must be blank) per offset


@dataclass
class Table:
    name: str
    keys: int
    results: tuple[str, ...]
    default: tuple
    rows: list[Row]
    blank: float = 0
    grid: tuple[int, int] | None = None
    _memo: dict = field(default_factory=dict, repr=False)
    _by_value: dict = field(default_factory=dict, repr=False)
    _any_value: int = 0

    def __post_init__(self):
        # row bitsets per value: a key tuple can only match rows that accept each of its non-blank values
        for i, row in enumerate(self.rows):
            bit = 1 << i
            for cell in row.cells:
                for value in cell:
                    self._by_value[value] = self._by_value.get(value, 0) | bit

    def find(self, key: tuple) -> tuple:
        """The results of the first row matching `key` (memoised)."""
        found = self._memo.get(key)
        if found is None:
            found = self._search(key)
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            self._memo[key] = found
        return found

    def _search(self, key: tuple) -> tuple:
        blank = self.blank
        candidates = -1
        for value in key:
            if value != blank:
                candidates &= self._by_value.get(value, 0)
                if not candidates:
                    return self.default
        if candidates == -1:  # all blank: any row may match
            candidates = (1 << len(self.rows)) - 1
        while candidates:
            low = candidates & -candidates
            row = self.rows[low.bit_length() - 1]
            if _matches(row, key, blank):
                return row.result
            candidates ^= low
        return self.default


def _matches(row: Row, key: tuple, blank) -> bool:
    if row.kind == "match":
        return all(k in cell for k, cell in zip(key, row.cells))
    if row.kind == "unordered":
        return _pairs_off(sorted(key, key=lambda v: v == blank), list(row.cells) + [frozenset((blank,))] * (len(key) - len(row.cells)))
    for cells, outside in row.placements:
        if all(key[i] == blank for i in outside) and all(key[i] in cell for i, cell in zip(cells, row.cells)):
            return True
    return False


def _pairs_off(values: list, cells: list) -> bool:
    """Whether each value can take its own cell that accepts it."""
    if len(values) != len(cells):
        return False
    return pair_off([[c for c, cell in enumerate(cells) if v in cell] for v in values])


def pair_off(fits: list) -> bool:
    """Whether every left item i can get its own right item among fits[i] (bipartite matching by
    augmenting paths; the sizes here are a crafting grid's, so simplicity beats speed)."""
    owner: dict = {}  # right item -> left index

    def place(i: int, seen: set) -> bool:
        for k in fits[i]:
            if k not in seen:
                seen.add(k)
                if k not in owner or place(owner[k], seen):
                    owner[k] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(fits)))


def placements(pattern_height: int, pattern_width: int, grid: tuple[int, int]) -> tuple:
    """Every offset of a height x width rectangle in the grid, top-left first: for each, the key
    index of every rectangle cell (row-major) and the keys outside it."""
    rows, cols = grid
    out = []
    for top in range(rows - pattern_height + 1):
        for left in range(cols - pattern_width + 1):
            inside = [(top + r) * cols + left + c for r in range(pattern_height) for c in range(pattern_width)]
            outside = tuple(i for i in range(rows * cols) if i not in set(inside))
            out.append((tuple(inside), outside))
    return tuple(out)
