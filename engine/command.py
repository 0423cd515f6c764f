"""What every groundplan command shares: groundplan's errors as messages and exit codes, --json
errors, and the resource limits of a command that loads and grounds.

Exit codes, for every command: 0 valid; 1 an invalid plan, domain or problem (it was read, and is
wrong); 2 usage errors and input that cannot be read at all (missing, not a regular file, too
large, not JSON/YAML, absurd). Errors print as `file#/pointer: message (hint)` lines; no
traceback reaches the user for bad input. A command run with --json reports its errors as one
JSON object on stdout instead, so a script reading that output never has to parse prose. The
commands themselves (`groundplan.cli`, `groundplan.evals.cli`) sit above every layer; this
module is the engine's part of them.
"""
from __future__ import annotations

import functools
import json
import sys

import click

from .errors import GroundplanError, ModelError

EXIT_INVALID = 1
EXIT_USAGE = 2


def fail(message: str, code: int, as_json: bool = False, diagnostics=()):
    """Report an error and exit: as text on stderr, or with --json as
    {"valid": false, "error", "exit_code", "diagnostics": [{file, pointer, message, hint}]} on stdout."""
    if as_json:
        click.echo(json.dumps({"valid": False, "error": message, "exit_code": code,
                               "diagnostics": [d.to_json() for d in diagnostics]}))
    else:
        click.echo(message, err=True)
    sys.exit(code)


def handles_errors(fn):
    """Turn groundplan's own errors into a clean message (JSON under --json) and the exit code:
    1 for input that was read and is wrong, 2 for input that cannot be read and other errors."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        as_json = bool(kwargs.get("as_json"))
        try:
            return fn(*args, **kwargs)
        except ModelError as exc:
            code = EXIT_USAGE if exc.malformed else EXIT_INVALID
            if as_json:  # one line for people; every diagnostic, structured, for programs
                more = len(exc.diagnostics) - 1
                summary = str(exc.diagnostics[0]) + (f" (and {more} more)" if more > 0 else "") if exc.diagnostics else "invalid input"
                fail(summary, code, True, exc.diagnostics)
            fail(str(exc), code)
        except GroundplanError as exc:
            fail(f"error: {exc}", EXIT_USAGE, as_json)
        except KeyboardInterrupt:
            fail("interrupted", 130, as_json)
    return wrapper


def with_limits(fn):
    """`--time-limit` and `--memory-limit` for a command that loads and grounds, as `groundplan
    plan` takes them: a 300-block problem grounded for 9 s and 2 GB under `groundplan actions`,
    with no way to bound it. The limits cover loading and grounding (engine.budget: the grounding
    polls the budget, an alarm stops a parse that cannot, the address space is capped above the
    memory limit); running out is an error naming the limit, exit status 2."""
    @functools.wraps(fn)
    def wrapper(*args, time_limit=None, memory_limit=None, **kwargs):
        if time_limit is None and memory_limit is None:
            return fn(*args, **kwargs)
        from .budget import alarm, cap_address_space, limited
        from .errors import ResourceLimit

        cap_address_space(memory_limit)
        try:
            with alarm(time_limit), limited(time_limit, memory_limit):
                return fn(*args, **kwargs)
        except ResourceLimit as exc:
            flag = "--time-limit" if exc.status == "timeout" else "--memory-limit"
            hint = "" if "raise" in str(exc) else f" (raise {flag})"
            raise ResourceLimit(exc.status, f"stopped: {exc}{hint}") from None
        except MemoryError:
            raise ResourceLimit("memout", f"stopped: out of memory under --memory-limit {memory_limit:g} MB "
                                          "(raise --memory-limit)") from None

    wrapper = click.option("--memory-limit", type=click.FloatRange(min=0, min_open=True), default=None,
                           help="MB above the start-up footprint, for loading and grounding.")(wrapper)
    return click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
                        help="Seconds, for loading and grounding.")(wrapper)


class Group(click.Group):
    """The command group; with --json on the command line, click's own usage errors (a missing
    argument, an unknown option) come out as JSON too."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = sys.argv[1:] if args is None else list(args)
        if not standalone_mode or "--json" not in argv:
            return super().main(argv, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(argv, prog_name, complete_var, False, **extra)
        except click.ClickException as exc:
            fail(f"error: {exc.format_message()}", exc.exit_code, True)
        except click.Abort:
            fail("interrupted", 130, True)
        sys.exit(code if isinstance(code, int) else 0)


