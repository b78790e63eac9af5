"""Launcher of a ``--hook-command`` supervisor, for an agent whose entries other agents also run.

Generated into the agent's state directory (``supervisor.py``) when the agent's entries would otherwise run the
supervisor with its arguments in ``args``: Grok Build and Copilot CLI run Claude Code's entries with ``args``
dropped (or the command as a shell string), so the supervisor would start without its sub-command and every
tool call of theirs would be denied. The entry therefore names this script alone, which needs no argument.

It reads the event (bounded, with the guard's deadline), does the runtime's host check (``host_of``, inlined
from ``hookinput.py`` like in the guard and the audit hook) and then:

- another agent's event (``FOREIGN``): notes it in the agent's ``host-check.log``, exits 0 with no output,
  starts nothing;
- its own agent's event (or an ``UNRECOGNISED`` one, noted too): becomes the supervisor (``ARGV``, with ``ENV``
  added to the environment), the event on its standard input, so the supervisor answers exactly as if the
  agent had started it. No environment variable makes the agent's own event foreign.

If the supervisor cannot be started, the reason goes to stderr and the provider's failure mode applies.
"""

from __future__ import annotations

import posix
import sys

from .hookinput import HOST, UNRECOGNISED, host_of, note_host, read_stdin  # @inline

# -- parameters: the generator replaces each marked line with the agent's value ---------------------------
AGENT_DIR = "/nonexistent/.elydora/template"  # @param
ARGV: tuple[str, ...] = ("/nonexistent/elydora", "hook")  # @param
ENV: dict[str, str] = {}  # @param
HOST_KEYS: tuple[bytes, ...] = ()  # @param
FOREIGN_ENV: tuple[bytes, ...] = ()  # @param
ERROR_PREFIX = "[Elydora guard] "  # @param
FAILURE_EXIT = 0  # @param
# ---------------------------------------------------------------------------------------------------------

STDIN_LIMIT = 1 << 20
"""Bytes of the event passed on (``elydora_cli.neutral.contract.MAX_INPUT_BYTES``, what ``elydora hook`` reads)."""


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
    data, _closed, size, _ = read_stdin(STDIN_LIMIT)
    host = host_of(data, STDIN_LIMIT, HOST_KEYS, FOREIGN_ENV)
    if host != HOST:
        note_host(AGENT_DIR, "supervisor", host, size, FOREIGN_ENV)
        if host != UNRECOGNISED:  # another agent's tool call: not ours to allow, block or record
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
