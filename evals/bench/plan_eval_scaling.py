"""plan-eval's throughput on its backends: episodes per second with 1 and 2 local workers and on
Ray with 1 and 2 CPUs, on the 100 asynchronous kitchen problems and on the PPNL sets, and what a
Ray episode costs beyond a local one.

    python evals/bench/plan_eval_scaling.py [--repeat 3] [--sets kitchen ppnl] [--agent oracle]

Each configuration runs the whole set into a fresh run folder through `evals.run.execute`, the
code plan-eval runs, `--repeat` times; medians are printed. Ray's start is timed apart (a local
instance is started before the run and stopped after it): the run's time is what a run costs on
a cluster that is already up. The overhead per episode is (Ray 1 CPU - local 1 worker) / episodes,
both one episode at a time, so it is the price of the task, the shipping and the streaming.
Steps-to-go proofs are off (`steps_to_go_time=0`): they are wall-clock budgets, which would make
the work itself depend on the load.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SETS = {
    "kitchen": lambda: sorted(str(p) for p in (ROOT / "problems/async").glob("*.json")),
    "ppnl": lambda: [f"{p}" for p in sorted((ROOT / "problems/ppnl").glob("*.jsonl"))],
}
CONFIGS = (("local", 1), ("local", 2), ("ray", 1), ("ray", 2))


def run_once(refs, backend: str, size: int, agent: str) -> tuple[float, int, float]:
    """(seconds of the run, episodes, seconds to start Ray) in a fresh folder."""
    from groundplan.evals import run as R

    specs = R.agent_specs([agent])
    settings = R.Settings(seed=0, steps_to_go_time=0)
    start_ray = 0.0
    if backend == "ray":
        import ray

        began = time.perf_counter()
        ray.init(num_cpus=size, include_dashboard=False, logging_level="ERROR", _node_ip_address="127.0.0.1")
        start_ray = time.perf_counter() - began
    try:
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            rows, errors = R.execute(refs, specs, settings, Path(folder) / "run", workers=size, backend=backend,
                                     say=lambda text: None)
            took = time.perf_counter() - began
    finally:
        if backend == "ray":
            import ray

            ray.shutdown()
    assert not errors, errors[:1]
    return took, len(rows), start_ray


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--agent", default="oracle")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from groundplan.engine.problemsets import expand

    print(f"plan-eval throughput, agent {args.agent}, medians of {args.repeat} (machine: {os.cpu_count()} CPUs)\n")
    print(f"{'set':8} {'backend':8} {'size':>4} {'episodes':>8} {'seconds':>8} {'ep/s':>8} {'vs local 1':>10} {'ray start':>9}")
    for name in args.sets:
        refs = expand(SETS[name]())
        found = {}
        for backend, size in CONFIGS:
            runs = [run_once(refs, backend, size, args.agent) for _ in range(args.repeat)]
            seconds = statistics.median(r[0] for r in runs)
            episodes = runs[0][1]
            started = statistics.median(r[2] for r in runs)
            found[(backend, size)] = seconds
            ratio = found[("local", 1)] / seconds
            start_text = f"{started:8.2f}s" if backend == "ray" else ""
            print(f"{name:8} {backend:8} {size:>4} {episodes:>8} {seconds:>8.2f} {episodes / seconds:>8.1f} {ratio:>9.2f}x {start_text:>9}",
                  flush=True)
        overhead = (found[("ray", 1)] - found[("local", 1)]) / episodes
        print(f"{name:8} Ray's overhead per episode (1 CPU against 1 local worker): {overhead * 1000:+.2f} ms\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
