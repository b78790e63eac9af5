"""Launcher of a ``--hook-command`` supervisor, for an agent whose entries other agents also run.

Generated into the agent's state directory (``supervisor.py``) when the agent's entries would otherwise run the
supervisor with its arguments in ``args``: Grok Build and Copilot CLI run Claude Code's entries with ``args``
dropped (or the command as a shell string), so the supervisor would start without its sub-command and every
tool call of theirs would be denied. The entry therefore names this script alone, which needs no argument.

It reads the event (bounded, with the guard's deadline), does the runtime's host check (``foreign_host``:
the same function as in the guard and the audit hook, pinned equal by the tests) and then:

- another agent's event: exits 0 with no output, starts nothing;
- its own agent's event: becomes the supervisor (``ARGV``, with ``ENV`` added to the environment), the event
  on its standard input, so the supervisor answers exactly as if the agent had started it.

If the supervisor cannot be started, the reason goes to stderr and the provider's failure mode applies.
"""

from __future__ import annotations

import posix
import select
import sys
import time

# -- parameters: the generator replaces each marked line with the agent's value ---------------------------
ARGV: tuple[str, ...] = ("/nonexistent/elydora", "hook")  # @param
ENV: dict[str, str] = {}  # @param
HOST_KEYS: tuple[bytes, ...] = ()  # @param
FOREIGN_ENV: tuple[bytes, ...] = ()  # @param
ERROR_PREFIX = "[Elydora guard] "  # @param
FAILURE_EXIT = 0  # @param
# ---------------------------------------------------------------------------------------------------------

STDIN_LIMIT = 1 << 20
STDIN_DEADLINE = 0.75  # copies of the guard's (tests pin them equal)


def read_stdin(limit: int = STDIN_LIMIT, deadline: float = STDIN_DEADLINE) -> tuple[bytes, bool]:
    """(the first ``limit + 1`` bytes of stdin, whether the agent closed it within ``deadline`` seconds).

    Everything beyond the cap is read and discarded, so the agent never gets EPIPE; a stdin left open ends
    the read at the deadline instead of hanging until the agent kills the hook. What the agent wrote is never
    lost to a late start: once the deadline has passed, the bytes already waiting are still taken (up to the
    cap), so a process the machine scheduled late reads the same event as a prompt one.
    """
    chunks: list[bytes] = []
    size = 0
    end = time.monotonic() + deadline
    while True:
        left = end - time.monotonic()
        if not select.select((0,), (), (), max(left, 0.0))[0] or (left <= 0 and size > limit):
            return b"".join(chunks)[: limit + 1], False
        chunk = posix.read(0, 1 << 16)
        if not chunk:
            return b"".join(chunks)[: limit + 1], True
        if size <= limit:
            chunks.append(chunk)
            size += len(chunk)


def foreign_host(data: bytes) -> bool:
    """Whether another agent runs this agent's entries: the environment holds a variable of ``FOREIGN_ENV``
    or the payload is an object without a member name of ``HOST_KEYS`` (both empty: only this agent reads
    the entries). Input that is no object at all gets the usual failure mode: nobody's event is lost."""
    if not HOST_KEYS:
        return False
    if any(name in posix.environ for name in FOREIGN_ENV):
        return True
    return data.lstrip(b" \t\r\n").startswith(b"{") and not all(key in data for key in HOST_KEYS)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[posix.write(fd, view) :]


def as_stdin(data: bytes) -> None:
    """Make ``data`` the process's standard input: an anonymous memory file where the system has one (nothing
    is left behind, any size), else a pipe fed by a short-lived child (the supervisor reads it as it starts)."""
    if hasattr(posix, "memfd_create"):
        fd = posix.memfd_create("elydora-event", 0)
        _write_all(fd, data)
        posix.lseek(fd, 0, 0)
    else:
        fd, writer = posix.pipe()
        if posix.fork() == 0:
            posix.close(fd)
            try:
                _write_all(writer, data)
            finally:
                posix._exit(0)
        posix.close(writer)
    posix.dup2(fd, 0)
    posix.close(fd)


def main() -> int:
    data = read_stdin()[0]
    if foreign_host(data):  # another agent's tool call: not ours to allow, block or record
        return 0
    environment = dict(posix.environ)
    environment.update((name.encode(), value.encode()) for name, value in ENV.items())
    try:
        as_stdin(data)
        posix.execve(ARGV[0], list(ARGV), environment)
    except OSError as exc:
        sys.stderr.write(f"{ERROR_PREFIX}cannot start the supervisor {ARGV[0]}: {exc.strerror or exc}\n")
    return FAILURE_EXIT


if __name__ == "__main__":
    sys.exit(main())
