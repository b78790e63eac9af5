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

If the supervisor cannot be started, the reason goes to stderr and the provider's failure mode applies. Windows
cannot replace a process by another: there the supervisor runs as a child that inherits stdout and stderr,
gets the event on a pipe, and its exit code becomes the launcher's.
"""

from __future__ import annotations

import sys

from .hookinput import HOST, UNRECOGNISED, host_of, note_host, read_stdin  # @inline
from .oslayer import system  # @inline

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


if sys.platform == "win32":

    def become(data: bytes) -> int:
        """Windows cannot replace a process by another: the supervisor runs as a child (stdout and stderr
        inherited), the event on its stdin; its exit code."""
        import subprocess

        environment = {**system.environ, **ENV}
        return subprocess.run(list(ARGV), input=data, env=environment, check=False).returncode

else:

    def _write_all(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[system.write(fd, view) :]

    def as_stdin(data: bytes) -> None:
        """Make ``data`` the process's standard input: an anonymous memory file where the system has one (nothing
        is left behind, any size), else a pipe fed by a short-lived child (the supervisor reads it as it starts)."""
        if hasattr(system, "memfd_create"):
            fd = system.memfd_create("elydora-event", 0)
            _write_all(fd, data)
            system.lseek(fd, 0, 0)
        else:
            fd, writer = system.pipe()
            if system.fork() == 0:
                system.close(fd)
                try:
                    _write_all(writer, data)
                finally:
                    system._exit(0)
            system.close(writer)
        system.dup2(fd, 0)
        system.close(fd)

    def become(data: bytes) -> int:
        """Become the supervisor (``ARGV``, ``ENV`` added to the environment), ``data`` on its stdin."""
        environment = dict(system.environ)
        environment.update((name.encode(), value.encode()) for name, value in ENV.items())
        as_stdin(data)
        system.execve(ARGV[0], list(ARGV), environment)


def main() -> int:
    data, _closed, size, _ = read_stdin(STDIN_LIMIT)
    host = host_of(data, STDIN_LIMIT, HOST_KEYS, FOREIGN_ENV)
    if host != HOST:
        note_host(AGENT_DIR, "supervisor", host, size, FOREIGN_ENV)
        if host != UNRECOGNISED:  # another agent's tool call: not ours to allow, block or record
            return 0
    try:
        return become(data)
    except OSError as exc:
        sys.stderr.write(f"{ERROR_PREFIX}cannot start the supervisor {ARGV[0]}: {exc.strerror or exc}\n")
    return FAILURE_EXIT


if __name__ == "__main__":
    sys.exit(main())
