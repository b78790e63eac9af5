"""A local agent's status as its audit history records it, and whether ``status.json`` lifts it.

Every change made by ``elydora agent freeze|unfreeze|revoke`` is appended to the agent's spool as an
``elydora.status`` event and flushed into the signed ledger. ``status.json`` alone decides what the guard does,
so a file rewritten by hand to a milder status than the history's last one (``active`` after a freeze) is
*tampered*: ``status``, ``agent show`` and ``verify`` report it, and ``elydora agent freeze`` repairs it.

Read-only and bounded: the spool and the ledger are searched from their end, a chunk at a time, for the last
status event, at most :data:`HISTORY_SCAN` bytes of each.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator

from elydora_config import _platform

from .statefiles import LEDGER, SPOOL, STATUS, STATUSES

STATUS_EVENT = "elydora.status"
HISTORY_SCAN = 16 << 20
"""How much of the end of the spool and of the ledger is searched for the last recorded status."""
CHUNK = 1 << 20
STRICTNESS = {status: rank for rank, status in enumerate(STATUSES)}
"""``active`` < ``frozen`` < ``revoked``: a status.json milder than the recorded status lifts it."""
_MARK = STATUS_EVENT.encode()


def recorded(agent_dir: str) -> str | None:
    """The last status recorded in the audit history (undelivered spool first, then the ledger)."""
    for name, pick in ((SPOOL, _spool_status), (LEDGER, _ledger_status)):
        for line in _marked_lines(os.path.join(agent_dir, name)):
            status = pick(line)
            if status is not None:
                return status
    return None


def lifted(agent_dir: str, status: str | None) -> str | None:
    """Why ``status`` (what ``status.json`` says) is tampered: it is milder than the recorded history's last
    status; ``None`` when it is not (or either is unknown)."""
    if status not in STRICTNESS:
        return None
    history = recorded(agent_dir)
    if history is None or STRICTNESS[history] <= STRICTNESS[status]:
        return None
    verb = "revoke --yes" if history == "revoked" else "freeze"
    return (
        f"{os.path.join(agent_dir, STATUS)}: says {status}, but the signed audit history records the agent "
        f"{history} (the file was changed outside elydora): run elydora agent {verb}"
    )


def _marked_lines(path: str) -> Iterator[bytes]:
    """The lines of ``path`` that mention a status event, the last first, read from the end a chunk at a time
    (at most :data:`HISTORY_SCAN` bytes)."""
    try:
        fd = _platform.open_at(path, os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return
        end, floor, head = info.st_size, max(0, info.st_size - HISTORY_SCAN), b""
        while end > floor:
            start = max(floor, end - CHUNK)
            data = _platform.pread(fd, end - start, start) + head
            cut = data.find(b"\n") + 1 if start > floor else 0  # a line the chunk cut waits for the next chunk
            head, whole = data[:cut], data[cut:]
            if _MARK in whole:
                yield from (line for line in reversed(whole.split(b"\n")) if _MARK in line)
            end = start
    finally:
        os.close(fd)


def _event_status(event: object) -> str | None:
    if isinstance(event, dict) and event.get("hook_event_name") == STATUS_EVENT:
        status = event.get("status")
        return str(status) if status in STATUSES else None
    return None


def _spool_status(line: bytes) -> str | None:
    try:
        return _event_status(json.loads(line.partition(b" ")[2]))
    except ValueError:
        return None


def _ledger_status(line: bytes) -> str | None:
    try:
        entry = json.loads(line)
        return _event_status(entry["record"]["payload"])
    except (ValueError, KeyError, TypeError):
        return None
