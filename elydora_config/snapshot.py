"""What a file looked like when we read it, and the check that it still does.

A snapshot records existence, file type, device, inode, size, ``mtime_ns``, ``ctime_ns``, permission bits,
owner, group and the SHA-256 of the content. Verification always re-hashes the content (a write within one
clock tick can leave every timestamp unchanged) and compares every field, so neither an in-place edit nor a
delete-and-recreate that happens to reuse the inode number goes unnoticed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Any

from . import _platform, _sysio
from .errors import ConcurrentModificationError, PathLike
from .files import read_at
from .paths import open_directory, opened_directory, split_target
from .records import asdict, record, replace

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_COMPARED = ("file_type", "device", "inode", "size", "mtime_ns", "ctime_ns", "mode", "sha256", "uid", "gid")


@record(frozen=True)
class Snapshot:
    """What a file was when it was read: whether it existed, its type, device and inode, size, times,
    permission bits, owner and group, and the SHA-256 of its bytes (see the module docstring)."""

    path: str
    exists: bool
    file_type: int = 0
    device: int = 0
    inode: int = 0
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    mode: int = 0
    sha256: str = ""
    uid: int = -1
    gid: int = -1

    @classmethod
    def absent(cls, path: PathLike) -> Snapshot:
        """The snapshot of a path where no file exists."""
        return cls(os.path.abspath(os.fspath(path)), False)

    @classmethod
    def of(cls, path: PathLike, data: bytes, info: os.stat_result) -> Snapshot:
        """The snapshot of an existing file from its bytes and ``lstat`` result."""
        return _of_absolute(os.path.abspath(os.fspath(path)), data, info)

    def to_json(self) -> dict[str, Any]:
        """The snapshot as plain JSON data (for the journal)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        """The snapshot :meth:`to_json` recorded."""
        return cls(**data)

    def differences(self, other: Snapshot) -> list[str]:
        """Names of the fields in which ``other`` differs from this snapshot."""
        if self.exists != other.exists:
            return ["existence"]
        if _compared(self) == _compared(other) and self.ctime_ns == other.ctime_ns:
            return []
        return [name for name in _COMPARED if getattr(self, name) != getattr(other, name)]

    def changed_besides_ctime(self, other: Snapshot) -> list[str]:
        """:meth:`differences` without ``ctime_ns`` (which a rename or a hard link of the file changes)."""
        if self.exists == other.exists and _compared(self) == _compared(other):
            return []
        return [d for d in self.differences(other) if d != "ctime_ns"]

    def same_content(self, other: Snapshot) -> bool:
        """Same existence and, when present, the same bytes (metadata may differ)."""
        return self.exists == other.exists and self.sha256 == other.sha256

    def with_ctime(self, ctime_ns: int) -> Snapshot:
        """The same snapshot with another change time."""
        return replace(self, ctime_ns=ctime_ns)


def _compared(snap: Snapshot) -> tuple[object, ...]:
    """The fields :meth:`Snapshot.differences` compares but ``ctime_ns``, in one tuple (one comparison when
    none differs)."""
    return (
        snap.sha256,
        snap.inode,
        snap.size,
        snap.mtime_ns,
        snap.device,
        snap.file_type,
        snap.mode,
        snap.uid,
        snap.gid,
    )


def _of_absolute(full: str, data: bytes, info: os.stat_result) -> Snapshot:
    """:meth:`Snapshot.of` for a path that is absolute and normalised already (no ``abspath`` again)."""
    mode = info.st_mode
    return Snapshot(
        full,
        True,
        stat.S_IFMT(mode),
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        _platform.file_mode(mode),
        hashlib.sha256(data).hexdigest(),
        info.st_uid,
        info.st_gid,
    )


def take_at(
    dfd: int,
    name: str,
    full: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allow_links: bool = False,
    same_entry: bool = True,
) -> tuple[Snapshot, bytes | None]:
    """Snapshot of ``name`` inside the open directory ``dfd``; ``full``, its absolute normalised path, names it
    in errors and in the snapshot; ``same_entry`` as for :func:`~elydora_config.files.read_at`."""
    result = read_at(dfd, name, full, max_bytes, allow_links, same_entry=same_entry)
    if result is None:
        return Snapshot(full, False), None
    return _of_absolute(full, result.data, result.stat), result.data


def take(
    path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES, allow_links: bool = False, one_call: bool = False
) -> tuple[Snapshot, bytes | None]:
    """Read ``path`` physically and return its snapshot with the bytes (``None`` when absent); ``one_call``
    as for :func:`~elydora_config.paths.open_directory` (writers)."""
    parent, name = split_target(path)
    full = parent + name if parent[-1:] == os.sep else f"{parent}{os.sep}{name}"
    try:
        if not one_call:
            with opened_directory(parent, allow_links=allow_links) as dfd:
                return take_at(dfd, name, full, max_bytes=max_bytes, allow_links=allow_links)
        dfd = open_directory(parent, allow_links=allow_links, one_call=True)  # a writer: never a kept directory
        try:
            return take_at(dfd, name, full, max_bytes=max_bytes, allow_links=allow_links)
        finally:
            _sysio.close(dfd)
    except FileNotFoundError:
        return Snapshot(full, False), None


def _raise_changed(snap: Snapshot, diff: list[str]) -> None:
    raise ConcurrentModificationError(
        snap.path,
        f"was changed by another program after it was read ({', '.join(diff)} differs); nothing was written",
    )


def verify_at(dfd: int, name: str, snap: Snapshot, *, allow_links: bool = False) -> None:
    """Raise :class:`ConcurrentModificationError` unless ``name`` in ``dfd`` still matches ``snap``."""
    try:
        info = _platform.stat_at(name, dir_fd=dfd, follow_symlinks=allow_links)
    except FileNotFoundError:
        if snap.exists:
            _raise_changed(snap, ["existence"])
        return
    if not snap.exists:
        _raise_changed(snap, ["existence"])
    if (info.st_size, info.st_ino) != (snap.size, snap.inode):
        _raise_changed(snap, ["size" if info.st_size != snap.size else "inode"])
    now, _ = take_at(dfd, name, snap.path, max_bytes=max(snap.size, 1), allow_links=allow_links)
    diff = snap.differences(now)
    if diff:
        _raise_changed(snap, diff)


def verify(snap: Snapshot, *, allow_links: bool = False) -> None:
    """Raise :class:`ConcurrentModificationError` naming the file unless it still matches ``snap``."""
    parent, name = split_target(snap.path)
    try:
        with opened_directory(parent, allow_links=allow_links) as dfd:
            verify_at(dfd, name, snap, allow_links=allow_links)
    except FileNotFoundError:
        if snap.exists:
            _raise_changed(snap, ["existence"])
