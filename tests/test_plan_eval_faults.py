"""plan-eval under faults: a corrupt line, a plug-in that raises, a worker or the parent killed, a
full disk, a read-only folder, an episode out of memory. Each ends with every good episode kept
and, after --resume, a complete run."""
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from procfs import processes

from groundplan.evals.cli import report, run

KITCHEN = sorted(str(p) for p in Path("problems/async").glob("0[1-3]_*_s4*.json"))  # 6 small kitchen problems
FAST = ["--steps-to-go-time", "0", "--seed", "5"]


def _invoke(command, args):
    result = CliRunner().invoke(command, args, catch_exceptions=False)
    return result.exit_code, result.output


def _lines(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "episodes.jsonl").read_text().splitlines()]


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The uninterrupted run every faulty one must end up equal to."""
    folder = tmp_path_factory.mktemp("whole") / "r"
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder)])
    assert code == 0, out
    return folder


def _complete(folder: Path, whole: Path) -> None:
    ids = [r["id"] for r in _lines(folder)]
    assert len(ids) == len(set(ids)) == 2 * len(KITCHEN)
    assert _summary(folder) == _summary(whole)


# 4. a corrupt line ------------------------------------------------------------------------------

def test_a_corrupt_middle_line_is_moved_aside_and_every_good_line_kept(tmp_path, whole):
    folder = tmp_path / "r"
    assert _invoke(run, KITCHEN + FAST + ["--out", str(folder)])[0] == 0
    path = folder / "episodes.jsonl"
    lines = path.read_bytes().split(b"\n")[:-1]
    lines[3] = lines[3][:40] + b"\xff garbage"  # a bad middle line
    lines[7] = b'{"not": "an episode"}'  # valid JSON, but no episode line
    path.write_bytes(b"\n".join(lines) + b"\n")
    good = [line for i, line in enumerate(lines) if i not in (3, 7)]

    result = CliRunner().invoke(report, [str(folder), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0
    assert "2 line(s) could not be read" in result.stderr and "line 4" in result.stderr and "--resume" in result.stderr
    assert sum(e["episodes"] for e in json.loads(result.stdout)["by_set"]) == 10  # every good line, none after the bad one lost

    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    assert code == 0, out
    assert "2 unreadable line(s)" in out and "episodes.rejected.jsonl" in out
    kept = path.read_bytes().split(b"\n")
    assert kept[:len(good)] == good  # every good line, byte for byte, in its order
    rejected = [json.loads(x) for x in (folder / "episodes.rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejected] == [4, 8]
    assert rejected[0]["text"].startswith(lines[3][:40].decode()) and rejected[1]["text"] == '{"not": "an episode"}'
    assert not list(folder.glob("*.tmp"))
    _complete(folder, whole)


def test_only_a_torn_last_line_is_cut_a_bad_last_line_with_its_newline_is_kept_aside(tmp_path):
    from groundplan.evals import store

    folder = tmp_path
    row = '{"id": "a", "agent_label": "x", "problem_set": "s"}'
    (folder / "episodes.jsonl").write_text(f"{row}\n{{broken}}\n")
    found = store.repair_episodes(folder)
    assert [n for n, _, _ in found.bad] == [2] and (folder / "episodes.jsonl").read_text() == row + "\n"
    (folder / "episodes.jsonl").write_text(f"{row}\n{{\"id\": \"b")
    found = store.repair_episodes(folder)
    assert not found.bad and found.torn and (folder / "episodes.jsonl").read_text() == row + "\n"
    (folder / "episodes.jsonl").write_text(row)  # a whole row whose newline was never written
    assert len(store.repair_episodes(folder).rows) == 1 and (folder / "episodes.jsonl").read_text() == row + "\n"
    assert len((folder / "episodes.rejected.jsonl").read_text().splitlines()) == 1


# 5. a plug-in that raises, a worker that dies, a parent that dies ---------------------------

def _ppnl_set(tmp_path: Path) -> Path:
    lines = Path("problems/ppnl/single_5x5.jsonl").read_text().splitlines()[:6]
    rows = [json.loads(x) for x in lines]
    rows[2].pop("metadata")  # KeyError in domains/ppnl/metrics.py
    rows[3]["metadata"]["start"] = 7  # TypeError there
    path = tmp_path / "ppnl.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_metrics_plug_in_that_raises_costs_its_episode_not_the_run(tmp_path, workers):
    problems = _ppnl_set(tmp_path)
    folder = tmp_path / "r"
    code, out = _invoke(run, [str(problems), "--out", str(folder), "--workers", workers] + FAST)
    assert code == 1, out
    rows = {r["id"].split("#")[1] + ":" + r["agent_label"]: r for r in _lines(folder)}
    assert len(rows) == 10
    failed = {k: r for k, r in rows.items() if r["outcome"] == "metric-error"}
    assert len(failed) == 4
    assert any("KeyError" in r["error"] for r in failed.values()) and any("TypeError" in r["error"] for r in failed.values())
    assert all(r["agent_outcome"] and r["unscored"] for r in failed.values())
    assert "4 episode(s) could not be scored" in out
    summary = _summary(folder)
    (oracle,) = [e for e in summary["by_set"] if e["agent"] == "oracle"]
    assert oracle["episodes"] == 5 and oracle["outcomes"]["metric-error"] == 2
    assert oracle["ppnl_optimal"] == 1.0  # the world's columns, over the episodes it could score
    code, out = _invoke(run, [str(problems), "--out", str(folder), "--resume", "--workers", workers] + FAST)
    assert code == 1 and len(_lines(folder)) == 10  # nothing ran twice, nothing crashed


def _die_once(marker: str, victim: str):
    """A run_job whose worker is killed (as by the kernel's OOM killer) the first time it meets `victim`."""
    from groundplan.evals import run as R

    real = R.run_job

    def job(j):
        if j[0] == victim and not os.path.exists(marker):
            Path(marker).write_text("died")
            os.kill(os.getpid(), signal.SIGKILL)
        return real(j)
    return job


def _die_always(victim: str):
    from groundplan.evals import run as R

    real = R.run_job

    def job(j):
        if j[0] == victim and j[1].label == "random":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(j)
    return job


POOLS = [["--workers", "2"], ["--workers", "2", "--concurrency", "2"]]
POOLS_AND_ONE = POOLS + ([["--episode-memory", "1000"]] if sys.platform.startswith("linux") else [])  # one worker, bounded


@pytest.mark.slow
@pytest.mark.parametrize("pool", POOLS_AND_ONE, ids=" ".join)
def test_a_killed_worker_is_replaced_and_its_episodes_run_again(tmp_path, whole, monkeypatch, pool):
    from groundplan.evals import run as R

    monkeypatch.setattr(R, "run_job", _die_once(str(tmp_path / "died"), KITCHEN[2]))
    folder = tmp_path / "r"
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder)] + pool)
    assert code == 0, out
    assert (tmp_path / "died").exists()
    _complete(folder, whole)


@pytest.mark.parametrize("pool", POOLS, ids=" ".join)
def test_an_episode_that_kills_its_worker_twice_is_given_up_not_looped(tmp_path, whole, monkeypatch, pool):
    from groundplan.evals import run as R

    monkeypatch.setattr(R, "run_job", _die_always(KITCHEN[1]))
    folder = tmp_path / "r"
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder)] + pool)
    assert code == 1, out
    rows = _lines(folder)
    assert len(rows) == 12
    (dead,) = [r for r in rows if r["outcome"] == "worker-died"]
    assert dead["problem_ref"] == KITCHEN[1] and dead["agent_label"] == "random"
    assert "SIGKILL" in dead["error"] and "twice" in dead["error"] and "worker-died" in out
    assert all(r["outcome"] in ("goal-reached", "step-cap") for r in rows if r is not dead)
    summary = _summary(folder)
    assert sum(e["episodes"] for e in summary["by_set"]) == 12
    monkeypatch.undo()
    code, _ = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"] + pool)
    assert code == 1 and len(_lines(folder)) == 12  # the given-up episode stays given up


def _children(pid: int) -> list[int]:
    return [child for child, fields in processes() if int(fields[1]) == pid]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


SLOW_RUN = """
import sys, time
import groundplan.evals.run as R
real = R.run_job
def slow(job):
    time.sleep(0.3)
    return real(job)
R.run_job = slow
from groundplan.evals.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the workers through /proc")
def test_killing_plan_eval_ends_its_workers_and_resume_completes(tmp_path, whole):
    folder = tmp_path / "r"
    env = dict(os.environ, PYTHONPATH=str(Path.cwd()))
    proc = subprocess.Popen([sys.executable, "-c", SLOW_RUN, *KITCHEN, *FAST, "--out", str(folder), "--workers", "2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        episodes = folder / "episodes.jsonl"
        deadline = time.time() + 60
        while time.time() < deadline and (not episodes.exists() or episodes.read_text().count("\n") < 2):
            time.sleep(0.02)
        workers = _children(proc.pid)
        assert len(workers) == 2, "the run should have two workers"
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, as the OOM killer or a kill -9 would
        proc.wait()
        deadline = time.time() + 5
        while time.time() < deadline and any(map(_alive, workers)):
            time.sleep(0.05)
        assert not any(map(_alive, workers)), "orphaned workers still running 5 s after their parent died"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    assert code == 0, out
    _complete(folder, whole)


# 6. a full disk, a read-only folder -------------------------------------------------------------

def _full_disk(monkeypatch, after: int, cut_fails: bool = False):
    """os.write on episodes.jsonl takes `after` lines, then half of the next one, then fails with ENOSPC."""
    real_write, real_truncate = os.write, os.ftruncate
    state = {"lines": 0, "half": False}

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if not target.endswith("episodes.jsonl"):
            return real_write(fd, data)
        if state["lines"] < after:
            state["lines"] += 1
            return real_write(fd, data)
        if not state["half"]:
            state["half"] = True
            return real_write(fd, bytes(data)[:len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def ftruncate(fd, size):
        if cut_fails:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_truncate(fd, size)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "ftruncate", ftruncate)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the episodes file through /proc")
@pytest.mark.parametrize("cut_fails", [False, True])
def test_a_full_disk_stops_the_run_cleanly_and_resume_completes_it(tmp_path, whole, monkeypatch, cut_fails):
    folder = tmp_path / "r"
    _full_disk(monkeypatch, after=3, cut_fails=cut_fails)
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder)])
    monkeypatch.undo()
    assert code == 3, out
    assert "ENOSPC" in out and "no space left" in out and f"--out {folder} --resume" in out and "Traceback" not in out
    assert "the 3 episode(s)" in out
    text = (folder / "episodes.jsonl").read_text()
    if cut_fails:
        assert not text.endswith("\n") and text.count("\n") == 3  # a torn tail, cut on resume
    else:
        assert text.endswith("\n") and len(text.splitlines()) == 3
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    assert code == 0, out
    assert ("torn last line" in out) == cut_fails
    _complete(folder, whole)


def _half_run(folder: Path) -> None:
    """A run folder with the first 6 of its 12 episodes, as an interrupted run leaves it."""
    assert _invoke(run, KITCHEN + FAST + ["--out", str(folder)])[0] == 0
    path = folder / "episodes.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:6]))


def test_a_read_only_folder_is_reported_not_a_traceback(tmp_path, whole, monkeypatch):
    """The file system turned read-only under a run (injected: chmod does not bind root)."""
    folder = tmp_path / "r"
    _half_run(folder)
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if str(dst).startswith(str(folder)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dst))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    monkeypatch.undo()
    assert code == 3 and "EROFS" in out and "read-only" in out and "writable" in out and "--resume" in out, out
    assert len(_lines(folder)) == 6 and not list(folder.glob("*.tmp"))
    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    assert code == 0, out
    _complete(folder, whole)


def _chmod_binds(folder: Path) -> bool:
    """False for root (with CAP_DAC_OVERRIDE), whom a read-only mode does not stop."""
    probe = folder / "probe"
    probe.mkdir()
    probe.chmod(0o555)
    try:
        (probe / "x").write_text("")
    except PermissionError:
        return True
    finally:
        probe.chmod(0o755)
    return False


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_chmod_read_only_folder_is_reported_not_a_traceback(tmp_path, whole):
    if not _chmod_binds(tmp_path):
        pytest.skip("chmod does not bind root (run as another user, or without CAP_DAC_OVERRIDE, to test it)")
    folder = tmp_path / "r"
    _half_run(folder)
    folder.chmod(0o555)
    try:
        code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
        assert code == 3 and "EACCES" in out and "--resume" in out, out
    finally:
        folder.chmod(0o755)
    assert _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])[0] == 0
    _complete(folder, whole)


# 1. --episode-memory ------------------------------------------------------------------------------

def _greedy_agent(victim: str, megabytes: int):
    """AgentSpec.make whose agent asks for `megabytes` at reset on the problem `victim` (inside the step loop)."""
    from groundplan.evals.run import AgentSpec

    real = AgentSpec.make

    def make(self):
        agent = real(self)
        reset = agent.reset

        def greedy_reset(task, seed=None):
            if task.problem.file == victim or str(task.problem.file).endswith(victim):
                agent.ballast = bytearray(megabytes * 2**20)
            return reset(task, seed)
        agent.reset = greedy_reset
        return agent
    return make


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--episode-memory needs Linux")
def test_an_episode_beyond_episode_memory_is_a_memout_not_a_dead_run(tmp_path, monkeypatch):
    from groundplan.engine.errors import ResourceLimit
    from groundplan.evals import run as R

    monkeypatch.setattr(R.AgentSpec, "make", _greedy_agent(KITCHEN[0], 160))
    real_task = R._task

    def task(ref):
        if ref == KITCHEN[1]:
            raise ResourceLimit("memout", f"{ref}: its estimated ground size does not fit the memory given")
        return real_task(ref)

    monkeypatch.setattr(R, "_task", task)
    folder = tmp_path / "r"
    code, out = _invoke(run, KITCHEN[:3] + FAST + ["--out", str(folder), "--episode-memory", "64"])
    assert code == 0, out
    rows = {(r["problem_ref"], r["agent_label"]): r for r in _lines(folder)}
    assert len(rows) == 6
    for agent in ("oracle", "random"):
        assert rows[(KITCHEN[0], agent)]["outcome"] == "memout"
        assert "--episode-memory 64 MB" in rows[(KITCHEN[0], agent)]["error"]
        assert rows[(KITCHEN[1], agent)]["outcome"] == "memout" and "ground size" in rows[(KITCHEN[1], agent)]["error"]
    assert rows[(KITCHEN[2], "oracle")]["outcome"] == "goal-reached"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["settings"]["episode_memory"] == 64
    (oracle,) = [e for e in _summary(folder)["by_set"] if e["agent"] == "oracle"]
    assert oracle["episodes"] == 3 and oracle["outcomes"]["memout"] == 2


def test_without_the_limit_the_same_allocation_succeeds(tmp_path, monkeypatch):
    """The memout above comes from --episode-memory, not from the machine."""
    from groundplan.evals import run as R

    monkeypatch.setattr(R.AgentSpec, "make", _greedy_agent(KITCHEN[0], 160))
    folder = tmp_path / "r"
    assert _invoke(run, KITCHEN[:1] + FAST + ["--out", str(folder), "--agent", "oracle"])[0] == 0
    assert _lines(folder)[0]["outcome"] == "goal-reached"


def test_a_run_folder_from_before_episode_memory_still_resumes(tmp_path):
    from groundplan.evals.run import _comparable

    old = {"agents": [], "problems": {}, "settings": {"seed": 0, "budget": None}}
    new = {"agents": [], "problems": {}, "settings": {"seed": 0, "budget": None, "episode_memory": None}}
    assert _comparable(old) == _comparable(new)
    assert _comparable(old) != _comparable({**new, "settings": {"seed": 0, "episode_memory": 100}})


# 8. a stored reference that is wrong ----------------------------------------------------------------

def test_a_problem_whose_stored_plan_does_not_replay_is_refused_not_scored(tmp_path):
    """Its cost would otherwise cap every agent's optimality (cost 1: the oracle 'beats' it)."""
    data = json.loads(Path(KITCHEN[0]).read_text())
    data["optimal"] = {"cost": 1, "method": "hand", "plan": data["optimal"]["plan"][:1]}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    folder = tmp_path / "r"
    code, out = _invoke(run, [str(bad), KITCHEN[1]] + FAST + ["--out", str(folder)])
    assert code == 1, out
    assert "optimal" in out and "bad.json" in out
    rows = _lines(folder)
    assert {r["problem_ref"] for r in rows} == {KITCHEN[1]}  # the good problem ran, the bad one was not scored


def test_a_fifo_named_as_a_problem_is_refused_at_once(tmp_path):
    """The run's manifest reads every problem before the run: a named pipe used to block it forever."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "groundplan.evals.cli", str(fifo), KITCHEN[0], *FAST, "--out", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pipe.json" in done.stdout + done.stderr and "Traceback" not in done.stderr


def _load_under_limit(ref: str, megabytes: int, answer) -> None:
    from groundplan.evals import pool
    from groundplan.evals.run import forget_tasks, _task

    forget_tasks()  # what the parent loaded before the fork must not hide the read
    pool._limit_memory(megabytes)
    try:
        _task(ref)
        answer.send("loaded")
    except MemoryError:
        answer.send("MemoryError")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--episode-memory needs Linux")
def test_a_worker_under_a_small_episode_memory_still_reads_its_problem_file():
    """A read of the file's size, not of the 256 MB limit on files (read(n) reserves n bytes first)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe()
    worker = context.Process(target=_load_under_limit, args=(KITCHEN[0], 64, theirs))
    worker.start()
    worker.join(60)
    assert mine.recv() == "loaded"


# 7. two writers on one folder, duplicate lines, lines of the wrong shape ------------------------

HELD_RUN = """
import os, sys, time
import groundplan.evals.run as R
real, go, started = R.run_job, sys.argv.pop(1), []
def held(job):  # the first episode runs at once, the others once the test says go (at most 30 s)
    if started:
        deadline = time.time() + 30
        while not os.path.exists(go) and time.time() < deadline:
            time.sleep(0.02)
    started.append(job)
    return real(job)
R.run_job = held
from groundplan.evals.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_second_plan_eval_on_a_folder_being_written_is_refused_and_names_the_pid(tmp_path):
    folder, go = tmp_path / "r", tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(Path.cwd()))
    args = [*KITCHEN, *FAST, "--agent", "oracle", "--out", str(folder)]
    first = subprocess.Popen([sys.executable, "-c", HELD_RUN, str(go), *args], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        episodes = folder / "episodes.jsonl"
        deadline = time.time() + 60
        while time.time() < deadline and first.poll() is None and (not episodes.exists() or not episodes.read_text().count("\n")):
            time.sleep(0.02)
        assert first.poll() is None, first.communicate()[0]
        second = subprocess.run([sys.executable, "-m", "groundplan.evals.cli", *args, "--resume"], env=env, capture_output=True, text=True,
                                timeout=60)
        assert first.poll() is None, "the first run should still be writing"
        assert second.returncode == 3, second.stdout + second.stderr
        assert f"{folder} is being written by the plan-eval process with PID {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr and not second.stdout
        go.touch()
        out, _ = first.communicate(timeout=60)
        assert first.returncode == 0, out
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    ids = [r["id"] for r in _lines(folder)]
    assert len(ids) == len(set(ids)) == len(KITCHEN)
    assert sum(e["episodes"] for e in _summary(folder)["by_set"]) == len(KITCHEN)


def test_a_lock_left_by_a_dead_run_does_not_hold_its_folder(tmp_path):
    from groundplan.evals import store

    folder = tmp_path / "r"
    folder.mkdir()
    (folder / store.LOCK).write_text("999999999\n")  # what a killed run leaves: the file, not the kernel's lock
    with store.one_writer(folder):
        with store.one_writer(folder):  # re-entrant in one process
            assert (folder / store.LOCK).read_text().strip() == str(os.getpid())
    with store.one_writer(folder):
        pass


def test_without_flock_a_pid_file_holds_the_folder_while_its_process_lives(tmp_path, monkeypatch):
    from groundplan.evals import store

    monkeypatch.setitem(sys.modules, "fcntl", None)  # as on Windows: `import fcntl` fails
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / store.LOCK).write_text("999999999\n")  # a dead writer's PID: taken over
    with store.one_writer(folder):
        assert (folder / store.LOCK).read_text().strip() == str(os.getpid())
    assert not (folder / store.LOCK).exists()  # released: removed by its owner
    (folder / store.LOCK).write_text(f"{os.getppid()}\n")  # a live process
    with pytest.raises(store.FolderBusy, match=f"PID {os.getppid()}"):
        with store.one_writer(folder):
            pass


def _copy_run(whole: Path, tmp_path: Path) -> Path:
    import shutil

    folder = tmp_path / "r"
    shutil.copytree(whole, folder)
    return folder


def test_duplicate_lines_count_once_in_report_and_resume_sets_them_aside(tmp_path, whole):
    folder = _copy_run(whole, tmp_path)
    path = folder / "episodes.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:6] + lines[:3] + lines[6:] + lines[5:6]) + "\n")  # 4 episodes written twice

    result = CliRunner().invoke(report, [str(folder), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0
    assert sum(e["episodes"] for e in json.loads(result.stdout)["by_set"]) == len(lines)
    assert "4 duplicate line(s) ignored" in result.stderr and "line 7: a duplicate of line 1" in result.stderr

    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    assert code == 0, out
    assert "4 duplicate line(s)" in out and "episodes.rejected.jsonl" in out
    rejected = [json.loads(x) for x in (folder / "episodes.rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejected] == [7, 8, 9, 16] and all("a duplicate of line" in r["reason"] for r in rejected)
    assert path.read_text().splitlines() == lines  # the first of each, in its place
    _complete(folder, whole)


@pytest.mark.parametrize("field, value, pointer", [("trajectory", "x", "/trajectory is string"),
                                                    ("trajectory", [1, 2], "/trajectory/0 is integer"),
                                                    ("steps", "many", "/steps is string")])
def test_a_line_of_the_wrong_shape_is_left_out_by_report_and_set_aside_by_resume(tmp_path, whole, field, value, pointer):
    folder = _copy_run(whole, tmp_path)
    path = folder / "episodes.jsonl"
    lines = path.read_text().splitlines()
    bad = json.loads(lines[4])
    bad[field] = value
    path.write_text("\n".join(lines[:4] + [json.dumps(bad)] + lines[5:]) + "\n")

    result = CliRunner().invoke(report, [str(folder), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0
    assert sum(e["episodes"] for e in json.loads(result.stdout)["by_set"]) == len(lines) - 1
    assert "1 line(s) could not be read" in result.stderr and f"line 5: {pointer}" in result.stderr

    code, out = _invoke(run, KITCHEN + FAST + ["--out", str(folder), "--resume"])
    assert code == 0, out
    assert "1 unreadable line(s) (line 5: " + pointer in out
    rejected = [json.loads(x) for x in (folder / "episodes.rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejected] == [5] and rejected[0]["reason"].startswith(pointer)
    _complete(folder, whole)


# issue 32, item 3: a gzip bomb is a load error with or without --episode-memory ---------------------

@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--episode-memory needs Linux")
@pytest.mark.parametrize("memory", [[], ["--episode-memory", "64"]])
def test_a_gzip_bomb_set_is_a_load_error_with_or_without_episode_memory(tmp_path, monkeypatch, memory):
    """Scaled down: a 96 MB limit on files (not 256) and 100 MB of zeros (100 KB packed). The
    unpacking used to reserve the whole limit at once: under the worker's 64 MB that was a
    MemoryError, filed as one 'memout' episode, and the run exited 0."""
    import gzip

    from groundplan.engine import files

    monkeypatch.setattr(files, "MAX_FILE_BYTES", 96 * 2**20)
    bomb = tmp_path / "zeros.jsonl.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(b'{"name": "zeros", "description": "')
        for _ in range(100):
            out.write(b"0" * 2**20)
        out.write(b'"}\n')
    folder = tmp_path / "r"
    code, out = _invoke(run, [str(bomb), "--agent", "random", *FAST, "--out", str(folder), *memory])
    assert code == 1, out
    assert "could not be loaded" in out and "zeros.jsonl.gz: decompresses to more than the limit of 96 MB" in out
    assert not (folder / "episodes.jsonl").exists() or not (folder / "episodes.jsonl").read_text().strip()


def test_running_out_of_memory_while_parsing_a_file_is_a_load_error_naming_it(monkeypatch):
    """It was read as 'not valid YAML:' (a MemoryError caught as the YAML parser's own errors)."""
    from groundplan.engine import files
    from groundplan.engine.errors import ModelError

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(files.json, "loads", no_memory)
    with pytest.raises(ModelError) as err:
        files.parse_text('{"a": 1}', "big.json")
    assert "big.json" in str(err.value) and "ran out of the memory" in str(err.value) and "YAML" not in str(err.value)


def test_running_out_of_memory_while_indexing_a_set_is_a_load_error_naming_it(tmp_path, monkeypatch):
    from groundplan.engine import problemsets
    from groundplan.engine.errors import ModelError

    path = tmp_path / "s.jsonl"
    path.write_text('{"name": "a", "goal": []}\n')

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(problemsets, "_plain_index", no_memory)
    with pytest.raises(ModelError) as err:
        problemsets.read_problem(f"{path}#a")
    assert "s.jsonl" in str(err.value) and "ran out of the memory" in str(err.value)
