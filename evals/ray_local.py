"""A local Ray instance that starts with plan-eval, says why when it cannot, and ends with it.

`ray.init(address="local")` has three failures a run cannot afford. Under an address-space limit
(`ulimit -v`, a batch system's cap) every worker maps Ray's whole object store (30 % of the RAM by
default), fails, and is started again, forever: the driver waits without a word. A Ray process
that dies mid-run (the raylet, the GCS) leaves tasks that never finish. And a driver killed with
-9 leaves Ray's agents and idle workers behind for a minute or more, because they are the
raylet's children and notice its end only by a timeout.

So plan-eval does not start Ray in its own process. It starts a keeper (`python -m
evals.ray_local`, in a session of its own, so Ctrl-C and a kill of plan-eval's process group reach
plan-eval only), which becomes the child subreaper of everything it starts: every Ray process,
even one whose parent died, stays its descendant, and the keeper kills them all when plan-eval
closes its stdin, which the kernel does when plan-eval dies however it dies. The keeper runs `ray
start --head --block` in a temporary folder of its own (so the instance's logs are known before
it answers), sizes the object store to fit an address-space limit, reads Ray's logs for fatal
lines (Ray's `C`/`F` levels: a failed `mmap`, a failed check) and reports them, and reports the
instance's end. plan-eval turns these reports into errors that name the cause (`LocalRay.check`).

Linux: the subreaper and the process walk use prctl and /proc; elsewhere the keeper ends only the
processes it started, and Ray's own fate-sharing the rest.
"""
from __future__ import annotations

import json
import os
import queue
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from groundplan.engine.errors import GroundplanError

START_TIMEOUT = 120.0  # s: Ray starts in 3 to 10 s; a loaded machine may take several times that
MIN_OBJECT_STORE = 80 * 2**20  # Ray refuses an object store under 75 MiB
OBJECT_STORE_SHARE = 4  # of an address-space limit: every Ray process maps the whole store...
PROCESS_ROOM = 3 * 2**29  # ...and needs 1.5 GiB of its own (a Ray worker maps 1.1 to 1.3 GiB before its first task)
# a driver in plan-eval's place, started with the instance (Ray's import takes a second) and
# connected once it answers: a driver that cannot connect hangs in Ray's C++ holding the GIL, so
# plan-eval connects only after this one did
PROBE = """import logging, os, sys
import ray
address = sys.stdin.readline().strip()
if address:
    ray.init(address=address, logging_level=logging.ERROR)
    os._exit(0)  # connected: Ray's disconnection at exit would take a second more
"""
DEAD_WORKERS = 3  # Ray workers that failed fatally while no episode finished: the instance cannot run tasks
# Ray's log lines that end a process: its fatal levels (a failed check, a failed mmap), and the
# errors it logs on an uncaught C++ exception or a crash signal (threads that cannot be created)
LINE = re.compile(rb"^\[\d{4}-\d\d-\d\d [\d:,.]+ ([CEF]) (\d+) \d+\] (?:\(\w+\) )?(.*)$")
FATAL_ERRORS = re.compile(rb"Unhandled exception|\*\*\* SIG(?:ABRT|SEGV|BUS|ILL|FPE) received")
PR_SET_CHILD_SUBREAPER = 36


def object_store_bytes() -> int | None:
    """The object store that fits this process's address-space limit, or None (Ray's default)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    return max(MIN_OBJECT_STORE, min(soft // OBJECT_STORE_SHARE, soft - PROCESS_ROOM))


def _limit_text() -> str:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return ""
    return (f"; this process has an address-space limit of {soft / 2**30:.2f} GiB (ulimit -v), which every Ray process "
            f"inherits: raise it (Ray needs a few GiB of address space a process), or run with --backend local")


class LocalRay:
    """The driver's side of the keeper: start, the address, reports checked, stop."""

    def __init__(self, cpus: int | None):
        self.cpus = cpus
        self.keeper: subprocess.Popen | None = None
        self.reports: queue.Queue = queue.Queue()
        self.logs = ""
        self.failed_workers: set = set()
        self.progressed = False

    def start(self, timeout: float = START_TIMEOUT) -> str:
        """The new instance's address, once it answers; an error naming the cause if it cannot start."""
        setup = {"cpus": self.cpus, "object_store": object_store_bytes()}
        # Ray's processes listen on every interface: the instance checks a token of its own, which
        # only this driver holds (never ~/.ray/auth_token, which `ray start` would otherwise write)
        token = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self.keeper = subprocess.Popen([sys.executable, "-m", "groundplan.evals.ray_local", json.dumps(setup)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       start_new_session=True, env=_keeper_env(token))
        os.environ.update(token)  # read by ray.init in this process
        threading.Thread(target=self._read, args=(self.keeper.stdout,), daemon=True).start()
        try:
            return self._wait_for_address(time.monotonic() + timeout, timeout)
        except BaseException:  # the error said, or Ctrl-C: nothing of the instance is left running
            self.stop(keep_logs=True)
            raise

    def _wait_for_address(self, deadline: float, timeout: float) -> str:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GroundplanError(f"a local Ray instance did not start within {timeout:.0f} s{self._where()}{_limit_text()}; "
                                      "run with --backend local, or on a cluster (--ray-address)")
            try:
                report = self.reports.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if "address" in report:
                self.logs = report["logs"]
                return report["address"]
            if "logs" in report:
                self.logs = report["logs"]
            self._fail_on(report, starting=True)

    def check(self, progressed: bool = False) -> None:
        """Raise, naming the cause, when the keeper reported the instance's end or workers that keep
        failing; `progressed`: an episode finished since the last check (failures start again)."""
        if progressed:
            self.progressed = True
            self.failed_workers.clear()
        while True:
            try:
                report = self.reports.get_nowait()
            except queue.Empty:
                return
            self._fail_on(report, starting=False)

    def stop(self, keep_logs: bool = False) -> None:
        """End the instance (the keeper kills every process it holds) and wait for it, a few seconds at most."""
        keeper, self.keeper = self.keeper, None
        if keeper is None:
            return
        try:
            if keep_logs:
                keeper.stdin.write(b"keep\n")
            keeper.stdin.close()
        except OSError:  # the keeper ended already
            pass
        try:
            keeper.wait(15)
        except subprocess.TimeoutExpired:
            keeper.kill()
            keeper.wait()

    def _fail_on(self, report: dict, starting: bool) -> None:
        if "fatal" in report:
            self.failed_workers.add(report.get("pid"))
            if starting or not self.progressed or len(self.failed_workers) >= DEAD_WORKERS:
                self.stop(keep_logs=True)
                what = "could not start" if starting else "cannot run its tasks"
                raise GroundplanError(f"the local Ray instance {what}: {report['fatal']}{self._where()}{_limit_text()}") from None
        elif "ended" in report:
            self.stop(keep_logs=True)
            verb = "could not start" if starting else "ended during the run"
            raise GroundplanError(f"the local Ray instance {verb}: {report['ended']}{self._where()}{_limit_text()}"
                                  + ("" if starting else "; finished episodes are kept: run again with --resume")) from None

    def _where(self) -> str:
        return f" (Ray's logs: {self.logs})" if self.logs else ""

    def _read(self, stream) -> None:
        for line in stream:
            try:
                self.reports.put(json.loads(line))
            except ValueError:
                continue
        self.reports.put({"ended": "its keeper process ended"})


def _keeper_env(token: dict) -> dict:
    """The keeper imports this module as plan-eval did, from a checkout or an installation."""
    env = dict(os.environ, **token)
    here = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    env.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    return env


# --- the keeper process ---------------------------------------------------------------------------------------

def _say(**report) -> None:
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


def _become_subreaper() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _descendants(root: int) -> list[int]:
    """Every living process under `root` (Linux /proc; elsewhere none)."""
    children: dict = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] not in ("Z", "X"):
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _kill_all(head: subprocess.Popen) -> None:
    """Kill every process under the keeper until none is left (a raylet may start a worker meanwhile)."""
    me = os.getpid()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = _descendants(me) or ([head.pid] if head.poll() is None else [])
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
        _reap()
    _reap()


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class _LogWatch:
    """Ray's fatal log lines, each process's once: (pid, 'file: message')."""

    def __init__(self, logs: Path):
        self.logs, self.offsets, self.seen = logs, {}, set()

    def new(self) -> list:
        found = []
        try:
            files = [f for f in self.logs.iterdir() if f.is_file()]
        except OSError:
            return found
        for path in files:
            try:
                with open(path, "rb") as stream:
                    stream.seek(self.offsets.get(path, 0))
                    data = stream.read()
            except OSError:
                continue
            end = data.rfind(b"\n") + 1  # a line still being written is read next time
            self.offsets[path] = self.offsets.get(path, 0) + end
            for line in data[:end].splitlines():
                match = LINE.match(line)
                if not match or match.group(2) in self.seen or (match.group(1) == b"E" and not FATAL_ERRORS.search(line)):
                    continue
                self.seen.add(match.group(2))
                message = match.group(3).decode(errors="replace").split(" /", 1)[0].strip()  # without the stack that follows
                found.append((int(match.group(2)), f"{path.name}: {message[:300]}"))
        return found


def _keeper(setup: dict) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # plan-eval's Ctrl-C is plan-eval's to handle
    _become_subreaper()
    root = Path(tempfile.mkdtemp(prefix="gp-ray-", dir="/tmp" if os.path.isdir("/tmp") else None))  # short: Ray's socket paths fit 107 bytes
    command = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block", "--port", "0",
               "--node-ip-address", "127.0.0.1", "--include-dashboard", "false", "--disable-usage-stats",
               "--temp-dir", str(root)]
    if setup.get("cpus"):
        command += ["--num-cpus", str(setup["cpus"])]
    if setup.get("object_store"):
        command += ["--object-store-memory", str(setup["object_store"])]
    output = root / "ray-start.log"
    with open(output, "wb") as sink:
        head = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, cwd=root)
    closed = threading.Event()
    keep = threading.Event()

    def watch_stdin():
        for line in sys.stdin:
            if line.strip() == "keep":
                keep.set()
        closed.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: closed.set())  # `kill KEEPER` ends the instance too
    logs = root / "session_latest" / "logs"
    _say(logs=str(logs))
    watch = _LogWatch(logs)
    probe_log = root / "probe.log"
    with open(probe_log, "wb") as sink:
        probe = subprocess.Popen([sys.executable, "-c", PROBE], stdin=subprocess.PIPE, stdout=sink, stderr=subprocess.STDOUT, cwd=root)
    address, answered = None, False
    try:
        while not closed.wait(0.1):
            for pid, message in watch.new():
                _say(fatal=message, pid=pid)
            if address is None and (root / "ray_current_cluster").exists():
                address = (root / "ray_current_cluster").read_text().strip() or None
                if address:
                    probe.stdin.write(address.encode() + b"\n")
                    probe.stdin.close()
            if address and not answered and probe.poll() is not None:
                if probe.returncode != 0:
                    _say(ended=f"a first driver could not connect (exit code {probe.returncode}): {_last_line(probe_log)}")
                    closed.wait()
                    break
                _say(address=address, logs=str(logs))
                answered = True
            if head.poll() is not None or _exited(output):  # `ray start --block` ends when one of its processes does
                for pid, message in watch.new():
                    _say(fatal=message, pid=pid)
                _say(ended=_why_it_ended(head, output))
                closed.wait()  # plan-eval says whether to keep the logs, then closes
                break
    finally:
        _kill_all(head)
        if not keep.is_set():
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:400] if lines else ""


EXITED = re.compile(r"^\S+ \S+\s+ERR\S* scripts\.py:\d+ -- (\S+) \[exit code=([^\]]*)\]\s*$", re.M)  # `ray start --block` names them so


def _exited(output: Path) -> list:
    """The Ray processes that `ray start --block` saw end: (name, exit code), in its own output."""
    try:
        return EXITED.findall(output.read_text(errors="replace"))
    except OSError:
        return []


def _why_it_ended(head: subprocess.Popen, output: Path) -> str:
    ended = _exited(output)
    if ended:
        return "; ".join(f"its {name} process ended (exit code {code})" for name, code in ended)
    return f"`ray start` ended with exit code {head.returncode} (its output: {output})"


if __name__ == "__main__":
    sys.exit(_keeper(json.loads(sys.argv[1])))
