"""What a file looked like when we read it, and the check that it still does.

A snapshot records existence, file type, device, inode, size, ``mtime_ns``, ``ctime_ns``, permission bits and
the SHA-256 of the content. Verification compares every field, so neither an in-place edit that restores the
timestamps nor a delete-and-recreate that happens to reuse the inode number goes unnoticed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from typing import Any

from .errors import ConcurrentModificationError, PathLike
from .files import read_physical_stat

DEFAULT_MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Snapshot:
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

    @classmethod
    def absent(cls, path: PathLike) -> Snapshot:
        return cls(os.path.abspath(os.fspath(path)), False)

    @classmethod
    def of(cls, path: PathLike, data: bytes, info: os.stat_result) -> Snapshot:
        return cls(
            os.path.abspath(os.fspath(path)),
            True,
            stat.S_IFMT(info.st_mode),
            info.st_dev,
            info.st_ino,
            info.st_size,
            info.st_mtime_ns,
            info.st_ctime_ns,
            stat.S_IMODE(info.st_mode),
            hashlib.sha256(data).hexdigest(),
        )

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        return cls(**data)

    def differences(self, other: Snapshot) -> list[str]:
        """Names of the fields in which ``other`` differs from this snapshot."""
        if self.exists != other.exists:
            return ["existence"]
        return [name for name in _COMPARED if getattr(self, name) != getattr(other, name)]


_COMPARED = ("file_type", "device", "inode", "size", "mtime_ns", "ctime_ns", "mode", "sha256")


def take(path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES, allow_links: bool = False) -> tuple[Snapshot, bytes | None]:
    """Read ``path`` physically and return its snapshot with the bytes (``None`` when absent)."""
    result = read_physical_stat(path, max_bytes=max_bytes, allow_links=allow_links)
    if result is None:
        return Snapshot.absent(path), None
    return Snapshot.of(path, result.data, result.stat), result.data


def _quick_matches(snap: Snapshot, allow_links: bool) -> bool | None:
    """Compare metadata only: False on a sure mismatch, None when the content must be hashed."""
    try:
        info = os.stat(snap.path, follow_symlinks=allow_links)
    except FileNotFoundError:
        return not snap.exists
    if not snap.exists:
        return False
    current = (stat.S_IFMT(info.st_mode), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
               info.st_ctime_ns, stat.S_IMODE(info.st_mode))
    recorded = (snap.file_type, snap.device, snap.inode, snap.size, snap.mtime_ns, snap.ctime_ns, snap.mode)
    return None if current == recorded else False


def verify(snap: Snapshot, *, allow_links: bool = False) -> None:
    """Raise :class:`ConcurrentModificationError` naming the file unless it still matches ``snap``."""
    quick = _quick_matches(snap, allow_links)
    if quick is True:
        return
    if quick is None:
        now, _ = take(snap.path, max_bytes=max(snap.size, 1), allow_links=allow_links)
        diff = snap.differences(now)
        if not diff:
            return
    else:
        diff = ["metadata"]
    detail = ", ".join(diff)
    raise ConcurrentModificationError(
        snap.path, f"was changed by another program after it was read ({detail} differs); nothing was written"
    )
