"""One persistent inter-process lock per state directory.

Built on ``filelock`` (``flock`` semantics on POSIX: the kernel drops the lock when its holder dies, so a
killed holder never blocks the next process). The lock file ``.lock`` is created ``0600`` and never unlinked:
unlinking a lock file lets two processes lock two different inodes. While holding the lock we write our PID
into it, so that a waiter that times out can name the holder.
"""

from __future__ import annotations

import os
import time
from types import TracebackType

from filelock import FileLock, Timeout

from .errors import LockTimeoutError, PathLike

LOCK_NAME = ".lock"
POLL_INTERVAL = 0.001


_PID_WIDTH = 20


def _record_holder(fd: int) -> None:
    """Write our PID over the previous holder's, fixed width: no truncate (it costs a block reallocation)."""
    os.pwrite(fd, f"{os.getpid():<{_PID_WIDTH}}\n".encode("ascii"), 0)


def holder_pid(lock_path: PathLike) -> int | None:
    """The PID written by the current (or last) holder of the lock, if readable."""
    try:
        with open(lock_path, "rb") as fh:
            text = fh.read(32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class StateLock:
    """``with StateLock(state_dir, timeout=10.0):`` - exclusive across processes, re-entrant in one thread."""

    def __init__(self, state_dir: PathLike, *, timeout: float = 10.0) -> None:
        if timeout < 0:
            raise ValueError("lock timeout must be explicit and non-negative")
        self.path = os.path.join(os.fspath(state_dir), LOCK_NAME)
        self.timeout = timeout
        self._lock = FileLock(
            self.path,
            timeout=timeout,
            mode=0o600,
            poll_interval=POLL_INTERVAL,
            fallback_to_soft=False,
            preserve_lock_file=True,
            on_acquired=_record_holder,
        )

    @property
    def is_locked(self) -> bool:
        """Whether this object holds the lock now."""
        return bool(self._lock.is_locked)

    def acquire(self) -> None:
        """Take the lock, waiting up to the timeout (:class:`LockTimeoutError` names the holder)."""
        started = time.monotonic()
        try:
            self._lock.acquire()
        except Timeout:
            pid = holder_pid(self.path)
            who = f"process {pid}" if pid is not None else "another process"
            waited = time.monotonic() - started
            raise LockTimeoutError(
                self.path, f"is held by {who}; gave up after {waited:.1f} s", holder_pid=pid
            ) from None

    def release(self) -> None:
        """Give the lock back."""
        self._lock.release()

    def __enter__(self) -> StateLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
