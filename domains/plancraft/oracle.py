"""An exact oracle for the crafting world: the fewest environment actions (move, take from [0],
smelt) that put the target item in a slot, with a proof; or a proof that no plan exists.

    from groundplan.domains.plancraft.oracle import solve
    r = solve(Task.load("problems/plancraft/test.jsonl#TEST0080"))
    r.status, r.length, r.plan, r.lower_bound, r.bound_method, r.method

Why: plancraft's expert (reproduced in reference.py) minimises *recipe steps*, then lays each
step out with quantity-1 moves, one smelt per item and every result taken to a pocket. Searching
the actions themselves finds shorter plans: batched smelts, smelting or taking a result straight
into the cell where the next recipe needs it, stacking units in a cell so that repeated crafts
cost one take each, reusing a craft's leftovers in the next layout.

On every example of the five splits the plan found meets the lower bound below, so every
solvable example is proven optimal and every impossible one is proven so (see
evals/bench/plancraft_oracle.py); `solve` still reports `feasible` (a plan with a lower bound)
or `unknown` when a bound is not met or a search budget runs out.

How: one relaxation R gives the lower bound and A*'s heuristic; A* over real states finds the
plan; the interpreter checks it; optimality is claimed only when its length equals R's optimum.

**Useful items.** The items held and those that can be made from them (a fixpoint over item
types: a recipe whose every cell accepts such an item, or a smelt); of these, the target and
those from which it can be made by such recipes. A real plan only ever holds items of the
first set, so every take whose result leads to the target uses useful items only; the rest
(distractors, dead ends) can only take part in takes or smelts whose results lead nowhere. If
the target is not in the first set, that proves impossibility. Useful items that every recipe
treats alike (same cells of the same rows, same smelting result, same stack size: e.g. kinds of
planks used only through the `planks` tag) are merged into classes.

**The relaxation R** (`Relaxation`). A state: units held per class N; how many grid cells may
hold each class G (positions forgotten); and the *known* cells (class, lo, hi), cells certain
(lo >= 1) or possibly there with between lo and hi units (from the real grid, or from a take
or smelt into the grid). Actions:
- craft(row, L): a crafting row with a useful result and one concrete multiset L of its
  ingredients that N covers. Cost 1 (the take) + sum_x max(0, L[x] - G[x]) (a cell not yet in
  the grid needs a move) + 1 if a certain known cell is in the way (a class L lacks, or more
  certain cells of x than L[x] with no cell of x to fill). After it: a known cell loses a unit
  (gone at 0; a cell of 1 unit is gone), a cell filled by R may stay while units remain, a
  known cell that may have given units to the fills keeps ceil((lo - fills - 1) / (fills + 1))
  for sure; the result may become a known cell of its count, when some useful row can use it
  where it lies (a cell that some placement of the row leaves empty).
- smelt(x, q): cost 1; q <= units held and both stack sizes; the output may become a known
  cell of q units (for an input with no other use, R smelts it all and is sure of 1 unit only).
- useless take: cost 1; every known cell loses a unit.

Why R's optimum is a lower bound (the proof; also checked against brute force on random small
inventories, tests/test_plancraft_oracle.py): map a real plan onto R, one craft per take of a
useful result, one smelt per smelt of a useful item, one useless take per other take. A cell
holding its ingredient at a take was there before the previous take and survived it (R keeps
at least as many: a real survivor held 2+ units), or came from the previous take or a smelt into
the grid (a known cell), or from a move in between; one move makes at most one cell hold a new
item, so the real moves cover R's fill cost. Every other real action (a move out of the grid or
onto a cell of the same item, a move between pockets, a move or smelt of a useless item) costs
1 and maps to nothing; such an action pays for whatever R charges because of it (it can empty or
top up one cell: R may then charge one clearing or one refill for that cell). R's limits are
upper limits (more units or cells never cost more), classes only merge what no recipe tells
apart, and R's own choices are optimistic where they are not exact. So R's optimum <= the real
optimum, and when R has no plan at all, no real plan exists. R ignores positions (but for the
taken result), which stack units come from, and clears beyond one per craft, so its bound can
be below the truth; on the data it never is.

R is searched by A* with an admissible estimate (the last craft's cells beyond G plus those of
crafts that must precede it: a short ingredient's ways to be made, the cheapest), with exact
values cached along optimal paths. When its search grows large, an integer program on the
balance of items (`balance_feasible`, CP-SAT: numbers of crafts and smelts in any order that
leave no class negative and the target positive) can prove impossibility at once.

**A* over real states** (`_Search`). The nine grid cells as (item, count) and the pockets as a
multiset of (item, count) stacks (pockets are interchangeable; the occupied ones are counted
against the 36). Actions: moves of useful items from a pocket or a cell to a cell, from a cell to
a pocket (new stack or same-item stack with room), takes of [0] to any fitting slot, smelts from
any slot to any fitting slot; a move into the grid must leave the grid a part of some useful
row's layout. Quantities are 1..K and "all of it", K first the most crafts that use one class
in R's optimal plan, then 9. h = R's optimum from the state (a consistent heuristic: one real
action maps to at most one R action of cost <= 1); its searches are bounded, a bound that stops
early giving a weaker but still admissible value. If A* gives up, weighted A* finds some plan.
These restrictions can only cost optimality, never validity, and the proof comes from R: the
plan is replayed in the interpreter (`task.step` must accept every action and reach the goal)
and is *optimal* exactly when its length equals R's optimum.
"""
from __future__ import annotations

import functools
import heapq
import itertools
import time
from dataclasses import dataclass

from groundplan.engine.tables import pair_off

from .world import GRID, POCKETS

OPTIMAL = "optimal"
FEASIBLE = "feasible"
UNSOLVABLE = "unsolvable"
UNKNOWN = "unknown"

N_POCKETS = len(POCKETS)
SHIFT = 7  # a slot's code is item << SHIFT | count (counts are at most 64)
MASK = (1 << SHIFT) - 1


@dataclass
class Result:
    """What `solve` found. `lower_bound` is proven (None when unsolvable or unknown);
    `length` = len(plan) when a plan was found."""

    status: str
    plan: list[str] | None = None
    length: int | None = None
    lower_bound: int | None = None
    bound_method: str = ""
    method: str = ""
    seconds: float = 0.0
    expanded: int = 0
    relaxed_states: int = 0

    @property
    def solved(self) -> bool:
        return self.plan is not None

    @property
    def proven_optimal(self) -> bool:
        return self.status == OPTIMAL


# ====================================================================== the world's data
class Rules:
    """The domain's recipe data, read from its tables (no plancraft import)."""

    def __init__(self, domain):
        self.domain = domain
        self.crafting = domain.tables["crafting"]
        self.find = self.crafting.find  # 9 item ids -> (item, count), memoised
        self.smelts: dict[int, int] = {}
        for row in domain.tables["smelting"].rows:
            for x in row.cells[0]:
                self.smelts.setdefault(x, row.result[0])
        stack = domain.tables["stack-size"]
        self.stack_default = stack.default[0]
        self.stacks: dict[int, int] = {}
        for row in stack.rows:
            for x in row.cells[0]:
                self.stacks.setdefault(x, row.result[0])
        # crafting rows: (result, count, ingredient cells as frozensets, row index); blanks dropped
        self.rows = []
        for i, row in enumerate(self.crafting.rows):
            cells = tuple(c for c in row.cells if c != frozenset((0,)))
            self.rows.append((row.result[0], row.result[1], cells, i))
        self.parents: dict[int, set[int]] = {}  # item -> items used to make it
        for res, _, cells, _ in self.rows:
            p = self.parents.setdefault(res, set())
            for c in cells:
                p.update(c)
        for x, y in self.smelts.items():
            self.parents.setdefault(y, set()).add(x)

    def stack(self, item: int) -> int:
        return self.stacks.get(item, self.stack_default)

    @functools.lru_cache(maxsize=None)
    def ancestors(self, target: int) -> frozenset:
        seen = {target}
        todo = [target]
        while todo:
            for p in self.parents.get(todo.pop(), ()):
                if p not in seen:
                    seen.add(p)
                    todo.append(p)
        return frozenset(seen)


@functools.lru_cache(maxsize=4)
def rules_for(domain_file: str) -> Rules:
    from groundplan.engine.loader import load_domain

    return Rules(load_domain(domain_file))


# ====================================================================== one problem
class Problem:
    """A task's start: slot contents, the target, and the useful items and recipes."""

    def __init__(self, task):
        self.task = task
        self.rules = rules = rules_for(str(task.domain.file))
        state = task.initial_state()
        self.target = int(task.value(state, "target", ()))
        self.slots: dict[str, tuple[int, int]] = {}
        for s in GRID + POCKETS:
            n = int(task.value(state, "count", (s,)))
            if n:
                self.slots[s] = (int(task.value(state, "item", (s,))), n)
        held = {}
        for item, n in self.slots.values():
            held[item] = held.get(item, 0) + n
        self.held = held
        anc = rules.ancestors(self.target)
        # types that can ever be held: the fixpoint from what is held
        reach = set(held)
        rows = [r for r in rules.rows if r[0] in anc]
        changed = True
        while changed:
            changed = False
            for res, _, cells, _ in rows:
                if res not in reach and all(c & reach for c in cells):
                    reach.add(res)
                    changed = True
            for x in list(reach):
                y = rules.smelts.get(x)
                if y is not None and y in anc and y not in reach:
                    reach.add(y)
                    changed = True
        self.reachable = self.target in reach
        # useful: from which the target can be made by rows usable within `reach`
        usable = [(res, k, tuple(c & reach for c in cells), i) for res, k, cells, i in rows
                  if all(c & reach for c in cells)]
        useful = {self.target}
        changed = True
        while changed:
            changed = False
            for res, _, cells, _ in usable:
                if res in useful:
                    for c in cells:
                        if not c <= useful:
                            useful |= c
                            changed = True
            for x in reach:
                if x not in useful and rules.smelts.get(x) in useful:
                    useful.add(x)
                    changed = True
        useful &= reach | {self.target}
        self.useful = frozenset(useful)
        self.items = sorted(useful)
        self.usable_rows = [(res, k, tuple(c & useful for c in cells), i) for res, k, cells, i in usable if res in useful]
        self.smelt_pairs = [(x, rules.smelts[x]) for x in self.items if rules.smelts.get(x) in useful]
        self.junk_slots = sum(1 for s, (item, _) in self.slots.items() if s in POCKETS and item not in useful)
        self._classes()
        self._layouts()

    def _layouts(self) -> None:
        """Where the useful crafting rows may put items: for a shaped row, one map cell -> accepted
        items per offset; for a shapeless one, its ingredient cells."""
        table_rows = self.rules.crafting.rows
        self.shaped = []
        self.shapeless = []
        occupied: dict[int, list] = {}  # row index -> occupied cells per placement (None: any cells)
        for res, _, cells, i in self.usable_rows:
            row = table_rows[i]
            if row.kind == "pattern":
                occupied[i] = []
                for inside, _ in row.placements:
                    place = {j: c & self.useful for j, c in zip(inside, row.cells) if c != frozenset((0,))}
                    self.shaped.append(place)
                    occupied[i].append(frozenset(place))
            else:
                self.shapeless.append(tuple(c & self.useful for c in row.cells))
                occupied[i] = None
        self._partial: dict[tuple, bool] = {}
        # Can the result of row i, taken into an empty cell, be used where it lies by a later
        # craft? Only if some useful row accepts it at a cell that some placement of row i
        # leaves empty (shapeless rows accept it anywhere).
        self.token_ok: dict[int, bool] = {}
        for res, _, cells, i in self.usable_rows:
            spots = set()
            anywhere = False
            for _, _, cells2, i2 in self.usable_rows:
                if not any(res in c for c in cells2):
                    continue
                if occupied[i2] is None:
                    anywhere = True
                    break
                row2 = table_rows[i2]
                for inside, _ in row2.placements:
                    spots.update(j for j, c in zip(inside, row2.cells) if res in c)
            if occupied[i] is None:
                self.token_ok[i] = len(cells) <= 8 and (anywhere or bool(spots))
            else:
                self.token_ok[i] = any((anywhere and len(occ) <= 8) or bool(spots - occ) for occ in occupied[i])

    def partial_layout(self, items: tuple) -> bool:
        """Whether the grid's items (9 ids, 0 empty) could be completed to some useful row's layout."""
        got = self._partial.get(items)
        if got is not None:
            return got
        occupied = [(j, x) for j, x in enumerate(items) if x]
        got = False
        for place in self.shaped:
            if all(j in place and x in place[j] for j, x in occupied):
                got = True
                break
        if not got:
            xs = [x for _, x in occupied]
            for cells in self.shapeless:
                if len(xs) <= len(cells) and _assignable(xs, cells):
                    got = True
                    break
        self._partial[items] = got
        return got

    def _classes(self) -> None:
        """Group useful items that every recipe treats alike: accepted by exactly the same cells of
        the same rows, smelting into the same class, with the same stack size -- e.g. the kinds
        of planks when only the `planks` tag uses them. R counts units per class. For such items
        nothing is lost: any class-level craft can be done with the very items at hand (a
        cell accepting one accepts all), and a craft can pick, within a class, the items already
        lying in the grid. (Merging other items would only make R more permissive: its optimum
        would stay a lower bound.)"""
        rules = self.rules
        items = self.items
        member = {x: [] for x in items}
        for r, (_, _, cells, _) in enumerate(self.usable_rows):
            for g, c in enumerate(cells):
                for x in c:
                    member[x].append((r, g))
        smelt_of = dict(self.smelt_pairs)
        base = {x: (x == self.target, rules.stack(x), tuple(member[x])) for x in items}
        color = {x: (base[x], smelt_of.get(x, 0)) for x in items}
        count = None
        while True:
            norm = {}
            for x in items:
                norm.setdefault(color[x], len(norm))
            new = {x: norm[color[x]] for x in items}
            if len(norm) == count:
                break
            count = len(norm)
            color = {x: (base[x], new.get(smelt_of.get(x), -1)) for x in items}
        self.cls = new
        self.n_classes = count
        self.t = new[self.target]

    def project(self, held: dict, cells: list) -> tuple:
        """R's state for the units held (item -> number) and the grid's cells [(item, count)]."""
        N = [0] * self.n_classes
        G = [0] * self.n_classes
        M = []
        for x, n in held.items():
            c = self.cls.get(x)
            if c is not None:
                N[c] += n
        for x, n in cells:
            c = self.cls.get(x)
            if c is not None:
                G[c] += 1
                M.append((c, n, n))
        return tuple(N), tuple(G), tuple(sorted(M))


def _assignable(xs: list, cells: tuple) -> bool:
    """Whether each item can take its own cell that accepts it."""
    return pair_off([[c for c, cell in enumerate(cells) if x in cell] for x in xs])


# ====================================================================== the relaxation R
class Relaxation:
    """R's optimum (see the module docstring) from a state (held units, cells per item), memoised."""


    def __init__(self, problem: Problem):
        p = self.p = problem
        rules = p.rules
        cls = p.cls
        self.n = p.n_classes
        self.t = p.t
        # crafting macros per class-level row: result class, count, ingredient groups, cells
        crafts: dict[tuple, bool] = {}  # class-level row -> may its result go into the grid usefully
        for res, k, cells, i in p.usable_rows:
            groups: dict[tuple, int] = {}
            for c in cells:
                key = tuple(sorted({cls[x] for x in c}))
                groups[key] = groups.get(key, 0) + 1
            sig = (cls[res], k, tuple(sorted(groups.items())), len(cells))
            crafts[sig] = crafts.get(sig, False) or p.token_ok[i]
        self.crafts = sorted(crafts)
        self.token_ok = crafts
        used_in_crafts = set()
        for _, _, groups, _ in self.crafts:
            for alts, _ in groups:
                used_in_crafts.update(alts)
        smelts: dict[tuple, int] = {}  # (class in, class out) -> largest n one action can smelt
        for x, y in p.smelt_pairs:
            key = (cls[x], cls[y])
            smelts[key] = max(smelts.get(key, 0), min(rules.stack(x), rules.stack(y)))
        self.smelts = [(a, b, cap, a not in used_in_crafts) for (a, b), cap in sorted(smelts.items())]
        self.target_crafts = [c for c in self.crafts if c[0] == self.t]
        self.row_classes = {c[2]: tuple(sorted({x for alts, _ in c[2] for x in alts})) for c in self.crafts}
        self.target_smelted = any(b == self.t for _, b, _, _ in self.smelts)
        # classes made by exactly one crafting row and no smelting: that row's ingredient groups
        makers: dict[int, list] = {}
        for res, _, groups, _ in self.crafts:
            makers.setdefault(res, []).append(groups)
        smelted = {b for _, b, _, _ in self.smelts}
        self.makers = {c: g for c, g in makers.items() if c not in smelted}  # crafted only: their rows
        self.exact: dict[tuple, int] = {}
        self.lower: dict[tuple, tuple] = {}  # state -> (lower bound, states searched)
        self.paths: dict[tuple, list] = {}  # state -> first R actions of an optimal plan from it
        self.dead: set = set()  # states proven to have no plan
        self.states = 0
        self._choices: dict = {}

    # ---------------------------------------------------------------- enumeration
    def _multisets(self, alts: tuple, m: int, avail: tuple) -> list[tuple]:
        """Ways to choose m cells from the alternatives (by item index), as ((item, count), ...)."""
        key = (alts, m, tuple(min(avail[a], m) for a in alts))
        got = self._choices.get(key)
        if got is not None:
            return got
        caps = [min(avail[a], m) for a in alts]
        out = []

        def rec(i, left, acc):
            if left == 0:
                out.append(tuple(acc))
                return
            if i == len(alts):
                return
            for take in range(min(caps[i], left), -1, -1):
                if take:
                    acc.append((alts[i], take))
                rec(i + 1, left - take, acc)
                if take:
                    acc.pop()

        rec(0, m, [])
        self._choices[key] = out
        return out

    def successors(self, state):
        """(cost, next state, description) of every R action.

        A state is (N, G, M): units held per class, cells per class that may be in the grid,
        and the *known* cells (class, lo, hi): cells certain to be there (lo >= 1) or possibly
        there, holding between lo and hi units. Known cells come from the real grid and from
        takes and smelts into the grid. lo serves the charge for clearing (a cell certain to be
        in the way costs an action that R does not count otherwise: a move out, a move onto a
        cell of the same item, or a useless take, which R has as its own action); hi serves
        emptying (a cell of at most one unit is gone after a take, unless an action R does
        not count -- a move onto it -- fills it up; refilling it then costs R that action)."""
        N, G, M = state
        out = []
        kept: dict[int, list] = {}  # known cells per class: [(lo, hi)], ascending
        for x, lo, hi in M:
            kept.setdefault(x, []).append((lo, hi))
        n = self.n
        for res, k, groups, cells in self.crafts:
            options = [self._multisets(alts, m, N) for alts, m in groups]
            if any(not o for o in options):
                continue
            for combo in itertools.product(*options):
                L = {}
                for part in combo:
                    for x, c in part:
                        L[x] = L.get(x, 0) + c
                if any(c > N[x] for x, c in L.items()):
                    continue
                cost = 1
                for x, c in L.items():
                    if c > G[x]:
                        cost += c - G[x]
                M2 = []
                clear = False
                N2 = list(N)
                G2 = [0] * n
                for x, c in L.items():
                    N2[x] -= c
                for x, cs in kept.items():
                    if x not in L and any(lo >= 1 for lo, _ in cs):
                        clear = True
                for x, use in L.items():
                    cs = kept.get(x, ())
                    fills = use - G[x]
                    if fills > 0:
                        # the fills may have been moved out of a known cell of 2+ units: it and
                        # the cells filled from it keep (its units) - fills - 1 after the take,
                        # so one of them keeps at least ceil((lo - fills - 1) / (fills + 1));
                        # any of them may stay. A known cell of 1 unit gives no fill (its unit
                        # would just move) and is gone after the take.
                        ones = 0
                        for lo, hi in cs:
                            if hi <= 1:
                                ones += 1
                                continue
                            post = max(0, -(-(lo - fills - 1) // (fills + 1)))
                            M2.append((x, post, hi - 1))
                        G2[x] = min(use - ones, N2[x])
                        continue
                    # no fill: the known cells are reused, or cleared (a charge when certain)
                    if sum(1 for lo, _ in cs if lo >= 1) > use:
                        clear = True
                    r = min(len(cs), use)
                    los = sorted(lo for lo, _ in cs)[:r]
                    his = sorted((hi for _, hi in cs), reverse=True)[:r]
                    survivors = [(max(0, lo - 1), hi - 1) for lo, hi in zip(los, his) if hi > 1]
                    # the other cells of x had counts of our choosing: each may stay if units remain
                    flexible = max(0, min(use - r, N2[x] - sum(lo for lo, _ in survivors)))
                    G2[x] = min(len(survivors) + flexible, N2[x])
                    M2 += [(x, lo, hi) for lo, hi in survivors]
                if clear:
                    cost += 1
                N2[res] += k
                what = ("craft", res, tuple(sorted(L.items())))
                M2.sort()
                out.append((cost, (tuple(N2), tuple(G2), tuple(M2)), what))
                if self.token_ok[(res, k, groups, cells)]:  # the result taken into an empty cell
                    G2[res] = min(G2[res] + 1, N2[res])
                    M3 = tuple(sorted(M2 + [(res, k, k)]))
                    out.append((cost, (tuple(N2), tuple(G2), M3), what + ("into the grid",)))
        for x, y, cap, only in self.smelts:
            have = N[x]
            if not have:
                continue
            top = min(have, cap)
            for q in range(1, top + 1):
                if only and q < top:
                    continue  # x has no other use: smelting all of it dominates (see below)
                N2 = list(N)
                N2[x] -= q
                N2[y] += q
                G2 = list(G)
                G2[x] = min(G2[x], N2[x])
                M2 = []
                left = q
                for lo, hi in kept.get(x, ()):  # optimistic: the smelted units leave known cells
                    take = min(left, lo)
                    left -= take
                    M2.append((x, lo - take, hi))
                M2 += [(z, lo, hi) for z, lo, hi in M if z != x]
                M2.sort()
                out.append((1, (tuple(N2), tuple(G2), tuple(M2)), ("smelt", x, q)))
                G2[y] = min(G2[y] + 1, N2[y])
                # the new cell holds q units; for an input with no other use R is only sure of 1
                # (less is optimistic), so that smelting all of it dominates smelting part of it
                lo = 1 if only else q
                out.append((1, (tuple(N2), tuple(G2), tuple(sorted(M2 + [(y, lo, q)]))), ("smelt", x, q, "into the grid")))
        if M:  # a take of a useless result: every cell loses one unit
            M2 = tuple((x, max(0, lo - 1), hi - 1) for x, lo, hi in M if hi > 1)
            out.append((1, (N, G, M2), ("useless take",)))
        return out

    # ---------------------------------------------------------------- search
    def h(self, state) -> int:
        """An admissible estimate inside R. Every action makes at most one new grid cell, and the
        cells a craft needs must be there at its take: a cell already in the grid (G), or made
        by a fill (cost 1) or a take or smelt into the grid (whose cost is the production that
        the craft needs anyway). So the cost is at least 1 (the last action) plus the cells the
        last craft needs beyond G, plus those of the crafts that must happen before it: for an
        ingredient held short, one of the ways to make it (the minimum over the choices; none
        when it can be smelted). Cells of the same class may serve several crafts, so needs
        are summed only over disjoint sets of classes (the largest need per set of classes)."""
        N, G, _ = state
        if N[self.t] > 0:
            return 0
        if self.target_smelted:
            return 1
        best = None
        for _, _, groups, _ in self.target_crafts:
            value = self._needs(N, G, [groups], {}, frozenset(), 0)
            if best is None or value < best:
                best = value
                if best == 0:
                    break
        return 1 + (best or 0)

    def _needs(self, N, G, todo: list, reqs: dict, seen: frozenset, depth: int) -> int:
        """The least disjoint sum of cell needs over the choices of recipes for short items."""
        reqs = dict(reqs)
        todo = list(todo)
        while todo:
            gs = todo.pop()
            for i, (alts, m) in enumerate(gs):
                if reqs.get(alts, 0) < m:
                    reqs[alts] = m
                if len(alts) == 1 and N[alts[0]] < m and alts[0] not in seen:
                    c = alts[0]
                    seen = seen | {c}
                    makers = self.makers.get(c)
                    if makers is None or depth >= 3:
                        continue  # smelted (no cells), or not made at all, or deep enough
                    rest = todo + [gs[i + 1:]]
                    if len(makers) == 1:
                        todo = rest + [makers[0]]
                        break
                    return min(self._needs(N, G, rest + [mk], reqs, seen, depth + 1) for mk in makers)
        total = 0
        used: set = set()
        for alts, m in sorted(reqs.items(), key=lambda kv: -kv[1]):
            if used.isdisjoint(alts):
                used.update(alts)
                total += max(0, m - sum(G[c] for c in alts))
        return total

    def cost(self, state, max_states: int | None = None, limit: int | None = None) -> tuple[int | None, bool]:
        """(R's optimum from `state`, True), or (None, True) when R has no plan from it, or
        (a lower bound, False) when more than `max_states` states would be needed or the
        optimum exceeds `limit` (the bound is then > limit)."""
        got = self.exact.get(state)
        if got is not None:
            return got, True
        if state in self.dead:
            return None, True
        got = self.lower.get(state)
        if got is not None and ((limit is not None and got[0] > limit)
                                or (max_states is not None and got[1] >= max_states)):
            return got[0], False
        h0 = self.h(state)
        if h0 == 0:
            self.exact[state] = 0
            return 0, True
        best = None  # (total, state) through a goal or a state of known exact value
        g_of = {state: 0}
        parent = {state: None}
        buckets: dict[int, list] = {h0: [state]}
        f = h0
        top = h0
        expanded = 0
        hs = {state: h0}
        while True:
            while f <= top and not buckets.get(f):
                f += 1
            if f > top or (best is not None and f >= best[0]):
                break
            if limit is not None and f > limit:
                old = self.lower.get(state)
                self.lower[state] = (max(f, old[0]) if old else f, max(expanded, old[1]) if old else expanded)
                return f, False
            s = buckets[f].pop()
            g = g_of[s]
            if g + hs[s] != f:  # stale entry
                continue
            expanded += 1
            self.states += 1
            if max_states is not None and expanded > max_states:
                bound = f if best is None else min(f, best[0])
                old = self.lower.get(state)
                self.lower[state] = (max(bound, old[0]) if old else bound, max_states)
                return bound, False
            for c, s2, what in self.successors(s):
                g2 = g + c
                if s2[0][self.t] > 0:
                    if best is None or g2 < best[0]:
                        best = (g2, s2)
                        parent[s2] = (s, what)
                        g_of[s2] = g2
                    continue
                if s2 in self.dead:
                    continue
                known = self.exact.get(s2)
                if known is not None:
                    if best is None or g2 + known < best[0]:
                        best = (g2 + known, s2)
                        parent[s2] = (s, what)
                        g_of[s2] = g2
                    continue
                old = g_of.get(s2)
                if old is None or g2 < old:
                    g_of[s2] = g2
                    parent[s2] = (s, what)
                    h2 = hs.get(s2)
                    if h2 is None:
                        h2 = hs[s2] = self.h(s2)
                    buckets.setdefault(g2 + h2, []).append(s2)
                    if g2 + h2 > top:
                        top = g2 + h2
        if best is None:
            self.dead.update(g_of)  # exhausted: nothing reached from here has a plan
            return None, True
        total, s = best
        # every state on the optimal path has an exact cost-to-go
        path = []
        while s is not None:
            self.exact.setdefault(s, total - g_of[s])
            if parent[s] is None:
                break
            s, what = parent[s]
            path.append(what)
        self.paths[state] = path[::-1]  # the R actions up to a state of known value
        return total, True

    def plan(self, state) -> list:
        """One optimal R plan from `state`, as (cost, action) pairs (for explanations and tests)."""
        out = []
        value, exact = self.cost(state)
        while value:
            for c, s2, what in self.successors(state):
                v2 = 0 if s2[0][self.t] > 0 else self.cost(s2)[0]
                if v2 is not None and c + v2 == value:
                    out.append((c, what))
                    state, value = s2, v2
                    break
            else:
                raise AssertionError("no optimal successor")
        return out




def balance_feasible(relaxation: Relaxation, N: tuple, time_limit: float = 10.0) -> bool | None:
    """Whether some numbers of crafts and smelts (in any order) leave every class of items at
    >= 0 and the target at >= 1, starting from the units N (class counts) -- an integer program
    solved by CP-SAT. False is a proof that no plan exists (a real plan's crafts and smelts are
    such numbers); None when the solver gave up."""
    from ortools.sat.python import cp_model

    R = relaxation
    big = 100_000
    m = cp_model.CpModel()
    flow = [[] for _ in range(R.n)]  # (coefficient, variable) per class
    for j, (res, k, groups, _) in enumerate(R.crafts):
        z = m.NewIntVar(0, big, f"z{j}")
        flow[res].append((k, z))
        for g, (alts, mult) in enumerate(groups):
            us = []
            for c in alts:
                u = m.NewIntVar(0, big * mult, f"u{j}_{g}_{c}")
                flow[c].append((-1, u))
                us.append(u)
            m.Add(sum(us) == mult * z)
    for j, (a, b, _, _) in enumerate(R.smelts):
        s = m.NewIntVar(0, big, f"s{j}")
        flow[a].append((-1, s))
        flow[b].append((1, s))
    for c in range(R.n):
        m.Add(N[c] + sum(coef * v for coef, v in flow[c]) >= (1 if c == R.t else 0))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 1
    status = solver.Solve(m)
    if status == cp_model.INFEASIBLE:
        return False
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True
    return None


# ====================================================================== A* over real states
class _Search:
    """A* over (grid, pockets, junk stacks): see the module docstring."""

    def __init__(self, problem: Problem, relaxation: Relaxation, K: int | None = 9):
        self.p = problem
        self.R = relaxation
        self.K = K
        rules = problem.rules
        self.find = rules.find
        self.stack = {x: rules.stack(x) for x in problem.items}
        self.useful = problem.useful
        self.smelt_to = {x: y for x, y in problem.smelt_pairs}
        self.cls = problem.cls
        self.nc = problem.n_classes
        self.t = problem.t
        self.h_memo: dict = {}
        self.expanded = 0
        self.free_base = N_POCKETS - sum(1 for s, (x, _) in problem.slots.items() if s in POCKETS and x not in problem.useful)

    def quantities(self, c: int, room: int) -> range | list:
        top = min(c, room)
        K = self.K
        if K is None or top <= K:
            return range(1, top + 1)
        out = list(range(1, K + 1))
        if c <= room:
            out.append(c)
        return out

    def h(self, grid: tuple, pockets: tuple, limit: int | None = None):
        """(R's optimum from the state, or a lower bound > limit; None: no plan; exact?)"""
        N = [0] * self.nc
        G = [0] * self.nc
        M = []
        cls = self.cls
        for code in grid:
            if code:
                c = cls.get(code >> SHIFT)
                if c is not None:
                    N[c] += code & MASK
                    G[c] += 1
                    M.append((c, code & MASK, code & MASK))
        for code in pockets:
            c = cls.get(code >> SHIFT)
            if c is not None:
                N[c] += code & MASK
        M.sort()
        key = (tuple(N), tuple(G), tuple(M))
        got = self.h_memo.get(key)
        if got is not None and (got[1] or got[0] is None or (limit is not None and got[0] > limit)):
            return got
        got = self.R.cost(key, max_states=H_STATES, limit=limit)
        self.h_memo[key] = got
        return got

    def successors(self, state):
        grid, pockets, junk = state
        stack = self.stack
        useful = self.useful
        out = []
        free = self.free_base - len(pockets) - junk
        Q = self.quantities

        def pocket_without(code, n):
            lst = list(pockets)
            lst.remove(code)
            if n < (code & MASK):
                lst.append(code - n)
                lst.sort()
            return tuple(lst)

        def pocket_with(lst, item, n, merge_code):
            lst = list(lst)
            if merge_code is None:
                lst.append(item << SHIFT | n)
            else:
                lst.remove(merge_code)
                lst.append(merge_code + n)
            lst.sort()
            return tuple(lst)

        items = tuple(code >> SHIFT for code in grid)
        partial = self.p.partial_layout

        def fits(j, x, emptied=None):
            lst = list(items)
            lst[j] = x
            if emptied is not None:
                lst[emptied] = 0
            return partial(tuple(lst))

        # moves out of pockets into the grid
        for code in sorted(set(pockets)):
            x = code >> SHIFT
            if x not in useful:
                continue
            c = code & MASK
            for j in range(9):
                dest = grid[j]
                if dest == 0:
                    if not fits(j, x):
                        continue
                    room = stack[x]
                elif dest >> SHIFT == x:
                    room = stack[x] - (dest & MASK)
                else:
                    continue
                for n in Q(c, room):
                    g2 = list(grid)
                    g2[j] = (x << SHIFT | n) if dest == 0 else dest + n
                    out.append((("move", ("p", code), ("g", j), n), (tuple(g2), pocket_without(code, n), junk)))
        # moves out of grid cells
        for i in range(9):
            code = grid[i]
            if not code:
                continue
            x = code >> SHIFT
            m = code & MASK
            st = stack.get(x, 64)
            for j in range(9):
                if j == i:
                    continue
                dest = grid[j]
                if dest == 0:
                    room = st
                elif dest >> SHIFT == x:
                    room = st - (dest & MASK)
                else:
                    continue
                ok_part = fits(j, x) if dest == 0 else True
                ok_all = fits(j, x, i)
                if not ok_part and not ok_all:
                    continue
                for n in Q(m, room):
                    if not (ok_part if n < m else ok_all):
                        continue
                    g2 = list(grid)
                    g2[i] = code - n if n < m else 0
                    g2[j] = (x << SHIFT | n) if dest == 0 else dest + n
                    out.append((("move", ("g", i), ("g", j), n), (tuple(g2), pockets, junk)))
            targets = [None] if free > 0 else []
            targets += sorted({pc for pc in pockets if pc >> SHIFT == x and (pc & MASK) < st})
            for merge in targets:
                room = st if merge is None else st - (merge & MASK)
                for n in Q(m, room):
                    g2 = list(grid)
                    g2[i] = code - n if n < m else 0
                    if merge is None and n < m and free <= 0:
                        continue
                    out.append((("move", ("g", i), ("pm", merge) if merge else ("pn",), n),
                                (tuple(g2), pocket_with(pockets, x, n, merge), junk)))
        # take the output
        res, k = self.find(items)
        if res:
            after = tuple((code - 1 if code & MASK > 1 else 0) if code else 0 for code in grid)
            if res not in useful:
                if free > 0:
                    out.append((("take", ("pj",), k), (after, pockets, junk + 1)))
            else:
                st = stack[res]
                if free > 0:
                    out.append((("take", ("pn",), k), (after, pocket_with(pockets, res, k, None), junk)))
                for pc in sorted({pc for pc in pockets if pc >> SHIFT == res and (pc & MASK) + k <= st}):
                    out.append((("take", ("pm", pc), k), (after, pocket_with(pockets, res, k, pc), junk)))
                for j in range(9):
                    dest = grid[j]
                    if dest == 0:
                        g2 = list(after)
                        g2[j] = res << SHIFT | k
                    elif dest >> SHIFT == res and (dest & MASK) + k <= st:
                        g2 = list(after)
                        g2[j] = dest + k - 1
                    else:
                        continue
                    out.append((("take", ("g", j), k), (tuple(g2), pockets, junk)))
        # smelt
        sources = [(("p", code), code) for code in sorted(set(pockets))] + [(("g", i), grid[i]) for i in range(9) if grid[i]]
        for src, code in sources:
            x = code >> SHIFT
            y = self.smelt_to.get(x)
            if y is None:
                continue
            c = code & MASK
            st = stack[y]
            for n in Q(c, st):
                if src[0] == "p":
                    p1 = pocket_without(code, n)
                    g1 = grid
                else:
                    p1 = pockets
                    g1 = list(grid)
                    g1[src[1]] = code - n if n < c else 0
                    g1 = tuple(g1)
                free1 = self.free_base - len(p1) - junk
                if free1 > 0:
                    out.append((("smelt", src, ("pn",), n), (g1, pocket_with(p1, y, n, None), junk)))
                for pc in sorted({pc for pc in p1 if pc >> SHIFT == y and (pc & MASK) + n <= st}):
                    out.append((("smelt", src, ("pm", pc), n), (g1, pocket_with(p1, y, n, pc), junk)))
                for j in range(9):
                    if src == ("g", j):
                        continue
                    dest = g1[j]
                    if dest == 0:
                        if not fits(j, y, src[1] if src[0] == "g" and n == c else None):
                            continue
                        g2 = list(g1)
                        g2[j] = y << SHIFT | n
                    elif dest >> SHIFT == y and (dest & MASK) + n <= st:
                        g2 = list(g1)
                        g2[j] = dest + n
                    else:
                        continue
                    out.append((("smelt", src, ("g", j), n), (tuple(g2), p1, junk)))
        return out

    def is_goal(self, state) -> bool:
        target = self.p.target
        grid, pockets, _ = state
        return any(code >> SHIFT == target for code in grid) or any(code >> SHIFT == target for code in pockets)

    def run(self, start, deadline: float, bound: int | None = None, expand_limit: int | None = None,
            weight: float = 1.0):
        """(plan as abstract actions, its cost, True) for an optimal plan within the action
        space; (None, lower bound, complete?) when none within `bound` or time. With weight > 1
        (f = g + weight * h) the plan found is not necessarily the shortest."""
        h0, _ = self.h(start[0], start[1])
        if h0 is None:
            return None, None, True
        if self.is_goal(start):
            return [], 0, True
        counter = itertools.count()
        openl = [(h0, 0, -next(counter), start)]
        g_best = {start: 0}
        parent = {start: None}
        fmin = h0
        while openl:
            f, negg, _, s = heapq.heappop(openl)
            g = -negg
            if g_best.get(s, 1 << 30) < g:
                continue
            if bound is not None and f > bound:
                return None, f, True
            if self.is_goal(s):
                plan = []
                while parent[s] is not None:
                    s, a = parent[s]
                    plan.append(a)
                plan.reverse()
                return plan, g, True
            if g:  # a bound of h > the limit it was computed for: refine before expanding
                hv, exact = self.h(s[0], s[1], int((f - g) / weight))
                if hv is None:
                    continue
                if g + weight * hv > f:
                    heapq.heappush(openl, (g + weight * hv, negg, -next(counter), s))
                    continue
            fmin = f
            self.expanded += 1
            if time.perf_counter() > deadline or (expand_limit is not None and self.expanded > expand_limit):
                return None, fmin, False
            for a, s2 in self.successors(s):
                g2 = g + 1
                if g_best.get(s2, 1 << 30) <= g2:
                    continue
                if self.is_goal(s2):
                    h2 = 0
                else:
                    h2, _ = self.h(s2[0], s2[1], int((f - g2) / weight))
                    if h2 is None:
                        continue
                g_best[s2] = g2
                parent[s2] = (s, a)
                heapq.heappush(openl, (g2 + weight * h2, -g2, -next(counter), s2))
        return None, None, True  # exhausted: no plan in this space


# ====================================================================== plans as texts
def _texts(problem: Problem, plan: list) -> list[str]:
    """The abstract plan on concrete slots (stacks picked in slot order), as the domain's texts."""
    slots = dict(problem.slots)
    find = problem.rules.find

    def pocket_holding(code, avoid=None):
        want = (code >> SHIFT, code & MASK)
        for s in POCKETS:
            if s != avoid and slots.get(s) == want:
                return s
        raise AssertionError(f"no pocket holds {want}")

    def free_pocket():
        for s in POCKETS:
            if s not in slots:
                return s
        raise AssertionError("no free pocket")

    def dest(d, avoid=None):
        if d[0] == "g":
            return GRID[d[1]]
        if d[0] == "pm":
            return pocket_holding(d[1], avoid)
        return free_pocket()

    def add(s, item, n):
        if s in slots:
            assert slots[s][0] == item
            slots[s] = (item, slots[s][1] + n)
        else:
            slots[s] = (item, n)

    def sub(s, n):
        item, c = slots[s]
        if c == n:
            del slots[s]
        else:
            slots[s] = (item, c - n)

    texts = []
    for a in plan:
        if a[0] == "take":
            res, k = find(tuple(slots.get(s, (0, 0))[0] for s in GRID))
            to = dest(a[1])
            pre = {s: slots[s][1] for s in GRID if s in slots}
            for s, c in pre.items():
                if s != to:
                    sub(s, 1)
            if to in pre:
                slots[to] = (res, pre[to] + k - 1)
            else:
                add(to, res, k)
            texts.append(f"move: from [0] to [{to}] with quantity {k}")
            continue
        kind, src, d, n = a
        frm = GRID[src[1]] if src[0] == "g" else pocket_holding(src[1])
        item = slots[frm][0]
        to = dest(d, avoid=frm)
        sub(frm, n)
        add(to, problem.rules.smelts[item] if kind == "smelt" else item, n)
        texts.append(f"{kind}: from [{frm}] to [{to}] with quantity {n}")
    return texts


def replay(task, texts: list[str]) -> bool:
    """Whether the interpreter accepts every action (none a no-op) and ends at the goal."""
    state = task.initial_state()
    for text in texts:
        step = task.step(state, task.parse_action(text, state))
        if not step.valid:
            return False
        state = step.state
    return bool(task.is_goal(state))


# ====================================================================== the entry point
MAX_EXPANSIONS = 3_000  # A* expansions before giving up (deterministic, unlike a time limit) ...
FALLBACK_WEIGHTS = (1.5, 3.0, 10.0)  # ... then as many for weighted A* with each of these weights
ROOT_STATES_FIRST = 5_000  # R states searched for the lower bound before trying the integer program
ROOT_STATES = 200_000  # ... and after it
H_STATES = 1_000  # ... and for the heuristic value of a state met by A*


def solve(task, time_limit: float | None = None, max_expansions: int = MAX_EXPANSIONS, K: int | None = 9,
          validate: bool = True) -> Result:
    """The oracle's answer for a task's initial state (see the module docstring).

    The search is bounded by `max_expansions` A* expansions (deterministic) and, when given,
    by `time_limit` seconds; when a bound stops it before a plan is found the status is
    `unknown` (with R's lower bound)."""
    t0 = time.perf_counter()
    deadline = t0 + time_limit if time_limit is not None else float("inf")

    def done(result: Result) -> Result:
        result.seconds = time.perf_counter() - t0
        return result

    p = Problem(task)
    if p.target in p.held:
        return done(Result(OPTIMAL, [], 0, 0, "the target is already held", "nothing to do"))
    if not p.reachable:
        return done(Result(UNSOLVABLE, method="proven: no chain of recipes makes the target from the item types held"))
    R = Relaxation(p)
    start_R = p.project(p.held, [p.slots[s] for s in GRID if s in p.slots])
    lb, exact = R.cost(start_R, max_states=ROOT_STATES_FIRST)
    if not exact:
        if balance_feasible(R, start_R[0]) is False:
            return done(Result(UNSOLVABLE, method="proven: no numbers of crafts and smelts balance the items "
                               "(integer program over item classes, order ignored)", relaxed_states=R.states))
        lb, exact = R.cost(start_R, max_states=ROOT_STATES)
    if lb is None:
        return done(Result(UNSOLVABLE, method=f"proven: the cell-count relaxation has no plan "
                           f"(all {R.states} of its states searched)", relaxed_states=R.states))
    bound_method = "cell-count relaxation (optimum of R)" if exact else "cell-count relaxation (partial search)"
    grid = tuple((p.slots[s][0] << SHIFT | p.slots[s][1]) if s in p.slots else 0 for s in GRID)
    pockets = tuple(sorted((x << SHIFT | n) for s, (x, n) in p.slots.items() if s in POCKETS and x in p.useful))
    start = (grid, pockets, 0)
    # First with quantities up to the most crafts that use one item in R's optimal plan (how
    # many takes a cell may serve), then up to K; weighted A* if both give up.
    uses: dict[int, int] = {}
    for what in R.paths.get(start_R, ()):
        if what[0] == "craft":
            for x, _ in what[2]:
                uses[x] = uses.get(x, 0) + 1
    k1 = max(uses.values(), default=1)
    plan, searched, used_k, weight = None, 0, K, 1.0
    for k, w in ([(k1, 1.0)] if K is None or k1 < K else []) + [(K, 1.0)] + [(K, w) for w in FALLBACK_WEIGHTS]:
        search = _Search(p, R, k)
        found, _, _ = search.run(start, deadline, expand_limit=max_expansions, weight=w)
        searched += search.expanded
        if found is not None and (plan is None or len(found) < len(plan)):
            plan, used_k, weight = found, k, w
        if plan is not None and (len(plan) <= lb or k == K):
            break
    if plan is None:
        return done(Result(UNKNOWN, lower_bound=lb, bound_method=bound_method,
                           method=f"A* stopped after {searched} expansions",
                           expanded=searched, relaxed_states=R.states))
    K = used_k
    texts = _texts(p, plan)
    if validate and not replay(task, texts):
        raise AssertionError(f"oracle plan rejected by the interpreter: {texts}")
    method = "A*" if weight == 1.0 else f"weighted A* (w = {weight:g}, after A* gave up)"
    method += f" over grid cells and pocket stacks, quantities 1..{K} and all" if K else " over grid cells and pocket stacks, every quantity"
    result = Result(FEASIBLE, texts, len(texts), lb, bound_method, method, expanded=searched)
    if len(texts) == lb:
        result.status = OPTIMAL
    result.relaxed_states = R.states
    return done(result)
