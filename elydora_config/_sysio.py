"""Every mutating system call the library makes, in one module.

Production code calls these thin wrappers instead of :mod:`os` directly, so that the crash harness, the
power-loss model and the fault-injection tests can replace them one by one (``monkeypatch.setattr``).
Each function does exactly one system call (``write_all`` loops on short writes).

:func:`exchange` and :func:`rename_noreplace` are Linux ``renameat2`` calls (through ``ctypes``); where the
call or the flag is unsupported they raise ``OSError`` with ``ENOSYS`` or ``EINVAL`` and callers fall back.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def open_file(name: str, flags: int, mode: int = 0o600, *, dir_fd: int | None = None, no_links: bool = False) -> int:
    """``os.open``; ``no_links``: Linux ``openat2`` with ``RESOLVE_NO_SYMLINKS`` (no component may be a link),
    ``OSError(ENOSYS)`` where it is unavailable."""
    if no_links:
        return _openat2(name, flags | O_CLOEXEC, mode, dir_fd)
    return os.open(name, flags | O_CLOEXEC, mode, dir_fd=dir_fd)


def write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync(fd: int) -> None:
    os.fsync(fd)


def fchmod(fd: int, mode: int) -> None:
    os.fchmod(fd, mode)


def fchown(fd: int, uid: int, gid: int) -> None:
    os.fchown(fd, uid, gid)


def close(fd: int) -> None:
    os.close(fd)


def rename(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    os.rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)


def unlink(name: str, *, dir_fd: int | None = None) -> None:
    os.unlink(name, dir_fd=dir_fd)


def link(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    os.link(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd, follow_symlinks=False)


def mkdir(name: str, mode: int, *, dir_fd: int | None = None) -> None:
    os.mkdir(name, mode, dir_fd=dir_fd)


def fsync_dir(dir_fd: int) -> None:
    os.fsync(dir_fd)


def rmdir(path: str) -> None:
    os.rmdir(path)


_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
UNSUPPORTED = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP})  # renameat2 or its flag not available


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


_UNLOADED: Any = object()
_renameat2: Any = _UNLOADED


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


def _openat2(name: str, flags: int, mode: int, dir_fd: int | None) -> int:
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


def exchange(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Atomically swap the two names (both must exist)."""
    _rename2(src, dst, _RENAME_EXCHANGE, src_dir_fd, dst_dir_fd)


def rename_noreplace(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Rename ``src`` to ``dst``, failing with ``EEXIST`` instead of replacing an existing ``dst``."""
    _rename2(src, dst, _RENAME_NOREPLACE, src_dir_fd, dst_dir_fd)
