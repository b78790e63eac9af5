"""What every generated hook does with its input first: read the event, tell its host, take verify's probe.

One home for code the guard, the audit hook and the supervisor launcher share: the generator writes
everything below the ``from __future__`` line into each of them in place of the template's ``# @inline``
import of this module (a generated script stands alone; each inlines ``oslayer`` before it, whose names this
code uses). Stdlib only, no ``json``; ``posix`` (through ``oslayer``), not ``os``.

- :func:`read_stdin`: the event, bounded (``limit``) and with a deadline, the rest drained (hashed on demand).
- :func:`host_of`: whether the agent these entries belong to sent the event (``HOST``), another agent that runs
  the same entries did (``FOREIGN``: the payload lacks the host's member names *and* a variable that agent sets
  for its hooks is present), or an event without the host's member names that no known agent claims
  (``UNRECOGNISED``). A payload holding every member name of ``host_keys`` is always the host's, whatever the
  environment says: an agent's settings can put any variable into its hooks' environment, so no variable may
  switch the guard off. Only ``FOREIGN`` events are skipped; an ``UNRECOGNISED`` one is decided and recorded
  as the host's (the safe side: a freeze holds, nothing goes unrecorded).
- :func:`note_host`: each of these two leaves a line in ``host-check.log`` (the counts ``status`` and
  ``audit verify`` report).
- :func:`probe_directory`: ``elydora verify``'s scratch state for a probe. The environment names it only by a
  random 128-bit name; it is honoured only when a directory of that name exists *inside the runtime's own
  owner-only directory*, is a real directory, owner-only, owned by the expected user and made seconds ago.
  Anything else is ignored (the hook decides and records normally) and the reason is logged.
"""

from __future__ import annotations

import time

from .oslayer import CLOEXEC, NOFOLLOW, NONBLOCK, OTHERS, SEP, getenv, is_link, open_file, read_chunk, system  # @inline

STDIN_DEADLINE = 0.75
"""Seconds the hook waits for the agent to close stdin: below the smallest hook timeout an agent is given (1 s)."""
READ_CHUNK = 1 << 16
HOST = "host"
FOREIGN = "foreign"
UNRECOGNISED = "unrecognised"
HOST_LOG = "host-check.log"
"""One line per event whose host was not recognised: ``<UTC time> <component> <foreign|unrecognised> <bytes>
<what was done>``."""
HOST_LOG_LIMIT = 1 << 20
PROBE_ENV = b"ELYDORA_VERIFY_PROBE"
PROBE_PREFIX = "verify-probe."
PROBE_NAME_LENGTH = 32
"""Hex digits of a probe's name: 128 random bits."""
PROBE_LIFETIME = 60.0
"""Seconds after its last change a probe directory is still honoured (a probe runs at once after it is made)."""
_HEX = "0123456789abcdef"
_LOG_FLAGS = system.O_WRONLY | system.O_APPEND | system.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC


def read_stdin(limit: int, deadline: float = STDIN_DEADLINE, hash_all: bool = False) -> tuple[bytes, bool, int, object]:
    """(the first ``limit + 1`` bytes of stdin, whether the agent closed it within ``deadline`` seconds, the
    number of bytes read in all, and with ``hash_all`` a ``hashlib.sha256`` object fed every byte read once
    more than ``limit`` came, else ``None``).

    Everything beyond the cap is read and discarded (only hashed), so the agent never gets EPIPE and memory
    stays bounded; a stdin left open ends the read at the deadline instead of hanging until the agent kills
    the hook. What the agent wrote is never lost to a late start: once the deadline has passed, the bytes
    already waiting are still taken (up to the cap), so a process the machine scheduled late reads the same
    event as a prompt one.
    """
    chunks: list[bytes] = []
    size = 0
    digest = None
    end = time.monotonic() + deadline
    closed = False
    while True:
        left = end - time.monotonic()
        if left <= 0 and size > limit and digest is None:
            break
        chunk = read_chunk(max(left, 0.0), READ_CHUNK)
        if chunk is None:
            break
        if not chunk:
            closed = True
            break
        if digest is not None:
            digest.update(chunk)
        elif size <= limit:
            chunks.append(chunk)
            if hash_all and size + len(chunk) > limit:  # only an oversized event pays for hashlib
                digest = __import__("hashlib").sha256(b"".join(chunks))
        size += len(chunk)
    return b"".join(chunks)[: limit + 1], closed, size, digest


def host_of(data: bytes, limit: int, host_keys: tuple[bytes, ...], foreign_env: tuple[bytes, ...]) -> str:
    """``HOST``, ``FOREIGN`` or ``UNRECOGNISED`` for the event ``data`` (see the module docstring).

    ``host_keys`` empty: only this agent runs the entries. Input that is no object at all, or was cut at
    ``limit`` (its member names may lie beyond the cut), counts as the host's: the hook then applies its usual
    rules (failure mode, gap record), so nobody's event is lost and no freeze is lifted by a size."""
    if not host_keys or all(key in data for key in host_keys):
        return HOST
    if len(data) > limit or not data.lstrip(b" \t\r\n").startswith(b"{"):
        return HOST
    if any(getenv(name) is not None for name in foreign_env):
        return FOREIGN
    return UNRECOGNISED


def append_bounded(path: str, line: bytes, limit: int) -> None:
    """Append ``line`` to the owner-only log ``path``, moved aside to ``path.1`` once over ``limit`` bytes; a
    file that is not a regular one or is open to others is left alone (best effort: nothing is raised)."""
    try:
        try:
            if system.stat(path, follow_symlinks=False).st_size > limit:
                system.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        fd = open_file(path, _LOG_FLAGS, 0o600)
        try:
            info = system.fstat(fd)
            if info.st_mode & 0o170000 == 0o100000 and info.st_mode & OTHERS == 0:
                system.write(fd, line)
        finally:
            system.close(fd)
    except OSError:
        pass


def note_host(directory: str, component: str, kind: str, size: int, foreign_env: tuple[bytes, ...]) -> str:
    """One line in ``host-check.log`` for a ``FOREIGN`` or ``UNRECOGNISED`` event (best effort, rotated at
    ``HOST_LOG_LIMIT``); returns what the line says was done."""
    if kind == FOREIGN:
        named = ",".join(name.decode() for name in foreign_env if getenv(name) is not None)
        what = f"skipped: another agent runs these entries ({named} set)"
    else:
        what = "decided and recorded as this agent's: the payload lacks the member names it always sends"
    path = f"{directory}{SEP}{HOST_LOG}"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = f"{stamp} {component} {kind} {size} {what}\n".encode("utf-8", "replace")
    append_bounded(path, line, HOST_LOG_LIMIT)
    return what


def probe_directory(base: str, owner: int) -> tuple[str | None, str | None]:
    """(the probe's scratch directory, ``None``) under ``elydora verify``; (``None``, why) when
    ``ELYDORA_VERIFY_PROBE`` is set but not honoured; (``None``, ``None``) when it is not set.

    ``base`` is the runtime's own owner-only directory and ``owner`` the user who must own the probe (the
    hook's user; under system scope root, so no user can make a probe that lifts root's freeze)."""
    value = getenv(PROBE_ENV)
    if value is None:
        return None, None
    name = value.decode("ascii", "replace")
    if len(name) != PROBE_NAME_LENGTH or any(c not in _HEX for c in name):
        return None, f"{PROBE_ENV.decode()} is not a probe name ({name[:40]!r})"
    path = f"{base}{SEP}{PROBE_PREFIX}{name}"
    try:
        info = system.stat(path, follow_symlinks=False)
    except OSError:
        return None, f"{PROBE_ENV.decode()} names no probe of elydora verify ({name})"
    if info.st_mode & 0o170000 != 0o040000 or is_link(info) or info.st_mode & OTHERS or info.st_uid != owner:
        return None, f"{PROBE_ENV.decode()}: {path} is not an owner-only directory of uid {owner}"
    age = time.time() - info.st_mtime
    if not -1.0 <= age <= PROBE_LIFETIME:
        return None, f"{PROBE_ENV.decode()}: {path} is not a fresh probe ({int(age)} s old)"
    return path, None
