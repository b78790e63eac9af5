"""What the generated hooks do differently on Windows: the runtime's pinned copy of the library's OS layer.

The library's OS layer (``elydora_config._platform``) is the one home of these rules; a generated script must
run without the package, so the generator writes everything below the ``from __future__`` line into the
guard, the audit hook and the supervisor launcher in place of their ``# @inline`` import, and tests pin the
copies to the library (the same lock byte, the same link test). On POSIX every name is ``posix``'s own
function or constant, as the hooks called them before (no wrapper: ``benchmarks.hooks`` measures the start-up
budget). On Windows:

- ``system`` is ``os`` (loaded at start-up there anyway); ``SEP`` the separator of the paths the scripts join.
- ``open_file`` with ``NOFOLLOW``: the name is ``lstat``-ed before the open (a symbolic link, a junction or any
  other name-surrogate reparse point is refused), and after it the name must still be that very file (the
  file id); files open binary and are not inherited. An open that another process's replace of the file
  refuses (Windows refuses new opens of a file being replaced) is retried for a moment (``OPEN_RETRIES``).
- ``OTHERS``: the mode bits that give other users access (``0o077``); ``0`` on Windows, which keeps no such
  bits: access is the ACL a file inherits from its folder (a state directory gets an owner-only DACL).
  ``user_id()`` is the owner ``stat`` reports for the user's files (``0`` on Windows, as ``stat`` says).
- ``try_lock``: ``flock(LOCK_EX | LOCK_NB)``; on Windows ``LockFile`` of the byte at ``LOCK_OFFSET`` (the
  library's lock byte: the flusher and the refresher lock the same byte through the library).
- ``SPOOL_LOCK``: Windows appends are not atomic (the C runtime seeks to the end, then writes) and an open file
  cannot be renamed, so the writers of ``spool.jsonl`` and the flusher that retires it take ``spool.lock``
  instead of an ``flock`` on the spool (``append_lock``; ``share_lock`` does nothing there).
- ``spawn_detached``: ``posix_spawn`` in a new session with ``/dev/null`` on 0-2; on Windows a process with no
  console, in its own process group (an agent's Ctrl+C does not reach it), out of the hook's job object where
  that job allows it, its stdin a pipe closed at once. A lock is not handed to it (Windows locks belong to the
  process that took them): the flusher takes ``flush.lock`` itself (``HANDS_OVER_LOCKS``). Until it has, the
  hook's note at the start of ``flush.lock`` (``note_flusher_start``, read under the lock byte) tells the other
  hooks of the burst that one is starting (``flusher_starting``), so they start none; the flusher blanks it.
- ``read_chunk``: a chunk of stdin, waiting at most ``left`` seconds: ``select`` on POSIX; Windows' ``select``
  takes sockets only, so the pipe is made non-blocking and polled every millisecond.
"""

from __future__ import annotations

import sys
import time

WINDOWS = sys.platform == "win32"
# The Windows half's constants (here, so that the tests pin them on every system):
STDIN_POLL = 0.001
"""Seconds between two looks at a Windows stdin pipe that has nothing to read yet."""
SPOOL_LOCK = "spool.lock"  # copy of elydora_cli.statefiles.SPOOL_LOCK (tests pin them equal)
APPEND_LOCK_WAIT = 2.0
"""Seconds a Windows writer waits for ``spool.lock`` (other writers hold it for one write each)."""
LOCK_OFFSET = 1 << 30  # copy of elydora_config._platform._windows._LOCK_OFFSET (tests pin them equal)
OPEN_RETRIES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)  # the first of _windows._RETRY_DELAYS (pinned)
FLUSHER_GRACE = 10.0
"""Seconds a started flusher has to take ``flush.lock`` before another hook may start one (it failed)."""
START_RECORD = 20  # copy of elydora_cli.runtime.flushlock.START_RECORD (tests pin them equal)
if sys.platform == "win32":  # written out, so that mypy checks each half for its own system
    import errno
    import msvcrt
    import os

    system = os

    SEP = "\\"
    NOFOLLOW = 0x1000000  # our bit, as elydora_config._platform._windows.O_NOFOLLOW
    NONBLOCK = 0
    CLOEXEC = system.O_NOINHERIT | system.O_BINARY
    OTHERS = 0
    HANDS_OVER_LOCKS = False
    _NAME_SURROGATE = 0x20000000  # copy of _windows._NAME_SURROGATE
    _REPARSE_POINT = 0x400
    _HELD_OPEN = (5, 32, None)  # copy of _windows._HELD_OPEN: access denied, sharing violation, C runtime
    _DETACHED = 0x00000008 | 0x00000200 | 0x08000000  # DETACHED_PROCESS, CREATE_NEW_PROCESS_GROUP, NO_WINDOW
    _BELOW_NORMAL = 0x00004000  # BELOW_NORMAL_PRIORITY_CLASS
    _BREAKAWAY = 0x01000000  # CREATE_BREAKAWAY_FROM_JOB
    _environ = {name.upper().encode(): value.encode("utf-8", "replace") for name, value in system.environ.items()}

    def getenv(name: bytes) -> bytes | None:
        """The variable ``name`` (Windows names ignore case)."""
        return _environ.get(name.upper())

    def user_id() -> int:
        return 0

    def is_link(info: object) -> bool:
        """Whether an ``lstat`` result is a symbolic link, a junction or another name-surrogate reparse point."""
        mode, attributes, tag = info.st_mode, info.st_file_attributes, info.st_reparse_tag  # type: ignore[attr-defined]
        return mode & 0o170000 == 0o120000 or bool(attributes & _REPARSE_POINT and tag & _NAME_SURROGATE)

    def open_file(path: str, flags: int, mode: int = 0o777) -> int:
        """``os.open``; with ``NOFOLLOW`` a link is refused, before and after the open (see above)."""
        nofollow = flags & NOFOLLOW
        if nofollow:
            try:
                if is_link(system.lstat(path)):
                    raise OSError(errno.ELOOP, "is a link (symbolic link or junction)", path)
            except FileNotFoundError:
                pass
        fd = _open_retrying(path, (flags & ~NOFOLLOW) | CLOEXEC, mode)
        if nofollow:
            try:
                entry, opened = system.lstat(path), system.fstat(fd)
                if is_link(entry) or (entry.st_dev, entry.st_ino) != (opened.st_dev, opened.st_ino):
                    raise OSError(errno.ELOOP, "is a link (symbolic link or junction)", path)
            except BaseException:
                system.close(fd)
                raise
        return fd

    def _open_retrying(path: str, flags: int, mode: int) -> int:
        for delay in OPEN_RETRIES:
            try:
                return system.open(path, flags, mode)
            except PermissionError as exc:
                if exc.winerror not in _HELD_OPEN or system.path.isdir(path):
                    raise
            time.sleep(delay)
        return system.open(path, flags, mode)

    def try_lock(fd: int) -> bool:
        """Take the lock byte of ``fd``'s file (``False``: another process holds it)."""
        system.lseek(fd, LOCK_OFFSET, 0)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            if exc.errno in (0, errno.EACCES, errno.EDEADLK):  # the C runtime's "locked"; Wine's sets none
                return False
            raise
        return True

    def flusher_starting(fd: int) -> bool:
        """Whether the note at the start of ``flush.lock`` (``fd``, its lock byte held) says that a hook started a
        flusher less than ``FLUSHER_GRACE`` seconds ago (by the system's monotonic clock)."""
        system.lseek(fd, 0, 0)
        note = system.read(fd, START_RECORD).strip()
        age = time.monotonic() - int(note) / 1000 if note.isdigit() else -1.0
        return 0.0 <= age < FLUSHER_GRACE

    def note_flusher_start(fd: int) -> None:
        system.lseek(fd, 0, 0)
        system.write(fd, b"%-*d" % (START_RECORD, int(time.monotonic() * 1000)))

    def append_lock(directory: str) -> int | None:
        """``spool.lock`` of ``directory``, held (closing the descriptor releases it)."""
        fd = open_file(f"{directory}{SEP}{SPOOL_LOCK}", system.O_RDWR | system.O_CREAT | NOFOLLOW, 0o600)
        deadline = time.monotonic() + APPEND_LOCK_WAIT
        while not try_lock(fd):
            if time.monotonic() > deadline:
                system.close(fd)
                raise OSError(errno.EAGAIN, f"held by another process for {APPEND_LOCK_WAIT} s", SPOOL_LOCK)
            time.sleep(STDIN_POLL)
        return fd

    def share_lock(fd: int) -> None:
        """Nothing: ``append_lock`` holds the writers apart."""

    def spawn_detached(argv: list[str], keep_fd: int | None = None, nice: int = 0) -> object:
        """Start ``argv`` detached (see above), below normal priority with ``nice``; the child's handle for
        :func:`finished`."""
        import subprocess

        flags = _DETACHED | (_BELOW_NORMAL if nice else 0)
        for extra in (_BREAKAWAY, 0):  # a job that allows no breakaway refuses the flag: start inside it then
            try:
                child = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    creationflags=flags | extra,
                )  # fmt: skip
                break
            except PermissionError:
                if not extra:
                    raise
        child.stdin.close()  # type: ignore[union-attr]
        return child

    def finished(child: object) -> bool:
        return child.poll() is not None  # type: ignore[attr-defined]

    def read_chunk(left: float, size: int) -> bytes | None:
        """Up to ``size`` bytes of stdin (``b""`` at its end), waiting at most ``left`` seconds (``None``)."""
        try:
            system.set_blocking(0, False)  # type: ignore[attr-defined,unused-ignore]  # Windows too since 3.12
        except OSError:  # not a pipe: a file does not block
            return system.read(0, size)
        until = time.monotonic() + left
        while True:
            try:
                return system.read(0, size)
            except BlockingIOError:
                if time.monotonic() >= until:
                    return None
                time.sleep(STDIN_POLL)

else:
    import posix
    import select

    system = posix

    SEP = "/"
    NOFOLLOW = system.O_NOFOLLOW
    NONBLOCK = system.O_NONBLOCK
    CLOEXEC = system.O_CLOEXEC
    OTHERS = 0o077
    HANDS_OVER_LOCKS = True
    open_file = system.open
    getenv = system.environ.get
    user_id = system.getuid

    def is_link(info: object) -> bool:
        return info.st_mode & 0o170000 == 0o120000  # type: ignore[attr-defined,no-any-return]

    def try_lock(fd: int) -> bool:
        """``flock(LOCK_EX | LOCK_NB)`` on ``fd`` (``False``: another process holds it)."""
        import fcntl  # loaded by the few calls that lock: the guard's usual path locks nothing

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def flusher_starting(fd: int) -> bool:
        """False: the flusher has the lock from its spawn on (``HANDS_OVER_LOCKS``)."""
        return False

    def note_flusher_start(fd: int) -> None:
        """Nothing (see :func:`flusher_starting`)."""

    def append_lock(directory: str) -> int | None:
        """Nothing to hold: the writer takes a shared ``flock`` on the spool itself (``share_lock``)."""
        return None

    def share_lock(fd: int) -> None:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_SH)

    def spawn_detached(argv: list[str], keep_fd: int | None = None, nice: int = 0) -> int:
        """``posix_spawn`` of ``argv`` in a new session, ``/dev/null`` on 0-2, ``keep_fd`` inherited, ``nice``
        steps below this process's priority. The child's pid."""
        if keep_fd is not None:
            system.set_inheritable(keep_fd, True)  # Python opens descriptors non-inheritable (PEP 446)
        actions = [(system.POSIX_SPAWN_OPEN, n, "/dev/null", system.O_RDWR, 0) for n in (0, 1, 2)]
        pid = system.posix_spawn(argv[0], argv, system.environ, file_actions=actions, setsid=True)
        if nice:
            try:  # best effort: it may be done already
                own = system.getpriority(system.PRIO_PROCESS, 0)
                system.setpriority(system.PRIO_PROCESS, pid, min(own + nice, 19))
            except OSError:
                pass
        return pid

    def finished(child: int) -> bool:
        return system.waitpid(child, system.WNOHANG)[0] != 0

    def read_chunk(left: float, size: int) -> bytes | None:
        """Up to ``size`` bytes of stdin (``b""`` at its end), waiting at most ``left`` seconds (``None``)."""
        return system.read(0, size) if select.select((0,), (), (), left)[0] else None
