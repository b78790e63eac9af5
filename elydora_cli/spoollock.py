"""How the writers of ``spool.jsonl`` and the flusher that retires it stay apart, on each system.

POSIX: a writer holds a shared ``flock`` on the spool it opened for its one ``O_APPEND`` write (and checks that
the name still names that file); the flusher takes the lock exclusively to retire the file. Windows has no
shared lock and no atomic append (the C runtime seeks to the end, then writes), and a file that is open
anywhere cannot be renamed: there every writer and the retiring flusher hold ``spool.lock`` exclusively, one
at a time, and the spool is open only inside it. The generated audit hook restates this rule
(``runtime/templates/oslayer.py``: ``append_lock``, ``share_lock``), which tests pin to this module.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from elydora_config import _platform
from elydora_config._platform import locking

from .statefiles import SPOOL_LOCK

SEPARATE_LOCK = sys.platform == "win32"
"""Whether writers and the retiring flusher hold ``spool.lock`` (Windows) rather than an ``flock`` of the spool."""
_FLAGS = os.O_RDWR | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC


@contextmanager
def held(agent_dir: str) -> Iterator[None]:
    """Windows: ``spool.lock`` of ``agent_dir`` held for the block (waiting for the writer or flusher that holds
    it); POSIX: nothing, the spool's own ``flock`` does it (:func:`share`, :func:`exclusive`)."""
    if not SEPARATE_LOCK:
        yield
        return
    fd = _platform.open_at(os.path.join(agent_dir, SPOOL_LOCK), _FLAGS, 0o600)
    try:
        locking.flock(fd, locking.LOCK_EX)
        yield
    finally:
        _platform.close(fd)  # releases the lock


def share(fd: int) -> None:
    """A writer's lock on the spool it opened: POSIX a shared ``flock``; Windows nothing (:func:`held`)."""
    if not SEPARATE_LOCK:
        locking.flock(fd, locking.LOCK_SH)


def exclusive(fd: int) -> None:
    """The retiring flusher's lock on the spool it opened (POSIX: ``flock(LOCK_EX)``, waiting for the writers);
    never called on Windows, where the spool is not held open while it is retired."""
    locking.flock(fd, locking.LOCK_EX)
