"""How fast the viewer opens a 100-episode run (issue 22's bar: under 2 s), against a
one-episode page measured in the same run.

    python evals/bench/viewer_load.py [--repeat 5]

Makes a run of 50 asynchronous kitchen problems x (oracle, random), writes it as one HTML file
(`--togo-time 0`) and serves it on loopback, then times in headless Chromium, from navigation to
the first episode drawn: the file, the served page (episodes fetched when shown), and a
one-episode page. Prints medians and the ratio to the one-episode page.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def timed_open(browser, url: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(".pane .picture > *")
        times.append(time.perf_counter() - start)
        page.close()
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from browser import launch
    from groundplan.evals.view import Runs, problem_runs, serve, write_html

    problems = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "problems" / "async").glob("*.json"))[:50]
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        subprocess.run([sys.executable, "-m", "groundplan.evals.cli", *problems, "--out", str(run), "--steps-to-go-time", "0"],
                       cwd=ROOT, check=True, capture_output=True)
        start = time.perf_counter()
        pages = Runs([run], togo_time=0)
        big = write_html(pages, Path(tmp) / "run.html")
        built = time.perf_counter() - start
        size = big.stat().st_size
        one = write_html(problem_runs(str(ROOT / problems[0]), None, togo_time=0), Path(tmp) / "one.html")
        got, ready = {}, threading.Event()
        threading.Thread(target=serve, args=(Runs([run], togo_time=0.5), 0, lambda u: (got.update(url=u), ready.set())),
                         daemon=True).start()
        ready.wait(30)
        with sync_playwright() as p:
            browser = launch(p)
            t_one = timed_open(browser, one.as_uri(), args.repeat)
            t_file = timed_open(browser, big.as_uri(), args.repeat)
            t_served = timed_open(browser, got["url"], args.repeat)
            browser.close()
    episodes = len(pages.rows[0])
    print(f"{episodes}-episode run: HTML file {size / 1e6:.1f} MB, written in {built:.1f} s")
    print(f"open to first picture (median of {args.repeat}): one-episode page {t_one:.3f} s; "
          f"{episodes}-episode file {t_file:.3f} s (x{t_file / t_one:.2f}); served {t_served:.3f} s (x{t_served / t_one:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
