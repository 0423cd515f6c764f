"""h_max and LM-cut's rounds compiled with numba, over the flat tables of lmcut.py (issue 35).

Why: after the tables were flattened (lmcut.py), what remains of an evaluation's cost is the
per-round h_max exploration, interpreted statement by statement; it cannot be made incremental
without changing LM-cut's values (lmcut.py's docstring). The same exploration compiled runs
20-50x faster. The kernels here do exactly what lmcut.explore and lmcut.lmcut do, in the same
order: one LIFO stack per cost bucket, kept as a linked list (the most recent push is popped
first, as list.pop() does), the true facts pushed first in ascending order, then the
precondition-free actions' effects, so every action hangs from the same precondition and the
values and cuts are identical to the reference's (tests/test_lmcut_fast.py, tests/test_kernels.py).
The compiled tables keep only the facts and actions that can lead to the goal (Tables: why that
changes no value); on satellite p03 that drops a third of the actions.

Nothing here is imported until a search has run long enough for compilation to pay off (see
`wanted`); numba itself is imported only then, so `import groundplan` stays fast, and the
compiled code is cached on disk (cache=True) so later processes load it instead of compiling.
Without numba (not installed, or GROUNDPLAN_JIT=0) the pure-Python functions of lmcut.py run.
"""
from __future__ import annotations

import os
import threading
import time

INF = 1 << 60
_state = {"kernels": None, "failed": False, "loader": None, "bfs": None, "astar": None}
_lock = threading.Lock()

# a search asks for the compiled kernels once its heuristic (or blind search) has been in use this
# long (CPU seconds): importing numba and loading the kernels from its cache costs about this much
# (0.6 s of CPU measured: numba 0.23 s, this module 0.11 s, the first calls 0.28 s; 0.67 s with the
# searches' kernels), so tiny tasks never pay it. They load on a background thread (compiling, on a
# cold cache, takes 8 s of CPU, 15 s with the searches' kernels) while the search goes on in Python:
# a search never stalls, and its time limit is kept. Once the kernels are loaded in the process,
# every later heuristic and search uses them at once.
WARMUP_SECONDS = 0.6


def mode() -> str:
    """GROUNDPLAN_JIT: 'auto' (the default: compiled once a search runs long enough), '1' (always
    compiled when numba imports) or '0' (never)."""
    value = os.environ.get("GROUNDPLAN_JIT", "auto").strip().lower()
    return {"0": "0", "off": "0", "no": "0", "false": "0", "1": "1", "on": "1", "yes": "1", "true": "1"}.get(value, "auto")


def kernels():
    """The compiled kernels (a module), loaded now (compiled first on a cold cache), or None when
    numba cannot be imported. The searches' kernels (search/_compiled_bfs.py, _compiled_astar.py)
    load with them, so one switch (`Switch`, `GROUNDPLAN_JIT`) governs all compiled code."""
    with _lock:
        if _state["kernels"] is None and not _state["failed"]:
            try:
                from . import _compiled
                from ..search import _compiled_astar, _compiled_bfs
            except ImportError:
                _state["failed"] = True
                return None
            _warm(_compiled)
            _warm_search(_compiled_bfs, _compiled_astar)
            _state["bfs"], _state["astar"] = _compiled_bfs, _compiled_astar
            _state["kernels"] = _compiled
    return _state["kernels"]


def bfs_kernel():
    """The compiled breadth-first search (search/_compiled_bfs.py), once `kernels()` has loaded."""
    return _state["bfs"] if _state["kernels"] is not None else None


def _warm(module) -> None:
    """Load (or compile) every kernel a heuristic calls, on a one-fact task: the goal, reached by a
    free action."""
    from types import SimpleNamespace

    tiny = Tables(SimpleNamespace(size=2, goal=0, init=1, pre=[[]], add=[[0]], adders=[[0]], users=[[], [0]],
                                  count=[0], cost=[0], free=[0], dense={}))
    module.lmcut_value(tiny.block, tiny.head, b"")
    module.hmax_value(tiny.block, tiny.head, b"", tiny.empty, tiny.empty)


def _warm_search(bfs, astar) -> None:
    """Load (or compile) the searches' kernels on a one-op task whose goal is one step away."""
    import numpy as np

    from types import SimpleNamespace

    tiny = Tables(SimpleNamespace(size=2, goal=0, init=1, pre=[[]], add=[[0]], adders=[[0]], users=[[], [0]],
                                  count=[0], cost=[0], free=[0], dense={}))
    one = np.ones((1, 1), dtype=np.uint64)
    ints = np.zeros(2, dtype=np.int64)
    tree = (np.array([0, 1], dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64), ints[:0], ints[:0])
    for which in (0, 1, 2):
        states, table = np.zeros((4, 1), dtype=np.uint64), np.full(16, -1, dtype=np.int64)
        bfs.rehash(states, 1, table)
        links = np.full(4, -1, dtype=np.int64), np.full(4, -1, dtype=np.int64)
        ops = ~one, np.zeros(1, dtype=np.bool_), one, one
        rest = one[0], ~one[0], np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.uint64)
        if which == 2:
            bfs.expand(states, *links, table, np.array([1, 0, 0, 0], dtype=np.int64), *ops, *tree, *rest, 1)
        else:
            heap = np.zeros((4, 5), dtype=np.int64)
            astar.heap_push(heap, 0, 1, 1, 0, 0, 0)
            astar.astar(states, *links, np.zeros(4, dtype=np.int64), table, heap, np.array([1, 1, 0, 0, 0, 0], dtype=np.int64),
                        *ops, np.ones(1, dtype=np.int64), *tree, *rest, which, tiny.block, tiny.head, 1)


def load_in_background() -> None:
    """Start loading the kernels on a daemon thread, once per process."""
    with _lock:
        if _state["loader"] is None and _state["kernels"] is None and not _state["failed"]:
            _state["loader"] = threading.Thread(target=kernels, name="groundplan-kernels", daemon=True)
            _state["loader"].start()


class Switch:
    """Decides, per heuristic, when to move from the Python path to the compiled one."""

    __slots__ = ("began", "on")

    def __init__(self):
        self.began = None
        self.on = None  # None: undecided; True/False once decided

    def compiled(self) -> bool:
        if self.on is not None:
            return self.on
        m = mode()
        if m == "0":
            self.on = False
            return False
        if m == "1":
            self.on = kernels() is not None
            return self.on
        if _state["kernels"] is not None:
            self.on = True
            return True
        if _state["failed"]:
            self.on = False
            return False
        if self.began == -1.0:
            return False  # asked for, loading on the loader thread
        # the clock on every call (0.25 us): a call-count throttle (every 64th) let LM-cut on
        # scanalyzer p07, 0.6 s per interpreted call, run 38 s before the switch looked at the time
        now = time.process_time()
        if self.began is None:
            self.began = now
        elif now - self.began >= WARMUP_SECONDS:
            self.began = -1.0
            load_in_background()
        return False


def csr(lists):
    """Lists of integers as one flat int64 array and the start of each list in it (compressed
    sparse rows: what the compiled kernels index)."""
    import numpy as np

    start = np.zeros(len(lists) + 1, dtype=np.int64)
    flat = []
    for i, items in enumerate(lists):
        flat.extend(items)
        start[i + 1] = len(flat)
    return start, np.asarray(flat, dtype=np.int64)


class Tables:
    """lmcut.LMCutData's lists as numpy arrays, in one int64 block (a single argument to pass)."""

    def __init__(self, data):
        import numpy as np

        # Only what can lead to the goal is kept: the facts the goal needs, backwards through every
        # action adding one of them (all its preconditions), and those actions. A fact outside it
        # only ever enables actions outside it, which add facts outside it: popping one pushes
        # nothing kept, so the kept facts are popped in the same order, every kept action hangs
        # from the same precondition, and no cut action (it adds a goal-zone fact) is lost.
        # Numbers are renumbered in their original order; `actions` maps back (for the cuts).
        fact_kept = bytearray(data.size)
        fact_kept[data.goal] = 1
        action_kept = bytearray(len(data.pre))
        stack = [data.goal]
        while stack:
            f = stack.pop()
            for a in data.adders[f]:
                if not action_kept[a]:
                    action_kept[a] = 1
                    for p in data.pre[a]:
                        if not fact_kept[p]:
                            fact_kept[p] = 1
                            stack.append(p)
        fact_kept[data.init] = 1
        new_fact = [-1] * data.size
        n = 0
        for f in range(data.size):
            if fact_kept[f]:
                new_fact[f] = n
                n += 1
        kept_actions = [a for a in range(len(data.pre)) if action_kept[a]]
        new_action = [-1] * len(data.pre)
        for i, a in enumerate(kept_actions):
            new_action[a] = i
        self.actions = kept_actions
        n_actions = len(kept_actions)
        size = sum(fact_kept)
        init, goal = new_fact[data.init], new_fact[data.goal]
        max_fid = max(data.dense, default=-1)
        fact_dense = np.full(max_fid + 1, -1, dtype=np.int64)
        for fid, d in data.dense.items():
            fact_dense[fid] = new_fact[d]
        kept_facts = [f for f in range(data.size) if fact_kept[f]]
        add = [[new_fact[e] for e in data.add[a] if fact_kept[e]] for a in kept_actions]
        users = [[new_action[a] for a in data.users[f] if action_kept[a]] for f in kept_facts]
        adders = [[new_action[a] for a in (data.adders[f] if f < len(data.adders) else ())] for f in kept_facts]
        count = [data.count[a] for a in kept_actions]
        cost = [data.cost[a] for a in kept_actions]
        free = [new_action[a] for a in data.free if action_kept[a]]

        add_start, add_idx = csr(add)
        users_start, users_idx = csr(users)  # consumers of every fact, INIT's: the free actions
        adders_start, adders_idx = csr(adders)
        parts = [np.asarray(count, dtype=np.int64), np.asarray(cost, dtype=np.int64),
                 add_start, add_idx, users_start, users_idx, adders_start, adders_idx,
                 np.asarray(free, dtype=np.int64), fact_dense]
        header = [size, n_actions, init, goal, len(parts)]
        offsets = []
        at = len(header) + 2 * len(parts)
        for p in parts:
            offsets += [at, at + len(p)]
            at += len(p)
        self.block = np.concatenate([np.asarray(header + offsets, dtype=np.int64), *parts])
        self.n_true_bytes = (max_fid + 8) // 8
        self.empty = np.zeros(0, dtype=np.int64)
        # one LIFO stack per cost level, heads only (-1: empty); kernels leave it empty, and say
        # when a level beyond it was reached (-2): it then doubles and the call is repeated
        self.head = np.full(max(64, 2 * (max(cost, default=0) + 1)), -1, dtype=np.int64)

    def grow(self, at_least: int = 0):
        import numpy as np

        self.head = np.full(max(2 * len(self.head), at_least), -1, dtype=np.int64)


def lmcut(tables: Tables, reached: int, cuts: list | None = None) -> float:
    """h^LM-cut by the compiled kernel; the same value (and cuts) as lmcut.lmcut."""
    k = _state["kernels"]
    raw = reached.to_bytes((reached.bit_length() + 7) // 8, "little")
    if cuts is None:
        h = k.lmcut_value(tables.block, tables.head, raw)
        while h == -2:
            tables.grow()
            h = k.lmcut_value(tables.block, tables.head, raw)
    else:
        h = -2
        while h == -2:
            h, flat, bounds, sizes = k.lmcut_cuts(tables.block, tables.head, raw)
            if h == -2:
                tables.grow()
        actions = tables.actions
        for i in range(len(sizes)):
            cuts.append((sorted(actions[a] for a in flat[bounds[i]:bounds[i + 1]]), int(sizes[i])))
    return float("inf") if h < 0 else int(h)


def hmax(tables: Tables, reached: int, schedule: dict | None = None) -> float:
    """h_max by the compiled kernel; `schedule` maps a step to the facts timers add then."""
    import numpy as np

    k = _state["kernels"]
    raw = reached.to_bytes((reached.bit_length() + 7) // 8, "little")
    if schedule:
        facts, times = [], []
        for at, mask in schedule.items():
            while mask:
                low = mask & -mask
                facts.append(low.bit_length() - 1)
                times.append(int(at))
                mask ^= low
        facts, times = np.asarray(facts, dtype=np.int64), np.asarray(times, dtype=np.int64)
        h = k.hmax_value(tables.block, tables.head, raw, facts, times)
        while h == -2:
            tables.grow(max(times) + 1)
            h = k.hmax_value(tables.block, tables.head, raw, facts, times)
    else:
        h = k.hmax_value(tables.block, tables.head, raw, tables.empty, tables.empty)
        while h == -2:
            tables.grow()
            h = k.hmax_value(tables.block, tables.head, raw, tables.empty, tables.empty)
    return float("inf") if h < 0 else int(h)


def bits_function(tables: Tables, name: str):
    """`bits -> value` calling the compiled `name` ('lmcut' or 'hmax') with the least work per
    call: what A* over bitsets (planners/search/strips.py) calls once per generated state."""
    k = _state["kernels"]
    block, empty, inf = tables.block, tables.empty, float("inf")
    if name == "lmcut":
        kernel = k.lmcut_value

        def value(bits: int):
            v = kernel(block, tables.head, bits.to_bytes((bits.bit_length() + 7) >> 3, "little"))
            if v >= 0:
                return v
            return inf if v == -1 else lmcut(tables, bits)  # -2: more buckets needed; lmcut() grows them
    else:
        kernel = k.hmax_value

        def value(bits: int):
            v = kernel(block, tables.head, bits.to_bytes((bits.bit_length() + 7) >> 3, "little"), empty, empty)
            if v >= 0:
                return v
            return inf if v == -1 else hmax(tables, bits)
    return value
