"""The machine's processes as /proc lists them, for tests that find workers and check they died (Linux)."""
from __future__ import annotations

from pathlib import Path


def processes():
    """(pid, the fields of /proc/PID/stat after the command name) of every process: state is
    fields[0], parent fields[1], session fields[3]."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            yield int(entry.name), fields
