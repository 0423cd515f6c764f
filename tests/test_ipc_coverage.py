"""The IPC coverage benchmark's own logic (evals/bench/ipc_coverage.py), without Fast Downward runs.

The benchmark decides whether a run fails (an optimal cost that disagrees with Fast Downward's is
a bug) and which tasks a quick run takes; those parts are checked here on the classic PDDL tasks
the project ships, never on the IPC folder in ../shared (competition data, not the project's)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "evals" / "bench"))

import ipc_coverage as bench  # noqa: E402


def test_the_classics_are_listed_in_natural_order_and_filtered():
    tasks = bench.task_list(None, None, None)
    gripper = [t["name"] for t in tasks if t["domain"] == "classic-gripper"]
    assert gripper == ["prob01.pddl", "prob02.pddl", "prob03.pddl", "prob04.pddl"]
    assert {t["domain"] for t in tasks} == {"classic-blocksworld", "classic-gripper"}
    assert [t["name"] for t in bench.task_list(None, ["gripper"], 2)] == ["prob01.pddl", "prob02.pddl"]
    assert sorted(["pfile10.pddl", "pfile2.pddl", "pfile1.pddl"], key=bench.natural) == ["pfile1.pddl", "pfile2.pddl",
                                                                                        "pfile10.pddl"]


def test_our_worker_solves_a_classic_with_both_configs():
    task = next(t for t in bench.task_list(None, ["blocksworld"], None) if t["name"] == "sussman.pddl")
    for config in ("optimal", "satisficing"):
        out = bench.worker(dict(task, config=config, memory=2048))
        assert out["status"].startswith("solved") and out["cost"] == 6, out
        assert out["expanded"] > 0 and out["search_cpu"] >= 0


def test_an_import_failure_is_that_task_result(tmp_path):
    (tmp_path / "domain.pddl").write_text("(define (domain broken) (:predicates (p ?x ?x)) (:action a :parameters ()")
    (tmp_path / "problem.pddl").write_text("(define (problem q) (:domain broken))")
    out = bench.worker(dict(domain="broken", name="q", domain_file=str(tmp_path / "domain.pddl"),
                            problem_file=str(tmp_path / "problem.pddl"), config="optimal", memory=2048))
    assert out["status"] == "import-error" and out["message"]


def _run(status, cost=None, expanded=10, search_cpu=0.5):
    return dict(status=status, cost=cost, expanded=expanded, search_cpu=search_cpu)


def test_the_summary_counts_coverage_and_flags_an_optimal_disagreement():
    records = [
        dict(domain="d", name="p1", optimal=dict(ours=_run("solved-optimal", 5), fd=_run("solved-optimal", 5, 100, 0.1)),
             satisficing=dict(ours=_run("solved-satisficing", 6), fd=_run("solved-satisficing", 7))),
        dict(domain="d", name="p2", optimal=dict(ours=_run("timeout"), fd=_run("solved-optimal", 9)),
             satisficing=dict(ours=_run("import-error"), fd=_run("solved-satisficing", 9))),
    ]
    summary, bugs = bench.summarise(records, ["optimal", "satisficing"])
    opt, sat = summary["d"]["optimal"], summary["d"]["satisficing"]
    assert (opt["ours"], opt["fd"], opt["both"]) == (1, 2, 1) and bugs == []
    assert opt["median_rate_ratio"] == (10 / 0.5) / (100 / 0.1)
    assert (sat["ours"], sat["fd"], sat["cheaper"], sat["equal"], sat["dearer"]) == (1, 2, 1, 0, 0)
    records[0]["optimal"]["ours"]["cost"] = 4
    _, bugs = bench.summarise(records, ["optimal", "satisficing"])
    assert len(bugs) == 1 and "d/p1" in bugs[0]


def test_a_run_saved_after_every_task_resumes_and_merges(tmp_path, monkeypatch, capsys):
    """A killed run keeps every finished task: --resume runs only what the file lacks, and
    --summarise adds up runs of different domains but refuses runs under other limits."""
    calls = []

    def fake(side):
        def run(task, config, seconds, memory_mb):
            calls.append((side, task["name"], config))
            return dict(_run("solved-optimal" if config == "optimal" else "solved-satisficing", 3), total_cpu=0.1)
        return run
    monkeypatch.setattr(bench, "run_ours", fake("ours"))
    monkeypatch.setattr(bench, "run_fd", fake("fd"))
    monkeypatch.setattr("groundplan.planners.fast_downward.driver", lambda: "fd")
    out = tmp_path / "run.json"
    assert bench.main(["--domains", "gripper", "--tasks", "2", "--configs", "optimal", "--json", str(out), "--quiet"]) == 0
    assert len(calls) == 4
    calls.clear()
    assert bench.main(["--domains", "gripper", "--tasks", "3", "--json", str(out), "--resume", "--quiet"]) == 0
    assert sorted({(name, config) for _, name, config in calls}) == [
        ("prob01.pddl", "satisficing"), ("prob02.pddl", "satisficing"), ("prob03.pddl", "optimal"), ("prob03.pddl", "satisficing")]
    other = tmp_path / "other.json"
    assert bench.main(["--domains", "blocksworld", "--tasks", "1", "--json", str(other), "--quiet"]) == 0
    capsys.readouterr()
    assert bench.main(["--summarise", str(out), str(other)]) == 0
    printed = capsys.readouterr().out
    assert "optimal coverage: groundplan 4 of 4, Fast Downward 4" in printed
    assert bench.main(["--domains", "blocksworld", "--tasks", "1", "--time", "5", "--json", str(other), "--quiet"]) == 0
    assert bench.main(["--summarise", str(out), str(other)]) == 2
    assert "different limits" in capsys.readouterr().err


def test_repeats_run_only_what_either_side_solved_and_combine_by_majority_and_median(tmp_path, monkeypatch, capsys):
    """A repeat runs only the pairs someone solved in the first run (both-unsolved pairs cost two
    limits for nothing to measure); the summary of repeats counts a side as solving a pair when
    it did in most runs, with the median CPU of its solving runs."""
    calls, plans = [], {}

    def fake(side):
        def run(task, config, seconds, memory_mb):
            calls.append((side, task["name"], config))
            status, cpu = plans[(side, task["name"], config)].pop(0)
            return dict(_run(status, 3 if status.startswith("solved") else None, 100, cpu), total_cpu=cpu)
        return run
    monkeypatch.setattr(bench, "run_ours", fake("ours"))
    monkeypatch.setattr(bench, "run_fd", fake("fd"))
    monkeypatch.setattr("groundplan.planners.fast_downward.driver", lambda: "fd")
    # prob01: both solve in every run, CPU 1, 3, 2 (ours) and 1 (FD); prob02: ours times out in
    # run 1 but solves in runs 2 and 3 (a majority); prob03: nobody solves it, never repeated
    plans.update({("ours", "prob01.pddl", "optimal"): [("solved-optimal", 1.0), ("solved-optimal", 3.0), ("solved-optimal", 2.0)],
                  ("fd", "prob01.pddl", "optimal"): [("solved-optimal", 1.0)] * 3,
                  ("ours", "prob02.pddl", "optimal"): [("timeout", 60.0), ("solved-optimal", 50.0), ("solved-optimal", 58.0)],
                  ("fd", "prob02.pddl", "optimal"): [("solved-optimal", 5.0)] * 3,
                  ("ours", "prob03.pddl", "optimal"): [("timeout", 60.0)],
                  ("fd", "prob03.pddl", "optimal"): [("timeout", 60.0)]})
    runs = [tmp_path / f"run{i}.json" for i in (1, 2, 3)]
    common = ["--domains", "gripper", "--tasks", "3", "--configs", "optimal", "--quiet"]
    assert bench.main(common + ["--json", str(runs[0])]) == 0
    assert len(calls) == 6
    for run in runs[1:]:
        calls.clear()
        assert bench.main(common + ["--json", str(run), "--repeat-solved", str(runs[0])]) == 0
        assert sorted({name for _, name, _ in calls}) == ["prob01.pddl", "prob02.pddl"]
    capsys.readouterr()
    assert bench.main(["--summarise", *map(str, runs), "--configs", "optimal", "--repeats"]) == 0
    out = capsys.readouterr()
    assert "optimal coverage: groundplan 2 of 3, Fast Downward 2" in out.out
    assert "1 to 3" in out.err
    records = bench.load_records(runs, repeats=True)
    mine = bench.combine_repeats(records[("classic-gripper", "prob01.pddl")]["optimal"])["ours"]
    assert mine["search_cpu"] == 2.0 and mine["solved_runs"] == 3
    late = bench.combine_repeats(records[("classic-gripper", "prob02.pddl")]["optimal"])["ours"]
    assert late["solved_runs"] == 2 and late["search_cpu"] == 54.0
    # without --repeats the files are pieces: the last run's prob02 stands alone
    assert bench.main(["--summarise", *map(str, runs), "--configs", "optimal"]) == 0
