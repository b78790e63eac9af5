"""Reading the last entry of ``ledger.jsonl`` from its tail, without the record machinery (hashing, signatures):
``status`` compares it with ``chain-state.json`` on every run (:mod:`.chaincheck`); :mod:`.ledger` uses the same
reads to repair a torn tail."""

from __future__ import annotations

import errno
import json
import os
import stat
from typing import TYPE_CHECKING

from elydora_config import _platform

if TYPE_CHECKING:  # status reads the tail: no typing at run time
    from typing import Any

_READ = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC
_CHUNK = 1 << 16


def open_regular(path: str, flags: int, mode: int = 0o600) -> int:
    """A descriptor of ``path`` opened without blocking (a FIFO never hangs us); non-regular files refused."""
    fd = _platform.open_at(path, flags, mode)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "the ledger is not a regular file", path)
    return fd


def last_newline_end(fd: int, size: int) -> int:
    """Offset just after the last newline before ``size`` (0 when there is none)."""
    end = size
    while end > 0:
        start = max(0, end - _CHUNK)
        chunk = _platform.pread(fd, end - start, start)
        index = chunk.rfind(b"\n")
        if index >= 0:
            return start + index + 1
        end = start
    return 0


def last_entry(path: str) -> dict[str, Any] | None:
    """The last complete entry, or ``None`` for an absent or empty ledger."""
    try:
        fd = open_regular(path, _READ)
    except FileNotFoundError:
        return None
    try:
        size = os.fstat(fd).st_size
        end = last_newline_end(fd, size)
        if end == 0:
            return None
        start = last_newline_end(fd, end - 1)
        entry = json.loads(_platform.pread(fd, end - start, start))
        return entry if isinstance(entry, dict) else None
    finally:
        os.close(fd)
