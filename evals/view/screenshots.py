"""Regenerate the README's pictures of each world (docs/images/view-<world>.png).

    python -m groundplan.evals.view.screenshots

Each page is `groundplan view` of a shipped problem with its stored plan, a few steps in, shot
in headless Chromium (Playwright and the system's chromium, as the browser tests use them).
BabyAI's is a question episode instead (LLM-BabyBench's Plan, answered by the oracle agent): its
answer played on the grid beside the expert's actions, and the score as a table.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from groundplan.engine.paths import ROOT

SHOTS = {  # world: (problem, steps to press forward)
    "kitchen": ("problems/sync/04_burger_s126.json", 4),
    "ppnl": ("problems/ppnl/multi_unseen_env.jsonl", 3),
    "grasp": ("problems/grasp/inner_cluster_block.jsonl#grid00-mu1-nolimit-cost0", 6),
    "babyai": ("problems/babyai/plan.jsonl.gz", 3),  # a Plan question, answered by the oracle agent
    "plancraft": ("problems/plancraft/val.small.jsonl#VAL0491", 0),
}


def main() -> int:
    from playwright.sync_api import sync_playwright

    from groundplan.engine.problemsets import expand

    from . import problem_runs, write_html

    sys.path.insert(0, str(ROOT / "tests"))
    from browser import launch

    out_dir = ROOT / "docs" / "images"
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = launch(p)
        for world, (problem, steps) in SHOTS.items():
            ref = problem if "#" in problem or problem.endswith(".json") else expand([problem])[0]
            runs = _question_run(ref, Path(tmp) / world) if world == "babyai" else problem_runs(ref, None, togo_time=0.5)
            page_file = write_html(runs, Path(tmp) / f"{world}.html")
            page = browser.new_page(viewport={"width": 1280, "height": 1000 if world == "babyai" else 820})
            page.goto(page_file.as_uri())
            page.wait_for_selector(".pane .counter")
            for _ in range(steps):
                page.keyboard.press("ArrowRight")
            page.screenshot(path=str(out_dir / f"view-{world}.png"))
            print(f"wrote docs/images/view-{world}.png")
        browser.close()
    return 0


def _question_run(ref: str, folder: Path):
    """A one-episode run of the oracle agent answering `ref`'s question, as the viewer reads it."""
    from click.testing import CliRunner

    from ..cli import run

    done = CliRunner().invoke(run, [ref, "--agent", "oracle", "--out", str(folder), "--steps-to-go-time", "0"])
    if done.exit_code != 0:
        raise SystemExit(done.output)
    from . import Runs

    return Runs([folder], togo_time=0)


if __name__ == "__main__":
    sys.exit(main())
