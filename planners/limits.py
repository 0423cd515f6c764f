"""Time and memory limits for search, checked cheaply every few hundred expansions."""
from __future__ import annotations

import resource
import time

from groundplan.engine.budget import poll
from groundplan.engine.budget import resident_mb as current_rss_mb  # noqa: F401  (the name planners have always used)
from groundplan.engine.errors import ResourceLimit


def rss_mb() -> float:
    """Peak resident memory of this process in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Limits:
    CHECK_EVERY = 512

    def __init__(self, time_limit: float | None = None, memory_limit_mb: float | None = None):
        self.start = time.perf_counter()
        self.cpu_start = time.process_time()
        self.deadline = self.start + time_limit if time_limit else None
        self.memory_limit = memory_limit_mb
        self.base_memory = current_rss_mb() if memory_limit_mb else 0.0
        self.peak = 0.0
        self._ticks = 0

    def exceeded(self) -> str | None:
        """'timeout', 'memout' or None; cheap enough to call every expansion (time every call,
        memory every CHECK_EVERY calls, since expansions may be slow under costly heuristics)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return "timeout"
        try:
            poll()  # the caller's budget (engine.budget), opened before grounding, may run out first
        except ResourceLimit as exc:
            return exc.status
        self._ticks += 1
        if self._ticks % self.CHECK_EVERY:
            return None
        if self.memory_limit is not None:
            used = current_rss_mb() - self.base_memory
            self.peak = max(self.peak, used)
            if used > self.memory_limit:
                return "memout"
        return None

    @property
    def peak_mb(self) -> float:
        """Peak memory: tracked above the start when a limit is set, else the process's peak."""
        return self.peak if self.memory_limit is not None else rss_mb()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start

    @property
    def cpu_seconds(self) -> float:
        """This process's CPU time over the same span as `seconds` (which is wall time)."""
        return time.process_time() - self.cpu_start
