"""Time and memory budgets that reach into grounding, not only into search.

A planner's own limits are checked between expansions, but before the first expansion a task is
grounded, its successor tree and relaxation are built, and a heuristic may take a quarter of a
second per state: a 300-block blocksworld spent 100 s and 3 GB there under `--time-limit 5
--memory-limit 500`. Whoever sets a limit opens a budget (`with limited(seconds, mb):`) and the
engine's and planners' long loops call `poll()`, which raises `ResourceLimit` ('timeout' or
'memout') once the budget is spent; the caller turns that into a status.

The budget is per thread (plan-eval runs episodes in threads) and nested budgets keep the tighter
of each limit. Without an explicit memory limit the budget still stops at a ceiling below what
the machine has, so a runaway grounding ends in `memout` rather than in the kernel's OOM killer.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

from .errors import ResourceLimit

MEMORY_EVERY = 256  # polls between two reads of the resident size (a read costs about 10 us) ...
MEMORY_SECONDS = 0.1  # ... or this long, when polls are far apart (a slow heuristic)
CEILING_FRACTION = 0.9  # of the memory available when the budget opens, when no limit is given

_local = threading.local()


def resident_mb() -> float:
    """The process's current resident size in MB (Linux /proc; elsewhere its peak)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def available_mb() -> float | None:
    """Memory the machine could still give this process (MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class Budget:
    """One opened budget: an absolute deadline and a resident-size ceiling in MB (either may be None)."""

    __slots__ = ("deadline", "ceiling", "limit_mb", "seconds", "polls", "explicit", "measured")

    def __init__(self, seconds: float | None, memory_mb: float | None):
        now_mb = resident_mb()
        self.seconds = seconds
        self.deadline = time.perf_counter() + seconds if seconds is not None else None
        self.explicit = memory_mb is not None
        if memory_mb is None:
            free = available_mb()
            memory_mb = free * CEILING_FRACTION if free is not None else None
        self.limit_mb = memory_mb
        self.ceiling = now_mb + memory_mb if memory_mb is not None else None
        self.polls = 0
        self.measured = time.perf_counter()

    def check(self) -> None:
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            raise ResourceLimit("timeout", f"the time limit of {self.seconds:g} s ran out")
        self.polls += 1
        if self.ceiling is not None and (self.polls % MEMORY_EVERY == 0 or now - self.measured > MEMORY_SECONDS):
            self.measured = now
            if resident_mb() > self.ceiling:
                raise ResourceLimit("memout", _memout_message(self))


def _memout_message(b: Budget) -> str:
    if b.explicit:
        return f"the memory limit of {b.limit_mb:,.0f} MB ran out (grounding or search needs more: raise the limit)"
    return f"the machine's memory ran out ({b.limit_mb:,.0f} MB were available when the work began)"


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


@contextmanager
def limited(seconds: float | None = None, memory_mb: float | None = None):
    """Run the block under a budget; nested budgets never loosen an outer one (each check tests all)."""
    stack = _stack()
    stack.append(Budget(seconds, memory_mb))
    try:
        yield stack[-1]
    finally:
        stack.pop()


def poll() -> None:
    """Raise ResourceLimit if a budget opened on this thread is spent; nearly free when none is."""
    stack = getattr(_local, "stack", None)
    if stack:
        for budget in stack:
            budget.check()


def active() -> bool:
    return bool(getattr(_local, "stack", None))


@contextmanager
def alarm(seconds: float | None, grace: float = 0.25):
    """A hard stop for code that never polls (JSON parsing, schema validation, a C extension):
    SIGALRM raises ResourceLimit('timeout') `grace` seconds after the budget's own deadline.

    Signals reach only the main thread, so elsewhere (plan-eval's threads) this does nothing and
    the polls alone bound the work. An earlier alarm set by a caller is restored afterwards."""
    import signal

    if seconds is None or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def ring(signum, frame):
        raise ResourceLimit("timeout", f"the time limit of {seconds:g} s ran out")

    previous = signal.signal(signal.SIGALRM, ring)
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    began = time.monotonic()
    own = max(seconds, 0) + grace
    signal.setitimer(signal.ITIMER_REAL, min(own, outer) if outer else own)  # never later than an outer alarm
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # what the outer alarm had left, less the time spent here (at once if that has passed)
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - began), 1e-3))


def cap_address_space(memory_mb: float | None, headroom: float = 2.0) -> None:
    """A hard memory ceiling for this whole process (RLIMIT_AS): what it maps now plus
    `headroom` times the budget, so that allocations no poll sees (a huge JSON document being
    parsed) fail with MemoryError, which callers report as `memout`, instead of growing until
    the kernel kills the machine's biggest process. The polls stop at the budget itself; this
    backstop sits above them because address space counts more than resident memory."""
    import resource

    if memory_mb is None:
        return
    try:
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return
    limit = mapped + int(headroom * memory_mb * 2**20)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or limit < soft:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
