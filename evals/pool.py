"""Worker processes for plan-eval that outlive the death of one of them, and die with plan-eval.

Why not `concurrent.futures.ProcessPoolExecutor`: when one of its workers dies (the kernel's
out-of-memory killer, a crash in a C extension) every pending future fails with BrokenProcessPool
and nothing tells which episode killed it; and when plan-eval itself is killed (kill -9), its
workers wait for work that never comes, for minutes or for ever.

Here each worker takes one batch at a time and sends back each episode's line as soon as it is
done, so when a worker dies the parent knows which episode was running: that one is charged with
the death and re-run alone on a fresh worker, and the rest of the batch is re-queued uncharged
(with threads, every unfinished episode of the batch was running, so each is charged). An episode
whose worker died twice is given up: `died(job, reason)` makes its line (outcome `worker-died`),
so a problem that kills every worker it touches cannot loop for ever.

Workers exit when their parent dies. On Linux the kernel sends them SIGKILL as soon as the parent
ends (prctl PR_SET_PDEATHSIG; strictly, when the *thread* that started them ends: plan-eval
starts them from its main thread). Everywhere, a thread of each worker also checks twice a second
that its parent is still there (os.getppid changes when a process is orphaned); that covers other
systems and the moment between the fork and the prctl.

With `memory_mb`, each worker limits its own address space (RLIMIT_AS) to its size at start plus
that many MB. A worker runs one episode at a time (unless --concurrency gives it threads, which
then share the limit), so the limit bounds each episode; an allocation beyond it raises
MemoryError in the episode, which `evals.run.run_job` turns into the outcome `memout`.

`prepare()` runs in each worker when it starts, before its memory limit and its first batch:
what every episode of a worker would need loaded (litellm, `evals.run.start_up`), so that neither
the first episode's clock nor its memory limit counts it. The seconds it reports reach the parent
(`Pool.startup`) to be said apart from the episodes' time.
"""
from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field

DEATHS_ALLOWED = 1  # a second death of an episode's worker gives the episode up
PARENT_CHECK_SECONDS = 0.5


def supports_memory_limit() -> bool:
    """Linux only: macOS accepts RLIMIT_AS but does not enforce it, and Windows has no rlimits."""
    return sys.platform.startswith("linux")


def _follow_parent(parent: int) -> None:
    """Exit when the parent process dies (see the module docstring)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watching thread below still works
    started = threading.Event()

    def watch():
        while True:
            if os.getppid() != parent:
                os._exit(1)
            started.set()
            time.sleep(PARENT_CHECK_SECONDS)

    threading.Thread(target=watch, name="plan-eval parent watch", daemon=True).start()
    started.wait(5)  # its stack and first allocations exist before the memory baseline is taken


def _address_space() -> int:
    """This process's current address-space size in bytes (/proc/self/statm: Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _limit_memory(megabytes: float) -> None:
    import resource

    limit = _address_space() + int(megabytes * 2**20)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError) as exc:
        print(f"plan-eval worker: could not limit its memory ({exc}); its episodes run without --episode-memory", file=sys.stderr)


def _worker(conn, parent: int, target, memory_mb, threads: int, after_batch, prepare=None) -> None:
    """A worker's life: its start-up's seconds (None, seconds) out, when `prepare` says it took any;
    then batches of (index, job) in, (index, line) out, until told to stop."""
    _follow_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    if prepare is not None:
        took = prepare()
        if took is not None:
            conn.send((None, float(took)))
    if memory_mb:
        _limit_memory(memory_mb)
    lock = threading.Lock()

    def run(item):
        index, job = item
        row = target(job)
        with lock:
            try:
                conn.send((index, row))  # pickled whole before a byte is sent: a failure here sends nothing
            except (pickle.PicklingError, TypeError, AttributeError, ValueError):
                conn.send((index, json.loads(json.dumps(row, default=str))))  # as episodes.jsonl would store it

    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        if threads <= 1 or len(batch) == 1:
            for item in batch:
                run(item)
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(threads, len(batch))) as pool:
                list(pool.map(run, batch))
        if after_batch is not None:
            after_batch()


def describe_death(exitcode: int | None, how: str | None = None) -> str:
    """Why an episode was given up, from its worker's exit code (negative: the signal that killed
    it), or from `how` it died when a scheduler says so in words (Ray)."""
    how = how or _how_it_ended(exitcode)
    text = f"the worker process running this episode died twice (the last time it {how}): the episode is given up"
    if exitcode is not None and -exitcode == getattr(signal, "SIGKILL", 9):
        text += ("; the kernel's out-of-memory killer kills this way: give the run more memory, or set --episode-memory MB "
                 "so that the episode ends as memout")
    return text


def _how_it_ended(exitcode: int | None) -> str:
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"exited with code {exitcode}"


def charge(left: list, threads: int, deaths: dict, key, died, reason, queue: deque) -> list:
    """A dead worker's unanswered (index, job) items, in the order they ran: the episode that was
    running is charged with the death and queued alone (with threads, every one was running), the
    rest go back to the front of the queue uncharged. Returns the lines of the episodes given up
    (`reason()` says why: it is asked only then)."""
    charged = left if threads > 1 else left[:1]
    rest = left[len(charged):]
    if rest:
        queue.appendleft(rest)
    given_up = []
    for index, job in charged:
        name = key(job)
        deaths[name] = deaths.get(name, 0) + 1
        if deaths[name] > DEATHS_ALLOWED:
            given_up.append(died(job, reason()))
        else:
            queue.appendleft([(index, job)])
    return given_up


@dataclass
class _Worker:
    process: object
    conn: object
    left: list = field(default_factory=list)  # (index, job) of the batch not answered yet, in the order they run


class Pool:
    """`workers` processes running `target(job) -> line` on batches of jobs (see the module docstring).

    `key(job)` names an episode for counting deaths; `died(job, reason)` makes the line of an
    episode given up; both run in the parent only, so they may be closures. `after_batch()` runs
    in a worker after each batch (with a memory limit: dropping what the last problem left
    cached, so it does not eat into the next one's limit). `prepare()` runs in each worker as it
    starts (see the module docstring); `startup` holds the seconds each worker said it took."""

    def __init__(self, workers: int, target, key, died, memory_mb: float | None = None, threads: int = 1, after_batch=None,
                 prepare=None):
        import multiprocessing

        self.size = max(1, workers)
        self.target, self.key, self.died = target, key, died
        self.memory_mb, self.threads, self.after_batch = memory_mb, max(1, threads), after_batch
        self.prepare = prepare
        self.startup: list[float] = []
        self.context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        self.workers: list[_Worker] = []
        self.deaths: dict = {}

    def _start(self) -> _Worker:
        mine, theirs = self.context.Pipe()
        args = (theirs, os.getpid(), self.target, self.memory_mb, self.threads, self.after_batch, self.prepare)
        process = self.context.Process(target=_worker, args=args, name="plan-eval worker")
        process.start()
        theirs.close()  # only the worker holds its end now: its death is EOF here
        worker = _Worker(process, mine)
        self.workers.append(worker)
        return worker

    def run(self, batches):
        """Yield every job's line, in the order they finish."""
        from multiprocessing.connection import wait

        queue = deque(list(enumerate(batch)) for batch in batches if batch)
        try:
            while queue or any(w.left for w in self.workers):
                idle = [w for w in self.workers if not w.left]
                while len(queue) > len(idle) and len(self.workers) < self.size:
                    idle.append(self._start())
                for worker in idle:
                    if not queue:
                        break
                    worker.left = queue.popleft()
                    try:
                        worker.conn.send(worker.left)
                    except OSError:
                        pass  # dead already: its sentinel says so below
                busy = [w for w in self.workers if w.left]
                ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in self.workers]))
                for worker in list(self.workers):
                    if worker.conn in ready:
                        try:
                            yield from self._answers(worker)
                        except (EOFError, OSError):
                            yield from self._buried(worker, queue)
                            continue
                    if worker.process.sentinel in ready and worker in self.workers:
                        yield from self._buried(worker, queue)
        finally:
            self.close()

    def _answers(self, worker: _Worker):
        while worker.conn.poll():
            index, row = worker.conn.recv()
            if index is None:  # the worker's start-up (prepare), before its first batch
                self.startup.append(row)
                continue
            worker.left = [item for item in worker.left if item[0] != index]
            yield row

    def _buried(self, worker: _Worker, queue: deque):
        """A dead worker: keep what it answered, then re-queue or give up what it had not."""
        try:
            yield from self._answers(worker)
        except (EOFError, OSError):
            pass
        worker.process.join(5)
        self.workers.remove(worker)
        worker.conn.close()
        left = worker.left
        if not left:
            return
        exitcode = worker.process.exitcode
        yield from charge(left, self.threads, self.deaths, self.key, self.died, lambda: describe_death(exitcode), queue)

    def close(self) -> None:
        """Stop every worker: idle ones are told to; busy ones (an interrupted run) are killed."""
        for worker in self.workers:
            try:
                if worker.left:
                    worker.process.kill()
                else:
                    worker.conn.send(None)
            except (OSError, ValueError):
                pass
        for worker in self.workers:
            worker.process.join(5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(5)
            worker.conn.close()
        self.workers = []
