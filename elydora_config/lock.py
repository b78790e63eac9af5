"""One persistent inter-process lock per state directory.

A plain ``flock`` on the file ``.lock`` (the kernel drops the lock when its holder dies, so a killed holder
never blocks the next process), polled until an explicit timeout. On Windows it is a ``LockFile`` range of
that file (``msvcrt.locking``), which Windows drops likewise (:mod:`._platform`).  The lock file is created ``0600`` and
never unlinked: unlinking a lock file lets two processes lock two different inodes.  While holding the lock
we write our PID into it, so that a waiter that times out can name the holder.

A released lock's descriptor is kept open for the next acquisition in this process (a few, by path), so a
cycle is: ``stat`` of the path (is it still the file we have open?), ``flock``, ``pread`` of the holder record
(``pwrite`` only when another process wrote its PID since), ``flock(LOCK_UN)``. An idle descriptor is taken
by one acquirer at a time: two threads (or two ``StateLock`` objects) never share one, so they still exclude
each other. A child process forgets the idle descriptors it inherited (it would share their open file
descriptions, hence their locks, with its parent) and opens its own. A lock file replaced behind our back (the
state directory removed and made again) no longer matches the ``stat`` and is opened afresh. On Windows, where
an open file keeps its folder from being removed, a released descriptor is closed instead.
"""

from __future__ import annotations

import os
import threading
import time
from types import TracebackType

from . import _platform
from ._platform import locking
from .errors import LockTimeoutError, PathLike

LOCK_NAME = ".lock"
POLL_INTERVAL = 0.001
LOCK_MODE = 0o600
_KEEP_IDLE = not _platform.OPEN_FILES_PIN_NAMES
"""Whether a released descriptor is kept for the next cycle (not on Windows: an open file pins its folder)."""


_PID_WIDTH = 20


_record: tuple[int, bytes] = (-1, b"")


def _record_holder(fd: int) -> None:
    """Write our PID over the previous holder's, fixed width: no truncate (it costs a block reallocation); not
    at all when the file already says our PID (re-writing the same bytes would only dirty the inode)."""
    global _record
    pid = os.getpid()
    if _record[0] != pid:
        _record = (pid, f"{pid:<{_PID_WIDTH}}\n".encode("ascii"))
    data = _record[1]
    if locking.pread(fd, len(data), 0) != data:
        locking.pwrite(fd, data, 0)


def holder_pid(lock_path: PathLike) -> int | None:
    """The PID written by the current (or last) holder of the lock, if readable."""
    try:
        with open(lock_path, "rb") as fh:
            text = fh.read(32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _open_lock_file(path: str) -> tuple[int, tuple[int, int]]:
    """The lock file opened (created ``0600`` if missing) and its device and inode."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | _platform.O_CLOEXEC | _platform.O_BINARY, LOCK_MODE)
    if not _KEEP_IDLE:
        # Windows: the descriptor is closed at release (no identity to remember), and a file opened for writing
        # is not read-only, which is all the mode Windows keeps: no fstat (Wine's costs milliseconds).
        return fd, (0, 0)
    try:
        info = os.fstat(fd)
        if _platform.file_mode(info.st_mode) != _platform.kept_mode(LOCK_MODE) and _platform.owned_by_caller(info):
            _platform.fchmod(fd, LOCK_MODE)  # created under a umask, or by an older version
    except BaseException:
        os.close(fd)
        raise
    return fd, (info.st_dev, info.st_ino)


_IDLE_MAX = 4
_idle: dict[str, tuple[int, tuple[int, int]]] = {}
"""Released lock descriptors by path, with the identity of the file they have open (oldest first)."""
_idle_guard = threading.Lock()


def _take_idle(path: str) -> tuple[int, tuple[int, int]] | None:
    """An idle descriptor of ``path``'s lock file if the path still names that file (it is then ours alone)."""
    with _idle_guard:
        kept = _idle.pop(path, None)
    if kept is None:
        return None
    try:
        info = os.stat(path)
    except OSError:
        info = None
    if info is None or (info.st_dev, info.st_ino) != kept[1]:
        os.close(kept[0])
        return None
    return kept


def _park(path: str, fd: int, identity: tuple[int, int]) -> None:
    """Keep the released ``fd`` for the next acquisition (closing the oldest beyond the bound)."""
    with _idle_guard:
        spare = _idle.pop(path, None)
        _idle[path] = (fd, identity)
        while len(_idle) > _IDLE_MAX:
            oldest = next(iter(_idle))
            os.close(_idle.pop(oldest)[0])
    if spare is not None:
        os.close(spare[0])


def _forget_idle() -> None:
    """In a forked child: the inherited idle descriptors share their locks with the parent, never use them
    (nor the shared lock objects, whose per-thread state may say "held" for a lock the parent holds)."""
    global _idle_guard
    _idle_guard = threading.Lock()
    for fd, _ in _idle.values():
        os.close(fd)
    _idle.clear()
    _shared.clear()


_platform.after_fork_in_child(_forget_idle)


class _Held(threading.local):
    fd: int | None = None
    identity: tuple[int, int] = (0, 0)
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
        fd, identity = _take_idle(self.path) or _open_lock_file(self.path)
        try:
            while True:
                try:
                    locking.flock(fd, locking.LOCK_EX_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() - started >= self.timeout:
                        raise self._timed_out(started) from None
                    time.sleep(POLL_INTERVAL)
            _record_holder(fd)
        except BaseException:
            os.close(fd)  # closing drops the lock if we got it
            raise
        held.fd, held.identity, held.depth = fd, identity, 1

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
                locking.flock(fd, locking.LOCK_UN)
            except BaseException:
                os.close(fd)
                raise
            if _KEEP_IDLE:
                _park(self.path, fd, held.identity)
            else:
                os.close(fd)

    def __enter__(self) -> StateLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


_shared: dict[tuple[str, float], StateLock] = {}


def shared_lock(state_dir: str, timeout: float) -> StateLock:
    """One :class:`StateLock` per state directory and timeout for this process (a commit need not build a new
    one each time). Its holding state is per thread, as for any ``StateLock``: sharing it between threads
    shares nothing but the object."""
    key = (state_dir, timeout)
    lock = _shared.get(key)
    if lock is None:
        if len(_shared) >= _IDLE_MAX * 4:
            _shared.clear()
        lock = _shared[key] = StateLock(state_dir, timeout=timeout)
    return lock
