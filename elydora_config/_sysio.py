"""Every mutating system call the library makes, in one module.

Production code calls these thin wrappers instead of :mod:`os` directly, so that the crash harness, the
power-loss model and the fault-injection tests can replace them one by one (``monkeypatch.setattr``).
Each function does exactly one system call (``write_all`` loops on short writes).
"""

from __future__ import annotations

import os

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def open_file(name: str, flags: int, mode: int = 0o600, *, dir_fd: int | None = None) -> int:
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
