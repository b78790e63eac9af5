"""The POSIX half of :mod:`elydora_config._platform` (Linux, macOS, the BSDs).

Most names are the :mod:`os` functions themselves (no wrapper, so no cost); the lock's ``fcntl`` calls are in
``_posix_lock``. Linux adds
``renameat2`` (``exchange``, ``rename_noreplace``) and ``openat2`` (``open_no_links``) through ``ctypes``;
elsewhere they raise ``OSError(ENOSYS)`` and callers fall back. macOS's ``fsync`` does not reach the disk's
own cache: there ``fsync`` is ``fcntl(F_FULLFSYNC)`` (unverified: no macOS machine runs our tests).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing costs a read-only command a few ms: annotations only
    from collections.abc import Callable
    from typing import Any

assert sys.platform != "win32"  # for mypy: the Windows half is checked with --platform win32

O_NOFOLLOW = os.O_NOFOLLOW
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_NONBLOCK = os.O_NONBLOCK
O_BINARY = 0
OPEN_FILES_PIN_NAMES = False

open_at = os.open
stat_at = os.stat
listdir = os.listdir
close = os.close
rename_at = os.rename
unlink_at = os.unlink
link_at = os.link
mkdir_at = os.mkdir
rmdir = os.rmdir
chown_at = os.chown
fchmod = os.fchmod
fchown = os.fchown

UNSUPPORTED = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP})
"""Errnos that say ``renameat2``, ``openat2`` or one of their flags is not available here."""


if sys.platform == "darwin":
    import fcntl

    def fsync(fd: int) -> None:
        """``F_FULLFSYNC``: on macOS a plain ``fsync`` leaves the data in the drive's cache."""
        try:
            fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
        except OSError:  # a file system that does not support it (some network ones): the plain call
            os.fsync(fd)

else:
    fsync = os.fsync
fsync_dir = fsync  # on macOS too: the rename that a directory sync makes durable must reach the disk


def is_link(info: os.stat_result) -> bool:
    """Whether an ``lstat`` result is a link the library refuses to follow."""
    return stat.S_ISLNK(info.st_mode)


def file_mode(st_mode: int) -> int:
    """The permission bits of a ``stat`` mode, as the library records and compares them."""
    return stat.S_IMODE(st_mode)


def kept_mode(mode: int) -> int:
    """The permission bits a file ends up with when ``mode`` is asked for (all of them, here)."""
    return mode


def is_private(info: os.stat_result) -> bool:
    """Whether nobody but the owner may read or write the file."""
    return not info.st_mode & 0o077


def may_write(mode: int, uid: int, gid: int) -> bool:
    """Whether the caller may write a file of these permission bits, owner and group."""
    me = os.geteuid()
    if me == 0:
        return bool(mode & 0o222)
    if me == uid:
        return bool(mode & 0o200)
    if gid == os.getegid() or gid in os.getgroups():
        return bool(mode & 0o020)
    return bool(mode & 0o002)


def user_id() -> int:
    """The caller's effective user id."""
    return os.geteuid()


def is_superuser() -> bool:
    """Whether the caller is root (who can write anywhere, and leave root-owned files behind)."""
    return os.geteuid() == 0


def owned_by_caller(info: os.stat_result) -> bool:
    return info.st_uid == os.geteuid()


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (it may belong to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_closed_pipe(exc: BaseException, fd: int) -> bool:
    """Whether ``exc`` is a write to the pipe on descriptor ``fd`` that its reader closed: ``EPIPE``."""
    return isinstance(exc, BrokenPipeError)


def flock_held(info: os.stat_result) -> bool | None:
    """Whether some process holds a ``flock`` on the file ``info`` describes, read from ``/proc/locks`` on Linux
    (without taking the lock); ``None`` where the system does not say (macOS, or no ``/proc``)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/locks", "rb") as handle:
            text = handle.read(4 << 20).decode("ascii", "replace")
    except OSError:
        return None
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    return any("FLOCK" in words and wanted in words for words in (line.split() for line in text.splitlines()))


def after_fork_in_child(function: Callable[[], object]) -> None:
    """Run ``function`` in every child this process forks."""
    os.register_at_fork(after_in_child=function)


NEW_SESSION: dict[str, Any] = {"start_new_session": True}
"""``subprocess.Popen`` arguments that start a child in a session (and process group) of its own."""
DETACHED_NICE = 10
"""How much lower the priority of a ``nice`` detached process is than its starter's."""


def spawn_detached(argv: list[str], *, nice: bool = False) -> int:
    """``posix_spawn`` of ``argv`` in a new session, ``/dev/null`` on 0-2, with ``nice`` at a lower priority
    (:data:`DETACHED_NICE` steps); not waited for. Its process id."""
    actions = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
    if nice:
        try:  # best effort: it may be done already
            own = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, pid, min(own + DETACHED_NICE, 19))
        except OSError:
            pass
    return pid


def kill_session(process: Any) -> None:
    """Kill the process group of a child started with :data:`NEW_SESSION` (the processes it started too)."""
    import signal  # only to stop a child that timed out: its import builds three enums that status never uses

    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


pread = os.pread


def split_root(absolute: str) -> tuple[str, list[str]]:
    """The root of an absolute normalised path and its components below it."""
    return os.sep, [p for p in absolute.split(os.sep) if p]


def name_key(path: str) -> str:
    """The form under which two spellings of one path compare equal (names are case-sensitive here)."""
    return path


# -- Linux: renameat2 and openat2 -----------------------------------------------------------------------------
_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_UNLOADED: Any = object()
_renameat2: Any = _UNLOADED


def _load_renameat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # loaded by the first rename that needs it, not by every command that imports the library

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _rename2(src: str, dst: str, flags: int, src_dir_fd: int | None, dst_dir_fd: int | None) -> None:
    global _renameat2
    if _renameat2 is _UNLOADED:
        _renameat2 = _load_renameat2()
    if _renameat2 is None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), src, None, dst)
    src_fd = _AT_FDCWD if src_dir_fd is None else src_dir_fd
    dst_fd = _AT_FDCWD if dst_dir_fd is None else dst_dir_fd
    if _renameat2(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst), flags) != 0:
        import ctypes

        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), src, None, dst)


def exchange(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Atomically swap the two names (both must exist): Linux ``renameat2(RENAME_EXCHANGE)``."""
    _rename2(src, dst, _RENAME_EXCHANGE, src_dir_fd, dst_dir_fd)


def rename_noreplace(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Rename without replacing (``FileExistsError`` when ``dst`` exists): Linux ``renameat2(RENAME_NOREPLACE)``."""
    _rename2(src, dst, _RENAME_NOREPLACE, src_dir_fd, dst_dir_fd)


_SYS_OPENAT2 = 437  # the same number on every Linux architecture (new system calls share one table)
_RESOLVE_NO_SYMLINKS = 0x04
_openat2_call: Any = _UNLOADED
_open_how: dict[tuple[int, int], Any] = {}


def _load_openat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        function = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_long
    # Declared, so that each call converts its arguments in C (no ctypes objects built per call); integer and
    # pointer arguments of this variadic function are passed exactly like declared ones on Linux ABIs.
    function.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    return function


def open_no_links(name: str, flags: int, mode: int, dir_fd: int | None) -> int:
    """``openat2`` with ``RESOLVE_NO_SYMLINKS`` (no component may be a link); ``OSError(ENOSYS)`` without it."""
    global _openat2_call
    if _openat2_call is _UNLOADED:
        _openat2_call = _load_openat2()
    if _openat2_call is None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), name)
    key = (flags, mode if flags & os.O_CREAT else 0)
    how = _open_how.get(key)
    if how is None:  # the kernel only reads it: one per flags and mode is enough
        import ctypes

        how = (ctypes.c_uint64 * 3)(key[0], key[1], _RESOLVE_NO_SYMLINKS)
        how = _open_how[key] = (how, ctypes.addressof(how))  # the structure stays alive beside its address
    fd = _openat2_call(_SYS_OPENAT2, _AT_FDCWD if dir_fd is None else dir_fd, os.fsencode(name), how[1], 24)
    if fd < 0:
        import ctypes

        code = ctypes.get_errno()
        if code == errno.ENOSYS:
            _openat2_call = None  # an older kernel: do not ask again
        raise OSError(code, os.strerror(code), name)
    return int(fd)
