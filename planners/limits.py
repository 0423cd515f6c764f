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
    CHECK_EVERY = 512  # calls of exceeded() between two reads of the resident size ...
    MEMORY_SECONDS = 0.1  # ... or this long, when calls are far apart
    PACE_MAX = 256  # pace(): at most this many expansions or evaluations between two calls

    def __init__(self, time_limit: float | None = None, memory_limit_mb: float | None = None):
        self.start = time.perf_counter()
        self.cpu_start = time.process_time()
        self.deadline = self.start + time_limit if time_limit else None
        self.memory_limit = memory_limit_mb
        self.base_memory = current_rss_mb() if memory_limit_mb else 0.0
        self.peak = 0.0
        self._ticks = 0
        self._measured = self._paced = self.start
        self._every = 1

    def exceeded(self) -> str | None:
        """'timeout', 'memout' or None; cheap enough to call every expansion (time every call,
        memory every CHECK_EVERY calls or MEMORY_SECONDS, since expansions may be slow under costly
        heuristics, and a search pacing its calls with `pace` calls it rarely)."""
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            return "timeout"
        try:
            poll()  # the caller's budget (engine.budget), opened before grounding, may run out first
        except ResourceLimit as exc:
            return exc.status
        self._ticks += 1
        if self._ticks % self.CHECK_EVERY and now - self._measured < self.MEMORY_SECONDS:
            return None
        self._measured = now
        if self.memory_limit is not None:
            used = current_rss_mb() - self.base_memory
            self.peak = max(self.peak, used)
            if used > self.memory_limit:
                return "memout"
        return None

    def pace(self) -> int:
        """How many units of work (expansions, heuristic evaluations) a hot loop may do before its
        next call of `exceeded`: doubled (up to PACE_MAX) while calls come less than 2 ms apart,
        halved when more than 10 ms, so a fast search checks its limits every few hundred
        expansions and a slow heuristic (h_max on 180,000 actions: 0.25 s an evaluation) still
        after every evaluation. Starts at 1: the first units are checked one by one."""
        now = time.perf_counter()
        spent = now - self._paced
        self._paced = now
        if spent < 0.002:
            if self._every < self.PACE_MAX:
                self._every <<= 1
        elif spent > 0.01 and self._every > 1:
            self._every >>= 1
        return self._every

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
