"""One persistent inter-process lock per state directory.

A plain ``flock`` on the file ``.lock`` (the kernel drops the lock when its holder dies, so a killed holder
never blocks the next process), polled until an explicit timeout.  The lock file is created ``0600`` and
never unlinked: unlinking a lock file lets two processes lock two different inodes.  While holding the lock
we write our PID into it, so that a waiter that times out can name the holder.  One cycle is open, lock,
one ``pwrite``, unlock, close: nothing else (no library layer between us and the system calls).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from types import TracebackType

from .errors import LockTimeoutError, PathLike

LOCK_NAME = ".lock"
POLL_INTERVAL = 0.001
LOCK_MODE = 0o600


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


def _open_lock_file(path: str) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, LOCK_MODE)
    try:
        info = os.fstat(fd)
        if info.st_mode & 0o777 != LOCK_MODE and info.st_uid == os.geteuid():
            os.fchmod(fd, LOCK_MODE)  # created under a umask, or by an older version
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Held(threading.local):
    fd: int | None = None
    depth: int = 0


class StateLock:
    """``with StateLock(state_dir, timeout=10.0):`` - exclusive across processes, re-entrant in one thread."""

    def __init__(self, state_dir: PathLike, *, timeout: float = 10.0) -> None:
        if timeout < 0:
            raise ValueError("lock timeout must be explicit and non-negative")
        self.path = os.path.join(os.fspath(state_dir), LOCK_NAME)
        self.timeout = timeout
        self._held = _Held()

    @property
    def is_locked(self) -> bool:
        """Whether this object holds the lock now."""
        return self._held.depth > 0

    def acquire(self) -> None:
        """Take the lock, waiting up to the timeout (:class:`LockTimeoutError` names the holder)."""
        held = self._held
        if held.depth:
            held.depth += 1
            return
        started = time.monotonic()
        fd = _open_lock_file(self.path)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() - started >= self.timeout:
                        raise self._timed_out(started) from None
                    time.sleep(POLL_INTERVAL)
            _record_holder(fd)
        except BaseException:
            os.close(fd)  # closing drops the lock if we got it
            raise
        held.fd, held.depth = fd, 1

    def _timed_out(self, started: float) -> LockTimeoutError:
        pid = holder_pid(self.path)
        who = f"process {pid}" if pid is not None else "another process"
        waited = time.monotonic() - started
        return LockTimeoutError(self.path, f"is held by {who}; gave up after {waited:.1f} s", holder_pid=pid)

    def release(self) -> None:
        """Give the lock back."""
        held = self._held
        if held.depth == 0:
            return
        held.depth -= 1
        if held.depth == 0 and held.fd is not None:
            fd, held.fd = held.fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> StateLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
