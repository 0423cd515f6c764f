"""plan-eval on Ray (`--backend ray`): the same episodes as local workers, a killed Ray worker
and a killed driver that still end in the complete run, the LLM cache shared by Ray's workers,
and problems that reach workers by content.

The cluster is real: `ray start --head` on loopback with 2 CPUs, started by the module's fixture
and stopped with it; one test lets plan-eval start (and stop) its own local instance, as the
plain `--backend ray` does. Ray is in the test extra, so CI runs these; elsewhere they skip."""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from procfs import processes

ray = pytest.importorskip("ray", reason="Ray is in the test extra: pip install -e '.[test]'")

from groundplan.evals import shipping  # noqa: E402
from groundplan.evals.cli import run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
KITCHEN = sorted(str(p) for p in Path("problems/async").glob("0[1-3]_*_s4*.json"))  # 6 small kitchen problems
SLOW_KITCHEN = sorted(str(p) for p in Path("problems/async").glob("10_*.json"))[:6]  # about 0.5 s a problem
FAST = ["--steps-to-go-time", "0", "--seed", "5"]
TIMING = ("seconds",)  # the only fields of a line that depend on when and where it ran
TOKEN = secrets.token_hex(32)  # the cluster's, given to it and to every driver (nothing read from or written to ~/.ray)
TAG = TOKEN[:16]  # in the environment of every Ray process this module starts, and of no other run's (tests run in parallel)
RAY_ENV = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN, "RAY_USAGE_STATS_ENABLED": "0", "GROUNDPLAN_TEST_RAY": TAG}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A 2-CPU Ray head on loopback, in its own process group (killed whole at the end: `ray stop`
    would also stop a developer's own clusters)."""
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="gp-ray-", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = dict(os.environ, OPENAI_API_KEY="sk-test", PYTHONPATH=str(ROOT), **RAY_ENV)
    head = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block", "--num-cpus", "2",
                             "--node-ip-address", "127.0.0.1", "--port", str(port), "--include-dashboard", "false",
                             "--temp-dir", temp], env=env, cwd=temp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline and head.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert head.poll() is None, f"ray start failed: {head.stderr.read().decode()[-2000:]}"
        yield address
    finally:
        try:
            os.killpg(head.pid, signal.SIGTERM)
            head.wait(3)  # `ray start --block` takes its time to stop: what is left is killed below
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        for pid in _processes_in_session(head.pid):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


def _processes_in_session(sid: int) -> list[int]:
    return [pid for pid, fields in processes() if int(fields[3]) == sid and fields[0] not in ("Z", "X")]


def _plan_eval(args, env=None, **popen):
    """plan-eval in its own process, as a user runs it (Ray's driver state stays out of pytest)."""
    command = [sys.executable, "-c", "import sys; from groundplan.evals.cli import main; sys.exit(main(sys.argv[1:]))", *args]
    env = dict(os.environ, PYTHONPATH=str(ROOT), **RAY_ENV, **(env or {}))  # the token, as the README tells users
    if popen:
        return subprocess.Popen(command, env=env, **popen)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def _local(args):
    """A run on the local backend, in this process (the reference the Ray runs are compared with:
    it starts no Ray, so nothing of Ray's driver state enters pytest): (exit code, stdout, stderr)."""
    result = CliRunner().invoke(run, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _episodes(folder: Path) -> dict:
    """id -> the line without its timing fields; a repeated id (an episode written twice) fails."""
    rows = {}
    for line in (folder / "episodes.jsonl").read_text().splitlines():
        row = json.loads(line)
        for name in TIMING:
            row.pop(name, None)
        assert row["id"] not in rows, f"{row['id']} written twice"
        rows[row["id"]] = json.dumps(row, sort_keys=True)
    return rows


def _table(stdout: str) -> str:
    return stdout.split("\nby difficulty:")[0]  # the table, without the line naming the run folder


@pytest.fixture(scope="module")
def own_world(tmp_path_factory):
    """A domain outside the installed worlds, with its own prompts, and two problems naming it by
    a relative path: Ray's workers have neither file."""
    root = tmp_path_factory.mktemp("own")
    (root / "world").mkdir()
    (root / "world" / "domain.json").write_text((ROOT / "domains/gridnav/domain.json").read_text())
    (root / "world" / "prompts.yaml").write_text("prompts:\n  system: You walk a grid.\n")
    (root / "problems").mkdir()
    # small grids only: a problem whose reference optimum is searched within a time budget can get
    # another reference (and step cap) on a loaded machine, and the two runs compared would differ
    source = ROOT / "problems/gridnav/room8-10.json"
    for name in ("room8-10", "room8-10-b"):
        data = json.loads(source.read_text())
        data["domain"], data["name"] = "../world/domain.json", name
        (root / "problems" / f"{name}.json").write_text(json.dumps(data))
    return sorted(str(p) for p in (root / "problems").glob("*.json"))


@pytest.mark.slow
def test_local_workers_and_ray_give_the_same_episodes_and_table(tmp_path, cluster, own_world):
    problems = KITCHEN[:4] + ["problems/ppnl/single_5x5.jsonl#1", "problems/ppnl/single_5x5.jsonl#2"] + own_world
    common = problems + FAST
    one = _local(common + ["--out", str(tmp_path / "one")])
    two = _local(common + ["--out", str(tmp_path / "two"), "--workers", "2"])
    on_cluster = _plan_eval(common + ["--out", str(tmp_path / "cluster"), "--backend", "ray", "--ray-address", cluster])
    assert one[0] == two[0] == 0, one[2][-3000:] + two[2][-3000:]
    assert on_cluster.returncode == 0, on_cluster.stderr[-3000:]
    reference = _episodes(tmp_path / "one")
    assert len(reference) == 2 * len(problems)
    assert _episodes(tmp_path / "two") == reference
    assert _episodes(tmp_path / "cluster") == reference
    assert _table(on_cluster.stdout) == _table(one[1])
    # the manifest is the local one: a run may be resumed on either backend
    manifests = [json.loads((tmp_path / name / "manifest.json").read_text()) for name in ("one", "cluster")]
    assert manifests[0]["problems"] == manifests[1]["problems"] and manifests[0]["settings"] == manifests[1]["settings"]


@pytest.mark.slow
def test_samples_on_ray_are_the_local_samples(tmp_path, cluster):
    """--samples N: every sample's line (id LABEL::REF@sI, its own seed) is the one local workers write."""
    common = KITCHEN[:2] + ["--agent", "random", "--samples", "3"] + FAST
    local = CliRunner().invoke(run, common + ["--out", str(tmp_path / "local"), "--workers", "2"], catch_exceptions=False)
    on_cluster = _plan_eval(common + ["--out", str(tmp_path / "cluster"), "--backend", "ray", "--ray-address", cluster])
    assert local.exit_code == 0 and on_cluster.returncode == 0, local.output + on_cluster.stderr[-2000:]
    reference = _episodes(tmp_path / "local")
    assert set(reference) == {f"random::{ref}{s}" for ref in KITCHEN[:2] for s in ("", "@s1", "@s2")}
    assert _episodes(tmp_path / "cluster") == reference
    assert _table(on_cluster.stdout) == _table(local.stdout) and "pass@3" in local.stdout


def test_a_sample_reaches_a_node_with_its_job():
    from groundplan.evals.ray_pool import _portable
    from groundplan.evals.run import job_id

    job = _job("a.json") + (2,)
    assert _portable(job) == job and job_id(_portable(job)) == "oracle::a.json@s2"
    assert _portable(_job("a.json")) == _job("a.json") and job_id(_job("a.json")) == "oracle::a.json"


def _raylets() -> set[int]:
    """This module's raylets: another test run's (or a developer's) on the machine are not ours to count."""
    return {pid for pid, _ in processes() if b"raylet" in _cmdline(pid) and _ours(pid)}


def _ours(pid: int) -> bool:
    """Started by this module: the process inherited its tag (Ray's processes inherit their starter's environment)."""
    try:
        return f"GROUNDPLAN_TEST_RAY={TAG}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return b""


@pytest.mark.slow
def test_plain_backend_ray_starts_and_stops_its_own_instance(tmp_path):
    before = _raylets()  # the module's cluster may be up: it is not plan-eval's to stop
    problems = KITCHEN[:2] + FAST
    local = _local(problems + ["--out", str(tmp_path / "local")])
    on_ray = _plan_eval(problems + ["--out", str(tmp_path / "ray"), "--backend", "ray", "--workers", "2"])
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert _table(on_ray.stdout) == _table(local[1])
    assert _episodes(tmp_path / "ray") == _episodes(tmp_path / "local")
    assert "Traceback" not in on_ray.stderr
    deadline = time.time() + 20
    while time.time() < deadline and _raylets() - before:
        time.sleep(0.2)
    assert not _raylets() - before, "plan-eval left its Ray instance running"


def _tree(root: int) -> set[int]:
    """Every living process under `root`."""
    children: dict = {}
    for pid, fields in processes():
        if fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    living = {pid for pid, fields in processes() if fields[0] not in ("Z", "X")}
    return pids & living


def _wait_for_lines(folder: Path, proc, count: int = 1) -> None:
    episodes = folder / "episodes.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and (not episodes.exists() or episodes.read_text().count("\n") < count):
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before the test could act"


def _forget_kept_logs(err: str) -> None:
    """A failed instance keeps its logs for the user, and names them: not a test's to keep."""
    import re

    for root in re.findall(r"Ray's logs: (/\S+?)/session_latest/logs", err):
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_a_local_instance_that_cannot_start_is_an_error_naming_the_cause_within_seconds(tmp_path):
    """Under a 1 GB address-space limit Ray's workers cannot start (each maps the object store and
    more than a GiB of its own): the run ends with the cause and the limit named, long before the
    start timeout, and nothing of the instance is left."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (10**9, 10**9))

    before = _raylets()
    began = time.monotonic()
    proc = _plan_eval(KITCHEN[:1] + FAST + ["--out", str(tmp_path / "r"), "--backend", "ray", "--workers", "2"],
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=cap)
    out, err = proc.communicate(timeout=300)
    took = time.monotonic() - began
    _forget_kept_logs(err)
    assert proc.returncode == 2, err[-3000:]  # as a cluster that cannot be reached
    assert "the local Ray instance could not start: " in err and "address-space limit of 0.93 GiB" in err, err[-3000:]
    assert "Traceback" not in err
    assert took < 60, f"{took:.0f} s: the cause should end the run, not the start timeout"
    deadline = time.time() + 10
    while time.time() < deadline and _raylets() - before:
        time.sleep(0.2)
    assert not _raylets() - before


@pytest.mark.slow
def test_a_local_instance_ends_with_a_driver_killed_with_9(tmp_path):
    """Ray's agents and idle workers are the raylet's children: without the keeper they outlive a
    killed driver by a minute or more."""
    folder = tmp_path / "r"
    proc = _plan_eval(SLOW_KITCHEN + FAST + ["--out", str(folder), "--backend", "ray", "--workers", "1"],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_lines(folder, proc)
        ray_processes = _tree(proc.pid)
        assert any(b"raylet" in _cmdline(pid) for pid in ray_processes)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 10
        while time.time() < deadline and _alive(ray_processes):
            time.sleep(0.1)
        left = _alive(ray_processes)
        assert not left, [_cmdline(pid) for pid in left]
    finally:
        for pid in _alive(_tree(proc.pid)):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_a_local_instance_that_dies_mid_run_is_an_error_and_resume_completes_the_run(tmp_path, slow_whole):
    folder = tmp_path / "r"
    args = SLOW_KITCHEN + FAST + ["--out", str(folder)]
    proc = _plan_eval(args + ["--backend", "ray", "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_lines(folder, proc)
    raylets = {pid for pid in _tree(proc.pid) if b"raylet" in _cmdline(pid)}
    assert raylets and all(map(_ours, raylets))  # the tag reaches them: _raylets() sees plan-eval's own instance
    for pid in raylets:
        os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    out, err = proc.communicate(timeout=120)
    _forget_kept_logs(err)
    assert time.monotonic() - killed < 30
    assert proc.returncode == 2 and "the local Ray instance ended during the run: its raylet process ended" in err, err[-3000:]
    assert "run again with --resume" in err and "Traceback" not in err
    code, _, err = _local(args + ["--resume"])
    assert code == 0, err[-3000:]
    assert _episodes(folder) == _episodes(slow_whole)


def test_fatal_lines_of_ray_logs_are_found_once_a_process_and_partial_lines_wait(tmp_path):
    from groundplan.evals.ray_local import _LogWatch

    watch = _LogWatch(tmp_path)
    (tmp_path / "worker-a.err").write_bytes(
        b"[2026-11-26 15:39:40,147 C 17280 17280] shared_memory.cc:46: mmap failed\n"
        b"/x/_raylet.so(+0xcdcc58) [0x7fb3] plasma::ClientMmapTableEntry()\n"
        b"[2026-11-26 15:39:40,150 E 17281 17281] logging.cc:118: Unhandled exception: St12system_error. what(): "
        b"Resource temporarily unavailable /x/_raylet.so(+0x1812b9a) [0x7f6081c12b9a] ray::operator<<()\n"
        b"[2026-11-26 15:39:40,151 E 17281 17281] logging.cc:474: *** SIGABRT received at time=1 on cpu 1 ***\n"
        b"[2026-11-26 15:39:40,152 E 17282 17282] (raylet) worker_pool.cc:1: Some error that ends nothing\n"
        b"[2026-11-26 15:39:40,153 C 17283 17283] half a line")
    (tmp_path / "python-core-worker-a.log").write_bytes(b"[2026-11-26 15:39:40,147 C 17280 17280] shared_memory.cc:46: mmap failed\n")
    found = sorted(watch.new())
    assert [pid for pid, _ in found] == [17280, 17281]  # one report a process; an E line without a crash is no report
    assert found[0][1].endswith(": shared_memory.cc:46: mmap failed")
    assert found[1][1] == ("worker-a.err: logging.cc:118: Unhandled exception: St12system_error. what(): "
                           "Resource temporarily unavailable")  # without the stack
    with open(tmp_path / "worker-a.err", "ab") as stream:
        stream.write(b": the rest\n")
    assert watch.new() == [(17283, "worker-a.err: half a line: the rest")]
    assert watch.new() == []


def test_the_object_store_fits_an_address_space_limit():
    import resource

    from groundplan.evals.ray_local import MIN_OBJECT_STORE, object_store_bytes

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        for limit, expected in [(8 * 2**30, 2 * 2**30), (2 * 2**30, 2**29), (10**9, MIN_OBJECT_STORE)]:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
            assert object_store_bytes() == expected
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    if soft == resource.RLIM_INFINITY:
        assert object_store_bytes() is None  # Ray's own default


def test_the_processes_that_ray_start_saw_end_are_named(tmp_path):
    from groundplan.evals.ray_local import _exited

    output = tmp_path / "ray-start.log"
    output.write_text("2026-11-26 15:58:01,711\tERR scripts.py:1307 -- Some Ray subprocesses exited unexpectedly:\n"
                      "2026-11-26 15:58:01,711\tERR scripts.py:87 -- raylet [exit code=-9]\n"
                      "2026-11-26 15:58:01,712\tERR scripts.py:115 -- ----- BEGIN raylet.out tail (exit code(s)=-9 (signal 9)) -----\n")
    assert _exited(output) == [("raylet", "-9")]
    assert _exited(tmp_path / "missing") == []


def _busy_ray_workers() -> list[int]:
    """This module's Ray workers running a plan-eval batch (Ray names the process after the task it runs)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if title.startswith(b"ray::_episodes") and _ours(int(entry.name)):  # never another run's worker
                out.append(int(entry.name))
    return out


@pytest.fixture(scope="module")
def slow_whole(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slow") / "r"
    code, _, err = _local(SLOW_KITCHEN + FAST + ["--out", str(folder)])
    assert code == 0, err[-3000:]
    return folder


@pytest.mark.slow
def test_a_killed_ray_worker_costs_nothing_the_run_is_complete_and_identical(tmp_path, cluster, slow_whole):
    deaths = 0
    for attempt in range(3):  # a kill can land just after a task's last line (no death then): try again
        folder = tmp_path / f"r{attempt}"
        proc = _plan_eval(SLOW_KITCHEN + FAST + ["--out", str(folder), "--backend", "ray", "--ray-address", cluster],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = None
        deadline = time.time() + 120
        while killed is None and proc.poll() is None and time.time() < deadline:
            busy = _busy_ray_workers()
            if busy:
                killed = busy[0]
                os.kill(killed, signal.SIGKILL)  # as the OOM killer would
            time.sleep(0.01)
        out, err = proc.communicate(timeout=300)
        assert killed is not None, "no Ray worker was seen running an episode"
        assert proc.returncode == 0, err[-3000:]
        assert _episodes(folder) == _episodes(slow_whole)  # complete, each episode once, the same
        if "a Ray worker died" in err and "runs again" in err:
            deaths += 1
            break
    assert deaths, "no kill landed while an episode ran"


@pytest.mark.slow
def test_resume_after_the_driver_is_killed(tmp_path, cluster, slow_whole):
    folder = tmp_path / "r"
    args = SLOW_KITCHEN + FAST + ["--out", str(folder), "--backend", "ray", "--ray-address", cluster]
    proc = _plan_eval(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        episodes = folder / "episodes.jsonl"
        deadline = time.time() + 120
        while time.time() < deadline and (not episodes.exists() or episodes.read_text().count("\n") < 3):
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    written = episodes.read_text().count("\n")
    assert 3 <= written < 2 * len(SLOW_KITCHEN)
    resumed = _plan_eval(args + ["--resume"])
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert _episodes(folder) == _episodes(slow_whole)


@pytest.mark.slow
def test_the_llm_cache_is_shared_by_ray_workers(tmp_path, cluster):
    """GROUNDPLAN_CACHE, set where plan-eval runs, reaches every worker: a second run asks nothing."""
    from llm_server import ScriptedServer

    from groundplan.engine.task import Task

    problem = "problems/sync/02_lettuce_sandwich_s42.json"
    plan = Task.load(problem).problem.optimal["plan"]
    env = {"GROUNDPLAN_CACHE": str(tmp_path / "cache"), "OPENAI_API_KEY": "sk-test"}
    with ScriptedServer(default="x") as server:
        server.script = [f"Action: {a}" for a in plan]
        args = [problem, "--agent", "llm", "--model", "openai/gpt-4o-mini", "--api-base", server.api_base, "--temperature", "0",
                "--steps-to-go-time", "0", "--backend", "ray", "--ray-address", cluster]
        first = _plan_eval(args + ["--out", str(tmp_path / "a")], env=env)
        asked = len(server.requests)
        second = _plan_eval(args + ["--out", str(tmp_path / "b")], env=env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr[-2000:] + second.stderr[-2000:]
    assert asked == len(plan) and len(server.requests) == asked  # the second run was served by the cache
    assert "LLM start-up" in first.stderr and "Ray worker" in first.stderr  # litellm loaded before the episode, said apart
    assert any((tmp_path / "cache").rglob("*.json"))
    (a,), (b,) = _episodes(tmp_path / "a").values(), _episodes(tmp_path / "b").values()
    assert json.loads(a)["success"] and json.loads(b)["success"]


# ------------------------------------------------------------------ without a cluster

def test_a_problem_is_built_from_what_was_sent_without_its_files(tmp_path, own_world, monkeypatch):
    from groundplan.engine.task import Task

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "node"))  # the node's temporary folder
    (tmp_path / "node").mkdir()
    shipping.forget()
    ref = own_world[0]
    expected = Task.load(ref)
    problems, domains = shipping.sources([ref])
    moved = tmp_path / "gone"
    shutil.move(str(Path(ref).parent.parent), moved)  # the problem and its domain are no longer there
    try:
        shipping.receive(problems, domains)
        task = shipping.load_task(problems[ref])
    finally:
        shutil.move(str(moved), str(Path(ref).parent.parent))
        shipping.forget()
    assert task.problem.file == expected.problem.file and task.problem.name == expected.problem.name
    assert task.initial_state() == expected.initial_state()
    assert sorted(map(str, task.applicable(task.initial_state()))) == sorted(map(str, expected.applicable(expected.initial_state())))
    from groundplan.agents.profile import profile_for

    assert profile_for(task).data["prompts"]["system"] == "You walk a grid."  # its own prompts came along


def test_a_node_with_other_code_is_refused_by_name():
    with pytest.raises(shipping.ShippingError, match="runs other groundplan code.*install the same version"):
        shipping.check_fingerprint("0" * 16)
    shipping.check_fingerprint(shipping.code_fingerprint())


@pytest.mark.parametrize("extra, message", [
    (["--ray-address", "127.0.0.1:1"], "--ray-address is the cluster of --backend ray"),
    (["--backend", "ray", "--episode-memory", "100"], "drop --episode-memory"),
    (["--backend", "ray", "--ray-address", "127.0.0.1:1", "--workers", "2"], "drop --workers"),
])
def test_backend_options_that_do_not_go_together_are_refused(tmp_path, extra, message):
    result = CliRunner().invoke(run, KITCHEN[:1] + ["--out", str(tmp_path / "r")] + extra)
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "r").exists()


OTHER_CODE = """
import sys
from groundplan.evals import shipping
shipping.code_fingerprint = lambda: "0" * 16  # as if the driver ran another groundplan than the nodes
from groundplan.evals.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_cluster_running_other_code_stops_the_run_with_a_clear_error(tmp_path, cluster):
    """The nodes' first task refuses a driver whose code differs, and the error says what to do."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **RAY_ENV)
    result = subprocess.run([sys.executable, "-c", OTHER_CODE, *KITCHEN[:5], *FAST, "--out", str(tmp_path / "r"), "--backend", "ray",
                             "--ray-address", cluster], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert "runs other groundplan code" in result.stderr and "install the same version on every node" in result.stderr
    assert "Traceback" not in result.stderr and "Unhandled error" not in result.stderr  # nor the other tasks' errors
    episodes = tmp_path / "r" / "episodes.jsonl"
    assert not episodes.exists() or not episodes.read_text()


def test_an_installed_world_and_a_copy_of_its_file_elsewhere_are_two_domains(own_world):
    """Same bytes, but the copy has no plug-ins and its own prompts: never one for the other."""
    installed = sorted(str(p) for p in (ROOT / "problems/gridnav").glob("*.json"))[:1]
    problems, domains = shipping.sources(installed + own_world[:1])
    assert len(domains) == 2
    assert {d.world for d in domains.values()} == {"gridnav", None}
    assert problems[installed[0]].domain != problems[own_world[0]].domain


# ------------------------------------------------------------------ the driver's bookkeeping, with no cluster

def _job(name: str):
    from groundplan.evals.run import AgentSpec, Settings

    return (name, AgentSpec("oracle", (), "oracle"), Settings())


def _fake_ray(answers: dict):
    """`get(ref)` answers from `answers` (an exception instance is raised): enough Ray for `_next`."""
    import types

    def get(ref):
        answer = answers[ref]
        if isinstance(answer, BaseException):
            raise answer
        return answer
    return types.SimpleNamespace(get=get, exceptions=ray.exceptions)


def test_a_dead_task_of_several_problems_charges_the_running_episode_and_requeues_the_rest():
    from collections import deque

    from groundplan.evals.ray_pool import RayPool
    from groundplan.evals.run import episode_id, worker_died_row

    pool = RayPool(key=lambda job: episode_id(job[1].label, job[0]), died=worker_died_row)
    items = [(0, _job("a.json")), (1, _job("b.json")), (2, _job("c.json"))]  # three problems joined in one task
    crash = ray.exceptions.WorkerCrashedError()
    fake = _fake_ray({"r0": (0, {"id": "oracle::a.json"}), "r1": crash})
    generator = iter(["r0", "r1"])
    inflight, queue = {generator: list(items)}, deque()
    rows = list(pool._next(fake, generator, inflight, queue)) + list(pool._next(fake, generator, inflight, queue))
    assert rows == [{"id": "oracle::a.json"}]
    assert generator not in inflight
    assert list(queue) == [[items[1]], [items[2]]]  # b ran when the worker died: alone, first; c uncharged, after it
    assert pool.deaths == {"oracle::b.json": 1}
    # b kills its next worker too: given up, with why
    again = iter(["r2"])
    inflight = {again: queue.popleft()}
    rows = list(pool._next(_fake_ray({"r2": crash}), again, inflight, queue))
    assert [r["outcome"] for r in rows] == ["worker-died"] and "died twice" in rows[0]["error"]
    assert list(queue) == [[items[2]]]


def test_an_error_of_the_task_itself_ends_the_run_instead_of_charging_deaths():
    from collections import deque

    from groundplan.engine.errors import GroundplanError
    from groundplan.evals.ray_pool import RayPool
    from groundplan.evals.run import episode_id, worker_died_row

    pool = RayPool(key=lambda job: episode_id(job[1].label, job[0]), died=worker_died_row)
    failed = ray.exceptions.RayTaskError("_episodes", "Traceback ...", ModuleNotFoundError("No module named 'engine'"))
    generator = iter(["r0"])
    inflight = {generator: [(0, _job("a.json"))]}
    with pytest.raises(GroundplanError, match="No module named 'engine'.*--resume"):
        list(pool._next(_fake_ray({"r0": failed}), generator, inflight, deque()))
    assert pool.deaths == {}


def test_tasks_take_a_shrinking_share_of_what_is_left_and_every_episode_once():
    from collections import deque

    from groundplan.evals.ray_pool import MAX_GROUP, _take_group

    queue = deque([[(i, _job(f"p{i}.json"))] for i in range(300)])
    sizes, seen = [], []
    while queue:
        group = _take_group(queue, cpus=2, threads=1)
        sizes.append(len(group))
        seen += [index for index, _ in group]
    assert sorted(seen) == list(range(300))
    assert sizes[0] == MAX_GROUP and sizes[-1] == 1 and sizes == sorted(sizes, reverse=True)
    threaded = deque([[(0, _job("a.json")), (1, _job("b.json"))], [(2, _job("c.json"))]])
    assert len(_take_group(threaded, cpus=2, threads=2)) == 2  # one batch per task with threads
