"""The state lock's system calls, apart from the rest of :mod:`elydora_config._platform`: only
:mod:`elydora_config.lock` imports them, so a read-only command loads no ``fcntl``.

``flock(fd, LOCK_EX_NB)`` raises ``BlockingIOError`` while another process holds the lock, ``flock(fd, LOCK_EX)``
waits for it, ``flock(fd, LOCK_UN)`` releases it; ``pread``/``pwrite`` read and write the holder record at an
offset. POSIX: ``fcntl.flock`` and the ``os`` calls themselves; Windows: ``LockFile`` through ``msvcrt.locking``
(see ``_windows``), which has no shared lock: ``flock(fd, LOCK_SH)`` raises ``ENOTSUP`` there.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from ._windows import LOCK_EX, LOCK_EX_NB, LOCK_SH, LOCK_UN, flock, pread, pwrite
else:
    from ._posix_lock import LOCK_EX, LOCK_EX_NB, LOCK_SH, LOCK_UN, flock, pread, pwrite

__all__ = ["LOCK_EX", "LOCK_EX_NB", "LOCK_SH", "LOCK_UN", "flock", "pread", "pwrite"]
