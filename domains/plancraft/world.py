"""The crafting world's fixed vocabulary: slot names and indices, item names and ids, and a
state read as the reference's inventory (slot index -> {type, quantity}).

The reference numbers slots 0 (output), 1-9 (grid A1..C3, row-major) and 10-45 (I1..I36);
the domain names them A1..C3 and I1..I36 (labelled [A1], [I1] in texts) and computes [0] from
the grid. Item k > 0 is `items()[k - 1]`; 0 is an empty slot. Every module of the world that
needs these reads them here instead of keeping a copy.
"""
from __future__ import annotations

import functools

GRID = tuple(f"{r}{c}" for r in "ABC" for c in "123")
POCKETS = tuple(f"I{i}" for i in range(1, 37))
SLOTS = GRID + POCKETS  # reference indices 1..45
INDEX = {name: i + 1 for i, name in enumerate(SLOTS)}
OUTPUT = "[0]"


def slot_label(index: int) -> str:
    """The reference's text for a slot index: [0], [A1] .. [C3], [I1] .. [I36]."""
    return OUTPUT if index == 0 else f"[{SLOTS[index - 1]}]"


@functools.lru_cache(maxsize=None)
def items(domain_file: str | None = None) -> tuple[str, ...]:
    """Item names in id order (id k is items[k-1]), from the domain's metadata."""
    from groundplan.engine.loader import load_domain
    from groundplan.engine.paths import DOMAINS_DIR

    domain = load_domain(domain_file or DOMAINS_DIR / "plancraft" / "domain.json")
    return tuple(domain.metadata["items"])


@functools.lru_cache(maxsize=None)
def item_ids(domain_file: str | None = None) -> dict[str, int]:
    return {name: i + 1 for i, name in enumerate(items(domain_file))}


def item_name(item_id: int, domain_file: str | None = None) -> str | None:
    return items(domain_file)[item_id - 1] if item_id else None


def inventory(task, state) -> dict[int, dict]:
    """The state as the reference's `env.state`: slot index -> {"type", "quantity"}, non-empty slots only."""
    names = items(task.domain.file)
    out = {}
    crafted = task.value(state, "crafted-count", ())
    if crafted:
        out[0] = {"type": names[task.value(state, "crafted-item", ()) - 1], "quantity": crafted}
    for i, slot in enumerate(SLOTS, start=1):
        count = task.value(state, "count", (slot,))
        if count:
            out[i] = {"type": names[task.value(state, "item", (slot,)) - 1], "quantity": count}
    return out


def target(task) -> str:
    return task.problem.metadata.get("target") or items(task.domain.file)[int(task.value(task.initial_state(), "target", ())) - 1]
