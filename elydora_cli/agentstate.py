"""A local agent's status as the guard enforces it, its audited history, and its fail-safe repair.

``status.json`` is the guard's only input for a local agent. Every change made by ``elydora agent
freeze|unfreeze|revoke`` is also appended to the agent's audit spool as an ``elydora.status`` event, so the
signed ledger holds the history. When ``status.json`` is missing, corrupt or readable by others, the repair
(by those verbs and by ``install``) restores it from that history, failing safe: with no recorded status the
agent is restored *frozen* (``elydora agent unfreeze`` makes it active again), and an agent recorded
revoked stays revoked.
"""

from __future__ import annotations

import json
import os
import time

from elydora_config import _platform, files
from elydora_config.records import record

from . import health
from . import statefiles as names
from .statehistory import STATUS_EVENT, recorded

__all__ = ["STATUS_EVENT", "Current", "current", "event_line", "record_change", "recorded", "restored"]



@record(frozen=True)
class Current:
    status: str | None
    """The status the guard reads now (``None`` when it cannot read one)."""
    problem: str | None = None
    """Why ``status.json`` needs repair (missing, corrupt, too open), else ``None``."""


def current(agent_dir: str) -> Current:
    try:
        data = health.read_input(agent_dir, names.STATUS)
    except health.InputError as exc:
        return Current(_content_status(agent_dir), str(exc))
    if data is None:
        return Current(None, f"{os.path.join(agent_dir, names.STATUS)}: is missing")
    value = data.get("status")
    if value not in names.STATUSES:
        return Current(None, f"{os.path.join(agent_dir, names.STATUS)}: has no valid status")
    return Current(str(value))


def _content_status(agent_dir: str) -> str | None:
    """The status a too-open but otherwise valid ``status.json`` holds (its mode alone is wrong)."""

    try:
        data = files.read_physical(os.path.join(agent_dir, names.STATUS), max_bytes=health.INPUT_LIMIT)
        value = json.loads(data) if data is not None else None
    except Exception:
        return None
    status = value.get("status") if isinstance(value, dict) else None
    return str(status) if status in names.STATUSES else None


def restored(agent_dir: str, now: Current) -> tuple[str, str]:
    """(status, reason) to write back into a broken ``status.json``, failing safe."""
    history = recorded(agent_dir)
    if now.status is not None and history != "revoked":
        return now.status, "status.json restored owner-only"
    if history is not None:
        return history, f"status.json restored from the audit history ({history})"
    return "frozen", "status.json was missing or corrupt and no status was recorded: restored frozen"


def event_line(status: str, reason: str | None, when: float | None = None) -> bytes:
    """The spool line of a status change (the audit hook's format: ``\\n<ms> <event>\\n``)."""
    stamp = int((time.time() if when is None else when) * 1000)
    event = {
        "hook_event_name": STATUS_EVENT,
        "session_id": "elydora-cli",
        "tool_name": "elydora",
        "status": status,
        "reason": reason,
    }
    return b"\n%d " % stamp + json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n"


def record_change(agent_dir: str, status: str, reason: str | None) -> None:
    """Append the change to the agent's spool (under the append lock the audit hook takes)."""
    from . import spoollock

    path = os.path.join(agent_dir, names.SPOOL)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC
    with spoollock.held(agent_dir):
        fd = _platform.open_at(path, flags, 0o600)
        try:
            info = os.fstat(fd)
            if info.st_mode & 0o170000 != 0o100000 or not _platform.is_private(info):
                raise PermissionError(13, "is not an owner-only regular file", path)
            spoollock.share(fd)
            os.write(fd, event_line(status, reason))
        finally:
            os.close(fd)
