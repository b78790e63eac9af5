"""What the flusher's parts share: ``flush.lock``, which one flusher at a time holds for an agent directory,
and the outcomes of a flush (:func:`elydora_cli.runtime.flush.flush`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from elydora_config import _platform
from elydora_config._platform import locking

from ..statefiles import FLUSH_LOCK

DRAINED = "drained"
STOPPED = "stopped"
BUSY = "busy"
BATCH = 64
"""Spool lines the flusher reads at a time."""
START_RECORD = 20
"""Windows: bytes at the start of ``flush.lock`` where the audit hook notes when it started a flusher (the lock
is not handed over there, see ``templates/oslayer.py``); the flusher that takes the lock blanks them."""


@contextmanager
def try_lock(agent_dir: str, held_fd: int | None = None) -> Iterator[bool]:
    """``flush.lock`` held exclusively, or ``False`` when another flusher holds it.

    ``held_fd`` is a descriptor of ``flush.lock`` that the audit hook locked and handed over at spawn (a
    lock on an open file description is shared with the child): it is adopted after checking that it is
    that file, so no second flusher can start in between. (POSIX only: a Windows hook hands over nothing.)
    """
    path = os.path.join(agent_dir, FLUSH_LOCK)
    fd = held_fd if held_fd is not None and _is_lock_file(held_fd, path) else None
    if fd is None:
        fd = _platform.open_at(path, os.O_RDWR | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC, 0o600)
    try:
        try:
            locking.flock(fd, locking.LOCK_EX_NB)
        except BlockingIOError:
            yield False
            return
        if sys.platform == "win32":  # started: the hooks' note has done its work
            locking.pwrite(fd, b" " * START_RECORD, 0)
        yield True
    finally:
        os.close(fd)


def _is_lock_file(fd: int, path: str) -> bool:
    try:
        opened, named = os.fstat(fd), os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)
