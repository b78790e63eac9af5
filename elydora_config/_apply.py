"""Putting one staged entry in place, race-free where Linux ``renameat2`` works; shared by both commit paths.

The journalled commit (``_commit``) and the single-target commit (``_single``) apply an entry the same way:
a replaced target is *exchanged* with its temp file and what was swapped out must be the verified original
(else it is swapped back); a new file is renamed without replacing; a removed file is renamed aside and checked
the same way. Without ``renameat2`` the target is re-verified right before a plain ``rename``/``unlink``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from types import TracebackType

from . import _sysio
from .errors import ConcurrentModificationError, ConfigError
from .journal import Entry
from .paths import open_directory
from .snapshot import Snapshot, take_at, verify_at


class DirCache:
    """Open directory descriptors, one per directory, closed together."""

    def __init__(self, allow_links: bool) -> None:
        self.allow_links = allow_links
        self.fds: dict[str, int] = {}

    def fd(self, directory: str) -> int:
        if directory not in self.fds:
            self.fds[directory] = open_directory(directory, allow_links=self.allow_links, one_call=True)
        return self.fds[directory]

    def of(self, path: str) -> tuple[int, str]:
        return self.fd(os.path.dirname(path)), os.path.basename(path)

    def close(self) -> None:
        for fd in self.fds.values():
            _sysio.close(fd)
        self.fds.clear()


class named:  # used like a function: ``with named(path):``
    """Make an ``OSError`` from a descriptor or a directory-relative call name ``path`` (absolute).

    A plain class rather than a generator context manager: a commit enters several of these.
    """

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not isinstance(exc, OSError):
            return
        if (isinstance(exc.filename, str) and os.path.isabs(exc.filename)) or exc.errno is None:
            return
        raise OSError(exc.errno, exc.strerror, self.path) from exc


def apply_one(dfd: int, name: str, entry: Entry, expected: Snapshot, allow_links: bool) -> str | None:
    """Put one entry in place so that a foreign change made at any moment before is detected and kept.

    Returns the name (in ``dfd``) now holding the verified original, which the caller unlinks once it no longer
    needs it for a rollback, or ``None`` (a new file, or the verify-then-rename fallback).
    """
    assert entry.temp is not None
    try:
        if entry.kind == "remove":
            _sysio.rename(name, entry.temp, src_dir_fd=dfd, dst_dir_fd=dfd)
        elif entry.old.exists:
            _sysio.exchange(entry.temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        else:
            _sysio.rename_noreplace(entry.temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except FileExistsError:
        changed(entry, "was created by another program after it was read")
    except FileNotFoundError:
        if entry.old.exists and not os.path.lexists(entry.path):
            changed(entry, "was removed by another program after it was read")
        raise
    except OSError as exc:
        if exc.errno not in _sysio.UNSUPPORTED:
            raise
        verify_at(dfd, name, expected, allow_links=allow_links)
        if entry.kind == "write":
            _sysio.rename(entry.temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        else:
            _sysio.unlink(name, dir_fd=dfd)
        return None
    if not entry.old.exists:
        return None
    check_displaced(dfd, name, entry, expected, allow_links)
    return entry.temp


def changed(entry: Entry, what: str) -> None:
    raise ConcurrentModificationError(entry.path, f"{what}; it was left as the other program wrote it")


def check_displaced(dfd: int, name: str, entry: Entry, expected: Snapshot, allow_links: bool) -> None:
    """``entry.temp`` now holds what was at ``name``: it must be the original, else it is put back."""
    assert entry.temp is not None
    try:
        # Judged by the inode it opened (compared with the snapshot's): where the name points afterwards is moot.
        now, _ = take_at(
            dfd, entry.temp, entry.path, max_bytes=max(expected.size, 1), allow_links=allow_links, same_entry=False
        )
        diff = expected.changed_besides_ctime(now)
    except ConfigError as exc:
        diff = [exc.reason]
    if not diff:
        return
    what = f"was changed by another program after it was read ({', '.join(diff)} differs)"
    try:
        if entry.kind == "write":
            _sysio.exchange(entry.temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        else:
            put_back(dfd, entry.temp, name)
    except OSError:
        # Never leave the other program's file under a temp name that clean-up would delete; the target is
        # not what it was, so the rollback has to look at it (hence not a plain ConcurrentModificationError).
        kept = f"{name[:80]}.elydora-conflict-{entry.temp[-12:]}"
        _sysio.rename(entry.temp, kept, src_dir_fd=dfd, dst_dir_fd=dfd)
        raise KeptAside(entry.path, f"{what}; the other program's file is kept as {kept}") from None
    changed(entry, what)


class KeptAside(ConcurrentModificationError):
    """A foreign change was detected but could not be put back in place."""


def put_back(dfd: int, temp: str, name: str) -> None:
    """Move ``temp`` back to ``name`` without replacing anything that appeared there meanwhile."""
    try:
        _sysio.rename_noreplace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as exc:
        if exc.errno not in _sysio.UNSUPPORTED:
            raise
        _sysio.link(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        _sysio.unlink(temp, dir_fd=dfd)


def fsync_dirs(dirs: DirCache, paths: Iterable[str]) -> None:
    for directory in sorted({os.path.dirname(p) for p in paths}):
        with named(directory):
            _sysio.fsync_dir(dirs.fd(directory))
