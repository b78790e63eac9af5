"""Every mutating system call the library makes, in one module.

Production code calls these thin wrappers instead of the operating system directly, so that the crash
harness, the power-loss model and the fault-injection tests can replace them one by one
(``monkeypatch.setattr``). Each function does exactly one system call (``write_all`` loops on short writes);
what the call is on each operating system is :mod:`._platform`'s business.

:func:`exchange` and :func:`rename_noreplace` are Linux ``renameat2`` calls; where the call or the flag is
unsupported they raise ``OSError`` with ``ENOSYS`` or ``EINVAL`` and callers fall back (Windows has
``rename_noreplace``, as its plain rename, but no exchange).
"""

from __future__ import annotations

import os

from . import _platform

O_NOFOLLOW = _platform.O_NOFOLLOW
O_CLOEXEC = _platform.O_CLOEXEC
O_DIRECTORY = _platform.O_DIRECTORY
O_NONBLOCK = _platform.O_NONBLOCK
UNSUPPORTED = _platform.UNSUPPORTED
"""Errnos that say ``renameat2`` or its flag is not available."""


def open_file(name: str, flags: int, mode: int = 0o600, *, dir_fd: int | None = None, no_links: bool = False) -> int:
    """``os.open``; ``no_links``: Linux ``openat2`` with ``RESOLVE_NO_SYMLINKS`` (no component may be a link),
    ``OSError(ENOSYS)`` where it is unavailable."""
    if no_links:
        return _platform.open_no_links(name, flags | O_CLOEXEC, mode, dir_fd)
    return _platform.open_at(name, flags | O_CLOEXEC, mode, dir_fd=dir_fd)


def write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync(fd: int) -> None:
    _platform.fsync(fd)


def fchmod(fd: int, mode: int) -> None:
    _platform.fchmod(fd, mode)


def fchown(fd: int, uid: int, gid: int) -> None:
    _platform.fchown(fd, uid, gid)


def close(fd: int) -> None:
    _platform.close(fd)


def rename(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Rename ``src`` over ``dst`` (replacing it)."""
    _platform.rename_at(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)


def unlink(name: str, *, dir_fd: int | None = None) -> None:
    _platform.unlink_at(name, dir_fd=dir_fd)


def link(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    _platform.link_at(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd, follow_symlinks=False)


def mkdir(name: str, mode: int, *, dir_fd: int | None = None) -> None:
    _platform.mkdir_at(name, mode, dir_fd=dir_fd)


def fsync_dir(dir_fd: int) -> None:
    _platform.fsync_dir(dir_fd)


def rmdir(path: str) -> None:
    _platform.rmdir(path)


def exchange(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Atomically swap the two names (both must exist)."""
    _platform.exchange(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)


def rename_noreplace(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Rename ``src`` to ``dst``, failing with ``EEXIST`` instead of replacing an existing ``dst``."""
    _platform.rename_noreplace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
