"""The data figures of the Plancraft spec (section 8), recomputed from this world's own files.

They check the conversion (domains/plancraft/convert.py) against the published numbers: split
sizes, complexity bins, impossible shares, recipe counts, stack sizes, the recipe graph, the
unseen-target flags. `python -m groundplan.domains.plancraft.figures` prints them; tests/test_plancraft_data.py
asserts them against the spec's values.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ("train", "val", "test", "val.small", "test.small")


def rows(split: str) -> list[dict]:
    lines = (ROOT / "problems" / "plancraft" / f"{split}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[1:] if line.strip()]


def split_figures(split: str) -> dict:
    meta = [r["metadata"] for r in rows(split)]
    bins = Counter(m["complexity_bin"] for m in meta)
    grouped = Counter(m["complexity_split"] for m in meta)
    edges = {}
    for m in meta:
        if m["complexity_bin"] != 5:
            low, high = edges.get(m["complexity_bin"], (m["complexity"], m["complexity"]))
            edges[m["complexity_bin"]] = (min(low, m["complexity"]), max(high, m["complexity"]))
    slots = [sum(1 for (term, _) in r["values"] if term[0] == "count") for r in rows(split)]
    return {
        "examples": len(meta),
        "impossible": sum(m["impossible"] for m in meta),
        "bins": [bins.get(b, 0) for b in range(6)],
        "grouped": {k: grouped.get(k, 0) for k in ("easy", "medium", "hard", "impossible")},
        "distractors": {k: sum(m["num_distractors"] == k for m in meta) for k in (4, 8, 16)},
        "bin_edges": [list(edges[b]) for b in sorted(edges)],
        "unique_targets": len({m["target"] for m in meta}),
        "unseen_in_train": sum(bool(m["unseen_in_train"]) for m in meta),
        "unseen_in_val": sum(bool(m["unseen_in_val"]) for m in meta),
        "recipe_types": dict(Counter(m["recipe_type"] for m in meta)),
        "mean_recipe_steps": _mean([m["optimal_path_length"] for m in meta if not m["impossible"]]),
        "mean_items_used": _mean([m["items_used"] for m in meta if not m["impossible"]]),
        "mean_slots": _mean(slots),
        "max_slots": max(slots),
    }


def _mean(values):
    return round(sum(values) / len(values), 3) if values else None


def recipe_figures() -> dict:
    domain = json.loads((ROOT / "domains" / "plancraft" / "domain.json").read_text())
    tables = domain["tables"]
    crafting, smelting = tables["crafting"]["rows"], tables["smelting"]["rows"]
    edges, nodes, results = set(), set(), set()

    def ids(cell):
        return cell if isinstance(cell, list) else [cell]
    for row in crafting + smelting:
        result = row["result"][0]
        results.add(result)
        nodes.add(result)
        cells = [c for line in row["pattern"] for c in line] if "pattern" in row else row.get("unordered") or row["match"]
        for cell in cells:
            for item in ids(cell):
                if item:
                    nodes.add(item)
                    edges.add((item, result))
    stack = Counter()
    for row in tables["stack-size"]["rows"]:
        stack[row["result"][0]] += len(ids(row["match"][0]))
    items = len(domain["metadata"]["items"])
    stack[64] = items - sum(stack.values())
    return {
        "items": items,
        "shaped": sum("pattern" in r for r in crafting),
        "shapeless": sum("unordered" in r for r in crafting),
        "smelting": len(smelting),
        "result_items": len(results),
        "stack_sizes": {size: stack[size] for size in (64, 16, 1)},
        "graph_nodes": len(nodes),
        "graph_edges": len(edges),
    }


def main() -> None:
    print(json.dumps({"recipes": recipe_figures(), **{s: split_figures(s) for s in SPLITS}}, indent=1))


if __name__ == "__main__":
    main()
