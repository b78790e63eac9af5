"""Reading and retiring ``spool.jsonl``, the audit hook's append-only inbox.

A spool record is ``\\n<receipt epoch ms> <event JSON>\\n`` (the hook turns the event's line breaks,
which valid JSON only has as whitespace, into spaces). The leading newline ends any line a crashed writer
left unterminated, so one torn write can never swallow the next event; empty lines are skipped. Writers
append one record per ``O_APPEND`` write while holding the append lock (:mod:`elydora_cli.spoollock`: a
shared ``flock`` on POSIX, ``spool.lock`` on Windows) and re-check that the path still names the file they
opened.

Retiring a fully delivered spool, under the exclusive lock so no append is in flight: (1) rename it
to ``spool.retired``, (2) save ``spool_offset = 0``, (3) unlink ``spool.retired``. A flusher that finds
``spool.retired`` knows step 1 happened and the file was fully consumed, so it resumes at (2). On Windows a
spool that another program (a reader) holds open cannot be renamed: it is then retired by a later run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from elydora_config import _platform

if TYPE_CHECKING:
    from typing import Any

from .. import spoollock
from ..statefiles import REJECTED, RETIRED_SPOOL, SPOOL
from .jcs import loads_strict

EVENT_LIMIT = 8 << 20
"""The largest event the audit hook spools whole (``templates/hook.py`` restates it; docs/runtime.md says why);
a larger one is spooled as a gap event."""
LINE_LIMIT = EVENT_LIMIT + 32
MAX_DEPTH = 128
"""Deepest nesting of objects and arrays an event may have (agents' events nest a few levels; Python's own
recursion limit, which the canonical form and the ledger line meet, is near 1000)."""
_OPEN = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC  # a FIFO never blocks
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC


class SpoolLine(NamedTuple):
    start: int
    end: int
    raw: bytes


class BadLine(ValueError):
    """A spool line that is not ``<ms> <JSON object>`` (torn by a failed write, or edited by hand)."""


def read_lines(path: str, offset: int, limit: int) -> list[SpoolLine]:
    """Up to ``limit`` complete lines from ``offset``; an unterminated tail is left for a later run.

    An over-long run of bytes without a newline is returned as one (bad) line so it cannot block the spool.
    """
    try:
        handle = open(path, "rb", opener=lambda p, _f: _platform.open_at(p, _OPEN))  # noqa: SIM115
    except FileNotFoundError:
        return []
    lines: list[SpoolLine] = []
    with handle:
        handle.seek(offset)
        position = offset
        while len(lines) < limit:
            raw = handle.readline(LINE_LIMIT + 1)
            if not raw or (not raw.endswith(b"\n") and len(raw) <= LINE_LIMIT):
                break
            lines.append(SpoolLine(position, position + len(raw), raw))
            position += len(raw)
    return lines


def parse_line(raw: bytes) -> tuple[int, dict[str, Any]]:
    """(receipt ms, event object) of one spool line; :class:`BadLine` when it is not well formed."""
    stamp, sep, body = raw.partition(b" ")
    if not sep or not stamp.isdigit() or not raw.endswith(b"\n"):
        raise BadLine("the line has no receipt time")
    try:
        event = loads_strict(body)
    except (ValueError, RecursionError) as exc:
        raise BadLine(f"the event is not valid JSON: {exc}") from None
    if not isinstance(event, dict):
        raise BadLine("the event is not a JSON object")
    if too_deep(event):
        raise BadLine(f"the event is nested deeper than {MAX_DEPTH} levels")
    return int(stamp), event


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests objects and arrays deeper than ``limit`` (checked without recursion: the
    canonical form, the hash and the ledger line are all written recursively)."""
    level = [value]
    for _ in range(limit):
        level = [v for item in level for v in (item.values() if isinstance(item, dict) else item)
                 if isinstance(v, (dict, list))]  # fmt: skip
        if not level:
            return False
    return True


def has_complete_line(path: str, offset: int) -> bool:
    """Whether a newline follows ``offset`` (an incomplete tail alone does not count)."""
    try:
        handle = open(path, "rb", opener=lambda p, _f: _platform.open_at(p, _OPEN))  # noqa: SIM115
    except FileNotFoundError:
        return False
    with handle:
        handle.seek(offset)
        while chunk := handle.read(1 << 16):
            if b"\n" in chunk:
                return True
    return False


def size(path: str) -> int | None:
    try:
        return os.stat(path, follow_symlinks=False).st_size
    except FileNotFoundError:
        return None


def append_event(path: str, body: bytes, received_ms: int) -> bool:
    """Append one event line ``\\n<ms> <body>\\n`` as the audit hook does (one ``O_APPEND`` write under the append
    lock), fsynced; whether it was written whole."""
    line = b"\n%d " % received_ms + body + b"\n"
    try:
        with spoollock.held(os.path.dirname(path)):
            fd = _platform.open_at(path, _APPEND | _platform.O_NONBLOCK, 0o600)
            try:
                spoollock.share(fd)
                if os.write(fd, line) != len(line):
                    return False
                _platform.fsync(fd)
            finally:
                os.close(fd)
    except OSError:
        return False
    return True


def quarantine(agent_dir: str, raw: bytes) -> None:
    """Keep a bad line (it is never silently dropped) in the owner-only ``spool.rejected``."""
    path = os.path.join(agent_dir, REJECTED)
    fd = _platform.open_at(path, _APPEND, 0o600)
    try:
        data = raw if raw.endswith(b"\n") else raw + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(path: str) -> Iterator[int | None]:
    """The spool's descriptor under ``LOCK_EX`` (``None`` when absent): no append is in flight meanwhile (POSIX)."""
    try:
        fd = _platform.open_at(path, _OPEN)
    except FileNotFoundError:
        yield None
        return
    try:
        spoollock.exclusive(fd)
        yield fd
    finally:
        os.close(fd)


def retire_if_consumed(agent_dir: str, offset: int) -> bool:
    """Step (1): rename a spool that is exactly ``offset`` bytes long to ``spool.retired``."""
    path = os.path.join(agent_dir, SPOOL)
    if spoollock.SEPARATE_LOCK:
        return _retire_held_apart(agent_dir, path, offset)
    with exclusive(path) as fd:
        if fd is None:
            return False
        opened = os.fstat(fd)
        try:
            current = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if (current.st_dev, current.st_ino) != (opened.st_dev, opened.st_ino):
            return False
        if opened.st_size == 0 or opened.st_size != offset:
            return False
        os.replace(path, os.path.join(agent_dir, RETIRED_SPOOL))
        return True


def _retire_held_apart(agent_dir: str, path: str, offset: int) -> bool:
    """Windows: step (1) under ``spool.lock`` (no writer has the spool open then); a reader that holds the
    spool open makes the rename fail at once, and a later run retires it (writers must not wait for that)."""
    with spoollock.held(agent_dir):
        try:
            info = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if _platform.is_link(info) or info.st_size == 0 or info.st_size != offset:
            return False
        try:
            os.replace(path, os.path.join(agent_dir, RETIRED_SPOOL))
        except PermissionError:
            return False
        return True


def retired_exists(agent_dir: str) -> bool:
    return os.path.lexists(os.path.join(agent_dir, RETIRED_SPOOL))


def remove_retired(agent_dir: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(agent_dir, RETIRED_SPOOL))
