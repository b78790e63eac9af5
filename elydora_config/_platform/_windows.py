"""The Windows half of :mod:`elydora_config._platform`.

Windows has no ``openat``: a directory cannot be opened as a descriptor and no call takes ``dir_fd``. So a
*directory descriptor* here is a number (from ``1 << 24`` on, far above the C runtime's descriptors) that
names a directory path this module checked when it was "opened"; every ``*_at`` call joins the name to that
path. The checks the POSIX calls make in the kernel are made around the Windows calls:

* ``O_NOFOLLOW`` (our bit): the name is ``lstat``-ed before the open (a link is refused before anything
  follows it), and after the open the name must still be a non-link entry with the very file id the open
  returned (so a link swapped in between is caught). A *link* is a symbolic link or any name-surrogate reparse
  point (junctions, mount points), refused alike.
* ``O_DIRECTORY`` (our bit): the path must be a directory (with ``O_NOFOLLOW``: not a link); the number is
  registered. The check is made at the open: a directory swapped for a junction afterwards is not noticed
  (POSIX holds the directory itself; this is the remaining difference, docs/transactions.md, "Platforms").
* Files are always opened ``O_BINARY`` (the C runtime's default text mode would turn CRLF into LF and stop at
  Ctrl-Z) and ``O_NOINHERIT``.
* ``rename_at`` is ``os.replace`` (MoveFileEx with MOVEFILE_REPLACE_EXISTING), and ``unlink_at``
  ``os.unlink``, retried for about 1.5 s while another program holds the file open without delete sharing
  (editors and agents do); ``rename_noreplace`` is ``os.rename``, which never replaces; there is no exchange.
  Opening a file is retried the same way: while another process replaces it, Windows refuses new opens of the
  old file (access denied, "delete pending") until its last handle closes.
* Durability: ``fsync`` is FlushFileBuffers; a directory cannot be flushed (NTFS journals its own metadata),
  so ``fsync_dir`` does nothing.
* The lock is ``msvcrt.locking`` (LockFile) of one byte far beyond the holder record (a locked range cannot be
  read by others, the record must stay readable); Windows drops it when the holder's handle closes, also when
  the process is killed.
* Modes: Windows keeps only the read-only attribute (``0o444`` or ``0o666``); owner-only access comes from
  the ACL a new file inherits from its folder: a state directory is made with mode ``0o700``, for which
  Python 3.13's ``os.mkdir`` sets a protected DACL (owner, SYSTEM, Administrators); a user's config folder
  passes on what the profile grants. There is no owner or group to keep.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import itertools
import msvcrt
import os
import stat
import sys
import time
from ctypes import wintypes
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing costs a read-only command a few ms: annotations only
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

assert sys.platform == "win32"  # for mypy: this half is checked with --platform win32

O_NOFOLLOW = 0x1000000
O_DIRECTORY = 0x2000000
_OURS = O_NOFOLLOW | O_DIRECTORY
O_CLOEXEC = os.O_NOINHERIT
O_NONBLOCK = 0
O_BINARY = os.O_BINARY
OPEN_FILES_PIN_NAMES = True  # os.open shares no delete access
UNSUPPORTED = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP})

_FIRST_DIR = 1 << 24
_dirs: dict[int, str] = {}
_numbers = itertools.count(_FIRST_DIR)
_NAME_SURROGATE = 0x20000000  # the reparse tag bit of links (symbolic links, junctions, mount points)
_LONG = 240  # from here on a path gets the \\?\ prefix (MAX_PATH is 260, directories 248)


def _long(path: str) -> str:
    """``path``, prefixed ``\\\\?\\`` when it is long (then MAX_PATH does not apply, whatever the registry says)."""
    if len(path) < _LONG or path.startswith("\\\\?\\"):
        return path
    path = os.path.abspath(path)
    return "\\\\?\\UNC\\" + path[2:] if path.startswith("\\\\") else "\\\\?\\" + path


def _path(name: str, dir_fd: int | None) -> str:
    if dir_fd is None:
        return _long(name)
    base = _dirs.get(dir_fd)
    if base is None:
        raise OSError(errno.EBADF, "Bad file descriptor", name)
    return _long(base + name if base.endswith("\\") else base + "\\" + name)


def is_link(info: os.stat_result) -> bool:
    """Whether an ``lstat`` result is a link: a symbolic link, a junction or another name-surrogate reparse point."""
    if stat.S_ISLNK(info.st_mode):
        return True
    reparse = info.st_file_attributes & stat.FILE_ATTRIBUTE_REPARSE_POINT
    return bool(reparse and info.st_reparse_tag & _NAME_SURROGATE)


def _refused(name: str) -> OSError:
    return OSError(errno.ELOOP, "Is a link (symbolic link or junction)", name)


def open_at(name: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
    """``os.open`` relative to a directory descriptor, with our ``O_NOFOLLOW`` and ``O_DIRECTORY`` (see above)."""
    path = _path(name, dir_fd)
    nofollow = bool(flags & O_NOFOLLOW)
    if flags & O_DIRECTORY:
        return _open_directory(path, nofollow)
    if nofollow:
        try:
            if is_link(os.lstat(path)):
                raise _refused(name)
        except FileNotFoundError:
            pass
    fd = _retrying(_open_file, path, (flags & ~_OURS) | os.O_BINARY | os.O_NOINHERIT, mode)
    if nofollow:
        try:
            entry, opened = os.lstat(path), os.fstat(fd)
            if is_link(entry) or (entry.st_dev, entry.st_ino) != (opened.st_dev, opened.st_ino):
                raise _refused(name)
        except BaseException:
            os.close(fd)
            raise
    return fd


def _open_file(path: str, flags: int, mode: int) -> int:
    """``os.open``; a directory, which Windows refuses to open as a file (access denied), says so at once."""
    try:
        return os.open(path, flags, mode)
    except PermissionError:
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path) from None
        raise


def _open_directory(path: str, nofollow: bool) -> int:
    info = os.lstat(path) if nofollow else os.stat(path)
    if nofollow and is_link(info):
        raise _refused(path)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "Not a directory", path)
    number = next(_numbers)
    _dirs[number] = path
    return number


def open_no_links(name: str, flags: int, mode: int, dir_fd: int | None) -> int:
    """Linux's ``openat2``: not here (callers walk the path instead)."""
    raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), name)


def stat_at(name: str, *, dir_fd: int | None = None, follow_symlinks: bool = True) -> os.stat_result:
    path = _path(name, dir_fd)
    return os.stat(path) if follow_symlinks else os.lstat(path)


def listdir(path: int | str) -> list[str]:
    """The names in a directory given by path or by directory descriptor."""
    if isinstance(path, int):
        base = _dirs.get(path)
        if base is None:
            raise OSError(errno.EBADF, "Bad file descriptor")
        return os.listdir(base)
    return os.listdir(_long(path))


def close(fd: int) -> None:
    """Close a file descriptor, or forget a directory descriptor."""
    if fd < _FIRST_DIR:
        os.close(fd)
    elif _dirs.pop(fd, None) is None:
        raise OSError(errno.EBADF, "Bad file descriptor")


_RETRY_DELAYS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.1, 0.2, 0.25, 0.25, 0.5)
"""Waits between attempts at a rename or unlink that another program's open handle blocks (about 1.5 s)."""
_HELD_OPEN = frozenset({5, 32, None})
"""ERROR_ACCESS_DENIED (a replace onto an open file), ERROR_SHARING_VIOLATION, and none: ``os.open`` goes through
the C runtime, whose refusals carry only ``errno`` EACCES."""


def _retrying(call: Callable[..., T], *args: object) -> T:
    """``call(*args)``, tried again while another process's handle is in the way (see the module docstring)."""
    for delay in _RETRY_DELAYS:
        try:
            return call(*args)
        except PermissionError as exc:
            if exc.winerror not in _HELD_OPEN:
                raise
        time.sleep(delay)
    return call(*args)


def rename_at(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Replace ``dst`` by ``src`` atomically (MoveFileEx), waiting a little for readers that hold ``dst``; a
    reader that does not let go within that time fails the rename with an error naming ``dst``."""
    target = _path(dst, dst_dir_fd)
    try:
        _retrying(os.replace, _path(src, src_dir_fd), target)
    except PermissionError as exc:
        if exc.winerror not in _HELD_OPEN:
            raise
        reason = "is open in another program, which keeps Windows from replacing it; close it and try again"
        raise PermissionError(errno.EACCES, reason, target) from exc


def rename_noreplace(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Rename, failing with ``FileExistsError`` when ``dst`` exists (a Windows rename never replaces)."""
    os.rename(_path(src, src_dir_fd), _path(dst, dst_dir_fd))


def exchange(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """No atomic exchange of two names on Windows: callers verify, then replace."""
    raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), src, None, dst)


def unlink_at(name: str, *, dir_fd: int | None = None) -> None:
    _retrying(os.unlink, _path(name, dir_fd))


def link_at(
    src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None, follow_symlinks: bool = True
) -> None:
    """A hard link (CreateHardLink); a volume without them (FAT) says ``ENOTSUP`` and callers copy instead."""
    try:
        os.link(_path(src, src_dir_fd), _path(dst, dst_dir_fd))
    except OSError as exc:
        if exc.winerror in (1, 50):  # ERROR_INVALID_FUNCTION, ERROR_NOT_SUPPORTED
            raise OSError(errno.ENOTSUP, "hard links are not supported here", src, None, dst) from None
        raise


def mkdir_at(name: str, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
    """``os.mkdir``. Mode ``0o700`` (state directories) gives the folder, from Python 3.13 on, a protected DACL
    of its owner, SYSTEM and Administrators, which the files made in it inherit; any other mode: the
    folder inherits its parent's ACL."""
    os.mkdir(_path(name, dir_fd), mode)


def rmdir(path: str) -> None:
    os.rmdir(_long(path))


def chown_at(path: str, uid: int, gid: int, *, dir_fd: int | None = None, follow_symlinks: bool = True) -> None:
    """Nothing: a Windows file belongs to whoever created it, and there is no owner for us to keep."""


def fchown(fd: int, uid: int, gid: int) -> None:
    """Nothing (see :func:`chown_at`)."""


def fchmod(fd: int, mode: int) -> None:
    """Set or clear the read-only attribute (the one permission Windows keeps in a mode; Python 3.13 and later)."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)


fsync = os.fsync  # FlushFileBuffers


def fsync_dir(dir_fd: int) -> None:
    """Nothing: a directory cannot be flushed on Windows; NTFS journals the rename itself."""


def file_mode(st_mode: int) -> int:
    """The read-only attribute as ``0o444`` or ``0o666`` (the execute bits ``stat`` derives from the name's
    extension are not the file's: a temp file and its target would differ)."""
    return stat.S_IMODE(st_mode) & 0o666


def kept_mode(mode: int) -> int:
    """What Windows keeps of ``mode``: writable (``0o666``) or read-only (``0o444``)."""
    return 0o666 if mode & 0o200 else 0o444


def is_private(info: os.stat_result) -> bool:
    """True: access is the ACL the file inherits from its folder, not bits the library could read here."""
    return True


def may_write(mode: int, uid: int, gid: int) -> bool:
    """Whether the read-only attribute is clear."""
    return bool(mode & 0o200)


def user_id() -> int:
    """``0``, the owner ``stat`` gives every file on Windows."""
    return 0


def is_superuser() -> bool:
    """False: an elevated administrator leaves no files another user cannot open (the folder's ACL applies)."""
    return False


def owned_by_caller(info: os.stat_result) -> bool:
    return True


LOCK_SH = 1  # the values of fcntl's LOCK_SH, LOCK_EX, LOCK_EX | LOCK_NB and LOCK_UN
LOCK_EX = 2
LOCK_EX_NB = 6
LOCK_UN = 8
_LOCK_OFFSET = 1 << 30
_LOCK_POLL = (0.001, 0.002, 0.005, 0.01)
"""Waits between attempts at a lock another process holds (``LK_LOCK`` would wait a whole second), the last
repeated."""


def flock(fd: int, operation: int) -> None:
    """``fcntl.flock`` on one byte at ``_LOCK_OFFSET``: ``LOCK_EX_NB``, ``LOCK_EX`` (waits) and ``LOCK_UN``.
    ``LOCK_SH`` raises ``ENOTSUP``: ``LockFile`` has no shared lock (callers hold writers apart otherwise)."""
    os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
    if operation == LOCK_UN:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    if operation == LOCK_SH:
        raise OSError(errno.ENOTSUP, "shared locks are not available on Windows")
    attempt = 0
    while True:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return
        except OSError as exc:
            # EACCES is what Windows' C runtime sets for a range locked by another handle; Wine's sets no errno.
            if exc.errno not in (0, errno.EACCES, errno.EDEADLK):
                raise
            if operation == LOCK_EX_NB:
                raise BlockingIOError(errno.EAGAIN, "locked by another process") from None
        time.sleep(_LOCK_POLL[min(attempt, len(_LOCK_POLL) - 1)])
        attempt += 1
        os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)


def pread(fd: int, length: int, offset: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


def pwrite(fd: int, data: bytes, offset: int) -> int:
    os.lseek(fd, offset, os.SEEK_SET)
    return os.write(fd, data)


_kernel32: Any = None
_STILL_ACTIVE = 259
_PROCESS_QUERY_LIMITED_INFORMATION = 0x1000


def _kernel() -> Any:
    global _kernel32
    if _kernel32 is None:
        kernel = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
        kernel.OpenProcess.restype = wintypes.HANDLE
        kernel.GetExitCodeProcess.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD)]
        kernel.GetExitCodeProcess.restype = wintypes.BOOL
        kernel.CloseHandle.argtypes = [wintypes.HANDLE]
        kernel.CloseHandle.restype = wintypes.BOOL
        _kernel32 = kernel
    return _kernel32


def pid_alive(pid: int) -> bool:
    """Whether the process runs (``os.kill(pid, 0)`` would *terminate* it on Windows)."""
    kernel = _kernel()
    handle = kernel.OpenProcess(_PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return bool(ctypes.get_last_error() == 5)  # ERROR_ACCESS_DENIED: it exists, it is another user's
    try:
        code = wintypes.DWORD()
        return bool(kernel.GetExitCodeProcess(handle, ctypes.byref(code)) and code.value == _STILL_ACTIVE)
    finally:
        kernel.CloseHandle(handle)


def is_closed_pipe(exc: BaseException, fd: int) -> bool:
    """Whether ``exc`` is a write to the pipe on descriptor ``fd`` that its reader closed: ``EPIPE``, or what the
    C runtime makes of ``ERROR_NO_DATA`` ("the pipe is being closed"), ``EINVAL`` with no file name and no Windows
    error code, while ``fd`` is a pipe (a file operation's ``EINVAL`` names its file and carries its code)."""
    if isinstance(exc, BrokenPipeError):
        return True
    if not isinstance(exc, OSError) or exc.errno != errno.EINVAL or exc.filename is not None or exc.winerror:
        return False
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def flock_held(info: os.stat_result) -> bool | None:
    """``None``: Windows does not say who holds a lock on a file without taking it."""
    return None


def after_fork_in_child(function: Callable[[], object]) -> None:
    """Nothing: Windows does not fork."""


_DETACHED = 0x00000008 | 0x00000200 | 0x08000000  # DETACHED_PROCESS, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW
_BELOW_NORMAL = 0x00004000  # BELOW_NORMAL_PRIORITY_CLASS
_BREAKAWAY = 0x01000000  # CREATE_BREAKAWAY_FROM_JOB
NEW_SESSION: dict[str, Any] = {"creationflags": 0x00000200}  # CREATE_NEW_PROCESS_GROUP
"""``subprocess.Popen`` arguments that start a child in a group of its own (Ctrl+C of ours does not reach it)."""


def spawn_detached(argv: list[str], *, nice: bool = False) -> int:
    """Start ``argv`` with no console, in a process group of its own, out of this process's job object where the
    job allows it (a job that kills its processes when it closes would take the child along), below normal
    priority with ``nice``; its stdin a pipe closed at once (Wine refuses a null device there), stdout and
    stderr the null device. Not waited for; its process id."""
    import subprocess

    flags = _DETACHED | (_BELOW_NORMAL if nice else 0)
    for extra in (_BREAKAWAY, 0):
        try:
            child = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                creationflags=flags | extra,
            )  # fmt: skip
            break
        except PermissionError:  # the job refuses a breakaway: start the child inside it
            if not extra:
                raise
    assert child.stdin is not None
    child.stdin.close()
    return child.pid


def kill_session(process: Any) -> None:
    """Kill a child started with :data:`NEW_SESSION` and the processes it started (``taskkill /T``), else at
    least the child itself."""
    import subprocess

    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            ["taskkill", "/F", "/T", "/PID", str(process.pid)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False,
        )  # fmt: skip
    process.kill()


def split_root(absolute: str) -> tuple[str, list[str]]:
    """The drive (``C:\\``, or ``\\\\server\\share\\``) of an absolute normalised path and its components below it."""
    drive, rest = os.path.splitdrive(absolute)
    return drive + "\\", [p for p in rest.split("\\") if p]


def name_key(path: str) -> str:
    """Windows names are case-insensitive: the lower-case form is the key under which spellings meet."""
    return os.path.normcase(path)
