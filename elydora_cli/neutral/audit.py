"""Recording a hook event in the agent's spool, exactly as the generated audit hook does.

The event (its JSON text, surrounding whitespace removed) becomes one spool record
``\\n<receipt epoch ms> <event>\\n`` (the format of ``runtime/templates/hook.py``), appended in a single
``O_APPEND`` write to the owner-only ``spool.jsonl`` while holding the append lock (``elydora_cli.spoollock``),
after checking that the path still names the file that was opened (the flusher may retire it meanwhile). Then
the detached flusher is started unless one is running; it signs, chains and delivers the record.
"""

from __future__ import annotations

import os
import time

from elydora_config import _platform

from .. import spoollock
from ..statefiles import FLUSH_LOCK, SPOOL
from .agentstate import AgentDir, AgentStateError

FLUSH_MODULE = "elydora_cli.runtime.flush"
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC
_ATTEMPTS = 20


def spool_body(data: bytes) -> bytes:
    """The event as it is spooled: the request's own JSON text, trimmed (``null`` is recorded as ``{}``).

    Bytes that are not UTF-8 are replaced with U+FFFD, as the request decoder read them.
    """
    body = data.strip(b" \t\r\n")
    if body == b"null":
        return b"{}"
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        body = body.decode("utf-8", "replace").encode("utf-8")
    return body


def spool_line(body: bytes, received_ms: int) -> bytes:
    """``\\n<ms> <event>\\n`` with the event's line breaks turned into spaces (``templates/hook.spool_line``;
    restated because importing ``elydora_cli.runtime`` loads the key library; a test pins the equality)."""
    return b"\n%d " % received_ms + body.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n"


def append_event(agent: AgentDir, body: bytes, received_ms: int | None = None) -> None:
    """Append one spool record; retried when the flusher retired the spool between open and lock."""
    stamp = time.time_ns() // 1_000_000 if received_ms is None else received_ms
    line = spool_line(body, stamp)
    with spoollock.held(agent.path):
        for _ in range(_ATTEMPTS):
            fd = _platform.open_at(SPOOL, _APPEND, 0o600, dir_fd=agent.fd)
            try:
                opened = os.fstat(fd)
                if opened.st_mode & 0o170000 != 0o100000 or not _platform.is_private(opened):
                    raise AgentStateError(f"{SPOOL} is not an owner-only regular file")
                spoollock.share(fd)
                try:
                    current = _platform.stat_at(SPOOL, dir_fd=agent.fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if (current.st_dev, current.st_ino) != (opened.st_dev, opened.st_ino):
                    continue
                written = os.write(fd, line)
                if written != len(line):
                    raise AgentStateError(f"short write to {SPOOL} ({written} of {len(line)} bytes)")
                return
            finally:
                os.close(fd)
    raise AgentStateError(f"{SPOOL} kept being replaced")


def start_flusher(agent: AgentDir, python: str) -> str | None:
    """Start the detached flusher unless one holds ``flush.lock``; a problem is returned, not raised
    (the event stays spooled and the next call, or ``elydora audit flush``, delivers it)."""
    try:
        agent.spawn(python, FLUSH_MODULE, FLUSH_LOCK)
    except OSError as exc:
        return f"cannot start the flusher (the event stays spooled): {exc.strerror or exc}"
    return None
