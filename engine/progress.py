"""A one-line progress counter on stderr, for commands that may run for a while.

`groundplan check` on a big world can take a minute, and a command that prints nothing for a
minute looks hung. On a terminal the line is rewritten in place, at most ten times a second;
into a file or a pipe (when asked for with --progress) a line is printed at each tenth of the
work, so logs stay short. It is a few lines, so no dependency for it.
"""
from __future__ import annotations

import sys
import time


class Counter:
    """Shows how far a task of `total` units has got; `finish` leaves a last line behind."""

    def __init__(self, total: int, stream=None, tty: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = _isatty(self.stream) if tty is None else tty
        self.total = max(total, 1)
        self.start = time.monotonic()
        self._shown_at = 0.0
        self._next_line = 0
        self._width = 0

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def show(self, done: int, text: str) -> None:
        """Report `text`, the state of the work after `done` units (throttled, see the module)."""
        if self.tty:
            now = time.monotonic()
            if now - self._shown_at < 0.1 and done < self.total:
                return
            self._shown_at = now
            self._rewrite(text)
        elif done >= self._next_line:
            self.stream.write(text + "\n")
            self.stream.flush()
            self._next_line = done + max(1, self.total // 10)

    def finish(self, text: str) -> None:
        if self.tty:
            self._rewrite(text)
            self.stream.write("\n")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _rewrite(self, text: str) -> None:
        self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
        self.stream.flush()
        self._width = len(text)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
